"""Content codings are undone as the bytes arrive and counted in every layer: "Content-Encoding: gzip,
gzip" over 1 GiB of zeros (a 2.5 KB response) took 2.19 GB of memory before fetch.max_bytes counted a byte."""

from __future__ import annotations

import asyncio
import gzip
import json
import struct
import subprocess
import sys
import zlib
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from loopback import Replies, serve_http

from newsdesk.core.config import FetchSettings
from newsdesk.ingest.codings import CHUNK, MAX_CODINGS, CodingError, Decoder, TooLarge
from newsdesk.ingest.fetch import Fetcher

GIB = 1 << 30


def zeros_gzip_twice(mebibytes: int = 1024) -> Iterator[bytes]:
    """1 GiB of zeros gzipped, gzipped again, made as it is sent: one 1 MiB deflate block of zeros,
    flushed so it stands alone, repeated 1024 times inside one gzip member (about 1 MB, never held
    whole), each piece handed to the outer gzip as it is made (about 2.5 KB in all)."""
    mib = bytes(1 << 20)
    deflate = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    block = deflate.compress(mib) + deflate.flush(zlib.Z_FULL_FLUSH)
    end = deflate.flush()
    crc = 0
    for _ in range(mebibytes):
        crc = zlib.crc32(mib, crc)
    outer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    yield outer.compress(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff")  # gzip header: deflate, no name
    for _ in range(mebibytes):
        yield outer.compress(block)
    yield outer.compress(end + struct.pack("<II", crc, (mebibytes << 20) & 0xFFFFFFFF))
    yield outer.flush()


class Bomb(Replies):
    def do_GET(self):  # noqa: N802 (http.server's name)
        self.send_response(200)
        self.send_header("Content-Type", "application/rss+xml")
        self.send_header("Content-Encoding", "gzip, gzip")
        self.end_headers()  # no Content-Length: the body ends when the connection closes
        try:
            for piece in zeros_gzip_twice():
                self.wfile.write(piece)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the fetcher stopped reading: what the test wants


# The fetch runs in a child process so its peak memory (ru_maxrss) is its own.
FETCH = """
import asyncio, json, resource, sys
from newsdesk.core.config import FetchSettings
from newsdesk.ingest.fetch import Fetcher

async def fetch():
    async with Fetcher(FetchSettings(allow_private=True, retries=0, per_host_delay=0)) as fetcher:
        return await fetcher.get(sys.argv[1])

before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
result = asyncio.run(fetch())
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"error": result.error, "body": result.body is not None, "grew_kib": after - before}))
"""


def test_one_gib_of_zeros_gzipped_twice_stays_within_the_cap_and_is_one_line():
    httpd = serve_http(Bomb)
    url = f"http://127.0.0.1:{httpd.server_address[1]}/feed.xml"
    try:
        child = subprocess.run([sys.executable, "-c", FETCH, url], capture_output=True, text=True, timeout=120)
    finally:
        httpd.shutdown()
    assert child.returncode == 0, child.stderr
    outcome = json.loads(child.stdout)
    # The default cap is 10 MB: memory grows by about that, not by the 1 GiB the body inflates to.
    assert outcome["grew_kib"] < 64 * 1024, outcome
    assert not outcome["body"] and "\n" not in outcome["error"]
    assert outcome["error"] == (
        f"{url}: response larger than 10000000 bytes (fetch.max_bytes) once its Content-Encoding "
        "(gzip, gzip) is undone; raise the cap or drop the source"
    )


def test_a_feed_gzipped_twice_within_the_cap_comes_back_byte_exact():
    feed = (
        b"<rss version='2.0'><channel><title>t</title>" + b"<item><title>x</title></item>" * 5000 + b"</channel></rss>"
    )

    class Twice(Replies):
        def do_GET(self):  # noqa: N802
            self.reply(200, gzip.compress(gzip.compress(feed)), {"Content-Encoding": "gzip, x-gzip"})

    httpd = serve_http(Twice)
    url = f"http://127.0.0.1:{httpd.server_address[1]}/feed.xml"

    async def fetch():
        async with Fetcher(FetchSettings(allow_private=True, retries=0, per_host_delay=0)) as fetcher:
            return await fetcher.get(url)

    try:
        result = asyncio.run(fetch())
    finally:
        httpd.shutdown()
    assert result.error is None and result.body == feed


def test_the_bomb_is_what_it_claims():
    """The bomb's making, with 5 MiB in place of 1024: both layers undone (gzip checks each member's
    CRC and length), zeros of the length it says, handed on 64 KiB at a time."""
    raw = b"".join(zeros_gzip_twice(5))
    decoder = Decoder("gzip, gzip", GIB)
    total = 0
    for piece in [*decoder.feed(raw), *decoder.finish()]:
        assert len(piece) <= CHUNK and not piece.strip(b"\0")
        total += len(piece)
    assert total == 5 << 20
    assert len(b"".join(zeros_gzip_twice())) < 3000


def test_more_layers_than_the_cap_are_refused():
    with pytest.raises(CodingError, match=f"more than the {MAX_CODINGS} newsdesk undoes"):
        Decoder(", ".join(["gzip"] * (MAX_CODINGS + 1)), 1000)


def test_a_broken_stream_is_a_coding_error():
    with pytest.raises(CodingError, match="^gzip: "):
        list(Decoder("gzip", 1000).feed(b"\x1f\x8bnot really gzip at all"))


# --- the property layer: any stack of codings, any body, any way the bytes arrive ---------------------

CODERS = {
    "gzip": lambda data: gzip.compress(data, mtime=0),
    "x-gzip": lambda data: gzip.compress(data, mtime=0),
    "deflate": zlib.compress,  # as RFC 9110 says: zlib-wrapped
    "identity": lambda data: data,
    "utf-8": lambda data: data,  # a charset written where a coding belongs: passed through, as httpx did
}
RAW_DEFLATE = "deflate (raw)"  # what many servers send as deflate: no zlib header


def _raw_deflate(data: bytes) -> bytes:
    coder = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    return coder.compress(data) + coder.flush()


bodies = st.binary(max_size=3000) | st.integers(0, 300_000).map(lambda n: b"<rss>" + b"a" * n)


@settings(max_examples=150, deadline=None)
@given(
    body=bodies,
    stack=st.lists(st.sampled_from([*CODERS, RAW_DEFLATE]), max_size=MAX_CODINGS),
    cut=st.lists(st.integers(1, 5000), min_size=1, max_size=8),
    cap=st.integers(1, 400_000),
)
def test_any_stack_of_codings_gives_the_body_back_or_says_it_is_too_large(body, stack, cut, cap):
    raw = body
    for coding in stack:
        raw = _raw_deflate(raw) if coding == RAW_DEFLATE else CODERS[coding](raw)
    header = ", ".join("deflate" if c == RAW_DEFLATE else c for c in stack)
    # The raw bytes arrive in pieces of the drawn sizes.
    pieces, at = [], 0
    while at < len(raw):
        size = cut[len(pieces) % len(cut)]
        pieces.append(raw[at : at + size])
        at += size
    decoder = Decoder(header, cap)
    out = bytearray()
    try:
        for piece in pieces:
            for part in decoder.feed(piece):
                assert len(part) <= CHUNK
                out += part
        out += b"".join(decoder.finish())
    except TooLarge:
        assert len(body) > cap or any(c not in ("identity", "utf-8") for c in stack)
        return
    assert bytes(out) == body
