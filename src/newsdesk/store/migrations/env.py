"""Alembic's entry point. newsdesk.store.migrate hands it an open connection, already
locked and inside a transaction, so every revision and the version stamp commit together."""

from alembic import context
from sqlalchemy import TypeDecorator

from newsdesk.store.schema import metadata


def render_item(kind, obj, _autogen_context):
    """Drafted revisions name plain SQLAlchemy types, so schema.py can change without them."""
    if kind == "type" and isinstance(obj, TypeDecorator):
        return f"sa.{obj.impl!r}"
    return False


config = context.config
context.configure(
    connection=config.attributes["connection"],
    target_metadata=metadata,
    on_version_apply=config.attributes.get("on_version_apply"),
    # SQLite cannot alter most column properties in place; batch operations copy the table.
    render_as_batch=True,
    render_item=render_item,
)
with context.begin_transaction():
    context.run_migrations()
