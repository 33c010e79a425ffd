"""Rows the tests put in a store by hand, in one place: a source as a feed of the catalog is stored."""

from __future__ import annotations

from sqlalchemy import insert

from newsdesk.store.schema import sources


def add_source(conn, sid: str, name: str, *, language: str = "zh", category: str = "media", owner=None) -> None:
    """A tier-1 RSS source of weight 1 at https://{sid}.example/feed."""
    conn.execute(
        insert(sources).values(
            id=sid,
            name=name,
            url=f"https://{sid}.example/feed",
            kind="rss",
            language=language,
            tier=1,
            weight=1.0,
            category=category,
            owner=owner,
        )
    )
