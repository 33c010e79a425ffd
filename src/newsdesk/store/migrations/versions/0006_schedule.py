"""The scheduler's state: each source's polling rhythm, a lease per stage, and a row per stage run.

- sources: next_poll_at, poll_every, poll_basis, feed_every, poll_failures (all nullable: an
  existing source is due at once, and its rhythm is learned from its next fetch);
- stages: one row per pipeline stage, a lease (one pass of a stage at a time across processes)
  and when the scheduler runs it next;
- stage_runs: when each stage (or a unit of it) ran, how long, what it did, what failed.

Revision ID: 0006
Revises: 0005
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

UTC_DATETIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    # Nullable columns: both SQLite and PostgreSQL add them in place, no table copy.
    op.add_column("sources", sa.Column("next_poll_at", UTC_DATETIME))
    op.add_column("sources", sa.Column("poll_every", sa.Integer()))
    op.add_column("sources", sa.Column("poll_basis", sa.Text()))
    op.add_column("sources", sa.Column("feed_every", sa.Integer()))
    op.add_column("sources", sa.Column("poll_failures", sa.Integer()))
    op.create_table(
        "stages",
        sa.Column("name", sa.String(40), primary_key=True),
        sa.Column("lease_owner", sa.String(120)),
        sa.Column("lease_until", UTC_DATETIME),
        sa.Column("next_due_at", UTC_DATETIME),
    )
    op.create_table(
        "stage_runs",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("stage", sa.String(40), nullable=False),
        sa.Column("unit", sa.String(200)),
        sa.Column("run_id", sa.String(40)),
        sa.Column("owner", sa.String(120)),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("queued_at", UTC_DATETIME),
        sa.Column("started_at", UTC_DATETIME),
        sa.Column("finished_at", UTC_DATETIME),
        sa.Column("seconds", sa.Float()),
        sa.Column("facts", sa.JSON(), nullable=False),
        sa.Column("problems", sa.JSON(), nullable=False),
        sa.Column("error", sa.Text()),
    )
    op.create_index("ix_stage_runs_stage_started", "stage_runs", ["stage", "started_at"])
    op.create_index("ix_stage_runs_status", "stage_runs", ["status"])
