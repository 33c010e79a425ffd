"""sources.owner: the company or lab that speaks through a source when it has several channels
(Anthropic News, Claude Blog and Anthropic Research are Anthropic): their reports count as one voice
in an event's independent outlets (cluster/independence.py). NULL: the source is its own voice, as
every source was before. The catalog files fill it at the next sync; no existing row changes here,
and an event keeps the independent count it was stored with until a report joins it.

Revision ID: 0020
Revises: 0019
"""

import sqlalchemy as sa
from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("sources", sa.Column("owner", sa.String(120)))


def downgrade() -> None:
    with op.batch_alter_table("sources") as batch:
        batch.drop_column("owner")
