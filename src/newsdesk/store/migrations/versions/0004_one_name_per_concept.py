"""One name per concept: events.tier -> tab, events.first/last_seen_at -> first/last_published_at,
items.material -> material_level.

`tier` also named a source's authority (sources.tier, kept); an event's value is the feed tab it
shows in. An event's first/last times are its members' publish times, not when we saw them
(items.first_seen_at, kept, is). An item's `material` is its material level; the material itself
is the text a writer is given.

Stored daily editions keep their cards in `meta`; their keys are renamed too, so a site
published before the next daily build reads the same names. Every row is kept.

Revision ID: 0004
Revises: 0003
"""

import json

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

CARD_KEYS = {"tier": "tab", "first_seen_at": "first_published_at", "last_seen_at": "last_published_at"}


def _rename(card: dict) -> dict:
    card = {CARD_KEYS.get(k, k): v for k, v in card.items()}
    card["members"] = [{("material_level" if k == "material" else k): v for k, v in m.items()}
                       for m in card.get("members") or []]
    return card


def upgrade() -> None:
    # RENAME COLUMN works in place on PostgreSQL and SQLite >= 3.25: no table copy, indexes follow.
    op.alter_column("events", "tier", new_column_name="tab")
    op.alter_column("events", "first_seen_at", new_column_name="first_published_at")
    op.alter_column("events", "last_seen_at", new_column_name="last_published_at")
    op.alter_column("items", "material", new_column_name="material_level")
    op.drop_index("ix_events_last_seen", table_name="events")
    op.create_index("ix_events_last_published", "events", ["last_published_at"])

    conn = op.get_bind()
    editions = sa.table("editions", sa.column("id", sa.Integer()), sa.column("kind", sa.String()),
                        sa.column("meta", sa.JSON()))
    for row in conn.execute(sa.select(editions.c.id, editions.c.meta).where(editions.c.kind == "daily")).all():
        meta = row.meta if isinstance(row.meta, dict) else json.loads(row.meta or "{}")
        if not meta.get("cards"):
            continue
        meta = {**meta, "cards": [_rename(c) for c in meta["cards"]]}
        conn.execute(sa.update(editions).where(editions.c.id == row.id).values(meta=meta))
