"""A response body's content codings (Content-Encoding: gzip, deflate), undone as its bytes arrive,
with every layer's output counted against fetch.max_bytes as it is produced.

httpx inflates each chunk it reads whole, so "Content-Encoding: gzip, gzip" over 1 GiB of zeros (a
2.5 KB response) became a 1 MiB chunk and then a 1 GiB one before any cap could count it: 2.19 GB of
memory. Here zlib is asked for at most CHUNK bytes at a time, in every layer, so memory stays near
CHUNK per layer whatever the ratio, and a layer producing more than the cap ends the read at once.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Iterator

CHUNK = 64 * 1024  # the most one layer hands on at a time
# Layers a response may stack. A proxy gzipping an already gzipped body makes two; no server needs
# more, and each layer is another pass of work an attacker chooses.
MAX_CODINGS = 3
# The codings httpx undoes (and asks for: Accept-Encoding: gzip, deflate). Others it has always passed
# through as they came (a server writing its charset there, "Content-Encoding: utf-8"); so do we.
GZIP, DEFLATE = ("gzip", "x-gzip"), ("deflate",)
_GZIP_MAGIC = b"\x1f\x8b"


class CodingError(Exception):
    """The body is not what its Content-Encoding says; the message names the coding and what broke."""


class TooLarge(Exception):
    """A layer produced more than the cap."""


class _Inflate:
    """One gzip or deflate layer, handing on at most CHUNK bytes at a time."""

    def __init__(self, coding: str, cap: int):
        self.coding, self.cap = coding, cap
        self.wbits = zlib.MAX_WBITS | 16 if coding in GZIP else zlib.MAX_WBITS
        self.inflater = zlib.decompressobj(self.wbits)
        self.head = b"" if coding in DEFLATE else None  # deflate's first two bytes, until it has them
        self.produced = 0

    def feed(self, data: bytes) -> Iterator[bytes]:
        if self.head is not None:
            # "deflate" is zlib-wrapped (RFC 9110), but many servers send it raw: its first two bytes,
            # a zlib header or not, say which.
            self.head += data
            if len(self.head) < 2:
                return
            data, self.head = self.head, None
            if (data[0] & 0x0F) != 8 or (data[0] << 8 | data[1]) % 31:
                self.wbits = -zlib.MAX_WBITS
                self.inflater = zlib.decompressobj(self.wbits)
        more = False  # zlib holds output it could not hand on: ask again with no new input
        while data or more:
            if self.inflater.eof:
                if self.coding not in GZIP or not data.startswith(_GZIP_MAGIC):
                    return  # bytes after the stream's end, ignored as httpx ignores them
                self.inflater = zlib.decompressobj(self.wbits)  # gzip allows several members in a row
            try:
                out = self.inflater.decompress(data, CHUNK)
            except zlib.error as exc:
                raise CodingError(f"{self.coding}: {exc}") from None
            data = self.inflater.unused_data if self.inflater.eof else self.inflater.unconsumed_tail
            more = len(out) == CHUNK and not self.inflater.eof
            yield from self._count(out)

    def finish(self) -> Iterator[bytes]:
        head = self.head
        if head:  # one byte: no stream, but zlib says so
            self.head = None
            yield from self.feed(head)
        # Whatever zlib still holds: little, as feed() drained it; a stream cut short is taken as far
        # as it goes, as httpx took it.
        yield from self._count(self.inflater.flush())

    def _count(self, out: bytes) -> Iterator[bytes]:
        if out:
            self.produced += len(out)
            if self.produced > self.cap:
                raise TooLarge
            yield out


class Decoder:
    """Undoes a body's content codings, last applied first, as its raw bytes arrive."""

    def __init__(self, content_encoding: str, cap: int):
        listed = [c.strip().lower() for c in content_encoding.split(",") if c.strip()]
        if len(listed) > MAX_CODINGS:
            raise CodingError(
                f"{len(listed)} content codings ({', '.join(listed)[:100]}), more than the {MAX_CODINGS} "
                "newsdesk undoes"
            )
        self.listed = listed
        self.layers = [_Inflate(c, cap) for c in reversed(listed) if c in GZIP + DEFLATE]

    def feed(self, data: bytes) -> Iterator[bytes]:
        return self._through(0, (data,))

    def finish(self) -> Iterator[bytes]:
        for n, layer in enumerate(self.layers):
            yield from self._through(n + 1, layer.finish())

    def _through(self, n: int, pieces: Iterable[bytes]) -> Iterator[bytes]:
        """`pieces` through layers n, n + 1, …: each piece is undone before the next is asked for."""
        for piece in pieces:
            if n == len(self.layers):
                yield piece
            else:
                yield from self._through(n + 1, self.layers[n].feed(piece))
