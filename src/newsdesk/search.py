"""Full-text search over items and events, Chinese included.

Neither SQLite's FTS5 nor PostgreSQL's 'simple' parser can split Chinese into words,
so we index text that jieba has already segmented (words joined by spaces) and segment
the query the same way:

- SQLite: an FTS5 table `search_fts` (rowid encodes kind and id), ranked by bm25;
- PostgreSQL: a table with a generated `to_tsvector('simple', body)` column and a GIN index.

`search_docs` remembers which version (stamp) of each item and event is indexed.
Other stages write items and events without knowing about this index, so the index
catches up by itself before each search: a cheap signature of the source tables says
whether anything changed, and only changed rows are re-segmented.
When the word index finds nothing (a query that cuts across jieba's word boundaries),
a case-insensitive substring match over titles is the fallback.
"""

from __future__ import annotations

import html
import logging
import threading
from dataclasses import dataclass

import jieba
import nh3
from sqlalchemy import func, or_, select, text
from sqlalchemy.engine import Connection, Engine

from newsdesk.store.schema import analyses, events, items

jieba.setLogLevel(logging.WARNING)
log = logging.getLogger(__name__)

BATCH = 50  # documents per transaction (and per search, when the index is behind)

_KINDS = {"item": 0, "event": 1}

_SQLITE_DDL = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS search_fts USING fts5(body, tokenize='unicode61 remove_diacritics 2')",
    "CREATE TABLE IF NOT EXISTS search_docs (kind TEXT NOT NULL, ref_id INTEGER NOT NULL, stamp TEXT NOT NULL,"
    " PRIMARY KEY (kind, ref_id))",
)
_PG_DDL = (
    "CREATE TABLE IF NOT EXISTS search_docs (kind varchar(8) NOT NULL, ref_id integer NOT NULL,"
    " stamp text NOT NULL, body text NOT NULL,"
    " tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', body)) STORED, PRIMARY KEY (kind, ref_id))",
    "CREATE INDEX IF NOT EXISTS ix_search_docs_tsv ON search_docs USING gin (tsv)",
)


@dataclass
class Hit:
    kind: str  # item | event
    ref_id: int
    rank: float


def segment(value: str) -> str:
    """Words for the index: jieba's search mode also emits the short words inside long ones.

    HMM (guessing words missing from jieba's dictionary) is off on both sides: it costs a
    third of the time, and an unknown name then splits into the same pieces in the query.
    """
    return " ".join(w for w in jieba.cut_for_search(value, HMM=False) if w.strip())


def query_words(query: str) -> list[str]:
    return [w for w in jieba.cut(query, HMM=False) if any(ch.isalnum() for ch in w)]


def _text(fragment: str | None) -> str:
    return html.unescape(nh3.clean(fragment or "", tags=set())) if fragment else ""


def _stamp(*parts) -> str:
    return "|".join("" if p is None else (p.isoformat() if hasattr(p, "isoformat") else str(p)) for p in parts)


class SearchIndex:
    """The index for one store; safe to share between a server's threads."""

    def __init__(self, engine: Engine):
        self.engine = engine
        self.dialect = engine.dialect.name
        self._lock = threading.Lock()
        self._signature: tuple | None = None
        self._ready = False

    # --- keeping in sync ----------------------------------------------------------------

    def ensure(self) -> None:
        if self._ready:
            return
        with self.engine.begin() as conn:
            if self.dialect == "postgresql":
                conn.exec_driver_sql("SELECT pg_advisory_xact_lock(4243)")  # two servers starting at once
            for ddl in _PG_DDL if self.dialect == "postgresql" else _SQLITE_DDL:
                conn.exec_driver_sql(ddl)
        self._ready = True

    def _current_signature(self, conn: Connection) -> tuple:
        parts = []
        for table, stamp_col in ((items, items.c.updated_at), (events, events.c.updated_at), (analyses, analyses.c.created_at)):
            parts.extend(conn.execute(select(func.count(), func.max(stamp_col)).select_from(table)).one())
        return tuple(parts)

    def refresh(self, limit: int | None = None, wait: bool = True) -> int:
        """Index what changed, at most `limit` documents; returns how many were (re)indexed.

        Work is committed in small batches so a long catch-up never holds SQLite's write
        lock for long (the pipeline writes to the same file).
        """
        self.ensure()
        if not self._lock.acquire(blocking=wait):
            return 0
        try:
            with self.engine.connect() as conn:
                signature = self._current_signature(conn)
                if signature == self._signature:
                    return 0
                changed, gone = self._changes(conn)
            todo = changed if limit is None else changed[:limit]
            with self.engine.begin() as conn:
                for key in gone:
                    self._delete(conn, *key)
            for start in range(0, len(todo), BATCH):
                with self.engine.begin() as conn:
                    self._index(conn, todo[start : start + BATCH])
            if len(todo) == len(changed):
                self._signature = signature
            return len(todo)
        finally:
            self._lock.release()

    def catch_up(self) -> None:
        """Index everything, a batch at a time (a server runs this in a thread at start)."""
        try:
            while self.refresh(limit=BATCH):
                pass
        except Exception as exc:  # noqa: BLE001 - a search index must never take the server down
            log.warning("search index: catching up failed (%s); searches will retry", exc)

    def _changes(self, conn: Connection) -> tuple[list[tuple[str, int, str]], list[tuple[str, int]]]:
        current: dict[tuple[str, int], str] = {}
        for row in conn.execute(select(items.c.id, items.c.updated_at)):
            current[("item", row.id)] = _stamp(row.updated_at)
        latest = dict(
            conn.execute(select(analyses.c.event_id, func.max(analyses.c.created_at)).group_by(analyses.c.event_id)).all()
        )
        for row in conn.execute(select(events.c.id, events.c.updated_at)):
            current[("event", row.id)] = _stamp(row.updated_at, latest.get(row.id))
        stored = {(r.kind, r.ref_id): r.stamp for r in conn.execute(text("SELECT kind, ref_id, stamp FROM search_docs"))}
        # Newest first: when a search indexes only part of a backlog, fresh news is what people look for.
        changed = sorted(
            ((kind, ref_id, stamp) for (kind, ref_id), stamp in current.items() if stored.get((kind, ref_id)) != stamp),
            key=lambda c: c[2], reverse=True,
        )
        return changed, sorted(stored.keys() - current.keys())

    def _index(self, conn: Connection, batch: list[tuple[str, int, str]]) -> None:
        stamps = {(kind, ref_id): stamp for kind, ref_id, stamp in batch}
        item_ids = [i for k, i, _ in batch if k == "item"]
        event_ids = [i for k, i, _ in batch if k == "event"]
        if item_ids:
            for row in conn.execute(select(items.c.id, items.c.title, items.c.summary).where(items.c.id.in_(item_ids))):
                self._put(conn, "item", row.id, stamps[("item", row.id)], f"{_text(row.title)}\n{_text(row.summary)}")
        if event_ids:
            written: dict[int, list[str]] = {}
            for row in conn.execute(
                select(analyses.c.event_id, analyses.c.headline, analyses.c.body).where(analyses.c.event_id.in_(event_ids))
            ):
                written.setdefault(row.event_id, []).extend([row.headline, row.body])
            for row in conn.execute(select(events.c.id, events.c.title).where(events.c.id.in_(event_ids))):
                body = "\n".join([_text(row.title), *written.get(row.id, [])])
                self._put(conn, "event", row.id, stamps[("event", row.id)], body)

    def _put(self, conn: Connection, kind: str, ref_id: int, stamp: str, body: str) -> None:
        words = segment(body)
        if self.dialect == "postgresql":
            conn.execute(
                text(
                    "INSERT INTO search_docs (kind, ref_id, stamp, body) VALUES (:k, :i, :s, :b)"
                    " ON CONFLICT (kind, ref_id) DO UPDATE SET stamp = excluded.stamp, body = excluded.body"
                ),
                {"k": kind, "i": ref_id, "s": stamp, "b": words},
            )
            return
        rowid = ref_id * 2 + _KINDS[kind]
        conn.execute(text("DELETE FROM search_fts WHERE rowid = :r"), {"r": rowid})
        conn.execute(text("INSERT INTO search_fts (rowid, body) VALUES (:r, :b)"), {"r": rowid, "b": words})
        conn.execute(
            text(
                "INSERT INTO search_docs (kind, ref_id, stamp) VALUES (:k, :i, :s)"
                " ON CONFLICT (kind, ref_id) DO UPDATE SET stamp = excluded.stamp"
            ),
            {"k": kind, "i": ref_id, "s": stamp},
        )

    def _delete(self, conn: Connection, kind: str, ref_id: int) -> None:
        if self.dialect != "postgresql":
            conn.execute(text("DELETE FROM search_fts WHERE rowid = :r"), {"r": ref_id * 2 + _KINDS[kind]})
        conn.execute(text("DELETE FROM search_docs WHERE kind = :k AND ref_id = :i"), {"k": kind, "i": ref_id})

    # --- querying -------------------------------------------------------------------------

    def search(self, query: str, limit: int = 50) -> list[Hit]:
        """Best matches first; events and items mixed (callers split them by kind)."""
        words = query_words(query)
        if not words:
            return []
        # Bounded work per search; a server's catch-up thread does the bulk (see catch_up).
        self.refresh(limit=BATCH)
        with self.engine.connect() as conn:
            hits = self._words(conn, words, limit) or self._substring(conn, query.strip(), limit)
        return hits

    def _words(self, conn: Connection, words: list[str], limit: int) -> list[Hit]:
        if self.dialect == "postgresql":
            rows = conn.execute(
                text(
                    "SELECT kind, ref_id, ts_rank(tsv, q) AS rank FROM search_docs,"
                    " plainto_tsquery('simple', :q) AS q WHERE tsv @@ q ORDER BY rank DESC, ref_id DESC LIMIT :n"
                ),
                {"q": " ".join(words), "n": limit},
            )
            return [Hit(r.kind, r.ref_id, float(r.rank)) for r in rows]
        # Each word quoted: a phrase to FTS5, so punctuation or operators in the query stay literal.
        match = " ".join('"' + w.replace('"', '""') + '"' for w in words)
        rows = conn.execute(
            text("SELECT rowid, bm25(search_fts) AS rank FROM search_fts WHERE search_fts MATCH :m ORDER BY rank LIMIT :n"),
            {"m": match, "n": limit},
        )
        return [Hit("event" if r.rowid % 2 else "item", r.rowid // 2, -float(r.rank)) for r in rows]

    def _substring(self, conn: Connection, query: str, limit: int) -> list[Hit]:
        pattern = "%" + query.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        hits = [
            Hit("event", r.id, 0.0)
            for r in conn.execute(
                select(events.c.id).where(events.c.title.ilike(pattern, escape="\\")).order_by(events.c.importance.desc()).limit(limit)
            )
        ]
        hits += [
            Hit("item", r.id, 0.0)
            for r in conn.execute(
                select(items.c.id)
                .where(or_(items.c.title.ilike(pattern, escape="\\"), items.c.summary.ilike(pattern, escape="\\")))
                .order_by(items.c.published_at.desc())
                .limit(limit)
            )
        ]
        return hits
