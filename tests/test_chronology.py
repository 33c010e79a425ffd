"""A report dated before its maker announced what it reports (rank/chronology.py), and what the
ranking does with it: the day keeps the card, but it never leads the day."""

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy import insert, select

from newsdesk.core.model import Item, Source
from newsdesk.rank.chronology import Dated, misdated
from newsdesk.rank.score import rank_events
from newsdesk.store.items import sync_sources, upsert_item
from newsdesk.store.schema import event_members, events, items

NOW = datetime(2026, 2, 6, 12, tzinfo=UTC)
ZONE = ZoneInfo("Asia/Shanghai")

ANTHROPIC = frozenset({"anthropic"})


def _r(event_id, day, headline, voice, speaks_for=frozenset(), outlet=None):
    return Dated(event_id, date.fromisoformat(day), headline, voice, speaks_for, outlet or voice)


LAUNCH = _r(2, "2026-02-05", "Introducing Claude Opus 4.6", "Anthropic", ANTHROPIC, "Anthropic News")


def test_a_partner_note_dated_days_before_the_maker_announced_the_product_is_misdated():
    """The replayed 02-03 led with "Opus 4.6 is now available in Windsurf": a changelog feed dated
    the entry two days before Anthropic introduced Opus 4.6."""
    early = _r(1, "2026-02-03", "Opus 4.6 is now available in Windsurf", "Windsurf", outlet="Windsurf Blog")
    found = misdated([early, LAUNCH, _r(2, "2026-02-05", "Anthropic 发布 Claude Opus 4.6", "机器之心")])
    assert list(found) == [1]
    assert "2 days before Anthropic News announced it (“Introducing Claude Opus 4.6”, 2026-02-05)" in found[1]


def test_what_is_not_misdated():
    # a day early is time zones and embargoes
    assert not misdated([_r(1, "2026-02-04", "Opus 4.6 is now available in Windsurf", "Windsurf"), LAUNCH])
    # a rumour or a leak names the product early by right; so does a headline that says nothing is out
    assert not misdated([_r(1, "2026-02-01", "Opus 4.6 launch reportedly set for next week", "Wire"), LAUNCH])
    assert not misdated([_r(1, "2026-02-01", "据称 Anthropic 发布 Opus 4.6 在即", "量子位"), LAUNCH])
    assert not misdated([_r(1, "2026-02-01", "What to expect from Opus 4.6", "Wire"), LAUNCH])
    # an older product: other outlets named it long before the maker's next headline did
    older = [
        _r(1, "2026-01-10", "Opus 4.5 is now available in Windsurf", "Windsurf"),
        _r(3, "2026-01-08", "Claude Opus 4.5 tops a coding benchmark", "Wire"),
        _r(2, "2026-02-05", "Introducing Claude Opus 4.5 in Excel", "Anthropic", ANTHROPIC, "Anthropic News"),
    ]
    assert not misdated(older)
    # the maker's own channel, and a product whose maker never said it is out
    assert not misdated([_r(2, "2026-02-01", "Introducing Claude Opus 4.6", "Anthropic", ANTHROPIC), LAUNCH])
    assert not misdated([_r(1, "2026-02-01", "Kimi K2.5 is now available in Windsurf", "Windsurf"), LAUNCH])


def test_a_misdated_event_keeps_its_day_but_never_leads_it(engine):
    day = datetime(2026, 2, 3, 4, tzinfo=ZONE)
    launch_day = day + timedelta(days=2)
    with engine.begin() as conn:
        sync_sources(
            conn,
            [
                Source("windsurf", "Windsurf Blog", "https://windsurf.example/rss", tier=1, category="company"),
                Source("anthropic", "Anthropic News", "https://anthropic.example/rss", tier=1, category="lab"),
                Source("wire", "Wire", "https://wire.example/rss"),
            ],
        )
        reports = {
            "early": [("windsurf", "Opus 4.6 is now available in Windsurf", day)],
            "ocr": [("wire", "Baidu open-sources a new OCR model", day)],
            "launch": [("anthropic", "Introducing Claude Opus 4.6", launch_day)],
        }
        for name, told in reports.items():
            event_id = conn.execute(
                insert(events).values(
                    title=told[0][1],
                    first_published_at=told[0][2],
                    last_published_at=told[-1][2],
                    item_count=len(told),
                    outlets=1,
                    independent_outlets=1,
                    updated_at=NOW,
                )
            ).inserted_primary_key[0]
            for n, (source, headline, when) in enumerate(told):
                guid = f"{name}{n}"
                upsert_item(
                    conn,
                    Item(
                        source, guid, f"https://{source}.example/{guid}", headline, summary=headline, published_at=when
                    ),
                    now=when,
                )
                item_id = conn.execute(select(items.c.id).where(items.c.guid == guid)).scalar_one()
                conn.execute(
                    insert(event_members).values(item_id=item_id, event_id=event_id, role="lead", joined_at=NOW)
                )
    rank_events(engine, now=NOW)
    with engine.connect() as conn:
        rows = {r.title: r for r in conn.execute(select(events.c.title, events.c.tab, events.c.score_parts))}
    early = rows["Opus 4.6 is now available in Windsurf"]
    assert early.tab == "all" and early.score_parts["misdated"] < 0
    assert early.score_parts["dated"].startswith("dated 2026-02-03, 2 days before Anthropic News announced it")
    assert rows["Baidu open-sources a new OCR model"].tab == "featured"  # the day's news leads it
    assert rows["Introducing Claude Opus 4.6"].tab == "featured"
