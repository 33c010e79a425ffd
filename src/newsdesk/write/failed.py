"""Drafts that failed: written parts that still failed their checks after the one rewrite.

A failed draft is never published as content. stand_in() stores it here with its findings,
then has the extractive version of the same part published in its place, keyed on the same
material (a re-run neither asks the model again nor loses the draft). Readers see the
extractive version, marked as such; the operator sees the drafts (web app, /drafts).

    card = stand_in(engine, Draft("analysis", "12:zh", "zh", "…", draft, errors, "qwen…", key),
                    lambda: extractive_card_of_event_12())      # every output's one rule
    failed_drafts(conn)                      # newest first, for the operator
    replaced(conn, "analysis", {("12:zh", key)})   # which of these parts stand in for a failed draft
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TypeVar

from sqlalchemy import and_, or_, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Engine

from newsdesk.core.findings import Finding, load_findings
from newsdesk.store.schema import failed_drafts as table

OUTPUTS = ("analysis", "weekly", "episode", "translation")
T = TypeVar("T")


@dataclass(frozen=True)
class Draft:
    """A written part that failed its checks after its rewrite."""

    output: str  # one of OUTPUTS
    subject_id: str  # which part: "12:zh" (an event's analysis), "2025-W09:section 2", "ep-110:en"
    language: str
    title: str
    text: str
    findings: list[Finding]
    model: str | None
    material_key: str  # what it was written from: its stand-in is stored under the same key


def stand_in(engine: Engine, draft: Draft, extractive: Callable[[], T]) -> T:
    """The one rule for every output: a draft that failed is never published. It is kept for the
    operator, and `extractive()` makes (under the draft's material key) the part chosen from the
    material by code that readers get in its place; its result is returned, stored by the caller."""
    values = {
        "language": draft.language,
        "title": draft.title[:500],
        "text": draft.text,
        "model": draft.model,
        "findings": [f.as_dict() for f in draft.findings],
        "created_at": datetime.now(UTC),
    }
    with engine.begin() as conn:  # an upsert: the same draft of the same material is one row
        ins = (postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert)(table)
        conn.execute(
            ins.values(
                output=draft.output, subject_id=draft.subject_id[:120], material_key=draft.material_key, **values
            ).on_conflict_do_update(index_elements=["output", "subject_id", "material_key"], set_=values)
        )
    return extractive()


def failed_drafts(conn: Connection, limit: int = 200) -> list[dict]:
    """The newest failed drafts, each with its findings as Finding objects."""
    rows = conn.execute(select(table).order_by(table.c.created_at.desc(), table.c.id.desc()).limit(limit)).all()
    return [{**dict(r._mapping), "findings": load_findings(r.findings)} for r in rows]


def replaced(conn: Connection, output: str, parts: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """Of these (subject_id, material_key) parts, the ones published in place of a failed draft."""
    found: set[tuple[str, str]] = set()
    wanted = sorted(parts)
    for start in range(0, len(wanted), 400):  # under every database's parameter limit
        chunk = wanted[start : start + 400]
        rows = conn.execute(
            select(table.c.subject_id, table.c.material_key).where(
                table.c.output == output,
                or_(*(and_(table.c.subject_id == s, table.c.material_key == k) for s, k in chunk)),
            )
        )
        found |= {(r.subject_id, r.material_key) for r in rows}
    return found
