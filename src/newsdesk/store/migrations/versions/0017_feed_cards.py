"""feed_cards: each day's cards as the web app's feed shows them, stored by the daily-edition stage
with each card's HTML already rendered (Markdown to HTML, languages detected), so a feed page
assembles stored fragments instead of building and rendering every card (editions/feed_cards.py).
A new table: no existing row changes; a day without a row is built live, as before.

Revision ID: 0017
Revises: 0016
"""

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "feed_cards",
        sa.Column("tz", sa.String(64), primary_key=True),
        sa.Column("day", sa.String(10), primary_key=True),
        sa.Column("language", sa.String(8), primary_key=True),
        sa.Column("signature", sa.Text(), nullable=False),
        sa.Column("material_key", sa.String(64), nullable=False),
        sa.Column("cards", sa.JSON(), nullable=False),
        sa.Column("html", sa.Text(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("feed_cards")
