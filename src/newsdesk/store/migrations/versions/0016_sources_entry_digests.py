"""sources.entry_digests: the entries of the body last parsed and stored without error, each as
{digest of its bytes in their context: the guid of its item} (ingest/entries.py), so a changed feed's
entries seen then are not parsed again. NULL: the next poll parses the whole body. No existing row
changes.

Revision ID: 0016
Revises: 0015
"""

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("sources", sa.Column("entry_digests", sa.JSON()))


def downgrade() -> None:
    with op.batch_alter_table("sources") as batch:
        batch.drop_column("entry_digests")
