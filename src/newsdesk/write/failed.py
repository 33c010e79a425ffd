"""Drafts that failed: written parts that still failed their checks after the one rewrite.

A failed draft is never published as content. Its writer stores it here with its findings,
then publishes the extractive version of the same part in its place, keyed on the same
material (a re-run neither asks the model again nor loses the draft). Readers see the
extractive version, marked as such; the operator sees the drafts (web app, /drafts).

    keep_failed(engine, kind="analysis", subject_id="12:zh", language="zh", title="…", text=draft,
                findings=errors, model="qwen…", material_key=key)
    failed_drafts(conn)                      # newest first, for the operator
    replaced(conn, "analysis", {("12:zh", key)})   # which of these parts stand in for a failed draft
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import and_, or_, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Engine

from newsdesk.store.schema import failed_drafts as table
from newsdesk.write.check import Finding, load_findings

KINDS = ("analysis", "weekly", "episode", "translation")


def keep_failed(engine: Engine, *, kind: str, subject_id: str, language: str, title: str, text: str,
                findings: list[Finding], model: str | None, material_key: str) -> None:
    """Store (or refresh) the failed draft of one part written from one material."""
    values = {"language": language, "title": title[:500], "text": text, "model": model,
              "findings": [f.as_dict() for f in findings], "created_at": datetime.now(UTC)}
    with engine.begin() as conn:
        ins = (postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert)(table)
        conn.execute(ins.values(kind=kind, subject_id=subject_id[:120], material_key=material_key, **values)
                     .on_conflict_do_update(index_elements=["kind", "subject_id", "material_key"], set_=values))


def failed_drafts(conn: Connection, limit: int = 200) -> list[dict]:
    """The newest failed drafts, each with its findings as Finding objects."""
    rows = conn.execute(select(table).order_by(table.c.created_at.desc(), table.c.id.desc()).limit(limit)).all()
    return [{**dict(r._mapping), "findings": load_findings(r.findings)} for r in rows]


def replaced(conn: Connection, kind: str, parts: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """Of these (subject_id, material_key) parts, the ones published in place of a failed draft."""
    found: set[tuple[str, str]] = set()
    wanted = sorted(parts)
    for start in range(0, len(wanted), 400):  # under every database's parameter limit
        chunk = wanted[start : start + 400]
        rows = conn.execute(select(table.c.subject_id, table.c.material_key).where(
            table.c.kind == kind, or_(*(and_(table.c.subject_id == s, table.c.material_key == k) for s, k in chunk))))
        found |= {(r.subject_id, r.material_key) for r in rows}
    return found
