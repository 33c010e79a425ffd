"""Schema migrations: the Alembic revisions in store/migrations/versions/, applied in order.

Every command that opens the store applies pending revisions (open_store), and so does
`newsdesk migrate`. They run under a lock so that two processes starting at once on a new
store take turns, and the second finds the work done:
- PostgreSQL: a transaction-scoped advisory lock; its DDL is transactional too.
- SQLite: BEGIN IMMEDIATE takes the write lock before the version is read; the other
  process waits for it (the connection's busy timeout).
The revisions and the version stamp commit in that one transaction: a failed upgrade
leaves the store as it was.

Stores made before Alembic carry `schema_migrations` (version 1: every table of schema.py,
made by create_all). They hold revision 0001's tables, so they are stamped at 0001 and the
old table is dropped, in the same transaction.

To change the schema: change schema.py, then `python -m newsdesk.store.migrations "what
changes"` drafts the revision from the difference; read it, keep what is meant. Revisions
only go up; a store goes back by restoring a backup.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection, Engine

if TYPE_CHECKING:
    from alembic.config import Config

# Alembic is imported only when a store needs it (0.35 s): a store already at the head, which is
# every command's common case, is checked by reading the revision files and one row.

SCRIPTS = Path(__file__).with_name("migrations")
LEGACY_TABLE = "schema_migrations"
_PG_LOCK = 4242  # the advisory lock key: any constant every newsdesk process agrees on


def config(conn: Connection | None = None) -> Config:
    """Alembic's settings, built in code: users need no alembic.ini."""
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(SCRIPTS))
    cfg.attributes["connection"] = conn
    return cfg


@cache
def head() -> str:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(config()).get_current_head()


_REVISION = re.compile(r"""^(down_revision|revision)\s*=\s*["']([^"']+)["']""", re.M)


@cache
def newest_file_revision() -> str | None:
    """The head as the revision files say it, read as text: the one revision no other file revises
    (None when that is not one, e.g. a branch: then Alembic decides)."""
    revised, named = set(), set()
    for path in (SCRIPTS / "versions").glob("*.py"):
        fields = dict(_REVISION.findall(path.read_text("utf-8")))
        if "revision" in fields:
            named.add(fields["revision"])
            revised.add(fields.get("down_revision"))
    heads = named - revised
    return heads.pop() if len(heads) == 1 else None


def current(conn: Connection) -> str | None:
    """The store's revision; None for a new store or one made before Alembic."""
    from alembic.migration import MigrationContext

    return MigrationContext.configure(conn).get_current_revision()


def _at_head(conn: Connection) -> bool:
    """The store is at the newest revision, without importing Alembic."""
    newest = newest_file_revision()
    if newest is None or not inspect(conn).has_table("alembic_version"):
        return False
    return conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all() == [newest]


def migrate(engine: Engine) -> list[str]:
    """Apply pending revisions; returns the ones applied. Cheap when there are none."""
    with engine.connect() as conn:
        if _at_head(conn) or current(conn) == head():
            return []
    from alembic import command

    applied: list[str] = []
    with engine.connect() as conn:
        _lock(conn)
        _adopt_legacy(conn)
        cfg = config(conn)
        cfg.attributes["on_version_apply"] = lambda *, step, **_: applied.append(step.up_revision_id)
        command.upgrade(cfg, "head")
        conn.commit()
    return applied


def _lock(conn: Connection) -> None:
    """Begin the migration's transaction holding the store's migration lock."""
    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_LOCK})
    elif conn.dialect.name == "sqlite":
        conn.exec_driver_sql("BEGIN IMMEDIATE")


def _adopt_legacy(conn: Connection) -> None:
    """A store made by the migrations before Alembic becomes a store at revision 0001."""
    tables = inspect(conn).get_table_names()
    if LEGACY_TABLE not in tables or "alembic_version" in tables:
        return
    columns = {c["name"] for c in inspect(conn).get_columns("events")}
    if "importance" not in columns:
        # Stores made before events.importance existed: rank kept it in score_parts.
        conn.execute(text("ALTER TABLE events ADD COLUMN importance FLOAT NOT NULL DEFAULT 0"))
        for row in conn.execute(text("SELECT id, score_parts FROM events")).all():
            parts = row.score_parts if isinstance(row.score_parts, dict) else json.loads(row.score_parts or "{}")
            conn.execute(
                text("UPDATE events SET importance = :v WHERE id = :i"),
                {"v": float(parts.get("importance", 0.0)), "i": row.id},
            )
        if conn.dialect.name == "postgresql":  # as revision 0001 made it (SQLite cannot drop a default)
            conn.execute(text("ALTER TABLE events ALTER COLUMN importance DROP DEFAULT"))
    from alembic import command

    command.stamp(config(conn), "0001")
    conn.execute(text(f"DROP TABLE {LEGACY_TABLE}"))
