"""Arbiter rulings that stand, roundups that point at the events they list, and a Chinese report of an
English announcement a day later (SQLite and PostgreSQL, the embedded USE model; items written for these
tests, and two real ones)."""

from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import delete, select

from newsdesk.cluster import cluster_new_items
from newsdesk.cluster.embed import UseEmbedder
from newsdesk.cluster.events import ClusterConfig
from newsdesk.core.config import Settings
from newsdesk.core.model import Item, Source
from newsdesk.serve.app import create_app
from newsdesk.store.items import sync_sources, upsert_item
from newsdesk.store.schema import cluster_rulings, event_members, items, roundup_links

T0 = datetime(2026, 6, 1, 8, 0, tzinfo=UTC)
SOURCES = [
    Source("lab-blog", "Lab Blog", "https://lab.example/rss", tier=1),
    Source("tech-daily", "Tech Daily", "https://td.example/rss"),
    Source("ai-weekly", "AI Weekly", "https://aw.example/rss"),
    Source("anthropic-news", "Anthropic News", "https://anthropic.example/rss", tier=1),
    Source("agi-hunt", "AGI Hunt", "https://agihunt.example/rss"),
]

LAUNCH = (
    "Lumen Robotics opens its warehouse arm to outside developers",
    "Lumen Robotics released an SDK for its warehouse picking arm and will take outside apps from June.",
)
REPORT = (
    "Lumen Robotics lets developers program its warehouse arm",
    "The robotics start-up Lumen published an SDK for its picking arm; outside apps are accepted from June.",
)
BUSES = (
    "City of Harlow pilots self-driving buses on two routes",
    "Two bus routes in Harlow get driverless shuttles for a six-month trial, the council said.",
)
QUILL = (
    "Quillmark releases Quill-2, a handwriting recognition model for archives",
    "Quillmark's Quill-2 reads nineteenth-century handwriting in parish archives with half the errors of Quill-1.",
)
VOLCANO = (
    "Volcanologists use drones to sample gas plumes on Mount Tarrak",
    "A survey team flew sampling drones through the gas plume of Mount Tarrak to forecast eruptions.",
)
DIGEST = (
    "AI Weekly digest: Lumen warehouse arm SDK; Harlow driverless buses; Quill-2 handwriting model",
    (
        "This week: Lumen Robotics opens its warehouse arm to developers, Harlow pilots driverless buses, "
        "and Quillmark's Quill-2 reads archive handwriting."
    ),
)


@pytest.fixture(scope="module")
def embedder():
    return UseEmbedder(threads=2)


def _put(engine, rows):
    """Store (source, hours after T0, (title, summary[, language])) rows; English unless a row says."""
    with engine.begin() as conn:
        sync_sources(conn, SOURCES)
        for n, (source, hours, (title, summary, *language)) in enumerate(rows):
            upsert_item(
                conn,
                Item(
                    source,
                    f"{source}-{n}",
                    f"https://{source}.example/{n}",
                    title,
                    summary,
                    language=language[0] if language else "en",
                    published_at=T0 + timedelta(hours=hours),
                ),
            )


def _event_of(engine) -> dict[str, int]:
    with engine.connect() as conn:
        return {
            r.title: r.event_id
            for r in conn.execute(
                select(items.c.title, event_members.c.event_id).join(
                    event_members, event_members.c.item_id == items.c.id
                )
            )
        }


def test_a_ruled_split_is_never_undone(engine, embedder):
    _put(engine, [("lab-blog", 0, LAUNCH), ("tech-daily", 3, REPORT)])
    asked = []

    def split(event_text, item_text):
        asked.append(item_text)
        return False, "the test's arbiter: a different happening"

    config = ClusterConfig(arbiter_band=1.0)  # every candidate goes to the arbiter
    cluster_new_items(engine, Settings(), embedder=embedder, arbiter=split, config=config)
    placed = _event_of(engine)
    assert placed[REPORT[0]] != placed[LAUNCH[0]]
    with engine.connect() as conn:
        ruling = conn.execute(select(cluster_rulings)).one()
        report_id = conn.execute(select(items.c.id).where(items.c.title == REPORT[0])).scalar()
    assert (ruling.item_id, ruling.event_id, ruling.same_event) == (report_id, placed[LAUNCH[0]], False)
    assert ruling.reason == "the test's arbiter: a different happening"

    # The report is placed again (its placement removed, as a repair would), now with an arbiter
    # that would keep it and thresholds it clears without one: the stored split still stands,
    # and the arbiter is not asked about that event again.
    with engine.begin() as conn:
        conn.execute(delete(event_members).where(event_members.c.item_id == report_id))
    asked.clear()

    def keep(event_text, item_text):
        asked.append(item_text)
        return True, "the test's arbiter: same happening"

    loose = ClusterConfig(same_language=0.1, arbiter_band=0.0)
    cluster_new_items(engine, Settings(), embedder=embedder, arbiter=keep, config=loose)
    again = _event_of(engine)
    assert again[REPORT[0]] != again[LAUNCH[0]]
    assert asked == []

    # Without the ruling the same thresholds would have merged them: the check is what held.
    with engine.begin() as conn:
        conn.execute(delete(event_members).where(event_members.c.item_id == report_id))
        conn.execute(delete(cluster_rulings))
    cluster_new_items(engine, Settings(), embedder=embedder, config=loose)
    assert _event_of(engine)[REPORT[0]] == again[LAUNCH[0]]


def test_a_roundup_points_at_the_events_it_lists_and_joins_none(engine, embedder):
    _put(
        engine,
        [
            ("lab-blog", 0, LAUNCH),
            ("tech-daily", 2, REPORT),
            ("tech-daily", 5, BUSES),
            ("lab-blog", 20, QUILL),
            ("tech-daily", 26, VOLCANO),
            ("ai-weekly", 48, DIGEST),
        ],
    )
    cluster_new_items(engine, Settings(), embedder=embedder)
    placed = _event_of(engine)
    assert placed[LAUNCH[0]] == placed[REPORT[0]]
    digest_event = placed[DIGEST[0]]
    assert sum(1 for e in placed.values() if e == digest_event) == 1  # it joined no event
    with engine.connect() as conn:
        digest_id = conn.execute(select(items.c.id).where(items.c.title == DIGEST[0])).scalar()
        linked = {r.event_id for r in conn.execute(select(roundup_links).where(roundup_links.c.item_id == digest_id))}
    assert linked == {placed[LAUNCH[0]], placed[BUSES[0]], placed[QUILL[0]]}  # not the volcano story
    # A re-run changes nothing, links included.
    cluster_new_items(engine, Settings(), embedder=embedder)
    with engine.connect() as conn:
        assert len(conn.execute(select(roundup_links)).all()) == 3
    # The listed event's page says which roundup lists it, and links to the roundup's own page.
    with TestClient(create_app(engine, Settings())) as client:
        page = client.get(f"/events/{placed[BUSES[0]]}").text
        assert f'<a href="/events/{digest_event}">{DIGEST[0]}</a>' in page
        assert "also in roundups" in page or "也出现在这些汇总里" in page
        assert "/events/" + str(digest_event) not in client.get(f"/events/{placed[VOLCANO[0]]}").text


def test_a_newsletter_issue_naming_a_lower_case_company_joins_no_event(engine, embedder):
    """W07's replay: The Batch's issue titled by four stories, one of them "xAI Joins SpaceX", was
    placed in a Chinese interview of Musk (cosine 0.51 to its centroid), so the English weekly named
    the interview by the issue's title in its overview and a theme's heading. It stands alone."""
    interview = (
        "“公司终局是纯 AI、纯机器人！”马斯克酒后激进预言：让机器人造机器人，未来要靠AI留着人类智能",
        "马斯克深度对谈：探讨太空算力的能源终局解及“纯 AI+机器人”的公司闭环形态。",
        "zh",
    )
    issue = (
        "Claude Opus 4.6 Thinks Smarter, xAI Joins SpaceX, AI Outperforms Doctors, Standardized AI Audits",
        "The Batch AI News and Insights: I recently spoke at the Sundance Film Festival on a panel about AI.",
        "en",
    )
    _put(engine, [("tech-daily", 0, interview), ("ai-weekly", 0, issue)])
    cluster_new_items(engine, Settings(), embedder=embedder)
    placed = _event_of(engine)
    assert placed[issue[0]] != placed[interview[0]]


def test_a_chinese_report_of_an_english_announcement_the_next_day_joins_its_event(engine, embedder):
    """Real items of 2026-W09: Anthropic News' title alone (02-25) and AGI Hunt's Chinese report a day
    later (02-26), cosine 0.57, one acquisition. Both headlines write Vercept, which no other report
    carries; that name joined them only on the announcement's own day (`name_days`, 0.75), and a
    Chinese outlet reports an English post the next day (`name_cross_days`)."""
    english = ("Anthropic acquires Vercept to advance Claude's computer use capabilities", "")
    chinese = (
        "刚刚，Anthropic 再出手，收购 AI 电脑操控公司 Vercept",
        "Anthropic 收购 AI 电脑操控初创公司 Vercept，旨在强化 Claude 的 Computer Use 能力。",
        "zh",
    )
    _put(engine, [("anthropic-news", 0, english), ("agi-hunt", 24, chinese), ("tech-daily", 5, BUSES)])
    cluster_new_items(engine, Settings(), embedder=embedder)
    placed = _event_of(engine)
    assert placed[chinese[0]] == placed[english[0]] != placed[BUSES[0]]
    with engine.connect() as conn:
        why = conn.execute(
            select(event_members.c.reason)
            .join(items, items.c.id == event_members.c.item_id)
            .where(items.c.title == chinese[0])
        ).scalar()
    assert "both name vercept" in why
