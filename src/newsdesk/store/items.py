"""Writing sources, items and fetch rows. Upserts are idempotent and safe under concurrency."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

from sqlalchemy import and_, bindparam, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection

from newsdesk.model import Item, Source
from newsdesk.store.schema import fetches, items, sources, transcripts

_SOURCE_COLUMNS = ("name", "url", "kind", "language", "tier", "weight", "category", "fulltext", "enabled", "origin")


def _dialect_insert(conn: Connection, table):
    return (postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert)(table)


def sync_sources(conn: Connection, catalog: list[Source]) -> None:
    """Insert new catalog sources and refresh changed ones; fetch state is kept."""
    for src in catalog:
        values = {c: getattr(src, c) for c in _SOURCE_COLUMNS}
        # An operator may disable a source in the web app; a catalog sync must not turn it
        # back on. The catalog can still disable one (enabled = false).
        refresh = {k: v for k, v in values.items() if k != "enabled" or not v}
        stmt = _dialect_insert(conn, sources).values(id=src.id, **values)
        conn.execute(stmt.on_conflict_do_update(index_elements=["id"], set_=refresh))


# Built once and reused: constructing and compiling Core statements per item cost about five times
# the SQL itself (benchmarks/ingest_throughput.py), so the per-item path only binds parameters.
_SELECT_ITEM = select(items.c.id, items.c.content_hash).where(
    and_(items.c.source_id == bindparam("k_source"), items.c.guid == bindparam("k_guid"))
)
_UPDATE_ITEM = update(items).where(items.c.id == bindparam("k_id"))
_INSERT_ITEM = {
    name: insert_(items).on_conflict_do_nothing(index_elements=["source_id", "guid"]).returning(items.c.id)
    for name, insert_ in (("postgresql", postgresql.insert), ("sqlite", sqlite.insert))
}


def upsert_item(conn: Connection, item: Item, now: datetime | None = None) -> str:
    """Store one item; returns 'new', 'updated' or 'unchanged'.

    Keyed by (source, guid). An entry without a guid of its own is keyed by its canonical
    URL (the parser puts it in `guid`, keeping a fragment that tells changelog entries apart).
    """
    now = now or datetime.now(UTC)
    digest = item.content_hash
    row = conn.execute(_SELECT_ITEM, {"k_source": item.source_id, "k_guid": item.guid}).first()
    fields = {
        "url": item.url,
        "title": item.title,
        "summary": item.summary,
        "body": item.body,
        "language": item.language,
        "material": item.material,
        "content_hash": digest,
        "authors": item.authors,
        "categories": item.categories,
        "engagement": item.engagement,
        "extra": item.extra,
    }
    if row is not None:
        item_id = row.id
        if row.content_hash == digest:
            outcome = "unchanged"
        else:
            conn.execute(_UPDATE_ITEM, {"k_id": item_id, "updated_at": now, **fields})
            outcome = "updated"
    else:
        item_id = conn.execute(
            _INSERT_ITEM[conn.dialect.name],
            {
                "source_id": item.source_id,
                "guid": item.guid,
                "published_at": item.published_at or now,
                "first_seen_at": now,
                "updated_at": now,
                **fields,
            },
        ).scalar()
        if item_id is None:  # another worker stored it first
            return "unchanged"
        outcome = "new"
    if item.transcript is not None:
        values = {
            "format": item.transcript_format or "text",
            "source_url": item.transcript_url,
            "turns": [dataclasses.asdict(t) for t in item.transcript],
            "stored_at": now,
        }
        stmt = _dialect_insert(conn, transcripts).values(item_id=item_id, **values)
        conn.execute(stmt.on_conflict_do_update(index_elements=["item_id"], set_=values))
    return outcome


def record_fetch(conn: Connection, source_id: str, **values) -> int:
    """One row per fetch attempt; returns its id."""
    values.setdefault("started_at", datetime.now(UTC))
    values.setdefault("warnings", [])
    result = conn.execute(insert(fetches).values(source_id=source_id, **values))
    return result.inserted_primary_key[0]


def save_validators(conn: Connection, source_id: str, etag: str | None, last_modified: str | None) -> None:
    conn.execute(update(sources).where(sources.c.id == source_id).values(etag=etag, last_modified=last_modified))
