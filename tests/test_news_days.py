"""The navigation days kept in news_days (store/days.py): what the days read equals what the
events give, a day's list and the list of days read the kept rows (no scan of every event and
member) while they match the store, and a store that moved is never answered from stale rows."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from sqlalchemy import event
from test_web_app import DAY2, _event, _item, seed_store

from newsdesk.store.days import _scan, day_events, event_dates, keep_days, news_days

TZ = "Asia/Shanghai"


def statements(engine) -> list[str]:
    seen: list[str] = []
    event.listen(engine, "before_cursor_execute", lambda *args: seen.append(args[2]))
    return seen


@pytest.mark.parametrize("store_url", ["sqlite", "postgresql"], indirect=True)
def test_kept_days_are_the_events_days_and_are_read_without_a_scan(engine):
    seed_store(engine)
    with engine.connect() as conn:
        live = event_dates(conn, TZ)
        live_day = [(e.id, e.update) for e in day_events(conn, date(2026, 4, 23), TZ)]
    assert live == [date(2026, 4, 22), date(2026, 4, 23)]
    assert keep_days(engine, TZ) == live

    seen = statements(engine)
    with engine.connect() as conn:
        assert event_dates(conn, TZ) == live
        assert [(e.id, e.update) for e in day_events(conn, date(2026, 4, 23), TZ)] == live_day
    # Read from the kept rows: no statement joins members to items over the whole store, and none
    # reads every event's first report (what the scan does).
    scans = [s for s in seen if "events.item_count >" in s or "events.first_published_at \nFROM events" in s]
    assert seen and scans == [], scans
    assert any("news_days" in s for s in seen)


def test_a_store_that_moved_is_answered_from_the_events_until_its_days_are_kept_again(sqlite_engine):
    seed_store(sqlite_engine)
    keep_days(sqlite_engine, TZ)
    later = DAY2 + timedelta(days=2)  # 2026-04-25: a newer day with news
    with sqlite_engine.begin() as conn:
        _item(conn, 20, "openai-blog", "A newer launch", "", later, "en")
        _event(conn, 20, "A newer launch", later, 5.0, "p1", "model", [(20, "lead", None)])
    with sqlite_engine.connect() as conn:  # the kept rows are behind the store: never read
        assert event_dates(conn, TZ)[-1] == date(2026, 4, 25)
        assert [e.id for e in day_events(conn, date(2026, 4, 25), TZ)] == [20]
        assert conn.execute(news_days.select().where(news_days.c.event_id == 20)).first() is None
    assert keep_days(sqlite_engine, TZ)[-1] == date(2026, 4, 25)
    with sqlite_engine.connect() as conn:
        assert conn.execute(news_days.select().where(news_days.c.event_id == 20)).first() is not None
        assert sorted(_scan(conn, TZ)) == sorted(
            (date.fromisoformat(r.day), r.event_id, r.is_update) for r in conn.execute(news_days.select())
        )
