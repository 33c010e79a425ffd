-- A store made by newsdesk before Alembic (main at abcd0be, store/migrate.py): every table
-- of schema.py by metadata.create_all, and schema_migrations recording version 1. sqlite DDL.

CREATE TABLE schema_migrations (
	version INTEGER NOT NULL, 
	name VARCHAR(200) NOT NULL, 
	applied_at DATETIME NOT NULL, 
	PRIMARY KEY (version)
);

CREATE TABLE checks (
	id INTEGER NOT NULL, 
	subject VARCHAR(20) NOT NULL, 
	subject_id VARCHAR(80) NOT NULL, 
	attempt INTEGER NOT NULL, 
	passed BOOLEAN NOT NULL, 
	findings JSON NOT NULL, 
	at DATETIME NOT NULL, 
	PRIMARY KEY (id)
);

CREATE INDEX ix_checks_subject ON checks (subject, subject_id);

CREATE TABLE editions (
	id INTEGER NOT NULL, 
	kind VARCHAR(12) NOT NULL, 
	"key" VARCHAR(80) NOT NULL, 
	language VARCHAR(8) NOT NULL, 
	title TEXT NOT NULL, 
	body TEXT NOT NULL, 
	meta JSON NOT NULL, 
	status VARCHAR(12) NOT NULL, 
	material_key VARCHAR(64) NOT NULL, 
	updated_at DATETIME NOT NULL, 
	PRIMARY KEY (id), 
	CONSTRAINT uq_editions_kind_key_language UNIQUE (kind, "key", language)
);

CREATE TABLE llm_cache (
	"key" VARCHAR(64) NOT NULL, 
	model VARCHAR(200) NOT NULL, 
	request JSON NOT NULL, 
	response JSON NOT NULL, 
	created_at DATETIME NOT NULL, 
	PRIMARY KEY ("key")
);

CREATE TABLE llm_usage (
	id INTEGER NOT NULL, 
	at DATETIME NOT NULL, 
	run_id VARCHAR(40), 
	stage VARCHAR(40) NOT NULL, 
	backend VARCHAR(20) NOT NULL, 
	model VARCHAR(200) NOT NULL, 
	prompt_tokens INTEGER NOT NULL, 
	completion_tokens INTEGER NOT NULL, 
	cached_tokens INTEGER NOT NULL, 
	latency_ms INTEGER NOT NULL, 
	cost_usd FLOAT NOT NULL, 
	cache_hit BOOLEAN NOT NULL, 
	error TEXT, 
	PRIMARY KEY (id)
);

CREATE INDEX ix_llm_usage_at ON llm_usage (at);

CREATE TABLE sources (
	id VARCHAR(120) NOT NULL, 
	name VARCHAR(300) NOT NULL, 
	url TEXT NOT NULL, 
	kind VARCHAR(20) NOT NULL, 
	language VARCHAR(8) NOT NULL, 
	tier INTEGER NOT NULL, 
	weight FLOAT NOT NULL, 
	category VARCHAR(40) NOT NULL, 
	fulltext BOOLEAN NOT NULL, 
	enabled BOOLEAN NOT NULL, 
	origin VARCHAR(20) NOT NULL, 
	etag TEXT, 
	last_modified TEXT, 
	lease_owner VARCHAR(80), 
	lease_until DATETIME, 
	PRIMARY KEY (id)
);

CREATE TABLE fetches (
	id INTEGER NOT NULL, 
	source_id VARCHAR(120) NOT NULL, 
	started_at DATETIME NOT NULL, 
	duration_ms INTEGER, 
	url TEXT, 
	http_status INTEGER, 
	etag TEXT, 
	last_modified TEXT, 
	not_modified BOOLEAN NOT NULL, 
	items_seen INTEGER NOT NULL, 
	items_new INTEGER NOT NULL, 
	items_updated INTEGER NOT NULL, 
	warnings JSON NOT NULL, 
	error TEXT, 
	PRIMARY KEY (id), 
	FOREIGN KEY(source_id) REFERENCES sources (id)
);

CREATE INDEX ix_fetches_source_started ON fetches (source_id, started_at);

CREATE TABLE items (
	id INTEGER NOT NULL, 
	source_id VARCHAR(120) NOT NULL, 
	guid TEXT NOT NULL, 
	url TEXT, 
	title TEXT NOT NULL, 
	summary TEXT NOT NULL, 
	body TEXT, 
	language VARCHAR(8) NOT NULL, 
	published_at DATETIME NOT NULL, 
	first_seen_at DATETIME NOT NULL, 
	updated_at DATETIME NOT NULL, 
	material VARCHAR(12) NOT NULL, 
	content_hash VARCHAR(64) NOT NULL, 
	authors JSON NOT NULL, 
	categories JSON NOT NULL, 
	engagement JSON NOT NULL, 
	extra JSON NOT NULL, 
	PRIMARY KEY (id), 
	CONSTRAINT uq_items_source_guid UNIQUE (source_id, guid), 
	FOREIGN KEY(source_id) REFERENCES sources (id)
);

CREATE INDEX ix_items_published ON items (published_at);

CREATE INDEX ix_items_source_url ON items (source_id, url);

CREATE TABLE events (
	id INTEGER NOT NULL, 
	title TEXT NOT NULL, 
	lead_item_id INTEGER, 
	first_seen_at DATETIME NOT NULL, 
	last_seen_at DATETIME NOT NULL, 
	item_count INTEGER NOT NULL, 
	outlets INTEGER NOT NULL, 
	independent_outlets INTEGER NOT NULL, 
	languages JSON NOT NULL, 
	category VARCHAR(40), 
	anchors JSON NOT NULL, 
	importance FLOAT NOT NULL, 
	score FLOAT NOT NULL, 
	score_parts JSON NOT NULL, 
	tier VARCHAR(12) NOT NULL, 
	updated_at DATETIME NOT NULL, 
	PRIMARY KEY (id), 
	FOREIGN KEY(lead_item_id) REFERENCES items (id)
);

CREATE INDEX ix_events_last_seen ON events (last_seen_at);

CREATE TABLE item_vectors (
	item_id INTEGER NOT NULL, 
	model VARCHAR(80) NOT NULL, 
	dim INTEGER NOT NULL, 
	vector BLOB NOT NULL, 
	PRIMARY KEY (item_id), 
	FOREIGN KEY(item_id) REFERENCES items (id)
);

CREATE TABLE transcripts (
	item_id INTEGER NOT NULL, 
	format VARCHAR(10) NOT NULL, 
	source_url TEXT, 
	turns JSON NOT NULL, 
	stored_at DATETIME NOT NULL, 
	PRIMARY KEY (item_id), 
	FOREIGN KEY(item_id) REFERENCES items (id)
);

CREATE TABLE analyses (
	id INTEGER NOT NULL, 
	event_id INTEGER NOT NULL, 
	language VARCHAR(8) NOT NULL, 
	headline TEXT NOT NULL, 
	body TEXT NOT NULL, 
	status VARCHAR(12) NOT NULL, 
	flags JSON NOT NULL, 
	attempts INTEGER NOT NULL, 
	model VARCHAR(200), 
	material_key VARCHAR(64) NOT NULL, 
	created_at DATETIME NOT NULL, 
	PRIMARY KEY (id), 
	CONSTRAINT uq_analyses_event_language UNIQUE (event_id, language), 
	FOREIGN KEY(event_id) REFERENCES events (id)
);

CREATE TABLE event_members (
	item_id INTEGER NOT NULL, 
	event_id INTEGER NOT NULL, 
	role VARCHAR(12) NOT NULL, 
	origin_item_id INTEGER, 
	similarity FLOAT, 
	reason TEXT, 
	joined_at DATETIME NOT NULL, 
	PRIMARY KEY (item_id), 
	FOREIGN KEY(item_id) REFERENCES items (id), 
	FOREIGN KEY(event_id) REFERENCES events (id), 
	FOREIGN KEY(origin_item_id) REFERENCES items (id)
);

CREATE INDEX ix_event_members_event ON event_members (event_id);

CREATE TABLE feedback (
	id INTEGER NOT NULL, 
	event_id INTEGER NOT NULL, 
	kind VARCHAR(8) NOT NULL, 
	note TEXT NOT NULL, 
	user VARCHAR(80) NOT NULL, 
	at DATETIME NOT NULL, 
	PRIMARY KEY (id), 
	FOREIGN KEY(event_id) REFERENCES events (id)
);

CREATE INDEX ix_feedback_event ON feedback (event_id);

INSERT INTO schema_migrations (version, name, applied_at) VALUES (1, 'initial schema', '2026-11-30 09:15:02.123456');
