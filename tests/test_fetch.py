"""Fetcher against a real HTTP server on 127.0.0.1: every way a feed server can misbehave."""

from __future__ import annotations

import asyncio
import dataclasses
import gzip
import json
import shutil
import ssl
import subprocess
import threading
import time
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from newsdesk.core.config import FetchSettings
from newsdesk.ingest.fetch import Fetcher, address_problem, retry_after_seconds

GB2312_FEED = (
    '<?xml version="1.0" encoding="gb2312"?>\n'
    '<rss version="2.0"><channel><title>机器之心</title><link>https://www.jiqizhixin.com/</link>'
    "<item><title>大模型推理成本下降</title><guid>jqzx-1</guid>"
    "<description>量子位报道：新的推理芯片发布。</description></item></channel></rss>\n"
).encode("gb2312")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: FeedServer

    def log_message(self, *args: object) -> None:  # keep test output clean
        pass

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        parts = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        count = self.server.record(self, parts.path)
        route = getattr(self, "route_" + parts.path.strip("/").split("/")[0].replace("-", "_"), None)
        if route is None:
            return self.reply(404, b"no such route")
        try:
            route(count, query, parts.path)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up on purpose (size cap, timeouts)
        finally:
            self.server.leave(self)

    def reply(self, status: int, body: bytes = b"", headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def chunked_headers(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/rss+xml")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Connection", "close")
        self.end_headers()

    def chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def route_feed(self, count, query, path):
        self.server.stop.wait(float(query.get("sleep", 0)))
        self.reply(200, b"<rss>" + path.encode() + b"</rss>", {"Content-Type": "application/rss+xml"})

    def route_etag(self, count, query, path):
        validators = {"ETag": '"v1"', "Last-Modified": "Mon, 01 Jan 2024 00:00:00 GMT"}
        if self.headers.get("If-None-Match") == '"v1"':
            return self.reply(304, b"", validators)
        self.reply(200, b"<rss>first</rss>", {"Content-Type": "application/rss+xml", **validators})

    def route_ratelimit(self, count, query, path):
        if count == 1:
            return self.reply(429, b"slow down", {"Retry-After": query.get("after", "1")})
        self.reply(200, b"<rss>after 429</rss>")

    def route_flaky(self, count, query, path):
        if count == 1:
            return self.reply(500, b"oops")
        self.reply(200, b"<rss>after 500</rss>")

    def route_broken(self, count, query, path):
        self.reply(500, b"always broken")

    def route_big(self, count, query, path):
        self.reply(200, b"x" * int(query["n"]))

    def route_huge(self, count, query, path):
        # Announces a gigabyte, then stalls: only the Content-Length check ends this at once.
        self.send_response(200)
        self.send_header("Content-Length", str(10**9))
        self.end_headers()
        self.wfile.write(b"x" * 10)
        self.wfile.flush()
        self.server.stop.wait(5)

    def route_endless(self, count, query, path):
        self.chunked_headers()
        while not self.server.stop.is_set():
            self.chunk(b"y" * 4096)

    def route_loop(self, count, query, path):
        other = "/loop/b" if path == "/loop/a" else "/loop/a"
        self.reply(302, b"", {"Location": other})

    def route_chain(self, count, query, path):
        step = int(path.rsplit("/", 1)[1])
        self.reply(301, b"", {"Location": f"/chain/{step + 1}"})

    def route_moved(self, count, query, path):
        self.reply(301, b"", {"Location": f"http://{self.headers['Host']}/etag"})

    def route_stall(self, count, query, path):
        self.server.stop.wait(5)

    def route_trickle(self, count, query, path):
        self.chunked_headers()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not self.server.stop.wait(0.05):
            self.chunk(b"z")

    def route_gb2312(self, count, query, path):
        self.reply(
            200,
            gzip.compress(GB2312_FEED),
            {"Content-Type": "application/rss+xml; charset=gb2312", "Content-Encoding": "gzip"},
        )

    def route_echo(self, count, query, path):
        self.reply(200, json.dumps(dict(self.headers.items())).encode(), {"Content-Type": "application/json"})


class FeedServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.port = self.server_address[1]
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.requests: list[dict] = []
        self.counts: dict[str, int] = {}
        self.in_flight: dict[str, int] = {}
        self.most_in_flight: dict[str, int] = {}

    def record(self, handler: Handler, path: str) -> int:
        host = handler.headers.get("Host", "")
        with self.lock:
            self.counts[path] = self.counts.get(path, 0) + 1
            self.requests.append({"path": path, "host": host, "at": time.monotonic(), "headers": dict(handler.headers)})
            for key in (host, "*"):
                self.in_flight[key] = self.in_flight.get(key, 0) + 1
                self.most_in_flight[key] = max(self.most_in_flight.get(key, 0), self.in_flight[key])
            return self.counts[path]

    def leave(self, handler: Handler) -> None:
        with self.lock:
            for key in (handler.headers.get("Host", ""), "*"):
                self.in_flight[key] -= 1

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"


@pytest.fixture
def server():
    srv = FeedServer()
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield srv
    srv.stop.set()
    srv.shutdown()
    srv.server_close()


def settings(**overrides) -> FetchSettings:
    base = FetchSettings(
        connect_timeout=1.0,
        read_timeout=0.5,
        total_timeout=3.0,
        max_bytes=100_000,
        max_redirects=5,
        retries=3,
        backoff_base=0.05,
        max_retry_after=5.0,
        per_host_concurrency=8,
        per_host_delay=0.0,
        concurrency=16,
        allow_private=True,
    )
    return dataclasses.replace(base, **overrides)


def one_line(result) -> str:
    assert result.error and "\n" not in result.error
    return result.error


async def test_etag_then_304(server):
    async with Fetcher(settings()) as fetcher:
        first = await fetcher.get(server.url("/etag"))
        assert first.ok and first.status == 200 and first.body == b"<rss>first</rss>"
        assert first.etag == '"v1"' and first.last_modified == "Mon, 01 Jan 2024 00:00:00 GMT"
        assert first.headers["content-type"] == "application/rss+xml"

        second = await fetcher.get(server.url("/etag"), etag=first.etag, last_modified=first.last_modified)
    assert second.not_modified and second.status == 304
    assert second.body is None and second.error is None and not second.ok
    assert second.etag == '"v1"' and second.last_modified == first.last_modified
    sent = server.requests[1]["headers"]
    assert sent["If-None-Match"] == '"v1"' and sent["If-Modified-Since"] == first.last_modified
    assert "If-None-Match" not in server.requests[0]["headers"]


async def test_sends_user_agent_accept_and_the_real_host(server):
    s = settings()
    async with Fetcher(s) as fetcher:
        result = await fetcher.get(server.url("/echo", host="localhost"))
    seen = json.loads(result.body)
    assert seen["User-Agent"] == s.user_agent
    assert "application/rss+xml" in seen["Accept"]
    # The request goes to the vetted address, but the server still sees the name in the URL.
    assert seen["Host"] == f"localhost:{server.port}"


async def test_429_waits_for_retry_after_then_succeeds(server):
    async with Fetcher(settings()) as fetcher:
        result = await fetcher.get(server.url("/ratelimit"))
    assert result.ok and result.body == b"<rss>after 429</rss>" and result.attempts == 2
    gap = server.requests[1]["at"] - server.requests[0]["at"]
    assert gap >= 0.95, f"retried after {gap:.2f}s, Retry-After asked for 1s"
    assert any("429" in w and "Retry-After 1s" in w for w in result.warnings), result.warnings


async def test_retry_after_is_capped(server):
    async with Fetcher(settings(max_retry_after=0.3)) as fetcher:
        started = time.monotonic()
        result = await fetcher.get(server.url("/ratelimit?after=100"))
    assert result.ok and result.attempts == 2
    assert time.monotonic() - started < 2
    assert any("capped at 0.3s (fetch.max_retry_after)" in w for w in result.warnings), result.warnings


def test_retry_after_parsing():
    now = datetime(2024, 5, 1, 12, 0, 0, tzinfo=UTC)
    assert retry_after_seconds("7", now) == 7
    assert retry_after_seconds(format_datetime(now + timedelta(seconds=30), usegmt=True), now) == 30
    assert retry_after_seconds(format_datetime(now - timedelta(seconds=30), usegmt=True), now) == 0
    assert retry_after_seconds("soon", now) is None
    assert retry_after_seconds(None, now) is None


async def test_500_then_200(server):
    async with Fetcher(settings()) as fetcher:
        result = await fetcher.get(server.url("/flaky"))
    assert result.ok and result.status == 200 and result.attempts == 2
    assert result.body == b"<rss>after 500</rss>"
    assert any("HTTP 500" in w for w in result.warnings), result.warnings


async def test_500_forever_ends_after_the_configured_tries(server):
    async with Fetcher(settings(retries=3)) as fetcher:
        result = await fetcher.get(server.url("/broken"))
    assert not result.ok and result.body is None
    assert result.status == 500 and result.attempts == 3 and server.counts["/broken"] == 3
    line = one_line(result)
    assert line.startswith(server.url("/broken") + ": ")
    assert "HTTP 500" in line and "after 3 tries" in line
    assert len(result.warnings) == 2


async def test_404_is_not_retried(server):
    async with Fetcher(settings()) as fetcher:
        result = await fetcher.get(server.url("/nowhere"))
    assert result.status == 404 and result.attempts == 1 and server.counts["/nowhere"] == 1
    assert "HTTP 404" in one_line(result) and "fix the source URL" in result.error


async def test_body_over_cap_with_content_length(server):
    async with Fetcher(settings(max_bytes=1000, read_timeout=2.0)) as fetcher:
        small = await fetcher.get(server.url("/big?n=1000"))
        large = await fetcher.get(server.url("/big?n=5000"))
        started = time.monotonic()
        huge = await fetcher.get(server.url("/huge"))
    assert time.monotonic() - started < 1.0
    assert huge.body is None and "larger than 1000 bytes (fetch.max_bytes)" in one_line(huge)
    assert small.ok and len(small.body) == 1000
    assert large.body is None and large.status == 200 and large.attempts == 1
    assert "larger than 1000 bytes (fetch.max_bytes)" in one_line(large)


async def test_body_over_cap_without_content_length(server):
    # The server streams forever; only counting the bytes as they arrive ends this early.
    async with Fetcher(settings(max_bytes=50_000, total_timeout=5.0)) as fetcher:
        started = time.monotonic()
        result = await fetcher.get(server.url("/endless"))
    assert time.monotonic() - started < 2
    assert "content-length" not in result.headers
    assert result.body is None and "larger than 50000 bytes (fetch.max_bytes)" in one_line(result)


async def test_redirects_followed_and_loop_refused(server):
    async with Fetcher(settings(max_redirects=3)) as fetcher:
        moved = await fetcher.get(server.url("/moved"))
        loop = await fetcher.get(server.url("/loop/a"))
        chain = await fetcher.get(server.url("/chain/0"))
    assert moved.ok and moved.url == server.url("/etag") and moved.body == b"<rss>first</rss>"

    assert loop.body is None and loop.attempts == 1
    assert "redirect loop" in one_line(loop) and "/loop/b" in loop.error
    assert server.counts["/loop/a"] == 1 and server.counts["/loop/b"] == 1

    assert "more than 3 redirects (fetch.max_redirects)" in one_line(chain)
    assert sum(1 for r in server.requests if r["path"].startswith("/chain/")) == 4


async def test_read_that_stalls_times_out(server):
    async with Fetcher(settings(read_timeout=0.3, retries=2)) as fetcher:
        started = time.monotonic()
        result = await fetcher.get(server.url("/stall"))
    elapsed = time.monotonic() - started
    assert result.status is None and result.body is None and result.attempts == 2
    assert "fetch.read_timeout" in one_line(result)
    assert 0.6 <= elapsed < 2.5, elapsed


async def test_trickle_past_total_timeout(server):
    # A byte every 50 ms never trips the read timeout; only the total deadline ends it.
    async with Fetcher(settings(read_timeout=0.5, total_timeout=1.0)) as fetcher:
        started = time.monotonic()
        result = await fetcher.get(server.url("/trickle"))
    elapsed = time.monotonic() - started
    assert result.body is None and result.attempts == 1
    assert "not finished within 1s (fetch.total_timeout)" in one_line(result)
    assert 0.9 <= elapsed < 2.5, elapsed


async def test_gb2312_feed_comes_back_byte_exact(server):
    async with Fetcher(settings()) as fetcher:
        result = await fetcher.get(server.url("/gb2312"))
    assert result.ok and result.body == GB2312_FEED  # decompressed, not decoded
    assert result.headers["content-encoding"] == "gzip"
    assert "charset=gb2312" in result.headers["content-type"]
    assert "机器之心" in result.body.decode("gb2312")


class CountingTransport(httpx.AsyncHTTPTransport):
    """The real transport, counting what reaches it: the guard must refuse before this."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(str(request.url))
        return await super().handle_async_request(request)


async def test_private_addresses_refused_before_connecting(server):
    transport = CountingTransport()
    refused = {
        server.url("/etag"): "127.0.0.1, a loopback",
        server.url("/etag", host="localhost"): "localhost resolves to 127.0.0.1, a loopback",
        server.url("/etag", host="[::ffff:127.0.0.1]"): "a loopback",
        "http://10.0.0.1/feed.xml": "10.0.0.1, a private",
        "http://169.254.169.254/latest/meta-data/": "169.254.169.254, a link-local",
        "https://[::1]/feed": "::1, a loopback",
        "http://0.0.0.0:8080/": "0.0.0.0, a unspecified",
    }
    async with Fetcher(settings(allow_private=False, connect_timeout=5.0), transport=transport) as fetcher:
        started = time.monotonic()
        results = await asyncio.gather(*(fetcher.get(url) for url in refused))
        elapsed = time.monotonic() - started
    assert transport.seen == [] and server.requests == []
    async with Fetcher(settings(allow_private=True), transport=CountingTransport()) as allowed:
        control = await allowed.get(server.url("/etag", host="localhost"))
    for (url, expected), result in zip(refused.items(), results):
        line = one_line(result)
        assert line.startswith(url + ": refused") and expected in line, line
        assert "fetch.allow_private = true" in line and "newsdesk.toml" in line
        assert result.status is None and result.attempts == 1 and result.body is None
    assert elapsed < 1.0  # nothing waited on a connect to 10.0.0.1
    assert control.ok  # the same URL goes through when the setting allows it


async def test_only_http_and_https(server):
    async with Fetcher(settings()) as fetcher:
        for url in ("file:///etc/passwd", "ftp://example.com/feed.xml", "gopher://x/"):
            result = await fetcher.get(url)
            assert "only http and https" in one_line(result) and result.attempts == 1


@pytest.mark.parametrize(
    "address, kind",
    [
        ("127.0.0.1", "loopback"),
        ("10.1.2.3", "private"),
        ("192.168.1.1", "private"),
        ("172.16.0.1", "private"),
        ("169.254.169.254", "link-local"),
        ("100.64.0.1", "non-public"),
        ("224.0.0.1", "multicast"),
        ("0.0.0.0", "unspecified"),
        ("240.0.0.1", "private"),  # reserved, and Python files it under private too
        ("::1", "loopback"),
        ("fe80::1", "link-local"),
        ("fd00::1", "private"),
        ("::ffff:10.0.0.1", "private"),
        ("::ffff:169.254.169.254", "link-local"),
        ("93.184.216.34", None),
        ("2606:4700:4700::1111", None),
    ],
)
def test_address_problem(address, kind):
    assert address_problem(address) == kind


async def test_one_bad_source_does_not_hold_up_the_others(server):
    s = settings(read_timeout=1.0, retries=2, max_bytes=20_000)
    good = [server.url(f"/feed/{i}") for i in range(5)] + [server.url("/gb2312")]
    bad = [server.url("/stall"), server.url("/broken"), server.url("/endless"), server.url("/loop/a"), "ftp://x/"]
    async with Fetcher(s) as fetcher:
        started = time.monotonic()
        results = await asyncio.gather(*(fetcher.get(url) for url in good + bad))
        elapsed = time.monotonic() - started
    by_url = dict(zip(good + bad, results))
    for url in good:
        assert by_url[url].ok, by_url[url].error
        assert by_url[url].duration_ms < 800, (url, by_url[url].duration_ms)
    for url in bad:
        assert not by_url[url].ok and by_url[url].error.startswith(url + ": ")
    assert by_url[server.url("/feed/3")].body == b"<rss>/feed/3</rss>"
    assert "fetch.read_timeout" in by_url[server.url("/stall")].error
    assert elapsed < 4.0, elapsed


class SendTimes(httpx.AsyncHTTPTransport):
    """The real transport, noting when the Fetcher hands each request to it (per Host header).

    Per-host spacing is measured here, where the Fetcher paces its requests, not at the server:
    a server's receipt time adds connect, thread start and header parsing, which differ from one
    request to the next (0.18 s apart at the server for a 0.20 s spacing on a loaded machine)."""

    def __init__(self) -> None:
        super().__init__(limits=httpx.Limits(max_keepalive_connections=0))
        self.sent: dict[str, list[float]] = {}

    async def handle_async_request(self, request):
        self.sent.setdefault(request.headers["host"], []).append(time.monotonic())
        return await super().handle_async_request(request)


def gaps(times: list[float]) -> list[float]:
    return [round(b - a, 3) for a, b in zip(times, times[1:])]


# Between the Fetcher's own stamp and the transport's there is no await, only a few lines of
# httpx; this margin covers the process being preempted there, nothing else.
PREEMPTED = 0.01


async def test_per_host_limit_and_delay_but_hosts_run_in_parallel(server):
    s = settings(per_host_concurrency=1, per_host_delay=0.25)
    local = [server.url(f"/feed/a{i}?sleep=0.1") for i in range(3)]
    named = [server.url(f"/feed/b{i}?sleep=0.1", host="localhost") for i in range(3)]
    transport = SendTimes()
    async with Fetcher(s, transport=transport) as fetcher:
        started = time.monotonic()
        results = await asyncio.gather(*(fetcher.get(url) for url in local + named))
        elapsed = time.monotonic() - started
    assert all(r.ok for r in results)
    for host in (f"127.0.0.1:{server.port}", f"localhost:{server.port}"):
        assert server.most_in_flight[host] == 1
        sent = transport.sent[host]
        # without the delay they would be ~0.1 s apart (the server's answer time)
        assert len(sent) == 3 and min(gaps(sent)) >= 0.25 - PREEMPTED, gaps(sent)
    assert server.most_in_flight["*"] == 2  # the two hosts overlapped
    assert elapsed < 1.0, elapsed  # 3 x 0.25 s spacing per host, hosts side by side


async def test_per_host_delay_holds_when_requests_wait_for_a_global_slot(server):
    """The delay is counted from when a request goes out, after its global slot: counted from before
    it, two requests to one host that both waited for the one slot left 0.04 s apart."""
    s = settings(concurrency=1, per_host_concurrency=2, per_host_delay=0.25)
    transport = SendTimes()
    async with Fetcher(s, transport=transport) as fetcher:
        blocker = asyncio.create_task(fetcher.get(server.url("/feed/slow?sleep=0.4", host="localhost")))
        while not transport.sent:  # the blocker holds the only global slot
            await asyncio.sleep(0.01)
        results = await asyncio.gather(*(fetcher.get(server.url(f"/feed/a{i}")) for i in range(2)), blocker)
    assert all(r.ok for r in results), [r.error for r in results]
    sent = transport.sent[f"127.0.0.1:{server.port}"]
    assert len(sent) == 2 and min(gaps(sent)) >= 0.25 - PREEMPTED, gaps(sent)


async def test_global_concurrency_limit(server):
    s = settings(concurrency=2, per_host_concurrency=8)
    urls = [server.url(f"/feed/{i}?sleep=0.1") for i in range(6)]
    async with Fetcher(s) as fetcher:
        results = await asyncio.gather(*(fetcher.get(url) for url in urls))
    assert all(r.ok for r in results)
    assert server.most_in_flight["*"] == 2


class FixedDNS(Fetcher):
    """Stands in for a DNS answer: the name below does not exist, so only pinning can reach the server."""

    async def resolve(self, host: str, port: int) -> list[str]:
        return ["127.0.0.1"]


async def test_request_goes_to_the_vetted_address(server):
    # What the guard vetted is what gets connected to, so a DNS answer that changes after
    # the check (rebinding) cannot redirect the request.
    async with FixedDNS(settings()) as fetcher:
        result = await fetcher.get(f"http://feeds.example.invalid:{server.port}/echo")
    assert result.ok, result.error
    assert json.loads(result.body)["Host"] == f"feeds.example.invalid:{server.port}"


@pytest.fixture
def tls_server(tmp_path):
    if not shutil.which("openssl"):
        pytest.skip("openssl is needed to make a test certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
            "-subj",
            "/CN=feeds.example.invalid",
            "-addext",
            "subjectAltName=DNS:feeds.example.invalid",
        ],
        check=True,
        capture_output=True,
    )
    srv = FeedServer()
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    srv.socket = context.wrap_socket(srv.socket, server_side=True)
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield srv, cert
    srv.stop.set()
    srv.shutdown()
    srv.server_close()


async def test_https_to_the_vetted_address_still_checks_the_certificate_name(tls_server):
    srv, cert = tls_server
    trust = ssl.create_default_context(cafile=str(cert))
    async with FixedDNS(settings(), transport=httpx.AsyncHTTPTransport(verify=trust)) as fetcher:
        good = await fetcher.get(f"https://feeds.example.invalid:{srv.port}/echo")
        wrong = await fetcher.get(f"https://other.example.invalid:{srv.port}/echo")
    assert good.ok, good.error
    assert json.loads(good.body)["Host"] == f"feeds.example.invalid:{srv.port}"
    # Connected to the same address, but the certificate is not for this name.
    assert wrong.body is None and "TLS certificate" in one_line(wrong)
    assert wrong.attempts == 1  # a retry would get the same certificate


async def test_the_certificate_store_is_loaded_at_the_first_https_request_and_checks_it(server, tls_server):
    """Plain-http feeds never load the CA certificates (40 ms a run); https still checks against them."""
    srv, _cert = tls_server
    async with FixedDNS(settings()) as fetcher:
        plain = await fetcher.get(f"http://feeds.example.invalid:{server.port}/echo")
        assert plain.ok, plain.error
        assert fetcher._client._transport._made is None  # the https transport, not made yet
        self_signed = await fetcher.get(f"https://feeds.example.invalid:{srv.port}/echo")
        assert fetcher._client._transport._made is not None
    assert self_signed.body is None and "TLS certificate" in one_line(self_signed)  # not in the trusted roots


async def test_unknown_host_is_one_clear_line():
    async with Fetcher(settings(retries=2)) as fetcher:
        result = await fetcher.get("http://nonexistent.invalid/feed.xml")
    line = one_line(result)
    assert line.startswith("http://nonexistent.invalid/feed.xml: ")
    assert "cannot resolve host nonexistent.invalid" in line or "resolving nonexistent.invalid" in line
    assert result.status is None and result.body is None


@pytest.fixture
def silent_port():
    """A TCP port that accepts and reads but never answers, as an HTTP server waiting for a request
    line does when a TLS ClientHello (no line end) arrives instead."""
    import socket

    listener = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except (TimeoutError, OSError):
                continue
            held.append(conn)

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    listener.close()


async def test_tls_spoken_to_a_plain_http_port_is_named_a_tls_failure(server, silent_port):
    async with Fetcher(settings(connect_timeout=0.5)) as fetcher:
        answered = await fetcher.get(f"https://127.0.0.1:{server.port}/feed.xml")  # answers HTTP 400 to the hello
        silent = await fetcher.get(f"https://127.0.0.1:{silent_port}/feed.xml")  # waits for a request line
    for result, port in ((answered, server.port), (silent, silent_port)):
        line = one_line(result)
        assert f"TLS handshake with 127.0.0.1:{port} failed" in line, line
        assert "plain-HTTP server; use http://" in line and "down or unreachable" not in line
        assert result.attempts == 1  # the port will not start speaking TLS on a retry
    assert "no TLS answer within 0.5s" in silent.error
