"""The `editions` table: one row per (kind, key, language), written by one upsert.

Every edition (daily, weekly, episode) is stored here with the hash of the material it
was built from (`material_key`), so a stage can skip an edition whose inputs did not
change without opening a model or rewriting its row.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime

from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection

from newsdesk.store.schema import editions

# The episode writers' record of their quote repairs (which quotes they corrected or dropped, and
# how many): the operator's, kept in the stored meta; a reader gets the digest, never these.
WRITER_NOTES = ("quote_notes", "quotes")


def material_key(*parts) -> str:
    blob = json.dumps(parts, ensure_ascii=False, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def stored_material_key(conn: Connection, kind: str, key: str, language: str) -> str | None:
    return conn.execute(
        select(editions.c.material_key).where(
            editions.c.kind == kind, editions.c.key == key, editions.c.language == language
        )
    ).scalar()


def store_edition(
    conn: Connection,
    *,
    kind: str,
    key: str,
    language: str,
    title: str,
    body: str,
    meta: dict,
    status: str,
    material_key: str,
    now: datetime | None = None,
) -> None:
    """Insert or replace one edition (unique per kind, key, language)."""
    values = {
        "title": title,
        "body": body,
        "meta": meta,
        "status": status,
        "material_key": material_key,
        "updated_at": now or datetime.now(UTC),
    }
    insert = postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert
    stmt = insert(editions).values(kind=kind, key=key, language=language, **values)
    conn.execute(stmt.on_conflict_do_update(index_elements=["kind", "key", "language"], set_=values))


def stored_edition(conn: Connection, kind: str, key: str, language: str) -> dict | None:
    row = (
        conn.execute(
            select(editions).where(editions.c.kind == kind, editions.c.key == key, editions.c.language == language)
        )
        .mappings()
        .first()
    )
    return dict(row) if row else None


def public_meta(meta: dict | None) -> dict:
    """An edition's meta as readers get it (site, feeds, Markdown, web app, API, MCP): no writer's notes."""
    return {k: v for k, v in (meta or {}).items() if k not in WRITER_NOTES}
