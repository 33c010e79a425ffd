"""What the reader pages read, kept in each server process until the store changes.

A feed page reads the day's events, their members, analyses, stories and votes, and the
list of every day with news (a scan of all events): tens of queries that give the same
answer until a run, a vote or an edition changes the store. ReadCache keeps those answers
keyed by what the page asked for, and drops them all when the store's version moves.

The version is one aggregate per table a reader page shows (row count and newest stamp of
editions, events, members, items, analyses, checks, votes, sources and the search index), read
at most once every CHECK_EVERY seconds per process: a new edition, event or vote shows
within that long, on every worker process, without any process telling another.

A write through this process (a vote, a source) empties its cache at once (ClearOnWrite).
Only what every reader is shown goes in: pages for the logged-in operator (clusterer's
reasons, writer's notes, drafts, subscriptions) are read live and never cached, and the
parts of a page that belong to one session (user, CSRF token, flash) are added per request.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable
from typing import TypeVar

from sqlalchemy import func, select, text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError

from newsdesk.store.schema import analyses, checks, editions, event_members, events, feedback, items, sources

T = TypeVar("T")
CHECK_EVERY = 1.0  # seconds a process answers from its cache before it looks at the store's version again
MAX_ENTRIES = 4096  # a crawler walking every event cannot grow a process without bound

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

    def __init__(self, engine: Engine, check_every: float = CHECK_EVERY):
        self.engine = engine
        self.check_every = check_every
        self._lock = threading.Lock()
        self._entries: dict[Hashable, object] = {}
        self._computing: dict[Hashable, threading.Lock] = {}
        self._version: tuple | None = None
        self._generation = 0  # counts the clears: an answer computed across one is not kept
        self._checked = float("-inf")

    def version(self) -> tuple:
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

    def _fresh(self) -> None:
        """Drop every entry when the store moved (looked at no more often than check_every)."""
        now = time.monotonic()
        with self._lock:
            if now - self._checked < self.check_every:
                return
            self._checked = now  # one thread looks; the others answer from the cache meanwhile
        version = self.version()
        with self._lock:
            if version != self._version:
                self._version = version
                self._entries.clear()
                self._generation += 1

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._generation += 1

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
            value = compute()
            with self._lock:
                self._computing.pop(key, None)
                if generation == self._generation:  # else the store moved meanwhile: the answer may be older
                    if len(self._entries) >= MAX_ENTRIES:
                        self._entries.pop(next(iter(self._entries)))  # the oldest entry
                    self._entries[key] = value
        return value


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
