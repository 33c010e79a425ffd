"""Ranking: independent coverage, authority, engagement, feedback; parts stored; feed tabs."""

from datetime import UTC, datetime, timedelta

from sqlalchemy import insert, select

from newsdesk.model import Item, Source
from newsdesk.rank import rank_events, score_event
from newsdesk.store.items import sync_sources, upsert_item
from newsdesk.store.schema import event_members, events, feedback, items

NOW = datetime(2026, 4, 23, 12, tzinfo=UTC)


def _facts(**kw):
    base = {"independent_outlets": 1, "outlets": 1, "best_authority": 0.5, "engagement": 0.0, "feedback": 0.0,
            "last_published_at": NOW}
    return base | kw


def test_independent_outlets_outweigh_repackaged_ones():
    independent, _, _ = score_event(_facts(independent_outlets=4, outlets=4), NOW)
    echoed, _, _ = score_event(_facts(independent_outlets=1, outlets=4), NOW)
    single, _, _ = score_event(_facts(), NOW)
    assert independent > echoed > single


def test_recency_orders_but_does_not_change_the_tab():
    fresh = score_event(_facts(independent_outlets=5, outlets=6, best_authority=1.0), NOW)
    old = score_event(_facts(independent_outlets=5, outlets=6, best_authority=1.0, last_published_at=NOW - timedelta(days=3)), NOW)
    assert fresh[0] > old[0] * 3
    assert fresh[2] == old[2] == "featured"
    assert fresh[1]["recency"] == 1.0 and old[1]["importance"] == fresh[1]["importance"]


def test_rank_events_in_the_store_uses_authority_engagement_and_feedback(engine):
    with engine.begin() as conn:
        sync_sources(conn, [Source("lab", "Lab", "https://lab.example/rss", tier=1, weight=1.5),
                            Source("hn", "Hacker News", "https://hn.example/rss", kind="hn", tier=3)])
        for guid, src, eng in (("a", "lab", {}), ("b", "hn", {"points": 900, "comments": 300}), ("c", "hn", {}), ("d", "hn", {})):
            upsert_item(conn, Item(src, guid, f"https://x.example/{guid}", f"story {guid}", engagement=eng, published_at=NOW), now=NOW)
        ids = dict(conn.execute(select(items.c.guid, items.c.id)).all())
        ev = {}
        for name in "abcd":
            ev[name] = conn.execute(insert(events).values(title=name, first_published_at=NOW, last_published_at=NOW, item_count=1,
                                                          outlets=1, independent_outlets=1, updated_at=NOW)).inserted_primary_key[0]
            conn.execute(insert(event_members).values(item_id=ids[name], event_id=ev[name], role="lead", joined_at=NOW))
        conn.execute(insert(feedback).values(event_id=ev["c"], kind="star", at=NOW))
        conn.execute(insert(feedback).values(event_id=ev["d"], kind="down", at=NOW))
    assert rank_events(engine, now=NOW) == 4
    with engine.connect() as conn:
        rows = {r.title: r for r in conn.execute(select(events.c.title, events.c.score, events.c.score_parts, events.c.tab))}
    assert rows["a"].score_parts["authority"] > rows["c"].score_parts["authority"]  # tier-1 lab vs HN
    assert rows["b"].score_parts["engagement"] > 1.0 and rows["b"].score > rows["d"].score
    assert rows["c"].tab == "featured" and rows["c"].score > rows["d"].score  # starred by the operator
    assert rows["d"].score_parts["feedback"] < 0 and rows["d"].tab == "all"
    assert set(rows["a"].score_parts) == {"coverage", "echo", "authority", "engagement", "feedback", "importance", "recency"}
    # Ranking again with nothing changed writes nothing new.
    before = rows
    rank_events(engine, now=NOW)
    with engine.connect() as conn:
        after = {r.title: r for r in conn.execute(select(events.c.title, events.c.score, events.c.score_parts, events.c.tab))}
    assert after == before
