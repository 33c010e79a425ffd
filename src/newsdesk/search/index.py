"""Full-text search over items and events, Chinese included.

Neither SQLite's FTS5 nor PostgreSQL's 'simple' parser can split Chinese into words,
so we index text that jieba has already segmented (words joined by spaces) and segment
the query the same way:

- SQLite: an FTS5 table `search_fts` (rowid encodes kind and id), ranked by bm25, its words
  stemmed by FTS5's porter tokenizer over unicode61;
- PostgreSQL: a table with a generated `to_tsvector('english', body)` column and a GIN index.

Only CJK runs go through jieba: Latin-script text is already split into words, and
both FTS5's unicode61 and PostgreSQL's parser tokenize it the same on the query side. English
words are stemmed on both sides ("hallucinations" finds "hallucination"; PostgreSQL's 'english'
also drops stop words such as "the"); Chinese words pass the stemmers unchanged. An index made
before stemming (unicode61 alone, 'simple') is re-tokenized in place when the index is first
opened, from the segmented text it already holds: no document is segmented again.

`search_docs` remembers which version (stamp) of each item and event is indexed.
Other stages write items and events without knowing about this index, so the index
catches up by itself: a cheap signature of the source tables says whether anything
changed, and only changed rows are re-segmented, BATCH documents per transaction.
A search never waits for a catch-up in progress: it answers from what is indexed.
When the word index finds nothing (a query that cuts across jieba's word boundaries),
a case-insensitive substring match over titles is the fallback.
"""

from __future__ import annotations

import html
import logging
import re
import threading
from dataclasses import dataclass
from operator import itemgetter

import nh3
from sqlalchemy import func, or_, select, text
from sqlalchemy.engine import Connection, Engine

from newsdesk.store.schema import analyses, events, items
from newsdesk.text.segment import words as cut_words

log = logging.getLogger(__name__)

# Documents per transaction: short write locks for SQLite, few round trips for both. Each commit
# leaves FTS5 a segment to merge: 2,000 rather than 500 cut a 60k-document catch-up's FTS5 time by
# a quarter; the write lock is held for the writes alone (~30 ms a batch on the shared 2-core machine).
BATCH = 2000
SEARCH_BATCH = 50  # documents a search indexes itself when nothing else is catching up

_KINDS = {"item": 0, "event": 1}

_TOKENIZE = "porter unicode61 remove_diacritics 2"  # FTS5: unicode61's words, English ones stemmed
_PG_CONFIG = "english"  # PostgreSQL's text search configuration: its stemmer and stop words
_SQLITE_DDL = (
    f"CREATE VIRTUAL TABLE IF NOT EXISTS search_fts USING fts5(body, tokenize='{_TOKENIZE}')",
    "CREATE TABLE IF NOT EXISTS search_docs (kind TEXT NOT NULL, ref_id INTEGER NOT NULL, stamp TEXT NOT NULL,"
    " PRIMARY KEY (kind, ref_id))",
)
_PG_TSV = f"tsv tsvector GENERATED ALWAYS AS (to_tsvector('{_PG_CONFIG}', body)) STORED"
_PG_DDL = (
    "CREATE TABLE IF NOT EXISTS search_docs (kind varchar(8) NOT NULL, ref_id integer NOT NULL,"
    f" stamp text NOT NULL, body text NOT NULL, {_PG_TSV}, PRIMARY KEY (kind, ref_id))",
    "CREATE INDEX IF NOT EXISTS ix_search_docs_tsv ON search_docs USING gin (tsv)",
    # The store's change signal (migration 0019): a server's read cache hears that the index moved.
    "DO $$ BEGIN IF to_regprocedure('newsdesk_store_changed()') IS NOT NULL AND NOT EXISTS (SELECT 1 FROM"
    " pg_trigger WHERE tgname = 'newsdesk_store_changed' AND tgrelid = 'search_docs'::regclass) THEN"
    " CREATE TRIGGER newsdesk_store_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON search_docs"
    " FOR EACH STATEMENT EXECUTE FUNCTION newsdesk_store_changed(); END IF; END $$",
)


@dataclass
class Hit:
    kind: str  # item | event
    ref_id: int
    rank: float


_CJK_RUN = re.compile(r"([\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+)")


def segment(value: str) -> str:
    """Words for the index: jieba's search mode, on the CJK runs only, also emits the short words
    inside long ones. The rest is kept as written (the index tokenizes it).

    HMM (guessing words missing from jieba's dictionary) is off on both sides: it costs a
    third of the time, and an unknown name then splits into the same pieces in the query.
    """
    return segment_all([value])[0]


def _segment_alone(value: str) -> str:
    """`segment` one CJK run at a time."""
    parts = _CJK_RUN.split(value)
    for i in range(1, len(parts), 2):
        parts[i] = " ".join(cut_words(parts[i], hmm=False, search=True))
    return " ".join(" ".join(parts).split())


_SEP = "\x00"  # between documents cut together: the store never holds NUL, and it is no CJK, word or space


def segment_all(values: list[str]) -> list[str]:
    """`segment` of each value, in one pass over all of them: one regular-expression split, and one
    segmenter call for all their CJK runs, cut together one a line. jieba cuts the text between two
    line breaks on its own and gives the line break back as a word, so each run gets the words it
    gets alone (a call per run, a split per document cost more than the cutting)."""
    joined = _SEP.join(values)
    if joined.count(_SEP) != len(values) - 1:  # a NUL in a document after all: one at a time
        return [_segment_alone(value) for value in values]
    parts = _CJK_RUN.split(joined)
    runs = parts[1::2]  # odd positions are the CJK runs
    if runs:
        cut = " ".join(cut_words("\n".join(runs), hmm=False, search=True)).split("\n")
        if len(cut) != len(runs):  # never seen; cut them one by one rather than misplace words
            cut = [" ".join(cut_words(run, hmm=False, search=True)) for run in runs]
        parts[1::2] = cut
    # A space either side of each run's words, every run of spaces one space, documents apart again.
    return [doc.strip(" ") for doc in " ".join(" ".join(parts).split()).split(_SEP)]


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")  # never stored (the store drops NUL), and FTS5 ends a string at NUL


def query_words(query: str) -> list[str]:
    query = _CONTROL.sub(" ", query)
    words: list[str] = []
    for i, part in enumerate(_CJK_RUN.split(query)):
        words += cut_words(part, hmm=False) if i % 2 else part.split()
    return [w for w in words if any(ch.isalnum() for ch in w)]


def _text(fragment: str | None) -> str:
    if not fragment:
        return ""
    if "<" not in fragment and "&" not in fragment:
        return fragment  # plain text, as ingest stores most titles and summaries
    return html.unescape(nh3.clean(fragment, tags=set()))


def _stamp(*parts) -> str:
    return "|".join("" if p is None else (p.isoformat() if hasattr(p, "isoformat") else str(p)) for p in parts)


def _ids(values: list[int]) -> str:
    return ",".join(str(int(value)) for value in values)


# What _stamp makes of a UTC time as SQLAlchemy stores it in SQLite ('2026-03-01 08:00:00.000000' ->
# '2026-03-01T08:00:00+00:00'), worked out by SQLite: NULL for any other text. Parsing every row's
# time into a datetime and formatting it again was a seventh of a 60k-document catch-up.
_STORED_TIME = (
    "'[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9][0-9][0-9][0-9]'"
)


def _iso_sql(column: str) -> str:
    return (
        f"CASE WHEN {column} GLOB {_STORED_TIME} THEN substr({column}, 1, 10) || 'T' || substr({column}, 12, 8)"
        f" || CASE WHEN substr({column}, 21) = '000000' THEN '' ELSE substr({column}, 20) END || '+00:00' END"
    )


def _sqlite_stamps(conn: Connection) -> tuple[list[tuple[int, str]], list[tuple[int, str]]] | None:
    """SearchIndex._stamps from SQLite's own text, or None when a time is stored in another form
    (then every time is read as a datetime)."""
    item_stamps = []
    for ref_id, raw, iso in conn.exec_driver_sql(f"SELECT id, updated_at, {_iso_sql('updated_at')} FROM items").all():
        if raw is not None and iso is None:
            return None
        item_stamps.append((ref_id, iso or ""))
    event_stamps = []
    for ref_id, raw, iso, raw_latest, iso_latest in conn.exec_driver_sql(
        f"SELECT e.id, e.updated_at, {_iso_sql('e.updated_at')}, a.latest, {_iso_sql('a.latest')} FROM events e"
        " LEFT JOIN (SELECT event_id, max(created_at) AS latest FROM analyses GROUP BY event_id) a ON a.event_id = e.id"
    ).all():
        if (raw is not None and iso is None) or (raw_latest is not None and iso_latest is None):
            return None
        event_stamps.append((ref_id, f"{iso or ''}|{iso_latest or ''}"))
    return item_stamps, event_stamps


def _sqlite_changes(conn: Connection) -> tuple[list[tuple[str, int, str]], list[tuple[str, int]]] | None:
    """SearchIndex._changes worked out by SQLite: the same documents in the same order (newest first,
    then items before events, then by id, as the stable sort of the rows as read gives them), or None
    when any time is stored in another form. Reading every stamp and every indexed stamp into Python to
    compare them cost 0.32-0.47 s CPU on a caught-up 60k index, after every change of the store
    (0.17-0.26 s so); before a catch-up from nothing both cost about the same."""
    other = " OR ".join(
        f"EXISTS (SELECT 1 FROM {table} WHERE {column} IS NOT NULL AND NOT {column} GLOB {_STORED_TIME})"
        for table, column in (("items", "updated_at"), ("events", "updated_at"), ("analyses", "created_at"))
    )
    if conn.exec_driver_sql(f"SELECT {other}").scalar():
        return None
    changed = conn.exec_driver_sql(
        f"SELECT s.kind, s.id, s.stamp FROM (SELECT 'item' AS kind, 0 AS k, id, coalesce({_iso_sql('updated_at')}, '')"
        " AS stamp FROM items UNION ALL"
        f" SELECT 'event', 1, e.id, coalesce({_iso_sql('e.updated_at')}, '') || '|' || coalesce({_iso_sql('a.latest')}, '')"
        " FROM events e LEFT JOIN (SELECT event_id, max(created_at) AS latest FROM analyses GROUP BY event_id) a"
        " ON a.event_id = e.id) s LEFT JOIN search_docs d ON d.kind = s.kind AND d.ref_id = s.id"
        " WHERE d.stamp IS NOT s.stamp ORDER BY s.stamp DESC, s.k, s.id"
    ).all()
    gone = conn.exec_driver_sql(
        "SELECT kind, ref_id FROM search_docs d"
        " WHERE NOT EXISTS (SELECT 1 FROM items WHERE d.kind = 'item' AND items.id = d.ref_id)"
        " AND NOT EXISTS (SELECT 1 FROM events WHERE d.kind = 'event' AND events.id = d.ref_id) ORDER BY kind, ref_id"
    ).all()
    return [(k, i, st) for k, i, st in changed], [(k, i) for k, i in gone]


def _stem_sqlite(conn: Connection) -> None:
    """An FTS5 table made before stemming becomes a stemming one, its rows (the segmented text)
    copied over and tokenized again."""
    made = conn.exec_driver_sql("SELECT sql FROM sqlite_master WHERE name = 'search_fts'").scalar()
    if made is None or _TOKENIZE in made:
        return
    log.info("search index: stemming English words (re-tokenizing the indexed text once)")
    conn.exec_driver_sql(f"CREATE VIRTUAL TABLE search_fts_stemmed USING fts5(body, tokenize='{_TOKENIZE}')")
    conn.exec_driver_sql("INSERT INTO search_fts_stemmed (rowid, body) SELECT rowid, body FROM search_fts")
    conn.exec_driver_sql("DROP TABLE search_fts")
    conn.exec_driver_sql("ALTER TABLE search_fts_stemmed RENAME TO search_fts")


def _stem_postgresql(conn: Connection) -> None:
    """A search_docs table whose tsv was generated with another configuration ('simple', before
    stemming) has it generated again with this one (the GIN index is dropped with the column)."""
    made = conn.exec_driver_sql(
        "SELECT generation_expression FROM information_schema.columns"
        " WHERE table_schema = current_schema() AND table_name = 'search_docs' AND column_name = 'tsv'"
    ).scalar()
    if made is None or f"'{_PG_CONFIG}'" in made:
        return
    log.info("search index: stemming English words (tsv generated again with '%s')", _PG_CONFIG)
    conn.exec_driver_sql("ALTER TABLE search_docs DROP COLUMN tsv")
    conn.exec_driver_sql(f"ALTER TABLE search_docs ADD COLUMN {_PG_TSV}")


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
        with self.engine.connect() as conn:
            # Two servers starting at once: one makes (or re-tokenizes) the index, the other waits.
            if self.dialect == "postgresql":
                conn.exec_driver_sql("SELECT pg_advisory_xact_lock(4243)")
                _stem_postgresql(conn)
            else:
                conn.exec_driver_sql("BEGIN IMMEDIATE")
                _stem_sqlite(conn)
            for ddl in _PG_DDL if self.dialect == "postgresql" else _SQLITE_DDL:
                conn.exec_driver_sql(ddl)
            conn.commit()
        self._ready = True

    def _current_signature(self, conn: Connection) -> tuple:
        """Asked before every search: each count and newest stamp in a statement of its own, answered
        from an index (together in one statement they read every row: ~0.2 s on a 10k-event store)."""
        parts = []
        for table, stamp_col in (
            (items, items.c.updated_at),
            (events, events.c.updated_at),
            (analyses, analyses.c.created_at),
        ):
            parts.append(conn.execute(select(func.count()).select_from(table)).scalar())
            parts.append(conn.execute(select(func.max(stamp_col))).scalar())
        return tuple(parts)

    def refresh(self, limit: int | None = None, wait: bool = True) -> int:
        """Index what changed, at most `limit` documents; returns how many were (re)indexed.

        Work is committed BATCH documents at a time so a long catch-up never holds SQLite's
        write lock for long (the pipeline writes to the same file). With wait=False it returns
        0 at once when another thread is already indexing.
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
                self._delete(conn, gone)
            for start in range(0, len(todo), BATCH):
                with self.engine.begin() as conn:
                    self._index(conn, todo[start : start + BATCH])
            if len(todo) == len(changed):
                self._signature = signature
            return len(todo)
        finally:
            self._lock.release()

    def catch_up(self, limit: int | None = None) -> None:
        """Index what changed, newest first, at most `limit` documents (a server indexes the newest
        before it serves, then the rest in a thread)."""
        try:
            self.refresh(limit)
        except Exception as exc:  # noqa: BLE001 - a search index must never take the server down
            log.warning("search index: catching up failed (%s); searches will retry", exc)

    def _stamps(self, conn: Connection) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
        """(id, stamp) of every item and every event: the version the index must hold."""
        if self.dialect == "sqlite":
            made = _sqlite_stamps(conn)
            if made is not None:
                return made
        item_stamps = [
            (ref_id, _stamp(updated_at)) for ref_id, updated_at in conn.execute(select(items.c.id, items.c.updated_at))
        ]
        latest = dict(
            conn.execute(
                select(analyses.c.event_id, func.max(analyses.c.created_at)).group_by(analyses.c.event_id)
            ).all()
        )
        event_stamps = [
            (ref_id, _stamp(updated_at, latest.get(ref_id)))
            for ref_id, updated_at in conn.execute(select(events.c.id, events.c.updated_at))
        ]
        return item_stamps, event_stamps

    def _changes(self, conn: Connection) -> tuple[list[tuple[str, int, str]], list[tuple[str, int]]]:
        if self.dialect == "sqlite":
            made = _sqlite_changes(conn)
            if made is not None:
                return made
        stored: dict[str, dict[int, str]] = {kind: {} for kind in _KINDS}
        for kind, ref_id, stamp in conn.execute(text("SELECT kind, ref_id, stamp FROM search_docs")).all():
            stored.setdefault(kind, {})[ref_id] = stamp
        # Every row of the store is looked at: one comparison each (a dict keyed by (kind, id) for
        # both sides cost more than reading the rows).
        changed: list[tuple[str, int, str]] = []
        current: dict[str, set[int]] = {}
        for kind, stamps in zip(_KINDS, self._stamps(conn), strict=True):
            indexed = stored[kind]
            current[kind] = {ref_id for ref_id, _ in stamps}
            changed += [(kind, ref_id, stamp) for ref_id, stamp in stamps if indexed.get(ref_id) != stamp]
        # Newest first: when a search indexes only part of a backlog, fresh news is what people look for.
        changed.sort(key=itemgetter(2), reverse=True)
        gone = [(kind, ref_id) for kind, ids in stored.items() for ref_id in ids if ref_id not in current.get(kind, ())]
        return changed, sorted(gone)

    def _index(self, conn: Connection, batch: list[tuple[str, int, str]]) -> None:
        stamps = {(kind, ref_id): stamp for kind, ref_id, stamp in batch}
        item_ids = [i for k, i, _ in batch if k == "item"]
        event_ids = [i for k, i, _ in batch if k == "event"]
        keys: list[tuple[str, int]] = []
        texts: list[str] = []
        # Rows fetched at once (.all()), not a driver call each; the ids (integers read from the store)
        # written into the statements: SQLAlchemy binding a batch's parameters cost more than the reads.
        if item_ids:
            for ref_id, title, summary in conn.exec_driver_sql(
                f"SELECT id, title, summary FROM items WHERE id IN ({_ids(item_ids)})"
            ).all():
                keys.append(("item", ref_id))
                texts.append(f"{_text(title)}\n{_text(summary)}")
        if event_ids:
            written: dict[int, list[str]] = {}
            for event_id, headline, body in conn.exec_driver_sql(
                f"SELECT event_id, headline, body FROM analyses WHERE event_id IN ({_ids(event_ids)})"
                " AND status = 'clean'"  # what readers may see
                " ORDER BY event_id, language"  # as SQLite's unique index gave them
            ).all():
                written.setdefault(event_id, []).extend([headline, body])
            for ref_id, title in conn.exec_driver_sql(
                f"SELECT id, title FROM events WHERE id IN ({_ids(event_ids)})"
            ).all():
                keys.append(("event", ref_id))
                texts.append("\n".join([_text(title), *written.get(ref_id, [])]))
        if keys:
            words = segment_all(texts)  # one segmenter call for the batch
            self._put(conn, [(k, i, stamps[(k, i)], w) for (k, i), w in zip(keys, words, strict=True)])

    def _put(self, conn: Connection, docs: list[tuple[str, int, str, str]]) -> None:
        """Write a batch of documents with one statement per table (executemany)."""
        if self.dialect == "postgresql":
            conn.execute(
                text(
                    "INSERT INTO search_docs (kind, ref_id, stamp, body) VALUES (:k, :i, :s, :b)"
                    " ON CONFLICT (kind, ref_id) DO UPDATE SET stamp = excluded.stamp, body = excluded.body"
                ),
                [{"k": k, "i": i, "s": s, "b": b} for k, i, s, b in docs],
            )
            return
        rows = [(i * 2 + _KINDS[k], b) for k, i, _, b in docs]
        # Positional parameters straight to the driver: SQLAlchemy's per-row parameter handling cost
        # more than the inserts. search_docs first: the first write opens SQLite's transaction and
        # takes the write lock, so what FTS5 holds is read under that lock (another process indexing
        # the same documents cannot insert a row between the look and the insert).
        conn.exec_driver_sql(
            "INSERT INTO search_docs (kind, ref_id, stamp) VALUES (?, ?, ?)"
            " ON CONFLICT (kind, ref_id) DO UPDATE SET stamp = excluded.stamp",
            [(k, i, s) for k, i, s, _ in docs],
        )
        # FTS5 has no upsert: the old row of a document already indexed goes first. Most of a
        # catch-up is new documents, and a delete costs FTS5 a lookup each: only those it holds.
        held = [
            tuple(r)
            for r in conn.exec_driver_sql(f"SELECT rowid FROM search_fts WHERE rowid IN ({_ids([r for r, _ in rows])})")
        ]
        if held:
            conn.exec_driver_sql("DELETE FROM search_fts WHERE rowid = ?", held)
        conn.exec_driver_sql("INSERT INTO search_fts (rowid, body) VALUES (?, ?)", rows)

    def _delete(self, conn: Connection, keys: list[tuple[str, int]]) -> None:
        if not keys:
            return
        if self.dialect != "postgresql":
            conn.execute(text("DELETE FROM search_fts WHERE rowid = :r"), [{"r": i * 2 + _KINDS[k]} for k, i in keys])
        conn.execute(
            text("DELETE FROM search_docs WHERE kind = :k AND ref_id = :i"), [{"k": k, "i": i} for k, i in keys]
        )

    # --- querying -------------------------------------------------------------------------

    def search(self, query: str, limit: int = 50) -> list[Hit]:
        """Best matches first; events and items mixed (callers split them by kind)."""
        query = _CONTROL.sub(" ", query)
        words = query_words(query)
        if not words:
            return []
        # Bounded work per search, and none while a catch-up is running: answer from what is indexed.
        self.refresh(limit=SEARCH_BATCH, wait=False)
        with self.engine.connect() as conn:
            hits = self._words(conn, words, limit) or self._substring(conn, query.strip(), limit)
        return hits

    def _words(self, conn: Connection, words: list[str], limit: int) -> list[Hit]:
        if self.dialect == "postgresql":
            rows = conn.execute(
                text(
                    "SELECT kind, ref_id, ts_rank(tsv, q) AS rank FROM search_docs,"
                    f" plainto_tsquery('{_PG_CONFIG}', :q) AS q WHERE tsv @@ q ORDER BY rank DESC, ref_id DESC LIMIT :n"
                ),
                {"q": " ".join(words), "n": limit},
            )
            return [Hit(r.kind, r.ref_id, float(r.rank)) for r in rows]
        # Each word quoted: a phrase to FTS5, so punctuation or operators in the query stay literal.
        match = " ".join('"' + w.replace('"', '""') + '"' for w in words)
        rows = conn.execute(
            text(
                "SELECT rowid, bm25(search_fts) AS rank FROM search_fts WHERE search_fts MATCH :m ORDER BY rank LIMIT :n"
            ),
            {"m": match, "n": limit},
        )
        return [Hit("event" if r.rowid % 2 else "item", r.rowid // 2, -float(r.rank)) for r in rows]

    def _substring(self, conn: Connection, query: str, limit: int) -> list[Hit]:
        pattern = "%" + query.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        hits = [
            Hit("event", r.id, 0.0)
            for r in conn.execute(
                select(events.c.id)
                .where(events.c.title.ilike(pattern, escape="\\"))
                .order_by(events.c.importance.desc())
                .limit(limit)
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
