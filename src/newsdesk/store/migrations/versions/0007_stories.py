"""Stories: `stories` (one per thread of events) and `story_events` (which events it threads,
and which earlier event each one follows up), and `events.story_checked_at` (when the linker
last looked at an event). Every existing row is kept; the `stories` stage links the events
already stored on its next run.

Revision ID: 0007
Revises: 0006
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

UTC_DATETIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "stories",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("first_published_at", UTC_DATETIME, nullable=False),
        sa.Column("last_published_at", UTC_DATETIME, nullable=False),
        sa.Column("event_count", sa.Integer(), nullable=False),
        sa.Column("updated_at", UTC_DATETIME, nullable=False),
    )
    op.create_table(
        "story_events",
        sa.Column("event_id", sa.Integer(), sa.ForeignKey("events.id"), primary_key=True),
        sa.Column("story_id", sa.Integer(), sa.ForeignKey("stories.id"), nullable=False),
        sa.Column("follows_event_id", sa.Integer(), sa.ForeignKey("events.id")),
        sa.Column("score", sa.Float()),
        sa.Column("reason", sa.Text()),
        sa.Column("linked_at", UTC_DATETIME, nullable=False),
    )
    op.create_index("ix_story_events_story", "story_events", ["story_id"])
    # A nullable column: added in place on both databases. NULL = never looked at, so the first
    # run links the events already stored.
    op.add_column("events", sa.Column("story_checked_at", UTC_DATETIME))
    op.create_index("ix_events_updated", "events", ["updated_at"])
    op.create_index("ix_events_story_checked", "events", ["story_checked_at"])
