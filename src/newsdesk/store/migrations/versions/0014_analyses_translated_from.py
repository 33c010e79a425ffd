"""analyses.translated_from: the language an extractive card's headline and lead were translated
from (with an endpoint, the translation stage writes an event's card in the edition's language
when none of its material is; write/translate.py). NULL: not translated. No existing row changes.

Revision ID: 0014
Revises: 0013
"""

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("analyses", sa.Column("translated_from", sa.String(8)))


def downgrade() -> None:
    with op.batch_alter_table("analyses") as batch:
        batch.drop_column("translated_from")
