"""sources.catalog_enabled: what the catalog file last said about `enabled`.

A catalog sync applies the file's `enabled` only when that value changes, so a source switched
off in the web app stays off until the file itself says otherwise. Existing rows get NULL
(unknown): the next sync records the file's value and applies it only if it says false, as
syncs did before.

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A nullable column: both SQLite and PostgreSQL add it in place, no table copy.
    op.add_column("sources", sa.Column("catalog_enabled", sa.Boolean()))
