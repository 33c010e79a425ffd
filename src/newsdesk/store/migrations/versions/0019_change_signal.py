"""PostgreSQL: a statement trigger on every table a reader page shows NOTIFYs channel `newsdesk_store`
when its transaction commits, so a server's read cache knows the store changed by listening, not by
counting every row of nine tables once a second per process (serve/cache.py). NOTIFY is transactional:
it is delivered only once the write is committed and visible, never for a rolled-back one, and a
transaction's many statements send one notification. SQLite needs none (`PRAGMA data_version`). No row
changes; the search index's table, made at run time, gets the same trigger there (search/index.py).

Revision ID: 0019
Revises: 0018
"""

from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None

# What the reader pages read (serve/queries.py, editions/feed_cards.py); not news_days, which the
# web app itself derives from events while it warms.
TABLES = (
    "sources",
    "items",
    "events",
    "event_members",
    "stories",
    "story_events",
    "roundup_links",
    "analyses",
    "checks",
    "failed_drafts",
    "editions",
    "feed_cards",
    "feedback",
)


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(
        "CREATE OR REPLACE FUNCTION newsdesk_store_changed() RETURNS trigger LANGUAGE plpgsql AS "
        "$$ BEGIN PERFORM pg_notify('newsdesk_store', ''); RETURN NULL; END $$"
    )
    for table in TABLES:
        op.execute(
            f"CREATE TRIGGER newsdesk_store_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON {table}"
            " FOR EACH STATEMENT EXECUTE FUNCTION newsdesk_store_changed()"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for table in TABLES:
        op.execute(f"DROP TRIGGER IF EXISTS newsdesk_store_changed ON {table}")
    op.execute("DROP FUNCTION IF EXISTS newsdesk_store_changed() CASCADE")
