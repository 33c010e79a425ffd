"""The translation's usage rows say "translation", as its check rows and its material key do.

The English digest's model calls were recorded under the stage "translate"; they are renamed
so the usage page counts one stage, not two. Only that value changes; every row is kept.

Revision ID: 0005
Revises: 0004
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    llm_usage = sa.table("llm_usage", sa.column("stage", sa.String()))
    op.execute(sa.update(llm_usage).where(llm_usage.c.stage == "translate").values(stage="translation"))
