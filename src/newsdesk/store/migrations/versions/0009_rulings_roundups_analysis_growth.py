"""cluster_rulings, roundup_links, analyses.reports / tab.

- cluster_rulings: the arbiter's ruling on an item and the event it was weighed against; a
  split is checked whenever that item (or a copy) is placed, so no later merge undoes it.
- roundup_links: a roundup item points at the events it lists instead of joining one.
- analyses.reports / tab: the event as it was analysed, so an analysis is due again when its
  reports doubled or its tab rose, not for one more syndicated copy. Existing rows get NULL
  (unknown): they are due once, then carry the numbers.

Revision ID: 0009
Revises: 0008
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "cluster_rulings",
        sa.Column("item_id", sa.Integer(), sa.ForeignKey("items.id"), primary_key=True),
        sa.Column("event_id", sa.Integer(), sa.ForeignKey("events.id"), primary_key=True),
        sa.Column("same_event", sa.Boolean(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("ruled_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "roundup_links",
        sa.Column("item_id", sa.Integer(), sa.ForeignKey("items.id"), primary_key=True),
        sa.Column("event_id", sa.Integer(), sa.ForeignKey("events.id"), primary_key=True),
        sa.Column("score", sa.Float(), nullable=False),
    )
    op.create_index("ix_roundup_links_event", "roundup_links", ["event_id"])
    # Nullable columns: both SQLite and PostgreSQL add them in place, no table copy.
    op.add_column("analyses", sa.Column("reports", sa.Integer()))
    op.add_column("analyses", sa.Column("tab", sa.String(12)))
