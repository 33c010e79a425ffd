"""Writing sources, items and fetch rows. Upserts are idempotent and safe under concurrency."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta
from types import EllipsisType

from sqlalchemy import ARRAY, Text, and_, bindparam, case, delete, func, insert, not_, select, true, update
from sqlalchemy.engine import Connection, Engine

from newsdesk.core.model import IMPORTED_KIND, REPLAYED_URL, Item, Source
from newsdesk.store.schema import CleanString, CleanText, fetches, items, sources, storable, transcripts

# Most values one statement may bind: PostgreSQL takes 65,535 parameters, SQLite 32,766
# (999 before 3.32); a list of values longer than this goes in several statements.
BATCH = 900

# How far after first sight an item's own date may lie: clocks drift a little. Past it the date is
# not believed (a feed dated 2099, a -9999 zone): the item takes the time it was first seen, and
# says so in dated_by, so no future day or week can lead the site.
FUTURE_SKEW = timedelta(minutes=10)

_SOURCE_COLUMNS = ("name", "url", "kind", "language", "tier", "weight", "category", "fulltext", "origin", "owner")


def _dialect_insert(conn: Connection, table):
    """The store's own INSERT (it has ON CONFLICT); each dialect's module imported where it is the
    store's: PostgreSQL's took 30 ms of every SQLite command's start."""
    if conn.dialect.name == "postgresql":
        from sqlalchemy.dialects import postgresql

        return postgresql.insert(table)
    from sqlalchemy.dialects import sqlite

    return sqlite.insert(table)


def polled_sources():
    """The SQL side of model.polled: sources ingest polls (not an imported outlet, not a replayed file)."""
    return and_(sources.c.kind != IMPORTED_KIND, not_(sources.c.url.startswith(REPLAYED_URL, autoescape=True)))


def stored_items(conn: Connection, source_id: str, guids: list[str], *columns) -> list:
    """Rows of the items this source already holds among `guids`: guid and `columns`
    (by default material_level and body)."""
    columns = columns or (items.c.material_level, items.c.body)
    rows = []
    for start in range(0, len(guids), BATCH):
        chunk = guids[start : start + BATCH]
        if conn.dialect.name == "postgresql":
            # The guids as one array, each looked up in the (source_id, guid) index. With `guid IN (...)`
            # PostgreSQL's plan for the repeated statement, made while a big feed's rows are still
            # uncommitted (its statistics say the table is empty), filtered every row of the source
            # against the list: 0.2 s a batch at 20,000 rows and growing (a 70,000-entry feed: 98 s).
            # A plain join to the array hashed every row of the source too (39 ms a batch at 60,000);
            # a LATERAL look-up with LIMIT 1 (a guid is stored once) cannot be flattened into that join.
            # The array bypasses the column's type, so the guids are made storable as the column would (NUL).
            wanted = (
                func.unnest(bindparam("guids", storable(chunk), type_=ARRAY(Text)))
                .table_valued("guid")
                .render_derived()
            )
            found = (
                select(items.c.guid, *columns)
                .where(and_(items.c.source_id == source_id, items.c.guid == wanted.c.guid))
                .limit(1)
                .lateral()
            )
            query = select(found).select_from(wanted.join(found, true()))
        else:
            query = select(items.c.guid, *columns).where(and_(items.c.source_id == source_id, items.c.guid.in_(chunk)))
        rows += conn.execute(query).all()
    return rows


def sync_sources(conn: Connection, catalog: list[Source]) -> None:
    """Seed the store from catalog files: the store is the catalog ingest reads, the files its seed.

    New sources are inserted; known ones get the files' current name, URL, kind... Fetch state
    is kept. `enabled` belongs to whoever changed it last: the web app's switch holds until the
    file's own `enabled` value changes (catalog_enabled remembers what the file said).
    """
    if not catalog:
        return
    ids = [s.id for s in catalog]
    stored = {
        r.id: r
        for start in range(0, len(ids), BATCH)
        for r in conn.execute(
            select(
                sources.c.id, sources.c.enabled, sources.c.catalog_enabled, *(sources.c[c] for c in _SOURCE_COLUMNS)
            ).where(sources.c.id.in_(ids[start : start + BATCH]))
        )
    }
    for src in catalog:
        values = {c: getattr(src, c) for c in _SOURCE_COLUMNS}
        row = stored.get(src.id)
        if row is None:
            # Two workers may seed at once: the second one's insert is a no-op.
            stmt = _dialect_insert(conn, sources).values(
                id=src.id, enabled=src.enabled, catalog_enabled=src.enabled, **values
            )
            conn.execute(stmt.on_conflict_do_nothing(index_elements=["id"]))
            continue
        # A store from before catalog_enabled: only a file's `enabled = false` was ever applied.
        file_changed = (not src.enabled) if row.catalog_enabled is None else row.catalog_enabled != src.enabled
        if file_changed:
            values["enabled"] = src.enabled
        values["catalog_enabled"] = src.enabled
        if any(getattr(row, c) != v for c, v in values.items()):  # most runs change nothing: no write
            conn.execute(update(sources).where(sources.c.id == src.id).values(**values))


def items_language(conn: Connection, source_id: str) -> str | None:
    """The language most of a source's stored items are in (a tie goes to the first in alphabetical
    order); None for a source with no items."""
    n = func.count()
    return conn.execute(
        select(items.c.language)
        .where(items.c.source_id == source_id)
        .group_by(items.c.language)
        .order_by(n.desc(), items.c.language)
        .limit(1)
    ).scalar()


def upsert_items(conn: Connection, batch: list[Item], now: datetime | None = None) -> list[str]:
    """Store items; returns 'new', 'updated' or 'unchanged' for each, in order.

    Keyed by (source, guid). An entry without a guid of its own is keyed by its canonical
    URL (the parser puts it in `guid`, keeping a fragment that tells changelog entries apart).
    An entry listed twice is stored once, as its last copy, dated by the last copy that has a date
    (a harvest that re-lists an item without its date does not move it to the day it was seen).
    Items go BATCH at a time: a few statements per batch instead of two per item, each under every
    database's parameter limit.
    """
    now = now or datetime.now(UTC)
    # Keyed as the store keeps the key (a NUL removed): else a new item whose guid held one came back
    # from its insert under another key and was counted unchanged.
    batch = [i if storable(i.guid) == i.guid else dataclasses.replace(i, guid=storable(i.guid)) for i in batch]
    latest = {(i.source_id, i.guid): i for i in batch}
    dated = {(i.source_id, i.guid): i for i in batch if i.published_at is not None}
    stored = {
        k: dataclasses.replace(i, published_at=dated[k].published_at, dated_by=dated[k].dated_by)
        if i.published_at is None and k in dated
        else i
        for k, i in latest.items()
    }
    outcome: dict[tuple[str, str], str] = {}
    keys = list(latest)
    for start in range(0, len(keys), BATCH):
        outcome.update(_upsert_batch(conn, [stored[k] for k in keys[start : start + BATCH]], now))
    last = {id(i) for i in latest.values()}
    return [outcome[(i.source_id, i.guid)] if id(i) in last else "unchanged" for i in batch]


def _fields(item: Item) -> dict:
    return {
        "url": item.url,
        "title": item.title,
        "summary": item.summary,
        "body": item.body,
        "language": item.language,
        "material_level": item.material_level,
        "content_hash": item.content_hash,
        "authors": item.authors,
        "categories": item.categories,
        "engagement": item.engagement,
        "extra": item.extra,
    }


def _dated(item: Item, first_seen: datetime) -> dict:
    """published_at and dated_by of a new row: its own date unless missing or from the future."""
    if item.published_at is None or item.published_at > first_seen + FUTURE_SKEW:
        return {"published_at": first_seen, "dated_by": "first_seen"}
    return {"published_at": item.published_at, "dated_by": item.dated_by}


def _insert_new(conn: Connection, rows: list[dict]):
    """Insert rows whose (source_id, guid) is not stored yet; returns the id, source_id and guid of
    each row inserted (one another worker stored first comes back as no row)."""
    stmt = _dialect_insert(conn, items)
    returning = (items.c.id, items.c.source_id, items.c.guid)
    if conn.dialect.name != "postgresql":
        return conn.execute(
            stmt.on_conflict_do_nothing(index_elements=["source_id", "guid"]).returning(*returning), rows
        )
    # One array per column, unnested: a few parameters a batch. A list of rows became one VALUES list
    # of ~13,500 placeholders a batch, and psycopg parsing that string took 20 s of a 70,000-entry
    # feed's 30. Each array has its column's type (one dimension: a JSON list is a value, not a
    # row of the array), so each value is cleaned and adapted as it was in a row (NUL, JSON, UTC).
    # Strings go as text, not varchar(n): a cast to varchar(n) cuts a longer value where the row's
    # insert refused it.
    names = list(rows[0])
    arrays = [bindparam(f"new_{c}", [r[c] for r in rows], type_=_array_of(items.c[c].type)) for c in names]
    new = func.unnest(*arrays).table_valued(*names).render_derived()
    stmt = stmt.from_select(names, select(*(new.c[c] for c in names)))
    return conn.execute(stmt.on_conflict_do_nothing(index_elements=["source_id", "guid"]).returning(*returning))


def _array_of(column_type) -> ARRAY:
    return ARRAY(CleanText() if isinstance(column_type, CleanString) else column_type, dimensions=1)


def _upsert_batch(conn: Connection, batch: list[Item], now: datetime) -> dict[tuple[str, str], str]:
    stored = {
        (source_id, r.guid): r
        for source_id in {i.source_id for i in batch}
        for r in stored_items(
            conn, source_id, [i.guid for i in batch if i.source_id == source_id], items.c.id, items.c.content_hash
        )
    }
    ids = {key: row.id for key, row in stored.items()}
    fresh = [i for i in batch if (i.source_id, i.guid) not in stored]
    changed = [
        i
        for i in batch
        if (i.source_id, i.guid) in stored and stored[i.source_id, i.guid].content_hash != i.content_hash
    ]
    new: set[tuple[str, str]] = set()
    if fresh:
        rows = [
            {
                "source_id": i.source_id,
                "guid": i.guid,
                **_dated(i, now),
                "first_seen_at": now,
                "updated_at": now,
                **_fields(i),
            }
            for i in fresh
        ]
        # Entries another worker stored first come back as no row: they count as unchanged.
        for r in _insert_new(conn, rows):
            ids[(r.source_id, r.guid)] = r.id
            new.add((r.source_id, r.guid))
    if changed:
        conn.execute(
            update(items).where(items.c.id == bindparam("k_id")),
            [{"k_id": ids[(i.source_id, i.guid)], "updated_at": now, **_fields(i)} for i in changed],
        )
    for item in batch:
        item_id = ids.get((item.source_id, item.guid))
        if item.transcript is not None and item_id is not None:
            values = {
                "format": item.transcript_format or "text",
                "source_url": item.transcript_url,
                "turns": [dataclasses.asdict(t) for t in item.transcript],
                "stored_at": now,
            }
            stmt = _dialect_insert(conn, transcripts).values(item_id=item_id, **values)
            conn.execute(stmt.on_conflict_do_update(index_elements=["item_id"], set_=values))
    changed_keys = {(i.source_id, i.guid) for i in changed}
    return {
        (i.source_id, i.guid): "new"
        if (i.source_id, i.guid) in new
        else "updated"
        if (i.source_id, i.guid) in changed_keys
        else "unchanged"
        for i in batch
    }


def upsert_item(conn: Connection, item: Item, now: datetime | None = None) -> str:
    """Store one item; see upsert_items."""
    return upsert_items(conn, [item], now)[0]


def record_fetch(conn: Connection, source_id: str, **values) -> int:
    """One row per fetch attempt; returns its id."""
    values.setdefault("started_at", datetime.now(UTC))
    values.setdefault("warnings", [])
    result = conn.execute(insert(fetches).values(source_id=source_id, **values))
    return result.inserted_primary_key[0]


# Fetch rows older than this are forgotten by the always-on loop (run/schedule.py), each source's
# landmarks kept: an hourly poll of 300 sources adds 2.6 million rows a year, which the doctor's
# checks and the sources page would read past.
KEEP_FETCHES = timedelta(days=90)


def prune_fetches(engine: Engine, keep: timedelta = KEEP_FETCHES, now: datetime | None = None) -> int:
    """Forget fetch rows older than `keep`, but each source's first fetch, its last one that brought
    something new, its last good one and every one after it (a failing source's run of failures):
    what `newsdesk doctor` and the sources page read a failing or stale source by (run/doctor.py,
    ingest/health.py), so their answers are the same after. Returns the rows forgotten."""
    good = fetches.c.error.is_(None)
    cutoff = (now or datetime.now(UTC)) - keep
    forgotten = 0
    with engine.begin() as conn:
        marks = conn.execute(
            select(
                fetches.c.source_id,
                func.min(fetches.c.id),
                func.max(case((good, fetches.c.id))),
                func.max(case((and_(good, fetches.c.items_new > 0), fetches.c.id))),
            ).group_by(fetches.c.source_id)
        ).all()
        for source_id, first, last_good, last_new in marks:
            if last_good is None:
                continue  # never fetched well: every failure is the doctor's count
            forgotten += conn.execute(
                delete(fetches).where(
                    fetches.c.source_id == source_id,  # the (source, started) index: one range a source
                    fetches.c.started_at < cutoff,
                    fetches.c.id < last_good,
                    fetches.c.id.not_in([first, last_new or first]),
                )
            ).rowcount
    return forgotten


def save_validators(
    conn: Connection,
    source_id: str,
    etag: str | None,
    last_modified: str | None,
    body_hash: str | None = None,
    entry_digests: dict[str, str] | None | EllipsisType = ...,
) -> None:
    """What the next poll sends (ETag, Last-Modified) and compares the body with (ingest/run.py body_hash),
    and the entries of the body just parsed, which it need not read again (ingest/entries.py; None: it
    reads them all). Left out (...), the stored entries stay: the body is the one they came from."""
    values: dict = dict(etag=etag, last_modified=last_modified, body_hash=body_hash)
    if entry_digests is not ...:
        values["entry_digests"] = entry_digests
    conn.execute(update(sources).where(sources.c.id == source_id).values(**values))
