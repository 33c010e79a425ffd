"""What the reader pages read and show, kept in each server process until the store changes.

A feed page reads the day's events, their members, analyses, stories and votes, and the
list of every day with news (a scan of all events): tens of queries that give the same
answer until a run, a vote or an edition changes the store, then renders them (Markdown and
sanitizing of every analysis) into the same HTML. ReadCache keeps a reader's page whole,
as the bytes sent (at most MAX_PAGE_BYTES of them), and for a personal page (the operator's,
one with a flash message) what it read, keyed by what the page asked for; it drops them all
when the store's version moves.

The version is read at most once every CHECK_EVERY seconds per process: a new edition,
event or vote shows within that long, on every worker process, without any process
telling another. On an SQLite file it is `PRAGMA data_version` on a connection of the
cache's own, which moves with every commit by any other connection or process and costs
microseconds. On PostgreSQL every table a reader page shows has a statement trigger that NOTIFYs
channel `newsdesk_store` (migration 0019; NOTIFY is delivered only once its transaction is committed
and visible), and the cache LISTENs on a connection of its own: the version is that connection's
number and the notifications it has heard, and a look is one round trip (`SELECT 1`, which hands over
what came meanwhile), not a count of every row of nine tables. A listening connection that breaks is
opened again under a new number (what was missed meanwhile drops the cache once). Elsewhere (an
in-memory SQLite store, a PostgreSQL store without the trigger) one aggregate per table a reader page
shows (row count and newest stamp of editions, events, members, items, analyses, checks, votes,
sources and the search index).

When the version moves, a cache made with `warm` keeps answering from what it holds while one
thread runs warm() (the server keeps the navigation days and loads the segmenter: what a first
reader of the new version would otherwise wait for), then drops it all and runs `prefill` (the
server renders the newest days' feed pages into it). `start()` does both before the first
request, at the server's start.

A write through this process (a vote, a source) empties its cache at once (ClearOnWrite).
Only what every reader is shown goes in: what only the logged-in operator sees (clusterer's
reasons, writer's notes, drafts, subscriptions) is read live and never cached, and the parts
of a personal page that belong to its session (user, CSRF token, flash) are added per
request. A reader's page once rendered is answered by CachedPages straight from memory, in
the server's event loop, before routing and without a worker thread.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Awaitable, Callable, Hashable
from typing import Any, TypeVar

from sqlalchemy import func, select, text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError

from newsdesk.store.schema import analyses, checks, editions, event_members, events, feedback, items, sources

log = logging.getLogger(__name__)
T = TypeVar("T")
CHECK_EVERY = 1.0  # seconds a process answers from its cache before it looks at the store's version again
MAX_ENTRIES = 4096  # a crawler walking every event cannot grow a process without bound
# Rendered pages kept per process: a busy day's feed page is ~0.4 MB, so 200 days of them fit (a
# reader walking the whole archive in turn would otherwise find each page pushed out before its turn).
MAX_PAGE_BYTES = 128 * 2**20

_STAMPS = (
    (editions, editions.c.updated_at),
    (events, events.c.updated_at),
    (event_members, event_members.c.joined_at),
    (items, items.c.updated_at),
    (analyses, analyses.c.created_at),
    (checks, checks.c.id),
    (feedback, feedback.c.id),
    (sources, sources.c.id),
)


class ReadCache:
    """Answers of reader pages by key, valid for one version of the store; safe across threads."""

    def __init__(
        self,
        engine: Engine,
        check_every: float = CHECK_EVERY,
        *,
        warm: Callable[[], object] | None = None,
        prefill: Callable[[], object] | None = None,
    ):
        self.engine = engine
        self.check_every = check_every
        self.warm = warm
        self.prefill = prefill
        self._warming: threading.Thread | None = None  # while it runs, the old version's answers stand
        self._lock = threading.Lock()
        self._entries: dict[Hashable, object] = {}
        self._bytes = 0  # of the rendered pages among the entries
        self._computing: dict[Hashable, threading.Lock] = {}
        self._version: tuple | None = None
        self._generation = 0  # counts the clears: an answer computed across one is not kept
        self._checked = float("-inf")
        self._connect_probe = _data_version_connect(engine)
        self._probe: Any = None
        self._probe_lock = threading.Lock()
        self._listener = StoreListener(engine) if engine.dialect.name == "postgresql" else None

    def version(self) -> tuple:
        if self._connect_probe is not None:
            with self._probe_lock:  # its own lock: the event loop's page() never waits for the store
                if self._probe is None:
                    self._probe = self._connect_probe()
                return ("sqlite", self._probe.execute("PRAGMA data_version").fetchone()[0])
        if self._listener is not None:
            with self._probe_lock:
                heard = self._listener.version()
            if heard is not None:
                return heard
        return self._counted()

    def _counted(self) -> tuple:
        """The version as one count and newest stamp per table a reader page shows (every row read)."""
        parts: list = []
        with self.engine.connect() as conn:
            for table, stamp in _STAMPS:
                parts.extend(conn.execute(select(func.count(), func.max(stamp)).select_from(table)).one())
            # The search index lags the store while it catches up; its answers change as it does.
            # (The table appears once the index first runs; until then there is nothing to count.)
            # Last: on PostgreSQL a failed statement ends the transaction.
            try:
                parts.extend(conn.execute(text("SELECT count(*), max(stamp) FROM search_docs")).one())
            except DBAPIError:  # no index yet is a version like any other
                parts.append(None)
        return tuple(parts)

    def close(self) -> None:
        """Close the connections of the cache's own (the server's end)."""
        with self._probe_lock:
            if self._probe is not None:
                self._probe.close()
                self._probe = None
            if self._listener is not None:
                self._listener.close()

    def start(self) -> None:
        """Warm and prefill for the store as it is now (the server's start, before any reader); a
        store that does not answer yet is looked at again by the first request, as without warming."""
        try:
            self._rewarm()
        except Exception as exc:  # noqa: BLE001 - the server starts; its pages say what the store says
            log.warning("read cache: could not warm at the start (%s)", exc)

    def look(self) -> None:
        """Look at the store's version now (a server about to take readers: the kept pages are then
        answered from memory for the next check_every, not sent the long way to look first)."""
        with self._lock:
            self._checked = float("-inf")
        self._fresh()

    def _fresh(self) -> None:
        """Drop every entry when the store moved (looked at no more often than check_every); with
        warm, only once a thread of its own has warmed for the new version."""
        now = time.monotonic()
        with self._lock:
            if now - self._checked < self.check_every or self._warming is not None:
                return
            self._checked = now  # one thread looks; the others answer from the cache meanwhile
        version = self.version()
        with self._lock:
            if version == self._version:
                return
            if self.warm is None:
                self._version = version
                self._drop_all()
                return
            self._warming = threading.Thread(target=self._rewarm, name="read-cache-warm", daemon=True)
            self._warming.start()

    def _rewarm(self) -> None:
        """warm(), then the version as it is after it (warm may write derived rows), a fresh cache,
        and prefill() into it."""
        try:
            if self.warm is not None:
                self.warm()
        except Exception as exc:  # noqa: BLE001 - a failed warm-up costs the first readers time, not the server
            log.warning("read cache: warming failed (%s); pages are read as they are asked", exc)
        try:
            version = self.version()
        except Exception:
            with self._lock:  # the store did not answer: the next look tries again
                self._warming = None
            raise
        with self._lock:
            self._version = version
            self._drop_all()
            self._checked = time.monotonic()
            self._warming = None
        try:
            if self.prefill is not None:
                self.prefill()
        except Exception as exc:  # noqa: BLE001
            log.warning("read cache: rendering the newest pages failed (%s)", exc)

    def _drop_all(self) -> None:
        self._entries.clear()
        self._bytes = 0
        self._generation += 1

    def clear(self) -> None:
        with self._lock:
            self._drop_all()

    def page(self, key: Hashable) -> bytes | tuple | None:
        """A rendered page kept for key (bytes, or a tuple of them cut where the page names itself), if
        the store's version was looked at within check_every; never waits for the store (the event loop asks)."""
        with self._lock:
            if time.monotonic() - self._checked >= self.check_every and self._warming is None:
                return None  # due for a look at the version: the request goes the long way, which looks
            found = self._entries.get(key)
        return found if isinstance(found, (bytes, tuple)) else None

    def page_bytes(self) -> int:
        """Bytes of the rendered pages kept now."""
        return self._bytes

    def get(self, key: Hashable, compute: Callable[[], T]) -> T:
        """The cached answer for key, or compute() once (concurrent askers of one key wait for it)."""
        self._fresh()
        with self._lock:
            if key in self._entries:
                return self._entries[key]  # type: ignore[return-value]
            gate = self._computing.setdefault(key, threading.Lock())
        with gate:
            with self._lock:
                if key in self._entries:
                    return self._entries[key]  # type: ignore[return-value]
                generation = self._generation
            try:
                value = compute()
            finally:
                with self._lock:
                    self._computing.pop(key, None)
            with self._lock:
                if generation == self._generation:  # else the store moved meanwhile: the answer may be older
                    self._keep(key, value)
        return value

    def _keep(self, key: Hashable, value: object) -> None:
        self._entries[key] = value
        self._bytes += _size(value)
        while len(self._entries) > MAX_ENTRIES or self._bytes > MAX_PAGE_BYTES:
            self._bytes -= _size(self._entries.pop(next(iter(self._entries))))


def _size(value: object) -> int:
    """Bytes of a rendered page (whole, or cut where it names itself); 0 for what a page read."""
    if isinstance(value, bytes):
        return len(value)
    if isinstance(value, tuple) and all(isinstance(part, bytes) for part in value):
        return sum(len(part) for part in value)
    return 0


def _data_version_connect(engine: Engine) -> Callable[[], Any] | None:
    """How to open a connection of the cache's own to an SQLite file, to ask its data_version (a value
    that moves with commits by other connections only); None for other databases and for an in-memory
    SQLite store (a second connection would open another, empty one)."""
    if engine.dialect.name != "sqlite" or engine.url.database in (None, "", ":memory:"):
        return None
    if "mode=memory" in str(engine.url):
        return None
    args, kwargs = engine.dialect.create_connect_args(engine.url)
    kwargs["check_same_thread"] = False  # asked under the probe's lock, from whichever thread looks
    return lambda: engine.dialect.connect(*args, **kwargs)


class StoreListener:
    """PostgreSQL: the store's changes heard on channel `newsdesk_store` (migration 0019's triggers), on
    a connection of its own. version() is ("listen", connection number, notifications heard), or None
    where the store has no trigger (not migrated): the caller counts rows instead."""

    CHANNEL = "newsdesk_store"

    def __init__(self, engine: Engine):
        args, kwargs = engine.dialect.create_connect_args(engine.url)
        self._connect = lambda: engine.dialect.connect(*args, **kwargs)
        self._conn: Any = None
        self._opened = 0  # connections opened: a new one may have missed notifications
        self._heard = 0
        self._triggered: bool | None = None

    def version(self) -> tuple | None:
        if self._triggered is False:
            return None
        for retry in (True, False):  # a connection broken since the last look is opened once more
            try:
                if self._conn is None:
                    self._open()
                    if not self._triggered:
                        return None
                # One round trip: psycopg hands the notifications that came meanwhile to _hear.
                self._conn.execute("SELECT 1")
                break
            except Exception:
                self.close()  # opened again, under a new number
                if not retry:
                    raise
        return ("listen", self._opened, self._heard)

    def _open(self) -> None:
        conn = self._connect()
        conn.autocommit = True
        self._triggered = conn.execute("SELECT to_regprocedure('newsdesk_store_changed()') IS NOT NULL").fetchone()[0]
        if not self._triggered:
            conn.close()
            return
        conn.add_notify_handler(self._hear)
        conn.execute(f"LISTEN {self.CHANNEL}")  # before anything is read under this version
        self._conn, self._opened = conn, self._opened + 1

    def _hear(self, _notify) -> None:
        self._heard += 1

    def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):  # a broken connection is closed as far as it goes
                conn.close()


class ClearOnWrite:
    """ASGI middleware: a request that may write (any method but GET, HEAD, OPTIONS) empties this
    process's cache before its answer goes out, so whoever wrote sees it on the next page at once.
    Plain ASGI, so streamed responses (the MCP endpoint's) pass through untouched."""

    def __init__(self, app, *, cache: ReadCache):
        self.app = app
        self.cache = cache

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return

        async def clearing_send(message):
            if message["type"] == "http.response.start":
                self.cache.clear()
            await send(message)

        await self.app(scope, receive, clearing_send)


class CachedPages:
    """ASGI middleware: a GET whose page ReadCache holds, rendered for this version of the store, is
    answered from memory here, in the event loop: no routing, no worker thread, no query. Anything
    else (a page not rendered yet, a version due for a look, a personal page) goes on to the app,
    which renders and keeps it. `key` names the page a request asks for, or None when it is not one
    every reader is shown alike; it runs inside SessionMiddleware, so the session is known."""

    def __init__(
        self,
        app,
        *,
        cache: ReadCache,
        key: Callable[[dict], Hashable | None],
        fill: Callable[[bytes | tuple, dict], bytes] | None = None,
    ):
        self.app = app
        self.cache = cache
        self.key = key
        self.fill = fill  # a page kept cut where it names itself, made whole for this request

    async def __call__(self, scope: dict, receive: Callable[[], Awaitable[dict]], send) -> None:
        if scope["type"] == "http" and scope["method"] == "GET":
            key = self.key(scope)
            kept = self.cache.page(key) if key is not None else None
            if kept is not None and (isinstance(kept, bytes) or self.fill is not None):
                body = kept if isinstance(kept, bytes) else self.fill(kept, scope)  # type: ignore[misc]
                headers = [
                    (b"content-type", b"text/html; charset=utf-8"),
                    (b"content-length", str(len(body)).encode()),
                    (b"vary", b"Cookie"),  # the interface language and the login are cookies
                ]
                await send({"type": "http.response.start", "status": 200, "headers": headers})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)
