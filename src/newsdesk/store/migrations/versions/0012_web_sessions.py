"""web_sessions: the web app's logins, kept in the store so that logout, a changed web_token and
an idle expiry (web_session_idle) end them; a signed cookie alone stayed valid for its 14 days.
No existing rows change; browsers logged in before the upgrade log in again once.

Revision ID: 0012
Revises: 0011
"""

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

UTC_DATETIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "web_sessions",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("user", sa.String(80), nullable=False),
        sa.Column("token_mac", sa.String(64), nullable=False),
        sa.Column("created_at", UTC_DATETIME, nullable=False),
        sa.Column("seen_at", UTC_DATETIME, nullable=False),
    )
    op.create_index("ix_web_sessions_seen", "web_sessions", ["seen_at"])


def downgrade() -> None:
    op.drop_index("ix_web_sessions_seen", "web_sessions")
    op.drop_table("web_sessions")
