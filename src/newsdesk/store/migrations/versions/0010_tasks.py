"""tasks: the task queue's units of work (newsdesk worker), each a lease, a queue mark and its last outcome;
and llm_usage by run_id, because every worker of a run sums the run's spending from it before each call.

Revision ID: 0010
Revises: 0009
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

UTC_DATETIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "tasks",
        sa.Column("key", sa.String(200), primary_key=True),
        sa.Column("stage", sa.String(20), nullable=False),
        sa.Column("args", sa.JSON(), nullable=False),
        sa.Column("run_id", sa.String(40)),
        sa.Column("queued", sa.Boolean(), nullable=False),
        sa.Column("owner", sa.String(80)),
        sa.Column("lease_until", UTC_DATETIME),
        sa.Column("state", sa.String(10)),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("error", sa.Text()),
        sa.Column("queued_at", UTC_DATETIME),
        sa.Column("started_at", UTC_DATETIME),
        sa.Column("finished_at", UTC_DATETIME),
    )
    op.create_index("ix_tasks_stage_state", "tasks", ["stage", "state"])
    op.create_index("ix_llm_usage_run", "llm_usage", ["run_id"])
