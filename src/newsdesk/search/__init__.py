"""Full-text search over items and events, Chinese included (index.py): FTS5 on SQLite, tsvector on PostgreSQL."""
