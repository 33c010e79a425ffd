"""The feed cards the daily stage stores with their HTML (editions/feed_cards.py): a feed page assembled
from them is the page a live build renders, votes included; a store that moved since is built live."""

from __future__ import annotations

from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import delete, insert, select
from test_web_cache import DAY, add_event

from newsdesk.core.config import Settings
from newsdesk.core.model import Source
from newsdesk.editions.feed_cards import card_signature, stored_feed_cards
from newsdesk.serve import pages_reading, queries
from newsdesk.serve.app import create_app, reader_request
from newsdesk.store.items import sync_sources
from newsdesk.store.schema import analyses, feed_cards, feedback

TZ = ZoneInfo(Settings().timezone)


@pytest.fixture
def store(sqlite_engine):
    with sqlite_engine.begin() as conn:
        sync_sources(conn, [Source(id="outlet", name="Outlet", url="https://outlet.example.com/feed")])
    for n in range(1, 4):  # each through the real daily stage, which stores the day's cards
        add_event(sqlite_engine, n, f"Model launch {n}", f"Launch headline {n} with **Markdown**")
    with sqlite_engine.begin() as conn:  # a reader's vote, after the stage ran: the page shows it
        conn.execute(insert(feedback).values(event_id=2, kind="up", note="", user="r", at=datetime.now(UTC)))
    return sqlite_engine


def feed_html(app, lang: str, query: str) -> bytes:
    app.state.reads.clear()
    params = dict(p.split("=") for p in query.split("&"))
    request = reader_request(app, "/", query, lang)
    return pages_reading.feed_page(request, day=params["day"], tab=params["tab"], page_no=1).body


def test_a_page_of_stored_cards_is_the_page_a_live_build_renders(store, monkeypatch):
    app = create_app(store, Settings())
    pages: dict[str, dict] = {"stored": {}, "live": {}}
    with store.connect() as conn:  # the day, in every interface language
        assert sorted(conn.execute(select(feed_cards.c.language).where(feed_cards.c.day == DAY)).scalars()) == [
            "en",
            "zh",
        ]
    real_cards = queries.event_cards

    def no_live_build(*args, **kwargs):
        raise AssertionError("a day with stored cards built its cards live")

    for lang in ("zh", "en"):
        for tab in ("all", "p1", "category-model"):
            query = f"day={DAY}&tab={tab}"
            monkeypatch.setattr(queries, "event_cards", no_live_build)
            pages["stored"][lang, tab] = feed_html(app, lang, query)
            monkeypatch.setattr(queries, "event_cards", real_cards)
    with store.begin() as conn:
        conn.execute(delete(feed_cards))
    for lang in ("zh", "en"):
        for tab in ("all", "p1", "category-model"):
            pages["live"][lang, tab] = feed_html(app, lang, f"day={DAY}&tab={tab}")
    assert pages["stored"] == pages["live"]
    page = pages["stored"]["en", "all"].decode()
    assert "Launch headline 3" in page and "<strong>Markdown</strong>" in page
    assert '<span class="votes">👍 1 👎 0 ⭐ 0</span>' in page  # event 2's vote, put in per request
    assert page.count('class="votes"') == 1


def test_a_store_that_moved_since_the_stage_is_built_live(store):
    app = create_app(store, Settings())
    with store.begin() as conn:  # a Chinese analysis written after the stage stored the day
        conn.execute(
            insert(analyses).values(
                event_id=1,
                language="zh",
                headline="中文标题一",
                body="中文分析。",
                status="clean",
                flags=[],
                material_key="1zh",
                created_at=datetime.now(UTC),
            )
        )
    with store.connect() as conn:
        assert stored_feed_cards(conn, DAY, TZ, "zh", card_signature(conn)) is None
        live = queries.feed(conn, date.fromisoformat(DAY), "all", TZ, 1, "zh", card_signature(conn))
    assert not any("html" in card for card in live["events"])
    assert "中文标题一" in feed_html(app, "zh", f"day={DAY}&tab=all").decode()


def test_a_stored_roundup_is_no_headline(store):
    """A stored card keeps its roundup flag: without it the feed's headline list, read from stored
    cards, listed a newsletter's issue among the day's headlines."""
    from sqlalchemy import update

    from newsdesk.editions.cards import day_headlines
    from newsdesk.editions.daily import build_daily
    from newsdesk.store.schema import events

    with store.begin() as conn:
        conn.execute(update(events).values(tab="featured"))
        conn.execute(update(events).where(events.c.id == 3).values(score_parts={"kinds": "major, roundup"}))
    build_daily(store, Settings(), DAY)
    with store.connect() as conn:
        stored = stored_feed_cards(conn, DAY, TZ, "en", card_signature(conn))
    assert stored is not None and [c["event_id"] for c in stored if c.get("roundup")] == [3]
    assert [h["event_id"] for h in day_headlines(stored)] == [2, 1]
