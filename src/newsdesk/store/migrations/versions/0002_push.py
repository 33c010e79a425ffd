"""Push: subscriptions (an Apprise URL, filters, a schedule, the channel's health) and
deliveries (one row per subscription and event or edition, so nothing is sent twice).

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

UTC_DATETIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "subscriptions",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(80), nullable=False, unique=True),
        sa.Column("target", sa.Text(), nullable=False),
        sa.Column("channel", sa.String(20), nullable=False),
        sa.Column("schedule", sa.String(10), nullable=False),
        sa.Column("send_at", sa.String(5), nullable=False),
        sa.Column("tab", sa.String(40), nullable=False),
        sa.Column("min_importance", sa.Float(), nullable=False),
        sa.Column("keywords", sa.JSON(), nullable=False),
        sa.Column("languages", sa.JSON(), nullable=False),
        sa.Column("language", sa.String(8), nullable=False),
        sa.Column("since", UTC_DATETIME, nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("created_at", UTC_DATETIME, nullable=False),
        sa.Column("last_success_at", UTC_DATETIME),
        sa.Column("last_error", sa.Text()),
        sa.Column("last_error_at", UTC_DATETIME),
        sa.Column("consecutive_failures", sa.Integer(), nullable=False),
    )
    op.create_table(
        "deliveries",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("subscription_id", sa.Integer(), sa.ForeignKey("subscriptions.id", ondelete="CASCADE"), nullable=False),
        sa.Column("kind", sa.String(10), nullable=False),
        sa.Column("ref", sa.String(80), nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("error", sa.Text()),
        sa.Column("created_at", UTC_DATETIME, nullable=False),
        sa.Column("sent_at", UTC_DATETIME),
        sa.UniqueConstraint("subscription_id", "kind", "ref", name="uq_deliveries_subscription_kind_ref"),
    )
