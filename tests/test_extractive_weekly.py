"""The extractive weekly on the demo pack's week: themes from the weekly's own grouping,
named from their events' headlines, each event told by its own items; briefs told only by
their own item; the report's form; the checker passes it part by part."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from test_extractive_card import own_text
from test_weekly import parse_report

from newsdesk.write import weekly as model_weekly
from newsdesk.write.check import check_output, extract_names
from newsdesk.write.extractive import weekly as extractive_weekly_module
from newsdesk.write.extractive.card import extractive_card
from newsdesk.write.extractive.text import sentences
from newsdesk.write.extractive.weekly import extractive_weekly, load_week
from newsdesk.write.weekly_edition import properties

WEEK = "2025-W09"


@pytest.fixture(scope="module")
def demo(demo_briefs):  # this module's demo: the demo pack's week, loaded
    s, engine, _ = demo_briefs
    with engine.begin() as conn:
        return load_week(conn, s, WEEK)


def test_the_weekly_groups_with_the_weeklys_own_grouping_and_names_themes_from_headlines(demo):
    briefs, vectors = demo
    assert extractive_weekly_module.group_themes is model_weekly.group_themes  # one grouping, imported
    report = extractive_weekly(briefs, vectors, language="zh")
    assert len(report.themes) >= 3
    by_id = {b["event_id"]: b for b in briefs}
    for theme in report.themes:
        headlines = [extractive_card(by_id[i], "zh").headline for i in theme.events]
        for term in theme.heading.split("、"):
            assert any(term.lower() in h.lower() for h in headlines), (term, headlines)
        assert len(theme.paragraphs) == len(theme.events)
        for event_id, paragraph in zip(theme.events, theme.paragraphs):
            card = extractive_card(by_id[event_id], "zh")
            assert paragraph.startswith(card.headline)  # the item belongs to its theme's event
            material = "\n".join(own_text(m) for m in by_id[event_id]["members"])
            for s in sentences(paragraph[len(card.headline) :].split("）", 1)[1]):
                assert s in material or s in card.disclosure, s
    themed = {i for t in report.themes for i in t.events}
    assert report.briefs and not themed & {b.event_id for b in report.briefs}


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
    briefs, vectors = demo
    report = extractive_weekly(briefs, vectors, language="en")
    assert any("Title only:" in p for t in report.themes for p in t.paragraphs)
    assert_passes_part_by_part(report, briefs, "en")


def test_a_brief_is_told_only_by_its_own_item(demo):
    briefs, vectors = demo
    report = extractive_weekly(briefs, vectors, language="zh", max_sections=3, per_section=2, max_briefs=12)
    assert len(report.briefs) >= 5
    items = {m["item_id"]: m for b in briefs for m in b["members"]}
    for brief in report.briefs:
        item = items[brief.item_id]
        assert brief.title == item["title"].strip() and brief.source == item["source_name"]
        own = own_text(item)
        if brief.text not in ("只有标题。", "Title only."):
            for s in sentences(brief.text):
                assert s in own, s
        for name, _ in extract_names(brief.text, "zh"):  # the main names: its own item's
            assert name.lower() in own.lower(), name


def test_the_weekly_renders_in_the_reports_form_and_passes_the_checker_part_by_part(demo):
    briefs, vectors = demo
    report = extractive_weekly(briefs, vectors, language="zh")
    assert_passes_part_by_part(report, briefs, "zh")
    props = properties(WEEK, report.summary, "clean", datetime(2025, 3, 3, tzinfo=UTC), "Asia/Shanghai")
    text = report.render(f"AI周报 {WEEK} | newsdesk", props)
    parsed = parse_report(text)
    assert parsed["properties"]["slug"] == f"ai-weekly-{WEEK}"
    assert [s["heading"] for s in parsed["sections"]] == [t.heading for t in report.themes]
    assert len(parsed["briefs"]) == len(report.briefs)
    assert re.match(r"本周共 \d+ 个事件，\d+ 个主题：", report.summary)
    meta = report.meta()
    assert meta["extractive"] and [s["events"] for s in meta["sections"]] == [t.events for t in report.themes]
