"""An analysis is due again when its event grew (reports doubled) or its tab rose, not for one
more syndicated copy (SQLite and PostgreSQL, a loopback fake endpoint)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from fakes import FakeEndpoint
from sqlalchemy import insert, select, update
from test_analysis import T0, _answer, build_two_events, make_settings

from newsdesk.cluster import refresh_event
from newsdesk.core.model import Item
from newsdesk.llm import open_llm
from newsdesk.store.items import upsert_item
from newsdesk.store.schema import analyses, event_members, events, items
from newsdesk.write.analysis import write_analyses


@pytest.fixture
def fake():
    f = FakeEndpoint(default=_answer)
    yield f
    f.close()


def _join(engine, event_id: int, n: int, role: str = "member", origin: int | None = None) -> int:
    with engine.begin() as conn:
        item = Item(
            "the-verge",
            f"extra-{n}",
            f"https://www.theverge.com/gpt-5-5-{n}",
            f"GPT-5.5 report number {n}",
            summary="OpenAI released GPT-5.5.",
            language="en",
            published_at=T0 + timedelta(hours=n),
            material_level="summary",
        )
        upsert_item(conn, item, now=T0)
        item_id = conn.execute(select(items.c.id).where(items.c.guid == item.guid)).scalar_one()
        conn.execute(
            insert(event_members).values(
                item_id=item_id, event_id=event_id, role=role, origin_item_id=origin, joined_at=T0
            )
        )
        refresh_event(conn, event_id, now=T0)
    return item_id


def _tab(engine, event_id: int, tab: str) -> None:
    with engine.begin() as conn:
        conn.execute(update(events).where(events.c.id == event_id).values(tab=tab))


def test_an_analysis_is_due_again_when_the_event_doubles_or_rises_a_tab(engine, fake):
    gpt, intel = build_two_events(engine)
    settings = make_settings(fake)
    llm = open_llm(settings, engine)

    def run():
        before = len(fake.requests)
        stats = write_analyses(engine, settings, llm)
        return stats.written, len(fake.requests) - before

    assert run()[0] == 2
    with engine.connect() as conn:
        stored = {r.event_id: (r.reports, r.tab) for r in conn.execute(select(analyses))}
    assert stored == {gpt: (2, "all"), intel: (2, "all")}

    with engine.connect() as conn:
        lead = conn.execute(select(events.c.lead_item_id).where(events.c.id == gpt)).scalar_one()
    _join(engine, gpt, 1, role="syndicated", origin=lead)  # one more syndicated copy
    assert run() == (0, 0)
    _join(engine, gpt, 2)  # three reports: grown, not doubled
    assert run() == (0, 0)
    _join(engine, gpt, 3)  # four reports: doubled since the analysis
    assert run()[0] == 1
    with engine.connect() as conn:
        assert conn.execute(select(analyses.c.reports).where(analyses.c.event_id == gpt)).scalar_one() == 4

    _tab(engine, intel, "p1")  # all -> p1
    assert run()[0] == 1
    _tab(engine, intel, "featured")  # p1 -> featured
    assert run()[0] == 1
    _tab(engine, intel, "all")  # falling back is no reason to pay for a rewrite
    assert run() == (0, 0)
