"""The extractive weekly on the demo pack's week: themes from the week's lead events
(rank/themes.py, the written weekly's too), named from their lead headlines, each event
told by its own items; an overview line per theme with its lead's figure, attributed; briefs told
only by their own item; the report's form; the checker passes it part by part."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from test_extractive_card import own_text
from test_weekly import parse_report

from newsdesk.check.checker import check_output, extract_names
from newsdesk.editions.weekly import properties, render_weekly
from newsdesk.rank.themes import is_news, leads
from newsdesk.text.sentences import key_numbers, length, sentences
from newsdesk.write import weekly as model_weekly
from newsdesk.write.extractive import weekly as extractive_weekly_module
from newsdesk.write.extractive.card import extractive_card
from newsdesk.write.extractive.weekly import (
    FACT_LENGTH,
    extractive_summary,
    extractive_theme,
    extractive_weekly,
    load_week,
    theme_events,
)

WEEK = "2025-W09"


@pytest.fixture(scope="module")
def demo(demo_briefs):  # this module's demo: the demo pack's week, loaded
    s, engine, _ = demo_briefs
    with engine.begin() as conn:
        return load_week(conn, s, WEEK)


def test_every_lead_is_in_a_theme_named_from_its_lead_headline(demo):
    briefs = demo
    assert extractive_weekly_module.build_themes is model_weekly.build_themes  # one grouping, imported
    report = extractive_weekly(briefs, language="zh")
    by_id = {b["event_id"]: b for b in briefs}
    cards = {i: extractive_card(b, "zh") for i, b in by_id.items()}
    themed = {i for t in report.themes for i in t.events}
    assert {e.id for e in leads(theme_events(briefs, cards))} <= themed
    assert len({len(t.events) for t in report.themes}) > 1  # themes vary in size
    for theme in report.themes:
        lead = cards[theme.voice].headline
        # Whole clauses of the lead headline, a company named in it before them: no bag of words.
        for part in re.split(r"：|，", theme.heading):
            assert part.lower() in lead.lower(), (part, lead)
        assert "、" not in theme.heading or "、" in lead
        assert len(theme.paragraphs) == len(theme.events)
        for event_id, paragraph in zip(theme.events, theme.paragraphs):
            card = cards[event_id]
            assert paragraph.startswith(card.headline)  # the item belongs to its theme's event
            material = "\n".join(own_text(m) for m in by_id[event_id]["members"])
            for s in sentences(paragraph[len(card.headline) :].split("）", 1)[1]):
                assert s in material or s in card.disclosure, s
    assert report.briefs and not themed & {b.event_id for b in report.briefs}
    assert all(is_news(by_id[b.event_id]["score_parts"]) for b in report.briefs)  # routine items are left out


def test_each_overview_line_is_its_lead_events_hardest_fact_attributed(demo):
    briefs = demo
    report = extractive_weekly(briefs, language="zh")
    by_id = {b["event_id"]: b for b in briefs}
    assert len(report.overview) == len(report.themes)
    with_figures = 0
    for theme, line in zip(report.themes, report.overview):
        card = extractive_card(by_id[theme.voice], "zh")
        assert line.startswith(theme.heading)  # "heading：fact", or the fact alone when it opens with the heading
        whole, source = re.fullmatch(r"(.+)（([^（）]+)）", line).groups()
        sources = {m["source_name"] for m in by_id[theme.voice]["members"]}
        assert any(x in sources for x in source.split("、")), (source, sources)
        said = [s.text for s in card.lead]
        fact = next(f for f in (whole[len(theme.heading) + 1 :], whole) if f in said or f == card.headline)
        if any(key_numbers(s) for s in said if length(s) <= FACT_LENGTH and s != card.headline):
            with_figures += 1
            assert key_numbers(fact)  # the figure, when its lead has one
    assert with_figures >= 2
    assert "个事件" not in "".join(report.overview)  # lines of news, not counts


def assert_passes_part_by_part(report, briefs, language):
    material = [own_text(m) + "\n" + (m["source_name"] or "") for b in briefs for m in b["members"]] + report.facts
    # Checked part by part, as the model-written weekly is: summary with overview, each theme, the briefs.
    parts = [
        report.summary + "\n\n" + "\n\n".join(report.overview),
        *[t.text for t in report.themes],
        "\n\n".join(b.line() for b in report.briefs),
    ]
    for part in parts:
        result = check_output(part, material, language=language)
        assert result.passed, [f.detail for f in result.errors]


def test_an_english_weekly_passes_too_with_a_title_only_event_told_by_its_disclosure(demo):
    briefs = demo
    report = extractive_weekly(briefs, language="en")
    assert_passes_part_by_part(report, briefs, "en")
    # A title-only event in a theme is told by its card's disclosure, and the theme still passes.
    by_id = {b["event_id"]: b for b in briefs}
    cards = {i: extractive_card(b, "en") for i, b in by_id.items()}
    bare = next(i for i, c in cards.items() if c.disclosure.startswith("Title only"))
    theme = extractive_theme([report.themes[0].events[0], bare], cards, by_id, "en")
    assert any("Title only:" in p for p in theme.paragraphs)
    material = [own_text(m) + "\n" + (m["source_name"] or "") for b in briefs for m in b["members"]]
    result = check_output(theme.prose, material + [cards[bare].disclosure], language="en")
    assert result.passed, [f.detail for f in result.errors]


def test_a_brief_is_told_only_by_its_own_item(demo):
    briefs = demo
    report = extractive_weekly(briefs, language="zh", max_sections=3, per_section=2, max_briefs=12)
    assert len(report.briefs) >= 5
    items = {m["item_id"]: m for b in briefs for m in b["members"]}
    for brief in report.briefs:
        item = items[brief.item_id]
        assert brief.title == item["title"].strip() and brief.source == item["source_name"]
        own = own_text(item)
        if brief.text not in ("只有标题。", "title only."):
            for s in sentences(brief.text):
                assert s in own, s
        for name, _ in extract_names(brief.text, "zh"):  # the main names: its own item's
            assert name.lower() in own.lower(), name


def test_the_weekly_renders_in_the_reports_form_and_passes_the_checker_part_by_part(demo):
    briefs = demo
    report = extractive_weekly(briefs, language="zh")
    assert_passes_part_by_part(report, briefs, "zh")
    props = properties(WEEK, report.summary, "clean", datetime(2025, 3, 3, tzinfo=UTC), "Asia/Shanghai")
    text = render_weekly(
        f"AI周报 {WEEK} | newsdesk",
        props,
        report.overview,
        [t.text for t in report.themes],
        [b.line() for b in report.briefs],
    )
    parsed = parse_report(text)
    assert parsed["properties"]["slug"] == f"ai-weekly-{WEEK}"
    assert [s["heading"] for s in parsed["sections"]] == [t.heading for t in report.themes]
    assert len(parsed["briefs"]) == len(report.briefs)
    main = re.match(r"本周的主线：(.+?)。", report.summary).group(1).split("；")
    assert 1 <= len(main) <= 3 and set(main) <= {t.heading for t in report.themes}
    meta = report.meta()
    assert meta["extractive"] and [s["events"] for s in meta["sections"]] == [t.events for t in report.themes]


def test_the_english_summary_names_only_its_english_main_lines(demo):
    # The demo week's Chinese-only themes keep their Chinese headings (marked on the page); the
    # summary is one English sentence, so it names the English ones and leaves the rest "below".
    report = extractive_weekly(demo, language="en")
    by_id = {b["event_id"]: b for b in demo}
    cards = {i: extractive_card(b, "en") for i, b in by_id.items()}
    themes = sorted(report.themes, key=lambda t: not re.search(r"[\u3400-\u9fff]", t.heading))  # Chinese first
    assert re.search(r"[\u3400-\u9fff]", themes[0].heading)
    summary, overview, _ = extractive_summary(themes, by_id, cards, "en")
    assert summary.startswith("This week's main lines: ") and summary.endswith(" More below.")
    assert not re.search(r"[\u3400-\u9fff]", summary), summary
    assert len(overview) == len(themes)  # each theme keeps its overview line, marked on the page when Chinese


@pytest.mark.parametrize("language", ["zh", "en"])
def test_a_week_with_no_dated_news_says_so_plainly(demo, language):
    # A replay's current week: every item stamped when it was first seen, so no event has a date.
    undated = [{**b, "score_parts": {**(b.get("score_parts") or {}), "undated": -0.5}} for b in demo]
    report = extractive_weekly(undated, language=language)
    assert not report.themes and not report.briefs
    said = {
        "zh": f"本周没有带日期的新闻：本周的 {len(demo)} 个事件",
        "en": f"No dated news this week: its {len(demo)} events",
    }
    assert report.summary.startswith(said[language]), report.summary
    assert_passes_part_by_part(report, undated, language)
