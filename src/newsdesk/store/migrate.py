"""Schema migrations: an ordered list of steps, each applied once and recorded.

Why not Alembic: the schema is owned by one package and runs unattended on laptops;
a short list of Python steps inside the package is easier to ship and read than an
Alembic script directory, and it gives the same guarantee (each step once, in order,
in a transaction, recorded in `schema_migrations`).
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import Column, DateTime, Integer, MetaData, String, Table, select
from sqlalchemy.engine import Connection, Engine

from newsdesk.store.schema import metadata

_meta = MetaData()
schema_migrations = Table(
    "schema_migrations",
    _meta,
    Column("version", Integer, primary_key=True),
    Column("name", String(200), nullable=False),
    Column("applied_at", DateTime(timezone=True), nullable=False),
)


def _initial(conn: Connection) -> None:
    metadata.create_all(conn, checkfirst=True)


# Append new steps; never edit one that has shipped.
MIGRATIONS: list[tuple[int, str, callable]] = [
    (1, "initial schema", _initial),
]


def migrate(engine: Engine) -> list[int]:
    """Apply pending steps; returns the versions applied. Safe to call on every start."""
    applied: list[int] = []
    with engine.begin() as conn:
        _meta.create_all(conn, checkfirst=True)
    for version, name, step in MIGRATIONS:
        with engine.begin() as conn:
            if engine.dialect.name == "postgresql":
                # Two processes starting at once must not both run a step.
                conn.exec_driver_sql("SELECT pg_advisory_xact_lock(4242)")
            done = conn.execute(
                select(schema_migrations.c.version).where(schema_migrations.c.version == version)
            ).first()
            if done:
                continue
            step(conn)
            conn.execute(
                schema_migrations.insert().values(
                    version=version, name=name, applied_at=datetime.now(UTC)
                )
            )
            applied.append(version)
    return applied
