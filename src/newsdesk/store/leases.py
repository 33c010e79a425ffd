"""Who holds a lease, and whether that holder is still alive.

A lease row names its owner as `host:pid:tag` and carries an expiry its owner renews while it
works (the heartbeat). Another worker may take it over when the expiry has passed, or at once
when the owner was a process on this host that no longer runs (kill -9): waiting out the
lease would only delay the work (take_lease). Used by ingest (one worker per source), by the task
queue's workers (one worker per unit of work, newsdesk/run/claims.py) and by the stages'
leases and run records (newsdesk/store/stage_runs.py).
"""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta

from sqlalchemy import Table, or_, select, text, update
from sqlalchemy.engine import Connection
from sqlalchemy.sql import ColumnElement


def owner_id() -> str:
    """A new owner name for this process: host, pid (tells a dead one apart) and a tag that tells
    two claims apart. Names the holder of leases and of stage runs (store/stage_runs.py)."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


def owner_is_dead(owner: str | None) -> bool:
    """True when the lease holder was a process on this host that no longer runs (e.g. kill -9).
    None (no holder, or a row that never had one) is not a dead process: False."""
    host, pid, _tag = ((owner or "").rsplit(":", 2) + ["", ""])[:3]
    if host != socket.gethostname() or not pid.isdigit():
        return False  # another machine's worker: its lease runs out unless its heartbeat renews it
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OverflowError):
        return False
    return False


def take_lease(
    conn: Connection, table: Table, row: ColumnElement[bool], owner: str, now: datetime, lease: timedelta
) -> bool:
    """Take the lease of the `table` row that `row` selects (its lease_owner and lease_until columns)
    when it is free, run out, already `owner`'s, or held by a dead process on this host."""
    values = dict(lease_owner=owner, lease_until=now + lease)
    free = or_(table.c.lease_until.is_(None), table.c.lease_until < now, table.c.lease_owner == owner)
    if conn.execute(update(table).where(row, free).values(**values)).rowcount:
        return True
    holder = conn.execute(select(table.c.lease_owner).where(row)).scalar()
    if owner_is_dead(holder):  # only the holder seen here: a live process that took it meanwhile keeps it
        return conn.execute(update(table).where(row, table.c.lease_owner == holder).values(**values)).rowcount == 1
    return False


def lease_holder(engine, table: Table, row: ColumnElement[bool]) -> str | None:
    """Who holds the lease of the `table` row that `row` selects, in words; None when nobody does."""
    with engine.connect() as conn:
        held = conn.execute(select(table.c.lease_owner, table.c.lease_until).where(row)).first()
    if held is None or held.lease_owner is None:
        return None
    return f"{held.lease_owner} (lease until {held.lease_until:%H:%M:%S} UTC, renewed while it runs)"


@contextmanager
def advisory_lock(conn: Connection, name: str, waiting: Callable[[], None] | None = None) -> Iterator[None]:
    """One holder of `name` at a time across every process sharing a PostgreSQL store: a session
    advisory lock, which dies with its connection. `waiting` is called once when another holds it."""
    if not conn.execute(text("SELECT pg_try_advisory_lock(hashtext(:name))"), {"name": name}).scalar():
        if waiting:
            waiting()
        conn.execute(text("SELECT pg_advisory_lock(hashtext(:name))"), {"name": name})
    conn.commit()
    try:
        yield
    finally:
        if conn.in_transaction():
            conn.rollback()
        conn.execute(text("SELECT pg_advisory_unlock(hashtext(:name))"), {"name": name})
        conn.commit()
