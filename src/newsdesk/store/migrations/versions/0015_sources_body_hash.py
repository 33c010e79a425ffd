"""sources.body_hash: a digest of the feed body last parsed and stored without error (with the
source settings that shape its items), so a poll answered 200 with the same body skips parsing and
the store as a 304 does (ingest/run.py). NULL: not polled since; the next poll parses. No existing
row changes.

Revision ID: 0015
Revises: 0014
"""

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("sources", sa.Column("body_hash", sa.String(64)))


def downgrade() -> None:
    with op.batch_alter_table("sources") as batch:
        batch.drop_column("body_hash")
