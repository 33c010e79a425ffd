"""items.dated_by: what an item's published_at rests on (the source's time, its day only, or the
time newsdesk first saw it), so a day page can tell a real time from a stand-in.

Existing rows: an item dated after it was first seen (plus the skew store/items.py allows) is
moved to its first-seen time, as ingest now stores it, and its event's span follows; an item whose
published_at equals first_seen_at took it for want of a date. Both become "first_seen"; the rest
"source". Daily and weekly editions of a day after the newest first sighting came only from such
dates: they are deleted (the next run builds what the store now holds), so no future day leads the site.

Revision ID: 0011
Revises: 0010
"""

from datetime import UTC, datetime, timedelta

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

SKEW = timedelta(minutes=10)  # store/items.py FUTURE_SKEW, as of this revision


def upgrade() -> None:
    op.add_column("items", sa.Column("dated_by", sa.String(12), nullable=False, server_default="source"))
    conn = op.get_bind()
    items = sa.table("items", sa.column("id"), sa.column("published_at"), sa.column("first_seen_at"),
                     sa.column("dated_by"))
    members = sa.table("event_members", sa.column("item_id"), sa.column("event_id"))
    events = sa.table("events", sa.column("id"), sa.column("first_published_at"), sa.column("last_published_at"))
    future = [r.id for r in conn.execute(sa.select(items.c.id, items.c.published_at, items.c.first_seen_at))
              if _aware(r.published_at) > _aware(r.first_seen_at) + SKEW]
    for start in range(0, len(future), 500):
        conn.execute(items.update().where(items.c.id.in_(future[start:start + 500]))
                     .values(published_at=items.c.first_seen_at))
    conn.execute(items.update().where(items.c.published_at == items.c.first_seen_at).values(dated_by="first_seen"))
    touched = sorted(set(conn.execute(sa.select(members.c.event_id).where(members.c.item_id.in_(future))).scalars())) if future else []
    for event_id in touched:
        span = conn.execute(sa.select(sa.func.min(items.c.published_at), sa.func.max(items.c.published_at))
                            .select_from(members.join(items, items.c.id == members.c.item_id))
                            .where(members.c.event_id == event_id)).one()
        conn.execute(events.update().where(events.c.id == event_id)
                     .values(first_published_at=span[0], last_published_at=span[1]))
    newest = conn.execute(sa.select(sa.func.max(items.c.first_seen_at))).scalar()
    if future and newest is not None:
        last_day = (_aware(newest) + timedelta(days=1)).date()  # the newsroom's zone is at most a day ahead
        year, week, _ = last_day.isocalendar()
        editions = sa.table("editions", sa.column("kind"), sa.column("key"))
        conn.execute(editions.delete().where(editions.c.kind == "daily", editions.c.key > last_day.isoformat()))
        conn.execute(editions.delete().where(editions.c.kind == "weekly", editions.c.key > f"{year}-W{week:02d}"))


def _aware(moment):
    """SQLite hands back naive UTC datetimes (strings through some drivers), PostgreSQL aware ones."""
    if isinstance(moment, str):
        moment = datetime.fromisoformat(moment)
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment
