"""The schema as it stood when migrations moved to Alembic: every table, written out.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

# Aware UTC datetimes: schema.UTCDateTime stores them through this type. A revision keeps
# its own copy of every type so a later change to schema.py cannot change what it creates.
UTC_DATETIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    # --- ingest
    op.create_table(
        "sources",
        sa.Column("id", sa.String(120), primary_key=True),
        sa.Column("name", sa.String(300), nullable=False),
        sa.Column("url", sa.Text(), nullable=False),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("language", sa.String(8), nullable=False),
        sa.Column("tier", sa.Integer(), nullable=False),
        sa.Column("weight", sa.Float(), nullable=False),
        sa.Column("category", sa.String(40), nullable=False),
        sa.Column("fulltext", sa.Boolean(), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("origin", sa.String(20), nullable=False),
        sa.Column("etag", sa.Text()),
        sa.Column("last_modified", sa.Text()),
        sa.Column("lease_owner", sa.String(80)),
        sa.Column("lease_until", UTC_DATETIME),
    )
    op.create_table(
        "fetches",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("source_id", sa.String(120), sa.ForeignKey("sources.id"), nullable=False),
        sa.Column("started_at", UTC_DATETIME, nullable=False),
        sa.Column("duration_ms", sa.Integer()),
        sa.Column("url", sa.Text()),
        sa.Column("http_status", sa.Integer()),
        sa.Column("etag", sa.Text()),
        sa.Column("last_modified", sa.Text()),
        sa.Column("not_modified", sa.Boolean(), nullable=False),
        sa.Column("items_seen", sa.Integer(), nullable=False),
        sa.Column("items_new", sa.Integer(), nullable=False),
        sa.Column("items_updated", sa.Integer(), nullable=False),
        sa.Column("warnings", sa.JSON(), nullable=False),
        sa.Column("error", sa.Text()),
    )
    op.create_index("ix_fetches_source_started", "fetches", ["source_id", "started_at"])
    op.create_table(
        "items",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("source_id", sa.String(120), sa.ForeignKey("sources.id"), nullable=False),
        sa.Column("guid", sa.Text(), nullable=False),
        sa.Column("url", sa.Text()),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("summary", sa.Text(), nullable=False),
        sa.Column("body", sa.Text()),
        sa.Column("language", sa.String(8), nullable=False),
        sa.Column("published_at", UTC_DATETIME, nullable=False),
        sa.Column("first_seen_at", UTC_DATETIME, nullable=False),
        sa.Column("updated_at", UTC_DATETIME, nullable=False),
        sa.Column("material", sa.String(12), nullable=False),
        sa.Column("content_hash", sa.String(64), nullable=False),
        sa.Column("authors", sa.JSON(), nullable=False),
        sa.Column("categories", sa.JSON(), nullable=False),
        sa.Column("engagement", sa.JSON(), nullable=False),
        sa.Column("extra", sa.JSON(), nullable=False),
        sa.UniqueConstraint("source_id", "guid", name="uq_items_source_guid"),
    )
    op.create_index("ix_items_source_url", "items", ["source_id", "url"])
    op.create_index("ix_items_published", "items", ["published_at"])
    op.create_table(
        "transcripts",
        sa.Column("item_id", sa.Integer(), sa.ForeignKey("items.id"), primary_key=True),
        sa.Column("format", sa.String(10), nullable=False),
        sa.Column("source_url", sa.Text()),
        sa.Column("turns", sa.JSON(), nullable=False),
        sa.Column("stored_at", UTC_DATETIME, nullable=False),
    )

    # --- cluster
    op.create_table(
        "item_vectors",
        sa.Column("item_id", sa.Integer(), sa.ForeignKey("items.id"), primary_key=True),
        sa.Column("model", sa.String(80), nullable=False),
        sa.Column("dim", sa.Integer(), nullable=False),
        sa.Column("vector", sa.LargeBinary(), nullable=False),
    )
    op.create_table(
        "events",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("lead_item_id", sa.Integer(), sa.ForeignKey("items.id")),
        sa.Column("first_seen_at", UTC_DATETIME, nullable=False),
        sa.Column("last_seen_at", UTC_DATETIME, nullable=False),
        sa.Column("item_count", sa.Integer(), nullable=False),
        sa.Column("outlets", sa.Integer(), nullable=False),
        sa.Column("independent_outlets", sa.Integer(), nullable=False),
        sa.Column("languages", sa.JSON(), nullable=False),
        sa.Column("category", sa.String(40)),
        sa.Column("anchors", sa.JSON(), nullable=False),
        sa.Column("importance", sa.Float(), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("score_parts", sa.JSON(), nullable=False),
        sa.Column("tier", sa.String(12), nullable=False),
        sa.Column("updated_at", UTC_DATETIME, nullable=False),
    )
    op.create_index("ix_events_last_seen", "events", ["last_seen_at"])
    op.create_table(
        "event_members",
        sa.Column("item_id", sa.Integer(), sa.ForeignKey("items.id"), primary_key=True),
        sa.Column("event_id", sa.Integer(), sa.ForeignKey("events.id"), nullable=False),
        sa.Column("role", sa.String(12), nullable=False),
        sa.Column("origin_item_id", sa.Integer(), sa.ForeignKey("items.id")),
        sa.Column("similarity", sa.Float()),
        sa.Column("reason", sa.Text()),
        sa.Column("joined_at", UTC_DATETIME, nullable=False),
    )
    op.create_index("ix_event_members_event", "event_members", ["event_id"])

    # --- write
    op.create_table(
        "llm_cache",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("model", sa.String(200), nullable=False),
        sa.Column("request", sa.JSON(), nullable=False),
        sa.Column("response", sa.JSON(), nullable=False),
        sa.Column("created_at", UTC_DATETIME, nullable=False),
    )
    op.create_table(
        "llm_usage",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("at", UTC_DATETIME, nullable=False),
        sa.Column("run_id", sa.String(40)),
        sa.Column("stage", sa.String(40), nullable=False),
        sa.Column("backend", sa.String(20), nullable=False),
        sa.Column("model", sa.String(200), nullable=False),
        sa.Column("prompt_tokens", sa.Integer(), nullable=False),
        sa.Column("completion_tokens", sa.Integer(), nullable=False),
        sa.Column("cached_tokens", sa.Integer(), nullable=False),
        sa.Column("latency_ms", sa.Integer(), nullable=False),
        sa.Column("cost_usd", sa.Float(), nullable=False),
        sa.Column("cache_hit", sa.Boolean(), nullable=False),
        sa.Column("error", sa.Text()),
    )
    op.create_index("ix_llm_usage_at", "llm_usage", ["at"])
    op.create_table(
        "analyses",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("event_id", sa.Integer(), sa.ForeignKey("events.id"), nullable=False),
        sa.Column("language", sa.String(8), nullable=False),
        sa.Column("headline", sa.Text(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("flags", sa.JSON(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("model", sa.String(200)),
        sa.Column("material_key", sa.String(64), nullable=False),
        sa.Column("created_at", UTC_DATETIME, nullable=False),
        sa.UniqueConstraint("event_id", "language", name="uq_analyses_event_language"),
    )
    op.create_table(
        "checks",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("subject", sa.String(20), nullable=False),
        sa.Column("subject_id", sa.String(80), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("passed", sa.Boolean(), nullable=False),
        sa.Column("findings", sa.JSON(), nullable=False),
        sa.Column("at", UTC_DATETIME, nullable=False),
    )
    op.create_index("ix_checks_subject", "checks", ["subject", "subject_id"])

    # --- editions and readers
    op.create_table(
        "editions",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("kind", sa.String(12), nullable=False),
        sa.Column("key", sa.String(80), nullable=False),
        sa.Column("language", sa.String(8), nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("meta", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("material_key", sa.String(64), nullable=False),
        sa.Column("updated_at", UTC_DATETIME, nullable=False),
        sa.UniqueConstraint("kind", "key", "language", name="uq_editions_kind_key_language"),
    )
    op.create_table(
        "feedback",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("event_id", sa.Integer(), sa.ForeignKey("events.id"), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("user", sa.String(80), nullable=False),
        sa.Column("at", UTC_DATETIME, nullable=False),
    )
    op.create_index("ix_feedback_event", "feedback", ["event_id"])

