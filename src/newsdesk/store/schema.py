"""The store's tables (SQLAlchemy Core). One table per newsroom concept.

Times are stored as timezone-aware UTC datetimes. JSON columns hold small structured
facts (warnings, score parts, engagement); anything queried is a real column. Text goes
in through the Clean* types, so no value a database refuses can lose a write.
Stages that come later add their tables in their own section below. A change here needs
a revision in store/migrations/versions/ too (store/migrate.py says how to draft one); a
test fails while the two disagree.
"""

import re
from datetime import UTC, datetime

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    TypeDecorator,
    UniqueConstraint,
)

metadata = MetaData()
# The largest id any store can hold: the id columns are Integer, 64-bit in SQLite but 32-bit in
# PostgreSQL. A number outside 1..MAX_ID names nothing, and handed to the driver it overflows.
MAX_ID = 2**31 - 1

# NUL (PostgreSQL refuses it in text) and lone surrogates (not encodable as UTF-8: both
# databases refuse them), as feeds and JSON escapes ("\u0000", "\ud800") deliver them.
_REFUSED = re.compile("[\x00\ud800-\udfff]")


def storable(value):
    """`value` with NUL removed and lone surrogates replaced by U+FFFD, in nested lists and dicts too."""
    if isinstance(value, str):
        return _REFUSED.sub(lambda m: "" if m[0] == "\x00" else "\ufffd", value) if _REFUSED.search(value) else value
    if isinstance(value, list):
        return [storable(v) for v in value]
    if isinstance(value, dict):
        return {storable(k): storable(v) for k, v in value.items()}
    return value


class _Clean(TypeDecorator):
    def process_bind_param(self, value, dialect):
        return storable(value)


class CleanText(_Clean):
    impl = Text
    cache_ok = True


class ErrorLine(_Clean):
    """An error as one line of at most ERROR_CHARS characters: an exception's text can be megabytes
    (a database error once quoted a 65,535-row statement: 2.7 MB in fetches.error), and an
    operator reads the first line, which names the problem and the fix."""

    impl = Text
    cache_ok = True

    def process_bind_param(self, value, dialect):
        if value is None:
            return None
        line = " ".join(str(storable(value)).split())
        if len(line) <= ERROR_CHARS:
            return line
        cut = f" … ({len(line) - ERROR_CHARS:,} more characters cut)"
        return line[: ERROR_CHARS - len(cut)] + cut


ERROR_CHARS = 1000


class CleanString(_Clean):
    impl = String
    cache_ok = True


class CleanJSON(_Clean):
    impl = JSON
    cache_ok = True


class UTCDateTime(TypeDecorator):
    """Aware UTC datetimes on every backend (SQLite would hand back naive ones)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect):
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to the store; use UTC-aware datetimes")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect):
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


# --- ingest -------------------------------------------------------------------------

sources = Table(
    "sources",
    metadata,
    Column("id", CleanString(120), primary_key=True),  # slug, e.g. arxiv-cs-cl
    Column("name", CleanString(300), nullable=False),
    Column("url", CleanText, nullable=False),
    Column("kind", CleanString(20), nullable=False),  # rss | atom | jsonfeed | arxiv | hn | reddit | podcast | jsonl
    Column("language", CleanString(8), nullable=False),
    Column("tier", Integer, nullable=False, default=2),  # 1 = most authoritative
    Column("weight", Float, nullable=False, default=1.0),
    Column("category", CleanString(40), nullable=False, default="media"),
    Column("fulltext", Boolean, nullable=False, default=False),
    Column("enabled", Boolean, nullable=False, default=True),
    Column("origin", CleanString(20), nullable=False, default="catalog"),  # catalog | user | import
    # The company or lab that speaks through it when it has several channels (Anthropic News, Claude
    # Blog, Anthropic Research): its channels' reports are one voice (cluster/independence.py).
    Column("owner", CleanString(120)),
    # What the catalog file last said about `enabled`: a sync applies the file's value only when it
    # changes, so a source switched off in the web app stays off until the file itself says otherwise.
    Column("catalog_enabled", Boolean),
    # Conditional-GET state, carried from one fetch to the next.
    Column("etag", CleanText),
    Column("last_modified", CleanText),
    # Digest of the body last stored without error (ingest/run.py body_hash): the same body skips parsing.
    Column("body_hash", CleanString(64)),
    # Its entries at that parse, {digest: guid} (ingest/entries.py): a changed body's entries seen then are not parsed.
    Column("entry_digests", CleanJSON),
    # Lease so only one worker fetches a source at a time (see ARCHITECTURE.md).
    Column("lease_owner", CleanString(80)),
    Column("lease_until", UTCDateTime()),
    # Its own polling rhythm (ingest/poll.py): when the scheduler fetches it next and why.
    Column("next_poll_at", UTCDateTime()),  # NULL = due now (never fetched by the scheduler's rules)
    Column("poll_every", Integer),  # seconds until the next poll, backoff included
    Column(
        "poll_basis", CleanText
    ),  # one line: what set poll_every (feed ttl, sy:updatePeriod, rhythm, backoff, bounds)
    Column("feed_every", Integer),  # seconds the feed itself states (ttl / sy:*), kept across 304 Not Modified
    Column("poll_failures", Integer),  # failed fetches in a row (NULL = 0); each one doubles the wait
)

fetches = Table(
    "fetches",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("source_id", CleanString(120), ForeignKey("sources.id"), nullable=False),
    Column("started_at", UTCDateTime(), nullable=False),
    Column("duration_ms", Integer),
    Column("url", CleanText),
    Column("http_status", Integer),
    Column("etag", CleanText),
    Column("last_modified", CleanText),
    Column("not_modified", Boolean, nullable=False, default=False),
    Column("items_seen", Integer, nullable=False, default=0),
    Column("items_new", Integer, nullable=False, default=0),
    Column("items_updated", Integer, nullable=False, default=0),
    Column("warnings", CleanJSON, nullable=False, default=list),
    Column("error", ErrorLine),
    Index("ix_fetches_source_started", "source_id", "started_at"),
)

items = Table(
    "items",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("source_id", CleanString(120), ForeignKey("sources.id"), nullable=False),
    Column("guid", CleanText, nullable=False),
    Column("url", CleanText),  # canonical URL
    Column("title", CleanText, nullable=False, default=""),
    Column("summary", CleanText, nullable=False, default=""),
    Column("body", CleanText),
    Column("language", CleanString(8), nullable=False, default="other"),
    Column("published_at", UTCDateTime(), nullable=False),
    Column("first_seen_at", UTCDateTime(), nullable=False),
    Column("updated_at", UTCDateTime(), nullable=False),
    # What published_at rests on (model.DATED_BY): "source" the source's date and time; "day" a date
    # the source gave without a time of day (00:00 UTC, shown without one); "first_seen" no usable
    # date (none, impossible, or later than the item was first seen), so published_at = first_seen_at.
    Column("dated_by", CleanString(12), nullable=False, default="source", server_default="source"),
    Column(
        "material_level", CleanString(12), nullable=False, default="summary"
    ),  # full | summary | title | paywalled | failed
    Column("content_hash", CleanString(64), nullable=False),
    Column("authors", CleanJSON, nullable=False, default=list),
    Column("categories", CleanJSON, nullable=False, default=list),
    Column("engagement", CleanJSON, nullable=False, default=dict),  # {"points": 312, "comments": 88}
    Column("extra", CleanJSON, nullable=False, default=dict),  # feed-specific facts (arxiv id, episode no, ...)
    UniqueConstraint("source_id", "guid", name="uq_items_source_guid"),
    Index("ix_items_source_url", "source_id", "url"),
    Index("ix_items_published", "published_at"),
    # The newest change, read by every store signature (search index, feed cards): without it a scan of every item.
    Index("ix_items_updated", "updated_at"),
)

transcripts = Table(
    "transcripts",
    metadata,
    Column("item_id", Integer, ForeignKey("items.id"), primary_key=True),
    Column("format", CleanString(10), nullable=False),  # vtt | srt | json | html | text
    Column("source_url", CleanText),
    Column("turns", CleanJSON, nullable=False),  # [{"speaker", "start", "end", "text"}]
    Column("stored_at", UTCDateTime(), nullable=False),
)

# --- cluster --------------------------------------------------------------------------

item_vectors = Table(
    "item_vectors",
    metadata,
    Column("item_id", Integer, ForeignKey("items.id"), primary_key=True),
    Column("model", CleanString(80), nullable=False),
    Column("dim", Integer, nullable=False),
    Column("vector", LargeBinary, nullable=False),  # float32 little-endian
)

events = Table(
    "events",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("title", CleanText, nullable=False, default=""),  # the lead item's headline
    Column("lead_item_id", Integer, ForeignKey("items.id")),
    Column("first_published_at", UTCDateTime(), nullable=False),  # the earliest member publish time
    Column("last_published_at", UTCDateTime(), nullable=False),
    Column("item_count", Integer, nullable=False, default=0),
    Column("outlets", Integer, nullable=False, default=0),  # distinct sources
    Column("independent_outlets", Integer, nullable=False, default=0),  # one origin counted once
    Column("languages", CleanJSON, nullable=False, default=list),
    Column("category", CleanString(40)),
    Column("anchors", CleanJSON, nullable=False, default=list),  # exact cross-language anchors: GPT-5.5, arXiv ids, ...
    # importance: what the event is worth (coverage, authority, engagement, feedback); it orders a
    # day's page, the weekly and which events get analyses. score = importance x recency: the live feed.
    Column("importance", Float, nullable=False, default=0.0),
    Column("score", Float, nullable=False, default=0.0),
    Column("score_parts", CleanJSON, nullable=False, default=dict),  # why it ranks where it does
    Column("tab", CleanString(12), nullable=False, default="all"),  # the feed tab: featured | p1 | all
    Column("updated_at", UTCDateTime(), nullable=False),
    # The story linker looked at the event as of this `updated_at`: it looks again only when it changes.
    Column("story_checked_at", UTCDateTime()),
    Index("ix_events_last_published", "last_published_at"),
    Index("ix_events_updated", "updated_at"),
    Index("ix_events_story_checked", "story_checked_at"),
)

event_members = Table(
    "event_members",
    metadata,
    Column("item_id", Integer, ForeignKey("items.id"), primary_key=True),
    Column("event_id", Integer, ForeignKey("events.id"), nullable=False),
    Column("role", CleanString(12), nullable=False),  # lead | member | syndicated | duplicate
    Column("origin_item_id", Integer, ForeignKey("items.id")),  # for syndicated / duplicate copies
    Column("similarity", Float),
    Column("reason", CleanText),  # why it joined (anchor match, cosine, arbitration)
    Column("joined_at", UTCDateTime(), nullable=False),
    Index("ix_event_members_event", "event_id"),
)

# Stories: events that follow one another (stories/threads.py). One row per event in a story;
# an event in no story has none.
stories = Table(
    "stories",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("title", CleanText, nullable=False, default=""),  # its first event's title
    Column("first_published_at", UTCDateTime(), nullable=False),  # its first event's start
    Column("last_published_at", UTCDateTime(), nullable=False),  # its latest event's latest member
    Column("event_count", Integer, nullable=False, default=0),
    Column("updated_at", UTCDateTime(), nullable=False),
)

story_events = Table(
    "story_events",
    metadata,
    Column("event_id", Integer, ForeignKey("events.id"), primary_key=True),
    Column("story_id", Integer, ForeignKey("stories.id"), nullable=False),
    Column("follows_event_id", Integer, ForeignKey("events.id")),  # the earlier event it follows up; none for the first
    Column("score", Float),
    Column("reason", CleanText),  # why it follows (cosine, shared names)
    Column("linked_at", UTCDateTime(), nullable=False),
    Index("ix_story_events_story", "story_id"),
)

cluster_rulings = Table(
    # What the arbiter ruled about an item and the event it was weighed against. A split stands:
    # the clusterer never puts that item (or a copy of it) into that event afterwards.
    "cluster_rulings",
    metadata,
    Column("item_id", Integer, ForeignKey("items.id"), primary_key=True),
    Column("event_id", Integer, ForeignKey("events.id"), primary_key=True),
    Column("same_event", Boolean, nullable=False),
    Column("reason", CleanText, nullable=False, default=""),
    Column("ruled_at", UTCDateTime(), nullable=False),
)

roundup_links = Table(
    # A roundup item points at the events it lists instead of joining one of them.
    "roundup_links",
    metadata,
    Column("item_id", Integer, ForeignKey("items.id"), primary_key=True),
    Column("event_id", Integer, ForeignKey("events.id"), primary_key=True),
    Column("score", Float, nullable=False),  # how much of the event's headline words the roundup carries
    Index("ix_roundup_links_event", "event_id"),
)

# --- write ----------------------------------------------------------------------------

llm_cache = Table(
    "llm_cache",
    metadata,
    Column("key", CleanString(64), primary_key=True),  # sha256 of (model, messages, parameters)
    Column("model", CleanString(200), nullable=False),
    Column("request", CleanJSON, nullable=False),
    Column("response", CleanJSON, nullable=False),
    Column("created_at", UTCDateTime(), nullable=False),
)

llm_usage = Table(
    "llm_usage",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("at", UTCDateTime(), nullable=False),
    Column("run_id", CleanString(40)),
    Column("output", CleanString(40), nullable=False),  # analysis | weekly | episode | translation | arbitrate
    Column("backend", CleanString(20), nullable=False),
    Column("model", CleanString(200), nullable=False),
    Column("prompt_tokens", Integer, nullable=False, default=0),
    Column("completion_tokens", Integer, nullable=False, default=0),
    Column("cached_tokens", Integer, nullable=False, default=0),
    Column("latency_ms", Integer, nullable=False, default=0),
    Column("cost_usd", Float, nullable=False, default=0.0),
    Column("cache_hit", Boolean, nullable=False, default=False),  # served from llm_cache: no model call
    Column("error", ErrorLine),
    Index("ix_llm_usage_at", "at"),
    Index("ix_llm_usage_run", "run_id"),  # a run's budget is summed from its rows (every worker shares it)
)

analyses = Table(
    "analyses",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("event_id", Integer, ForeignKey("events.id"), nullable=False),
    Column("language", CleanString(8), nullable=False),
    Column("headline", CleanText, nullable=False, default=""),
    Column("body", CleanText, nullable=False),
    Column("status", CleanString(12), nullable=False),  # clean | flagged
    Column("flags", CleanJSON, nullable=False, default=list),
    Column("attempts", Integer, nullable=False, default=1),
    Column("model", CleanString(200)),
    Column("material_key", CleanString(64), nullable=False),  # hash of the material: unchanged event = no rewrite
    # The event as it was analysed: it is due again once its reports (lead + members; copies not
    # counted) doubled or its tab rose. NULL: written before these were kept.
    Column("reports", Integer),
    Column("tab", CleanString(12)),
    Column("created_at", UTCDateTime(), nullable=False),
    # The language an extractive card's headline and lead were translated from (write/translate.py); NULL: not translated.
    Column("translated_from", CleanString(8)),
    UniqueConstraint("event_id", "language", name="uq_analyses_event_language"),
    # The newest analysis, read by every store signature: without it a scan of every body (~170 ms on 10k).
    Index("ix_analyses_created", "created_at"),
)

checks = Table(
    "checks",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("output", CleanString(20), nullable=False),  # analysis | weekly | episode | translation
    Column("subject_id", CleanString(80), nullable=False),  # which one: 12:zh | 2025-W09 | an episode key
    Column("attempt", Integer, nullable=False, default=1),
    Column("passed", Boolean, nullable=False),
    Column("findings", CleanJSON, nullable=False, default=list),
    Column("at", UTCDateTime(), nullable=False),
    Index("ix_checks_output", "output", "subject_id"),
)

# A written part that still failed its checks after its one rewrite. Readers never see it: the
# edition shows the extractive version in its place. It stays here, with its findings, for the
# operator ("drafts that failed" in the web app); one row per part and material.
failed_drafts = Table(
    "failed_drafts",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("output", CleanString(20), nullable=False),  # analysis | weekly | episode | translation
    Column("subject_id", CleanString(120), nullable=False),  # 12:zh | 2025-W09:section 2 | episode key:en
    Column("language", CleanString(8), nullable=False),
    Column("title", CleanText, nullable=False, default=""),  # what the part is about, for the operator's list
    Column("text", CleanText, nullable=False),  # the draft as the model wrote it
    Column("findings", CleanJSON, nullable=False, default=list),  # Finding dicts
    Column("model", CleanString(200)),
    Column("material_key", CleanString(64), nullable=False),  # the material it was written from
    Column("created_at", UTCDateTime(), nullable=False),
    UniqueConstraint("output", "subject_id", "material_key", name="uq_failed_drafts_output_subject_material"),
)

# --- editions and readers -------------------------------------------------------------

editions = Table(
    "editions",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("kind", CleanString(12), nullable=False),  # daily | weekly | episode
    Column("key", CleanString(80), nullable=False),  # 2026-04-23 | 2026-W42 | episode slug
    Column("language", CleanString(8), nullable=False),
    Column("title", CleanText, nullable=False),
    Column("body", CleanText, nullable=False),  # markdown
    Column("meta", CleanJSON, nullable=False, default=dict),
    Column("status", CleanString(12), nullable=False, default="clean"),  # clean | flagged
    Column("material_key", CleanString(64), nullable=False),
    Column("updated_at", UTCDateTime(), nullable=False),
    UniqueConstraint("kind", "key", "language", name="uq_editions_kind_key_language"),
)

# Each day's cards as the web app's feed shows them (editions/daily.py stores them with the edition;
# editions/feed_cards.py reads them): what the page reads of each card, and their rendered HTML, valid while the store's
# card inputs have the `signature` they were built from and the templates the `material_key`'s format.
feed_cards = Table(
    "feed_cards",
    metadata,
    Column("tz", CleanString(64), primary_key=True),
    Column("day", CleanString(10), primary_key=True),  # ISO date, local to tz
    Column("language", CleanString(8), primary_key=True),  # the interface language
    Column("signature", CleanText, nullable=False),
    Column("material_key", CleanString(64), nullable=False),
    Column("cards", CleanJSON, nullable=False),  # what the page reads of each card, and its HTML's lengths
    Column("html", CleanText, nullable=False),  # every card's HTML, one after the other (text, not JSON: read fast)
)

feedback = Table(
    "feedback",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("event_id", Integer, ForeignKey("events.id"), nullable=False),
    Column("kind", CleanString(8), nullable=False),  # up | down | star
    Column("note", CleanText, nullable=False, default=""),
    Column("user", CleanString(80), nullable=False, default="operator"),
    Column("at", UTCDateTime(), nullable=False),
    Index("ix_feedback_event", "event_id"),
)

# --- push -------------------------------------------------------------------------------

subscriptions = Table(
    "subscriptions",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(80), nullable=False, unique=True),
    Column("target", Text, nullable=False),  # an Apprise URL; holds the channel's credentials
    Column(
        "channel", String(20), nullable=False
    ),  # email | telegram | slack | discord | feishu | dingtalk | wecom | other
    Column("schedule", String(10), nullable=False),  # instant (featured events) | daily | weekly
    Column("send_at", String(5), nullable=False, default="08:00"),  # local time for daily and weekly
    Column("tab", String(40), nullable=False, default="all"),  # all | featured | a category
    Column("min_importance", Float, nullable=False, default=0.0),
    Column("keywords", JSON, nullable=False, default=list),  # any of them, in headline or member titles
    Column("languages", JSON, nullable=False, default=list),  # coverage languages; empty = any
    Column("language", String(8), nullable=False, default="zh"),  # the messages' language
    Column("since", UTCDateTime(), nullable=False),  # nothing older is sent
    Column("enabled", Boolean, nullable=False, default=True),
    Column("created_at", UTCDateTime(), nullable=False),
    Column("last_success_at", UTCDateTime()),
    Column("last_error", ErrorLine),
    Column("last_error_at", UTCDateTime()),
    Column("consecutive_failures", Integer, nullable=False, default=0),
)

deliveries = Table(
    "deliveries",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("subscription_id", Integer, ForeignKey("subscriptions.id", ondelete="CASCADE"), nullable=False),
    Column("kind", String(10), nullable=False),  # event | daily | weekly
    Column("ref", String(80), nullable=False),  # event id | edition key
    Column("status", String(10), nullable=False),  # sending | sent | failed
    Column("attempts", Integer, nullable=False, default=0),
    Column("error", ErrorLine),
    Column("created_at", UTCDateTime(), nullable=False),
    Column("sent_at", UTCDateTime()),
    # The guarantee: one subscriber never gets the same event (or edition) twice.
    UniqueConstraint("subscription_id", "kind", "ref", name="uq_deliveries_subscription_kind_ref"),
)


# --- runs of the stages ------------------------------------------------------------------

stages = Table(
    "stages",
    metadata,
    # One row per pipeline stage (pipeline.STAGES): a lease so one pass of a stage runs at a time
    # across every process sharing the store, and when the scheduler means to run it next.
    Column("name", String(40), primary_key=True),
    Column("lease_owner", String(120)),  # host:pid:tag of the process running it
    Column("lease_until", UTCDateTime()),
    Column("next_due_at", UTCDateTime()),
)

stage_runs = Table(
    "stage_runs",
    metadata,
    # One row per run of a stage (or of one unit of it, when a worker runs a piece).
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("stage", String(40), nullable=False),  # a name in pipeline.STAGE_NAMES
    Column("unit", CleanString(200)),  # the piece of the stage (a source id, "event 12 zh"); NULL = the whole stage
    Column("run_id", String(40)),  # the pipeline run (or task id) it belongs to
    Column("owner", String(120)),  # host:pid:tag of the process that ran it
    Column("status", String(12), nullable=False),  # queued | running | ok | problems | failed | interrupted
    Column("queued_at", UTCDateTime()),
    Column("started_at", UTCDateTime()),
    Column("finished_at", UTCDateTime()),
    Column("seconds", Float),
    Column("facts", CleanJSON, nullable=False, default=dict),  # what it did: {"items_new": 12, ...}
    Column("problems", CleanJSON, nullable=False, default=list),  # one line each; the stage's other work is stored
    Column("error", CleanText),  # failed: the exception in one line; problems: the first problem
    Index("ix_stage_runs_stage_started", "stage", "started_at"),
    Index("ix_stage_runs_status", "status"),
)

# --- the web app's logins ---------------------------------------------------------------

web_sessions = Table(
    "web_sessions",
    metadata,
    # One row per logged-in browser (serve/auth.py): logout deletes it, so a copied cookie opens
    # nothing afterwards; a changed web_token or web_session_idle without a request ends it too.
    # The cookie holds the session's secret; the store only its hash and a MAC of the token.
    Column("id", String(64), primary_key=True),  # sha256 of the secret in the cookie
    Column("user", CleanString(80), nullable=False),  # the name given at login
    Column("token_mac", String(64), nullable=False),  # HMAC(secret, web_token at login): a new token revokes
    Column("created_at", UTCDateTime(), nullable=False),
    Column("seen_at", UTCDateTime(), nullable=False),  # the last request (to the minute): idle past the setting ends it
    Index("ix_web_sessions_seen", "seen_at"),
)

# --- workers (the task queue: newsdesk worker / beat) ------------------------------------

tasks = Table(
    "tasks",
    metadata,
    # One row per unit of work, e.g. "fetch:openai-blog", "analysis:12:zh", "daily:2026-04-23".
    # It is the unit's lease (one worker at a time), its place in the queue and its last outcome.
    Column("key", CleanString(200), primary_key=True),
    Column("stage", CleanString(20), nullable=False),  # the pipeline stage it belongs to (ingest, write, ...)
    Column("args", CleanJSON, nullable=False, default=dict),
    Column("run_id", CleanString(40)),  # the pass that asked for it: the budget it spends from
    Column("queued", Boolean, nullable=False, default=False),  # a message for it waits in the broker
    Column("owner", CleanString(80)),  # the worker running it now (host:pid:tag), renewed by its heartbeat
    Column("lease_until", UTCDateTime()),
    Column("state", CleanString(10)),  # last outcome: done | retrying | failed | waiting (budget spent)
    Column("attempts", Integer, nullable=False, default=0),  # tries since it last succeeded
    Column("error", CleanText),  # the last failure, one line
    Column("queued_at", UTCDateTime()),
    Column("started_at", UTCDateTime()),
    Column("finished_at", UTCDateTime()),
    Index("ix_tasks_stage_state", "stage", "state"),
)
