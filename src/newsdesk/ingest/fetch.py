"""Fetching feeds over HTTP: polite, bounded, and unable to reach the operator's own network.

`Fetcher.get(url)` never raises for anything a remote server or a bad URL can cause; it
returns a `FetchResult` whose `error` is one line naming the URL, what happened and what
the operator can do. Everything it does is bounded by `FetchSettings` (newsdesk.toml
`[fetch]`): connect / read timeouts per socket operation, `total_timeout` per fetch of a URL
(every try, redirect and wait included, so a server trickling bytes forever or
answering 500 to every retry still ends),
`max_bytes` per body, `max_redirects` per attempt, `retries` tries in all.

Address guard: every hop (the first URL and each redirect target) is resolved here and
refused if any address it resolves to is not public, unless `fetch.allow_private`. The
request is then sent to the vetted address itself (Host header and TLS SNI keep the
name), so a DNS answer that changes between our check and the connect (DNS rebinding)
cannot steer the request somewhere else.
"""

from __future__ import annotations

import asyncio
import email.utils
import ipaddress
import random
import socket
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

import httpx

from newsdesk.core.config import FetchSettings
from newsdesk.core.errors import PARTIAL, NewsdeskError
from newsdesk.ingest.codings import CodingError, Decoder, TooLarge

FEED_ACCEPT = (
    "application/rss+xml, application/atom+xml, application/feed+json, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.8"
)
REDIRECT_CODES = frozenset({301, 302, 303, 307, 308})
ALLOW_HINT = "set fetch.allow_private = true in newsdesk.toml to allow it"


@dataclass
class FetchResult:
    url: str  # final URL after redirects
    status: int | None = None  # last HTTP status; None when no response at all
    body: bytes | None = None  # None on 304 or error
    headers: dict[str, str] = field(default_factory=dict)  # lower-case keys
    etag: str | None = None
    last_modified: str | None = None
    not_modified: bool = False  # True on 304: counted, not parsed
    error: str | None = None  # one line: the URL, what happened, what to do
    warnings: list[str] = field(default_factory=list)  # non-fatal, e.g. retries
    duration_ms: int = 0
    attempts: int = 0

    @property
    def ok(self) -> bool:
        return self.body is not None and self.error is None


class FetchBlocked(NewsdeskError):
    """The address guard refuses a URL; the message is the reason and the fix."""


class _Failure(NewsdeskError):
    """One try went wrong; `retriable` says whether another try may help."""

    exit_code = PARTIAL  # a source that failed; the others go on

    def __init__(self, message: str, *, retriable: bool, label: str = "", retry_after: float | None = None):
        super().__init__(message)
        self.message = " ".join(message.split())  # the operator's line stays one line
        self.retriable = retriable
        self.label = label or self.message.split(";")[0]  # short name for the retry warning
        self.retry_after = retry_after


def address_problem(address: str) -> str | None:
    """What kind of non-public address this is ('loopback', 'private', ...), or None if public."""
    ip = ipaddress.ip_address(address)
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped  # ::ffff:127.0.0.1 is 127.0.0.1 on the wire
    for attribute, kind in (
        ("is_unspecified", "unspecified"),
        ("is_loopback", "loopback"),
        ("is_link_local", "link-local"),
        ("is_multicast", "multicast"),
        ("is_private", "private"),
        ("is_reserved", "reserved"),
    ):
        if getattr(ip, attribute):
            return kind
    if not ip.is_global:  # e.g. 100.64.0.0/10, carrier-grade NAT
        return "non-public"
    return None


def retry_after_seconds(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds a Retry-After header asks for (delta-seconds or an HTTP date); None if absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    now = now or datetime.now(UTC)
    return max(0.0, (when - now).total_seconds())


def _caused_by(exc: BaseException, kind: type[BaseException]) -> bool:
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, kind):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _sendable(value: str) -> bool:
    return value.isascii() and value.isprintable()


@dataclass
class _Host:
    """Politeness state for one host name."""

    slots: asyncio.Semaphore
    turn: asyncio.Lock = field(default_factory=asyncio.Lock)
    next_start: float = 0.0


class _Budget:
    """What is left of one fetch's fetch.total_timeout, in seconds."""

    def __init__(self, total: float):
        self.total = self.left = total


class _OnFirstUse(httpx.AsyncBaseTransport):
    """A transport made when the first request needs it: the HTTPS one loads the CA certificates
    (40 ms of CPU), which a poll of plain-http feeds never uses."""

    def __init__(self, make: Callable[[], httpx.AsyncBaseTransport]):
        self._make = make
        self._made: httpx.AsyncBaseTransport | None = None

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if self._made is None:
            self._made = self._make()
        return await self._made.handle_async_request(request)

    async def aclose(self) -> None:
        if self._made is not None:
            await self._made.aclose()


class Fetcher:
    """Fetches URLs under the limits in `settings`; one per ingest run, shared by all sources."""

    def __init__(self, settings: FetchSettings, *, transport: httpx.AsyncBaseTransport | None = None):
        self.settings = settings
        mounts: dict[str, httpx.AsyncBaseTransport] = {}
        if transport is None:
            # No keep-alive: requests go to pinned IP addresses, and a pooled connection to a
            # CDN address would otherwise carry a second site's request over the TLS session
            # (and certificate check) of the first. One request per feed per run makes this cheap.
            limits = httpx.Limits(max_keepalive_connections=0)
            transport = _OnFirstUse(lambda: httpx.AsyncHTTPTransport(limits=limits))
            # Plain http needs no certificate store: its transport's TLS context trusts none, so it
            # could never carry an unverified TLS connection.
            mounts["http://"] = httpx.AsyncHTTPTransport(verify=ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT), limits=limits)
        self._client = httpx.AsyncClient(
            transport=transport,
            mounts=mounts,
            follow_redirects=False,  # each hop goes through the address guard
            timeout=httpx.Timeout(
                connect=settings.connect_timeout,
                read=settings.read_timeout,
                write=settings.read_timeout,
                pool=settings.total_timeout,
            ),
            headers={"User-Agent": settings.user_agent},
        )
        self._all = asyncio.Semaphore(max(1, settings.concurrency))
        self._hosts: dict[str, _Host] = {}

    async def __aenter__(self) -> Fetcher:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._client.aclose()

    async def get(
        self,
        url: str,
        *,
        etag: str | None = None,
        last_modified: str | None = None,
        accept: str = FEED_ACCEPT,
    ) -> FetchResult:
        started = time.monotonic()
        result = FetchResult(url=url)
        headers = {"Accept": accept}
        # Validators come back from servers; one that could not be sent as a header is dropped.
        if etag and _sendable(etag):
            headers["If-None-Match"] = etag
        if last_modified and _sendable(last_modified):
            headers["If-Modified-Since"] = last_modified
        tries = max(1, self.settings.retries)
        # One budget for the whole fetch: every exchange and every wait between retries spends it,
        # so a source answering 500 to each of many retries still ends within total_timeout. Time
        # queued behind other sources for a host or global slot is not this source's and is not spent.
        budget = _Budget(self.settings.total_timeout)
        for attempt in range(1, tries + 1):
            result.attempts = attempt
            try:
                await self._attempt(url, headers, result, budget)
                if result.not_modified:
                    result.etag = result.etag or etag
                    result.last_modified = result.last_modified or last_modified
                break
            except _Failure as failure:
                tried = f" (after {attempt} tries)" if attempt > 1 else ""
                if not failure.retriable or attempt == tries:
                    result.error = f"{url}: {failure.message}{tried}"
                    break
                wait = self._wait(attempt, failure.retry_after, result.warnings)
                if wait >= budget.left:
                    result.error = (
                        f"{url}: {failure.message}{tried}; no time left to try again within "
                        f"{budget.total:g}s (fetch.total_timeout), every try and wait included"
                    )
                    break
                asked = f"Retry-After {failure.retry_after:g}s, " if failure.retry_after is not None else ""
                result.warnings.append(f"retried after {failure.label} ({asked}waited {wait:.1f}s)")
                budget.left -= wait
                await asyncio.sleep(wait)
        result.duration_ms = int((time.monotonic() - started) * 1000)
        return result

    def _wait(self, attempt: int, retry_after: float | None, warnings: list[str]) -> float:
        cap = self.settings.max_retry_after
        if retry_after is not None:
            if retry_after > cap:
                warnings.append(f"Retry-After {retry_after:g}s capped at {cap:g}s (fetch.max_retry_after)")
            return min(retry_after, cap)
        # Exponential backoff with a little jitter so sources that failed together don't retry together.
        backoff = self.settings.backoff_base * 2 ** (attempt - 1) * random.uniform(1.0, 1.25)
        return min(backoff, cap)

    async def _attempt(self, url: str, headers: dict[str, str], result: FetchResult, budget: _Budget) -> None:
        """One try: follow redirects by hand until a final response fills `result`."""
        chain = [url]
        current = url
        while True:
            target = await self._hop(current, headers, result, budget)
            if target is None:
                return
            if target in chain:
                loop = " -> ".join(chain[chain.index(target) :] + [target])
                raise _Failure(f"redirect loop ({loop}); fix the source URL", retriable=False)
            if len(chain) > self.settings.max_redirects:
                raise _Failure(
                    f"more than {self.settings.max_redirects} redirects (fetch.max_redirects), "
                    f"last to {target}; point the source at the final URL",
                    retriable=False,
                )
            chain.append(target)
            current = target

    async def _hop(self, url: str, headers: dict[str, str], result: FetchResult, budget: _Budget) -> str | None:
        """One request; returns the redirect target, or None once `result` holds the outcome."""
        try:
            target = httpx.URL(url)
        except httpx.InvalidURL as exc:
            raise _Failure(f"not a valid URL ({exc}); fix the source URL", retriable=False) from None
        if target.scheme not in ("http", "https") or not target.host:
            raise _Failure(
                f"only http and https URLs with a host can be fetched, not {url!r}; fix the source URL",
                retriable=False,
            )
        try:
            addresses = await self.resolve(target.host, target.port or (443 if target.scheme == "https" else 80))
        except FetchBlocked as exc:
            raise _Failure(str(exc), retriable=False) from None

        host = self._hosts.get(target.host)
        if host is None:
            host = self._hosts[target.host] = _Host(asyncio.Semaphore(max(1, self.settings.per_host_concurrency)))
        # Host slot before the global one, so requests queued for a busy host don't hold global slots;
        # the politeness wait before the global slot too, so no global slot is held while sleeping.
        # The next start is counted from when this request goes out, after its global slot: counted
        # from before it, a request that waited long for a slot left together with the next one.
        async with host.slots:
            async with host.turn:
                delay = host.next_start - time.monotonic()
                if delay > 0:
                    await asyncio.sleep(delay)
                await self._all.acquire()
                host.next_start = time.monotonic() + self.settings.per_host_delay
            try:
                for index, address in enumerate(addresses):
                    try:
                        return await self._exchange(target, address, headers, result, budget)
                    except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
                        if index == len(addresses) - 1:
                            raise self._transport_failure(exc, target) from None
                    except httpx.HTTPError as exc:
                        raise self._transport_failure(exc, target) from None
            finally:
                self._all.release()
        raise AssertionError("resolve() returns at least one address")

    async def resolve(self, host: str, port: int) -> list[str]:
        """The addresses to connect to, each vetted by the guard; raises FetchBlocked or _Failure."""
        try:
            addresses = [str(ipaddress.ip_address(host))]
        except ValueError:
            loop = asyncio.get_running_loop()
            try:
                infos = await asyncio.wait_for(
                    loop.getaddrinfo(host, port, type=socket.SOCK_STREAM), self.settings.connect_timeout
                )
            except TimeoutError:
                raise _Failure(
                    f"resolving {host} took longer than {self.settings.connect_timeout:g}s "
                    "(fetch.connect_timeout); check DNS or try later",
                    retriable=True,
                ) from None
            except socket.gaierror as exc:
                raise _Failure(
                    f"cannot resolve host {host} ({exc.strerror}); check the URL or the network",
                    retriable=exc.errno == socket.EAI_AGAIN,
                ) from None
            addresses = list(dict.fromkeys(info[4][0] for info in infos))
            if not addresses:
                raise _Failure(f"{host} has no address; check the URL", retriable=False) from None
        if not self.settings.allow_private:
            for address in addresses:
                kind = address_problem(address)
                if kind:
                    raise FetchBlocked(
                        f"refused: {host} resolves to {address}, a {kind} address, and a feed URL "
                        f"must not reach the operator's network; {ALLOW_HINT}"
                    )
        return addresses

    async def _exchange(
        self, target: httpx.URL, address: str, headers: dict[str, str], result: FetchResult, budget: _Budget
    ) -> str | None:
        """Send one request to `address` (pinned), read the response into `result`, within what is
        left of the fetch's budget (request to last byte, so a server trickling bytes still ends)."""
        url = str(target)
        request_headers = dict(headers)
        extensions: dict[str, object] = {}  # the TLS name and httpcore's trace
        if "%" not in address:  # a scoped IPv6 address (only allowed when private is) keeps its name
            request_headers["Host"] = target.netloc.decode("ascii")
            if target.scheme == "https":
                extensions["sni_hostname"] = target.host  # TLS checks the certificate against the name
            target = target.copy_with(host=address)
        handshake: list[str] = []  # httpcore's trace events of the TLS handshake, to name a failure in it

        async def trace(event: str, _info: dict) -> None:
            if event.startswith("connection.start_tls."):
                handshake.append(event.rsplit(".", 1)[1])

        extensions["trace"] = trace
        request = self._client.build_request("GET", target, headers=request_headers, extensions=extensions)
        started = time.monotonic()
        try:
            async with asyncio.timeout(max(0.0, budget.left)):
                try:
                    response = await self._client.send(request, stream=True)
                except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
                    if handshake[-1:] == ["failed"] and not _caused_by(exc, ssl.SSLCertVerificationError):
                        raise self._tls_failure(exc, target.port or 443, url) from None
                    raise
                try:
                    return await self._read(url, response, result)
                finally:
                    await response.aclose()
        except TimeoutError:
            raise _Failure(
                f"not finished within {budget.total:g}s (fetch.total_timeout), every try and wait included; "
                "the server is too slow, raise the limit or drop the source",
                retriable=False,  # a server that trickled once will trickle again
            ) from None
        finally:
            budget.left -= time.monotonic() - started

    async def _read(self, url: str, response: httpx.Response, result: FetchResult) -> str | None:
        status = response.status_code
        result.url = url
        result.status = status
        result.headers = {key.lower(): value for key, value in response.headers.items()}
        result.etag = response.headers.get("etag")
        result.last_modified = response.headers.get("last-modified")
        if status in REDIRECT_CODES:
            location = response.headers.get("location")
            if not location:
                raise _Failure(f"HTTP {status} redirect without a Location header; fix the source URL", retriable=False)
            try:
                return str(httpx.URL(url).join(location))
            except httpx.InvalidURL:
                raise _Failure(
                    f"HTTP {status} redirect to an invalid URL {location!r}; fix the source URL", retriable=False
                ) from None
        if status == 304:
            result.not_modified = True
            return None
        if status == 429:
            raise _Failure(
                "rate limited (HTTP 429); raise fetch.per_host_delay or fetch in fewer runs",
                retriable=True,
                label="HTTP 429",
                retry_after=retry_after_seconds(response.headers.get("retry-after")),
            )
        if status >= 500:
            raise _Failure(
                f"server error HTTP {status} {response.reason_phrase}; "
                "the site is failing, try later or drop the source",
                retriable=True,
                label=f"HTTP {status}",
                retry_after=retry_after_seconds(response.headers.get("retry-after")),
            )
        if not 200 <= status < 300:
            fix = {
                404: "the feed moved or is gone; fix the source URL",
                410: "the feed is gone; fix the source URL or drop the source",
                401: "the feed needs a login; drop the source or use a public feed",
                403: "the site refuses us; check the URL or drop the source",
            }.get(status, "check the source URL")
            raise _Failure(f"HTTP {status} {response.reason_phrase}; {fix}", retriable=False)

        result.body = await self._body(response)
        return None

    async def _body(self, response: httpx.Response) -> bytes:
        """The body, its content codings undone, within fetch.max_bytes."""
        cap = self.settings.max_bytes
        too_big = _Failure(
            f"response larger than {cap} bytes (fetch.max_bytes); raise the cap or drop the source",
            retriable=False,
        )
        length = response.headers.get("content-length", "")
        if length.isdigit() and int(length) > cap:
            raise too_big
        encoding = response.headers.get("content-encoding", "")
        try:
            decoder = Decoder(encoding, cap)
        except CodingError as exc:
            raise _Failure(f"{exc}; the server's response is broken, drop the source", retriable=False) from None
        body = bytearray()
        received = 0
        # The raw bytes are counted here and every content-coding layer's output as it is produced
        # (ingest/codings.py), so neither a stream without end nor a gzip bomb, however many times
        # compressed, gets past the cap or holds more than it in memory.
        try:
            async for chunk in response.aiter_raw():
                received += len(chunk)
                if received > cap:
                    raise too_big
                for piece in decoder.feed(chunk):
                    body += piece
            for piece in decoder.finish():
                body += piece
        except TooLarge:
            raise _Failure(
                f"response larger than {cap} bytes (fetch.max_bytes) once its Content-Encoding "
                f"({', '.join(decoder.listed)}) is undone; raise the cap or drop the source",
                retriable=False,
            ) from None
        except CodingError as exc:
            raise _Failure(
                f"the body could not be decompressed ({exc}); the server sent a broken response, try later",
                retriable=False,
            ) from None
        return bytes(body)

    def _tls_failure(self, exc: httpx.HTTPError, port: int, url: str) -> _Failure:
        """The TCP connection was made but TLS was not: most often https:// spoken to a plain-HTTP port,
        which answers the handshake with an HTTP error (read as a wrong TLS version) or waits for a
        request line and never answers it."""
        where = f"{httpx.URL(url).host}:{port}"
        if isinstance(exc, httpx.ConnectTimeout):
            what = f"no TLS answer within {self.settings.connect_timeout:g}s (fetch.connect_timeout)"
        else:
            what = str(exc) or type(exc).__name__
        return _Failure(
            f"TLS handshake with {where} failed ({what}): the port answers but does not speak TLS, "
            "most likely a plain-HTTP server; use http:// if the feed is served there, or fix the port in the URL",
            retriable=False,  # the port will not start speaking TLS on a retry
            label="TLS handshake failed",
        )

    def _transport_failure(self, exc: httpx.HTTPError, target: httpx.URL) -> _Failure:
        s = self.settings
        where = f"{target.host}:{target.port or (443 if target.scheme == 'https' else 80)}"
        if isinstance(exc, httpx.ConnectTimeout):
            return _Failure(
                f"no connection to {where} within {s.connect_timeout:g}s (fetch.connect_timeout); "
                "the host is down or unreachable, try later",
                retriable=True,
                label="connect timeout",
            )
        if isinstance(exc, httpx.ReadTimeout):
            return _Failure(
                f"no data from {where} for {s.read_timeout:g}s (fetch.read_timeout); "
                "the server stalled, try later or raise the limit",
                retriable=True,
                label="read timeout",
            )
        if isinstance(exc, httpx.TimeoutException):
            return _Failure(f"timed out talking to {where} ({type(exc).__name__}); try later", retriable=True)
        if isinstance(exc, httpx.ConnectError) and _caused_by(exc, ssl.SSLCertVerificationError):
            return _Failure(
                f"the TLS certificate of {where} does not check out ({exc}); "
                "the site is misconfigured or intercepted, drop the source until it is fixed",
                retriable=False,  # a retry gets the same certificate
            )
        if isinstance(exc, httpx.ConnectError):
            return _Failure(
                f"cannot connect to {where} ({exc or type(exc).__name__}); check the URL or try later",
                retriable=True,
                label="connection error",
            )
        if isinstance(exc, httpx.TransportError):
            return _Failure(f"connection to {where} failed ({type(exc).__name__}: {exc}); try later", retriable=True)
        return _Failure(f"request failed ({type(exc).__name__}: {exc}); check the source URL", retriable=False)
