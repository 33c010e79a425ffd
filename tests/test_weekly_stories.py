"""The weekly threads a theme's events by story: the events of one story are one entry, in date
order, under a line of their own stored headlines and dates; an event whose story began before
the week says which story it continues; an event in no story is told as before.

The store is real (SQLite, clustered and linked into stories by the real stages, the embedded
USE model); both writers run on it (the extractive one, and the model-written one behind the
deterministic CopyingBackend of test_weekly), and every published form is read back.
Every item here was written for this test.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fakes import copying_llm
from sqlalchemy import select
from test_stories import BENCHMARKS, FIX, LAUNCH
from test_stories import SOURCES as STORY_SOURCES

from newsdesk.cluster import cluster_new_items
from newsdesk.cluster.embed import UseEmbedder
from newsdesk.core.config import Settings
from newsdesk.core.model import Item, Source
from newsdesk.rank.score import rank_events
from newsdesk.store.items import sync_sources, upsert_item
from newsdesk.store.schema import analyses, editions, event_members, items
from newsdesk.stories.threads import link_stories, story_threads
from newsdesk.write.extractive.checked import store_cards
from newsdesk.write.weekly_stories import (
    Entry,
    story_entries,
    week_stories,
    with_story_lines,
)

WEEK = "2030-W20"  # Monday 2030-05-13 … Sunday 05-19; the week before holds only the first Quillfin event
MONDAY = datetime(2030, 5, 13, 2, 0, tzinfo=UTC)  # 10:00 in Asia/Shanghai, the default timezone

SOURCES = [*STORY_SOURCES, Source("jiqi", "机器周刊", "https://jiqi.example/rss", language="zh")]

# (source, guid, hours after MONDAY, title, summary, language)
# test_stories' launch, benchmarks and fix, moved into one week: launch (Mon) -> benchmarks (Wed) -> fix (Sat)
TESSELLATE = (
    LAUNCH
    + [(src, guid, hours - 24 * 5, *rest) for src, guid, hours, *rest in BENCHMARKS]
    + [(src, guid, hours - 24 * 10, *rest) for src, guid, hours, *rest in FIX]
)
QUILLFIN = [  # shown the week before (Tue) -> first deliveries (Mon) -> a recall (Sun): a story the week continues
    (
        "jiqi",
        "quill-0",
        -24 * 6,
        "Marlowe Robotics 发布仓储机械臂 Quillfin，单臂每小时分拣 1200 件",
        "Marlowe Robotics 展示仓储分拣机械臂 Quillfin，官方称单臂每小时可分拣 1200 件包裹，计划下周开始交付。",
        "zh",
    ),
    (
        "techwire",
        "quill-0b",
        -24 * 6 + 3,
        "Marlowe Robotics unveils Quillfin, a warehouse robot arm that sorts 1,200 parcels an hour",
        "The Quillfin arm picks and sorts parcels in warehouses; Marlowe says deliveries start next week.",
        "en",
    ),
    (
        "jiqi",
        "quill-1",
        8,
        "仓储机械臂 Quillfin 开始向首批客户交付，Marlowe Robotics 称首批 40 台",
        "Marlowe Robotics 称 Quillfin 仓储机械臂已交付给三家物流公司，首批共 40 台。",
        "zh",
    ),
    (
        "zhiku",
        "quill-2",
        24 * 6,
        "夹爪故障：AI 仓储机械臂 Quillfin 停止发货并召回",
        "客户反映 Quillfin 的夹爪会让包裹滑落，Marlowe Robotics 已停止发货，并将逐台维修。",
        "zh",
    ),
]
UNRELATED = [  # in no story
    (
        "techwire",
        "noise-1",
        24 * 1 + 5,
        "City council approves a new tram line to the airport",
        "Construction starts next spring and the line should open in 2033.",
        "en",
    ),
    ("zhiku", "noise-2", 24 * 3, "新能源车企四月销量同比增长四成", "多家车企公布月度交付数据，出口增长明显。", "zh"),
    (
        "techwire",
        "noise-3",
        24 * 3 + 6,
        "A chip maker's quarterly revenue falls short of forecasts",
        "Shares fell 6% after hours as data-center orders slowed.",
        "en",
    ),
    (
        "jiqi",
        "noise-4",
        24 * 4 + 3,
        "某电商平台推出以旧换新补贴，手机最高补贴 500 元",
        "补贴活动持续到月底，覆盖手机、平板和笔记本电脑。",
        "zh",
    ),
]


# --- the entries themselves, on facts as week_stories gives them ----------------------------------


def _story(story_id: int, *events: tuple[int, str, str]) -> dict:
    return {
        "story_id": story_id,
        "title": events[0][1],
        "events": [{"event_id": i, "headline": h, "date": d, "follows_event_id": None} for i, h, d in events],
    }


def test_entries_gather_a_story_in_date_order_where_its_most_important_event_stands():
    s = _story(7, (3, "GLM-5 发布", "2030-05-13"), (1, "GLM-5 涨价", "2030-05-15"), (5, "GLM-5 技术报告", "2030-05-18"))
    stories = {3: s, 1: s, 5: s}
    # Most important first: the price rise (1), an unrelated event (2), the report (5), the launch (3).
    entries = story_entries([1, 2, 5, 3], stories, WEEK, "zh")
    assert [e.events for e in entries] == [[3, 1, 5], [2]]
    assert entries[0].line == "事件脉络：GLM-5 发布（05-13） → GLM-5 涨价（05-15） → GLM-5 技术报告（05-18）"
    assert entries[1].line == ""  # an event in no story: nothing said
    en = story_entries([1, 2, 5, 3], stories, WEEK, "en")
    assert en[0].line == "Story: GLM-5 发布 (05-13) → GLM-5 涨价 (05-15) → GLM-5 技术报告 (05-18)"
    blocks, lines = with_story_lines({1: "p1", 2: "p2", 3: "p3", 5: "p5"}, entries)
    assert blocks == [entries[0].line, "p3", "p1", "p5", "p2"] and lines == [entries[0].line]


def test_an_event_whose_story_began_before_the_week_says_what_it_continues():
    s = _story(
        9, (4, "Quillfin 发布", "2030-05-07"), (6, "Quillfin 交付", "2030-05-14"), (8, "Quillfin 召回", "2030-05-17")
    )
    alone = story_entries([8], {8: s}, WEEK, "zh")
    assert alone == [Entry([8], "续：Quillfin 发布（05-07）")]
    # In English it names the story's first event by an English headline, never a Chinese one.
    assert story_entries([8], {8: s}, WEEK, "en")[0].line == ""
    english = {**s, "events": [{**s["events"][0], "headline": "Marlowe unveils Quillfin"}, *s["events"][1:]]}
    assert story_entries([8], {8: english}, WEEK, "en")[0].line == "continues: Marlowe unveils Quillfin (05-07)"
    both = story_entries([8, 6], {6: s, 8: s}, WEEK, "zh")
    assert both == [
        Entry([6, 8], "事件脉络：Quillfin 交付（05-14） → Quillfin 召回（05-17）；续：Quillfin 发布（05-07）")
    ]
    # A story that began this week says nothing of continuing, and one alone in its theme nothing at all.
    assert story_entries([8], {8: s}, "2030-W19", "zh") == [Entry([8], "")]


def test_it_continues_from_where_the_story_stood_before_the_week_not_from_its_first_line():
    # A changelog's "now available" line dated two days before the launch began the story; the
    # week's follow-up continues the launch, the latest event before the week.
    s = _story(
        12,
        (2, "Windsurf Next 1.9544.1028", "2030-05-03"),
        (4, "Introducing Quillfin 4.6", "2030-05-07"),
        (8, "Behind the launch: testing Quillfin 4.6 early", "2030-05-15"),
    )
    assert story_entries([8], {8: s}, WEEK, "en")[0].line == "continues: Introducing Quillfin 4.6 (05-07)"
    # In English the latest one with an English headline, when the latest is told only in Chinese.
    zh_last = {**s, "events": [*s["events"][:1], {**s["events"][1], "headline": "Quillfin 4.6 发布"}, s["events"][2]]}
    assert story_entries([8], {8: zh_last}, WEEK, "en")[0].line == "continues: Windsurf Next 1.9544.1028 (05-03)"
    assert story_entries([8], {8: zh_last}, WEEK, "zh")[0].line == "续：Quillfin 4.6 发布（05-07）"


# --- a real store --------------------------------------------------------------------------------


def _store_items(engine, rows) -> None:
    with engine.begin() as conn:
        sync_sources(conn, SOURCES)
        for src, guid, hours, title, summary, lang in rows:
            upsert_item(
                conn,
                Item(
                    src,
                    guid,
                    f"https://{src}.example/{guid}",
                    title,
                    summary,
                    language=lang,
                    published_at=MONDAY + timedelta(hours=hours),
                ),
                now=MONDAY + timedelta(days=8),
            )


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """The week clustered, ranked and linked into stories, as the pipeline's stages do."""
    from newsdesk.store import open_store

    folder = tmp_path_factory.mktemp("weekly-stories")
    engine = open_store(f"sqlite:///{folder / 'newsdesk.db'}")
    settings = Settings(site_dir=str(folder / "site"), site_name="测试台")
    embedder = UseEmbedder(threads=2)
    _store_items(engine, TESSELLATE + QUILLFIN + UNRELATED)
    cluster_new_items(engine, settings, embedder=embedder)
    link_stories(engine, settings, embedder=embedder)
    rank_events(engine, now=MONDAY + timedelta(days=7))
    store_cards(engine, settings)  # each event's headline in zh and en, as the pipeline's write stage stores it
    with engine.connect() as conn:
        ev = dict(
            conn.execute(
                select(items.c.guid, event_members.c.event_id).join(
                    event_members, event_members.c.item_id == items.c.id
                )
            ).all()
        )
        threads = story_threads(conn, list(ev.values()))
    # What the weekly is tested on: the stages found two stories and left the rest out of any.
    tessellate = [ev["launch-1"], ev["bench-1"], ev["fix-1"]]
    quillfin = [ev["quill-0"], ev["quill-1"], ev["quill-2"]]
    assert len(set(tessellate + quillfin)) == 6 and ev["quill-0b"] == ev["quill-0"]
    assert [e["event_id"] for e in threads[ev["launch-1"]]["events"]] == tessellate
    assert [e["event_id"] for e in threads[ev["quill-1"]]["events"]] == quillfin
    assert not {ev[g] for g in ("noise-1", "noise-2", "noise-3", "noise-4")} & set(threads)
    yield engine, settings, ev
    engine.dispose()


def _weekly(engine) -> dict:
    with engine.connect() as conn:
        return dict(
            conn.execute(select(editions).where(editions.c.kind == "weekly", editions.c.key == WEEK)).mappings().one()
        )


def _section_of(meta: dict, event_id: int) -> dict:
    return next(s for s in meta["sections"] if event_id in s["events"])


def _headlines(engine, ev, language: str = "zh") -> dict[str, str]:
    """The story events' stored headlines in `language` (their analyses')."""
    with engine.connect() as conn:
        stored = dict(
            conn.execute(select(analyses.c.event_id, analyses.c.headline).where(analyses.c.language == language)).all()
        )
    return {g: stored[ev[g]] for g in ("launch-1", "bench-1", "fix-1", "quill-0", "quill-1", "quill-2")}


def _check_threaded(engine, settings, ev, meta: dict, told) -> None:
    """The Tessellate events are one entry in date order under their line, in the stored text and
    the body; the Quillfin events say they continue the earlier story; the unrelated ones are told
    as before, with no line. `told(section, event_id)`: that event's paragraph in the section."""
    h = _headlines(engine, ev)
    tessellate = [ev["launch-1"], ev["bench-1"], ev["fix-1"]]
    section = _section_of(meta, ev["launch-1"])
    at = section["events"].index(ev["launch-1"])
    assert section["events"][at : at + 3] == tessellate, "together, in date order"
    line = f"事件脉络：{h['launch-1']}（05-13） → {h['bench-1']}（05-15） → {h['fix-1']}（05-18）"
    blocks = section["text"].split("\n\n")
    assert blocks[blocks.index(line) + 1 : blocks.index(line) + 4] == [told(section, i) for i in tessellate]
    assert line in section["story_lines"]

    # The week's two Quillfin events, one theme: one entry, which says the story began the week before.
    quill = _section_of(meta, ev["quill-1"])
    continued = f"事件脉络：{h['quill-1']}（05-13） → {h['quill-2']}（05-19）；续：{h['quill-0']}（05-07）"
    blocks = quill["text"].split("\n\n")
    assert blocks[blocks.index(continued) + 1 : blocks.index(continued) + 3] == [
        told(quill, ev["quill-1"]),
        told(quill, ev["quill-2"]),
    ]

    for guid in ("noise-1", "noise-2", "noise-3", "noise-4"):
        alone = [s for s in meta["sections"] if ev[guid] in s["events"]]
        for s in alone:  # in a theme: its paragraph with no line before it (else it is a brief, as before)
            blocks = s["text"].split("\n\n")
            before = blocks[blocks.index(told(s, ev[guid])) - 1]
            assert before not in s["story_lines"], (guid, before)
    assert sorted(x for s in meta["sections"] for x in s["story_lines"]) == sorted([line, continued])


def test_the_extractive_weekly_threads_its_themes_by_story_in_every_published_form(store):
    from fastapi.testclient import TestClient

    from newsdesk.editions.weekly import build_extractive_weekly
    from newsdesk.publish.site import publish_site
    from newsdesk.serve.app import create_app
    from newsdesk.write.extractive.card import extractive_card

    engine, settings, ev = store
    assert build_extractive_weekly(engine, settings, WEEK, max_sections=4, per_section=5) == "clean"
    row = _weekly(engine)
    meta = row["meta"]
    assert meta["extractive"]

    def told(section, event_id):
        from newsdesk.cluster import event_brief

        with engine.connect() as conn:
            headline = extractive_card(event_brief(conn, event_id), "zh").headline
        return next(b for b in section["text"].split("\n\n") if b.startswith(headline + "（"))

    _check_threaded(engine, settings, ev, meta, told)
    lines = [x for s in meta["sections"] for x in s["story_lines"]]
    assert all(x in row["body"] for x in lines)

    # Every published form carries the lines: the site page (marked as story lines), its Markdown,
    # the weekly feeds, and the web app's page.
    publish_site(engine, settings)
    site = Path(settings.site_dir)
    page = (site / "zh" / "weekly" / f"{WEEK}.html").read_text("utf-8")
    markdown = (site / "zh" / "weekly" / f"{WEEK}.md").read_text("utf-8")
    feed = (site / "zh" / "weekly.xml").read_text("utf-8")
    for x in lines:
        # in the page's own language: no language mark (only a part in another language carries one)
        assert re.search(rf'<p class="story-line">{re.escape(x)}</p>', page), x
        assert f"\n\n{x}\n\n" in markdown and x in feed
    with TestClient(create_app(engine, settings)) as client:
        app_page = client.get(f"/weekly/{WEEK}?lang=zh").text
    assert all(x in app_page for x in lines)
    # Unchanged story links, unchanged report: nothing rebuilt.
    assert build_extractive_weekly(engine, settings, WEEK, max_sections=4, per_section=5) == "unchanged"


def test_the_extractive_weekly_in_english_says_it_with_english_labels(store):
    from newsdesk.write.extractive.weekly import extractive_weekly, load_week

    engine, settings, ev = store
    with engine.connect() as conn:
        briefs = load_week(conn, settings, WEEK)
        stories = week_stories(conn, [b["event_id"] for b in briefs], "en", settings.timezone)
    report = extractive_weekly(briefs, language="en", stories=stories, week=WEEK, max_sections=4)
    h = _headlines(engine, ev, "en")
    theme = next(t for t in report.themes if ev["launch-1"] in t.events)
    assert f"Story: {h['launch-1']} (05-13) → {h['bench-1']} (05-15) → {h['fix-1']} (05-18)" in theme.text.split("\n\n")
    # Quillfin's events of the week were reported only in Chinese: the English weekly lists them apart, by
    # their original headlines, never as Chinese items under an English story line.
    assert not {ev["quill-1"], ev["quill-2"]} & {i for t in report.themes for i in t.events}
    assert {ev["quill-1"], ev["quill-2"]} <= {f.event_id for f in report.folded}
    # A story the week continues says so in English labels too.
    quill = story_entries([ev["quill-1"], ev["quill-2"]], stories, WEEK, "en")
    assert [e.line for e in quill] == [
        f"Story: {h['quill-1']} (05-13) → {h['quill-2']} (05-19); continues: {h['quill-0']} (05-07)"
    ]
    # Without the stories, the same themes are told as before: no line, each event where it ranks.
    plain = extractive_weekly(briefs, language="en", max_sections=4)
    assert all(not t.story_lines and t.text == "\n\n".join([t.heading, *t.paragraphs]) for t in plain.themes)


def test_the_written_weekly_numbers_a_story_together_and_publishes_its_line(store):
    from newsdesk.editions.weekly import build_weekly

    engine, settings, ev = store
    stats = build_weekly(engine, settings, copying_llm(engine), WEEK, max_sections=4)
    assert stats.built and stats.status == "clean", stats
    row = _weekly(engine)
    meta = row["meta"]
    assert not meta.get("extractive")

    def told(section, event_id):  # the copying writer names each item by its stored headline
        from newsdesk.write.weekly import week_events

        with engine.connect() as conn:
            title = next(e.title for e in week_events(conn, settings, WEEK) if e.id == event_id)
        return next(b for b in section["text"].split("\n\n") if b.startswith(title + "（"))

    _check_threaded(engine, settings, ev, meta, told)
    assert all(x in row["body"] for s in meta["sections"] for x in s["story_lines"])


def test_a_date_of_another_year_than_the_week_says_its_year():
    s = _story(11, (4, "Quillfin 发布", "2029-05-07"), (8, "Quillfin 召回", "2030-05-17"))
    assert story_entries([8], {8: s}, WEEK, "zh") == [Entry([8], "续：Quillfin 发布（2029-05-07）")]
    assert story_entries([4, 8], {4: s, 8: s}, WEEK, "en")[0].line == (
        "Story: Quillfin 发布 (2029-05-07) → Quillfin 召回 (05-17)"
    )
