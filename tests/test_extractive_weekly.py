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
from newsdesk.core.labels import Labels
from newsdesk.editions.weekly import properties, render_weekly
from newsdesk.publish.markdown import weekly_body
from newsdesk.publish.site import _environment
from newsdesk.rank.themes import is_news, leads
from newsdesk.text.language import detect_language
from newsdesk.text.sentences import figures, key_numbers, length, near_duplicate, sentences, shingles, terms
from newsdesk.write import weekly as model_weekly
from newsdesk.write.extractive import weekly as extractive_weekly_module
from newsdesk.write.extractive.card import extractive_card
from newsdesk.write.extractive.english import HEADLINE_ONLY
from newsdesk.write.extractive.weekly import (
    FACT_LENGTH,
    compose,
    edition_card,
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
    # Each event once. The demo week's leads share no name specific enough to tie them (DeepSeek holds six of
    # its events; FlashMLA's Chinese and English reports, once two events, are one), so they are gathered
    # into one section: test_weekly.py's themes test ties events by the names they share.
    assert sum(len(t.events) for t in report.themes) == len(themed)
    for theme in report.themes:
        for heading, voice in theme.leads:  # a theme's, or each lead's of the section that gathers them
            lead = cards[voice].headline
            # Whole clauses of the lead headline, a company named in it before them: no bag of words.
            for part in re.split(r"：|，", heading):
                assert part.lower() in lead.lower(), (part, lead)
            assert "、" not in heading or "、" in lead
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
    named, _ = compose(theme_events(briefs, {i: extractive_card(b, "zh") for i, b in by_id.items()}), "zh")
    assert len(report.overview) == len(named)  # one line per lead event, in lead order
    with_figures = 0
    for n, line in zip(named, report.overview):
        card = extractive_card(by_id[n.voice], "zh")
        # "heading：fact", or the line alone when it says the heading's clauses (or all its words)
        assert all(c in line for c in re.split(r"[，：]", n.heading)) or set(terms(n.heading)) <= set(terms(line)), (
            n.heading,
            line,
        )
        whole, source = re.fullmatch(r"(.+)（([^（）]+)）", line).groups()
        sources = {m["source_name"] for m in by_id[n.voice]["members"]}
        assert any(x in sources for x in source.split("、")), (source, sources)
        said = [s.text for s in card.lead]
        fact = next(f for f in (whole[len(n.heading) + 1 :], whole) if f in said or f == card.headline)
        if fact != card.headline and any(key_numbers(s) for s in said if length(s) <= FACT_LENGTH):
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
    # A title-only event in a theme is told by its card's one line (only the headline is known), and the
    # theme still passes.
    by_id = {b["event_id"]: b for b in briefs}
    cards = {i: extractive_card(b, "en") for i, b in by_id.items()}
    bare = next(i for i, c in cards.items() if c.only_line.startswith("The headline alone is known"))
    theme = extractive_theme([report.themes[0].events[0], bare], cards, by_id, "en")
    assert any(cards[bare].only_line in p for p in theme.paragraphs)
    material = [own_text(m) + "\n" + (m["source_name"] or "") for b in briefs for m in b["members"]]
    result = check_output(theme.prose, material + [cards[bare].only_line], language="en")
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
        if brief.text not in extractive_weekly_module.TITLE_ONLY.values():
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
    main = re.match(r"本周头条：(.+?)。", report.summary).group(1).split("；")
    assert 1 <= len(main) <= 3 and set(main) <= {h for t in report.themes for h, _ in t.leads}
    meta = report.meta()
    assert meta["extractive"] and [s["events"] for s in meta["sections"]] == [t.events for t in report.themes]


def test_an_english_weekly_lists_the_events_told_only_in_chinese_apart(demo):
    # Offline, the English weekly was mostly items marked "In Chinese", under Chinese headings (W07+W10's
    # replay: "## 林俊旸离职风波始末"). An event told only in Chinese (no English report) is listed apart,
    # by its original headline, outlet and link; every heading, the summary and each item are English.
    report = extractive_weekly(demo, language="en")
    by_id = {b["event_id"]: b for b in demo}
    chinese_only = {i for i, b in by_id.items() if not any(detect_language(m["title"]) == "en" for m in b["members"])}
    cards = {i: edition_card(b, "en") for i, b in by_id.items()}
    named, brief_ids = compose(theme_events(demo, cards), "en")
    # Each such event the report tells (its themes and briefs, as both editions choose them) is listed, once.
    told = [i for n in named for i in n.events] + brief_ids
    assert [f.event_id for f in report.folded] == list(dict.fromkeys(i for i in told if i in chinese_only))
    assert report.folded
    items = {m["item_id"]: m for b in demo for m in b["members"]}
    for f in report.folded:
        m = items[f.item_id]
        assert (f.title, f.source, f.url) == (m["title"].strip(), m["source_name"], m["url"]) and f.url
    shown = {i for t in report.themes for i in t.events} | {b.event_id for b in report.briefs}
    assert shown and not shown & chinese_only
    cjk = re.compile(r"[\u3400-\u9fff]")
    assert not cjk.search(report.summary) and not any(cjk.search(line) for line in report.overview)
    for theme in report.themes:
        assert not cjk.search(theme.heading), theme.heading
        for paragraph in theme.paragraphs:
            assert detect_language(paragraph) == "en", paragraph
    for b in report.briefs:
        assert detect_language(b.title + " " + b.text) == "en", b.line()
    # The summary names the top English leads, the first lead with English material first.
    lead = next(n for n in named if n.voice not in chinese_only)
    assert report.summary.startswith(f"This week's headlines: {lead.heading}"), report.summary
    assert_passes_part_by_part(report, demo, "en")
    # Rendered last, under one heading, in the edition's text and its Markdown; nothing of it in Chinese.
    text = render_weekly("T", properties(WEEK, report.summary, "clean", datetime(2025, 3, 3, tzinfo=UTC), "UTC"),
                         report.overview, [t.text for t in report.themes], [b.line() for b in report.briefs], "en",
                         [f.line() for f in report.folded])  # fmt: skip
    assert text.rstrip().endswith(f"Reported in Chinese ({len(report.folded)})\n\n" + "\n\n".join(
        f"{f.title} — {f.source} / {f.url}" for f in report.folded))  # fmt: skip
    markdown = weekly_body(report.meta(), "en")
    assert f"## Reported in Chinese ({len(report.folded)})" in markdown
    assert f"- [{report.folded[0].title}]({report.folded[0].url}) — {report.folded[0].source}" in markdown
    assert "In Chinese*" not in markdown
    html = _environment().get_template("_weekly_body.html").render(meta=report.meta(), t=Labels("en"))
    assert f'<h2 id="reported-in-chinese-head">Reported in Chinese ({len(report.folded)})</h2>' in html
    assert html.count("<li data-event-id=") == len(report.folded) and 'class="language-mark"' not in html
    # The Chinese edition lists nothing apart.
    assert not extractive_weekly(demo, language="zh").folded


def test_an_english_weekly_lists_a_day_leading_event_told_only_in_chinese_among_its_headlines(demo):
    # The replayed 2026-W10: "通义开源Mobile-Agent-v3.5…", its day's lead and the Chinese report's third
    # story, was in the English report's foot list only. A lead of the week that led its day and was told
    # only in Chinese is a line of the English overview, in its place among the others, by its Chinese
    # headline (the page marks it "In Chinese"); the other events told only in Chinese stay at the foot.
    by_id = {b["event_id"]: b for b in demo}
    chinese_only = {i for i, b in by_id.items() if not any(detect_language(m["title"]) == "en" for m in b["members"])}
    cards = {i: edition_card(b, "en") for i, b in by_id.items()}
    named, _ = compose(theme_events(demo, cards), "en")
    voices = [n.voice for n in named]
    lead = next(i for i in voices if i in chinese_only)
    before = extractive_weekly(demo, language="en")
    day_lead = [{**b, "tab": "featured"} if b["event_id"] == lead else b for b in demo]
    report = extractive_weekly(day_lead, language="en")
    line = f"{cards[lead].headline} ({by_id[lead]['members'][0]['source_name']}"
    added = [x for x in report.overview if x not in before.overview]
    assert len(added) == 1 and added[0].startswith(line), (added, line)
    # After the lines of the leads before it, in the Chinese report's order; the rest as before.
    ahead = sum(1 for i in voices[: voices.index(lead)] if i not in chinese_only)
    assert report.overview.index(added[0]) == min(ahead, len(before.overview))
    assert [x for x in report.overview if x != added[0]] == before.overview
    assert lead in [f.event_id for f in report.folded]  # and still listed, with its link, at the foot
    cjk = re.compile(r"[\u3400-\u9fff]")
    assert [x for x in report.overview if cjk.search(x)] == added
    assert_passes_part_by_part(report, day_lead, "en")
    html = _environment().get_template("_weekly_body.html").render(meta=report.meta(), t=Labels("en"))
    assert f'<p lang="zh"><span class="language-mark">In Chinese</span> {added[0]}</p>' in html


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


def test_the_summary_names_the_weeks_top_stories_in_lead_order_and_says_each_fact_once(demo):
    # The replayed W10 summary skipped GPT-5.4 (its lead had no figure); W06's skipped Opus 4.6.
    cards = {b["event_id"]: extractive_card(b, "zh") for b in demo}
    named, _ = compose(theme_events(demo, cards), "zh")
    report = extractive_weekly(demo, language="zh")
    top = "；".join(n.heading for n in named[:3])
    assert report.summary.startswith(f"本周头条：{top}。"), report.summary
    assert 1 <= len(sentences(report.summary)) <= 2
    for s in sentences(report.summary)[1:]:  # the first headline's hardest fact, not again in the overview
        assert not any(s.rstrip("。") in line for line in report.overview), s
    assert len(report.overview) == len(named)  # one line per lead event


def test_no_sentence_is_told_twice_in_a_theme(demo):
    # The held-out week told Gemini Embedding 2 three times in three sentences: its reports were three events.
    by_id = {b["event_id"]: b for b in demo}
    cards = {i: extractive_card(b, "zh") for i, b in by_id.items()}
    lead = next(i for i, c in cards.items() if len([s for s in c.lead if s.text != c.headline]) >= 2)
    again = {**by_id[lead], "event_id": -1}  # the same reports, split into a second event
    by_id[-1], cards[-1] = again, extractive_card(again, "zh")
    other = next(t.events[1] for t in extractive_weekly(demo, language="zh").themes if len(t.events) > 1)
    theme = extractive_theme([lead, -1, other], cards, by_id, "zh")
    assert theme.events == [lead, other]  # the copy adds nothing: not told
    said = [s for p in theme.paragraphs for s in sentences(p.split("）", 1)[1])]
    for n, s in enumerate(said):
        assert not any(near_duplicate(shingles(s), shingles(t)) for t in said[:n]), s


def test_a_lead_no_other_event_shares_a_theme_with_is_told_in_one_section_of_the_weeks_leads(demo):
    for language in ("zh", "en"):
        report = extractive_weekly(demo, language=language)
        labels = {Labels(language).weekly_leads, Labels(language).weekly_more}
        gathered = [t for t in report.themes if t.heading in labels]
        assert all(len(t.events) > 1 for t in report.themes if t not in gathered) or len(report.themes) == 1
        for t in gathered:  # each of its events a lead event, with its own overview line
            assert len(t.events) == len(t.leads) >= 2 and {v for _, v in t.leads} == set(t.events)
        assert all(t.paragraphs and all(p.strip() for p in t.paragraphs) for t in report.themes)


def test_a_part_that_fails_its_check_is_left_out_and_recorded_never_the_whole_report(demo):
    cards = {b["event_id"]: extractive_card(b, "zh") for b in demo}
    named, _ = compose(theme_events(demo, cards), "zh")
    bad = next(n for n in named if any(key_numbers(s.text) for i in n.events for s in cards[i].lead))
    # The checker reads this theme's events' reports as missing: its figures are then unsupported.
    material = [
        own_text(m) + "\n" + (m["source_name"] or "")
        for b in demo
        if b["event_id"] not in bad.events
        for m in b["members"]
    ]
    left_out = []

    def check(text, facts):
        return check_output(text, material + facts, language="zh").errors

    checked = extractive_weekly(
        demo, language="zh", check=check, dropped=lambda part, text, errors: left_out.append((part, text, errors))
    )
    assert left_out and all(errors for _, _, errors in left_out)
    assert any(part.startswith("section") and text.startswith(bad.heading) for part, text, _ in left_out)
    assert not set(bad.events) & {i for t in checked.themes for i in t.events}
    assert checked.themes and checked.briefs and checked.summary.startswith("本周头条：")
    published = [
        checked.summary,
        *checked.overview,
        *(t.prose for t in checked.themes),
        *(b.line() for b in checked.briefs),
    ]
    for part in published:
        assert not check(part, checked.facts), part  # what is left passes, part by part


def test_no_heading_over_nothing():
    props = properties(WEEK, "本周头条：A。", "clean", datetime(2025, 3, 3, tzinfo=UTC), "Asia/Shanghai")
    text = render_weekly(f"AI周报 {WEEK} | newsdesk", props, [], ["主题\n\n一段。"], [])
    assert "📌" not in text and "📊" not in text and text.rstrip().endswith("一段。")
    with_parts = render_weekly(
        f"AI周报 {WEEK} | newsdesk", props, ["一行。"], ["主题\n\n一段。"], ["简讯 — 来源 / 一句。"]
    )
    assert "📊 本周概览" in with_parts and "📌 本周简讯" in with_parts


def test_an_english_item_known_in_english_by_its_headline_alone_says_so(demo):
    # The harvest summarises English reports in Chinese. W10's English weekly then told four of its
    # seven headlines by the card's disclosure, "Only feed summaries were available; …", with no
    # summary after it; the English card says why: only the headline is in English.
    event = next(
        b for b in demo if all(detect_language(m["title"]) == "en" for m in b["members"]) and len(b["members"]) == 1
    )
    summarised = "OpenAI 发布了新的模型，并在多个基准测试上取得领先成绩。该公司表示将在下周向所有用户开放。"
    members = [
        {**m, "material_level": "summary", "body": "", "summary": summarised, "extra": None} for m in event["members"]
    ]
    briefs = [{**event, "members": members}]
    cards = {event["event_id"]: edition_card(briefs[0], "en")}
    theme = extractive_theme([event["event_id"]], cards, {event["event_id"]: briefs[0]}, "en")
    (paragraph,) = theme.paragraphs
    assert HEADLINE_ONLY.format(language="Chinese") in paragraph, paragraph
    assert "Only feed summaries were available" not in paragraph


@pytest.mark.parametrize("language", ["zh", "en"])
def test_a_week_of_briefs_and_no_theme_still_names_its_headlines(demo, language):
    # An English weekly whose leads were all told only in Chinese keeps its briefs and had no summary
    # line at all; the summary names the first briefs by their headlines, and passes the checker.
    report = extractive_weekly(demo, language=language, max_sections=0)
    assert not report.themes and report.briefs
    label = {"zh": "本周头条：", "en": "This week's headlines: "}[language]
    assert report.summary.startswith(label + report.briefs[0].title), report.summary
    assert_passes_part_by_part(report, demo, language)


def test_a_status_code_is_no_figure_of_the_news():
    """The weekly's overview tells an event by its lead's hardest fact. A review of Claude Code's
    remote control (the harvest's 2026-02-25 summary of Simon Willison's post) met an "API 500错误":
    a status code, not a figure, and the weekly printed it as the event's fact."""
    from newsdesk.write.extractive.card import ExtractiveCard, LeadSentence
    from newsdesk.write.extractive.weekly import hardest_fact

    said = "作者Simon Willison在试用中发现该功能目前存在一些不稳定和权限问题，例如API 500错误和会话终止提示不明确。"
    assert key_numbers(said) == []
    for code in (
        "HTTP 404 page",
        "The API returned HTTP 500.",
        "HTTP 500, then recovered",
        "HTTP status code 404",
        "Error code 500",
        "Status: 429 Too Many Requests",
    ):
        assert key_numbers(code) == [] and not figures(code), code
    for figure in (
        "售价 500 美元",
        "共有 200 家公司",
        "录得 404 名用户",
        "error rate fell 30%",
        "The model made 150 errors",
    ):
        assert key_numbers(figure) and figures(figure), figure
    card = ExtractiveCard(
        event_id=1,
        language="zh",
        headline="Claude Code Remote Control",
        headline_item_id=1,
        lead=[
            LeadSentence("Claude Code新推出的远程控制功能允许用户通过网页向本地会话发送指令。", 1, "Simon Willison"),
            LeadSentence(said, 1, "Simon Willison"),
        ],
        numbers=[],
        members=[],
        outlets=1,
        independent_outlets=1,
        disclosure="",
        coverage="",
    )
    assert hardest_fact(card) is None


# A harvest item (Z Potentials, 2026-02-25, its public summary fields as the harvest gives them):
# its summary, core point and highlights tell one funding round three times.
BASIS = {
    "item_id": 7,
    "role": "lead",
    "language": "zh",
    "material_level": "summary",
    "source_name": "Z Potentials",
    "title": "速递｜AI会计初创公司Basis完成1亿美元融资，处理涉及多合伙人文件拆分、利润分配追踪等复杂任务",
    "summary": "AI 会计初创公司 Basis 获 1 亿美元融资成为独角兽，其核心突破在于能处理复杂合伙企业税务的“长周期智能体”。",
    "extra": {
        "core_point": "AI会计初创公司Basis完成1亿美元融资，估值达11.5亿美元，成为独角兽。其核心突破是开发出首款能自主完成"
        "复杂合伙企业纳税申报的AI Agent，处理涉及多合伙人文件拆分、利润分配追踪等长周期任务。公司旨在通过自动化程式化工作，"
        "弥补会计人才缺口，让人类会计师聚焦更高阶的税务策略与决策。",
        "highlights": [
            "专注于构建“长周期智能体”，能处理耗时数小时至数日的复杂会计任务。",
            "开发出首款能自主完成合伙企业纳税申报的AI Agent，这是会计领域的高度复杂任务。",
        ],
    },
}


def test_a_brief_tells_each_fact_once():
    from newsdesk.eval.cards import repeated_fact
    from newsdesk.write.extractive.weekly import item_brief

    told = item_brief({"event_id": 1, "title": BASIS["title"], "members": [BASIS]}, "zh")
    said = sentences(told.text)
    assert "1亿美元" in told.text and len(said) >= 2
    assert not repeated_fact(said), told.text


def test_an_english_brief_says_why_it_tells_only_the_headline():
    """A harvest item under an English headline is summarised in Chinese: the English brief says that only
    the headline is in English, not "title only" (which read as if the report were a bare title)."""
    from newsdesk.write.extractive.weekly import item_brief

    english = {**BASIS, "title": "Basis raises $100 million to automate partnership tax returns", "language": "en"}
    told = item_brief({"event_id": 1, "title": english["title"], "members": [english]}, "en")
    assert told.text == "only the headline is in English."
    bare = {**english, "summary": "", "extra": {}, "material_level": "title"}
    assert item_brief({"event_id": 1, "title": bare["title"], "members": [bare]}, "en").text == "headline only."
    byline = {**bare, "summary": "Read more at the link below", "material_level": "summary"}  # English, nothing to tell
    assert item_brief({"event_id": 1, "title": byline["title"], "members": [byline]}, "en").text == "headline only."


def test_an_overview_line_does_not_say_its_heading_again():
    """W09's overview read "Anthropic收购 AI 电脑操控公司 Vercept：刚刚，Anthropic 再出手，收购 AI 电脑操控公司 Vercept
    （Anthropic News、AGI Hunt）": a heading made of the headline's subject and clause, then the headline."""
    from newsdesk.write.extractive.card import ExtractiveCard
    from newsdesk.write.extractive.weekly import _told

    headline = "刚刚，Anthropic 再出手，收购 AI 电脑操控公司 Vercept"
    card = ExtractiveCard(7, "zh", headline, 1, [], [], [], 2, 2, "", "")
    members = [{"item_id": 2, "source_name": "Anthropic News"}, {"item_id": 1, "source_name": "AGI Hunt"}]
    brief = {"event_id": 7, "members": members}
    _, _, line, _ = _told("Anthropic收购 AI 电脑操控公司 Vercept", 7, {7: brief}, {7: card}, "zh")
    assert line == f"{headline}（AGI Hunt、Anthropic News）"  # the headline is AGI Hunt's words
    _, _, line, _ = _told("英伟达财报", 7, {7: brief}, {7: card}, "zh")  # a heading the line does not say stays
    assert line.startswith("英伟达财报：")


def _closing(text: str, opener: str, closer: str) -> int:
    """Where the bracket that opens `text` closes."""
    depth = 0
    for n, ch in enumerate(text):
        depth += (ch == opener) - (ch == closer)
        if depth == 0:
            return n
    raise AssertionError(f"unclosed {opener}: {text}")


@pytest.mark.parametrize("language", ["zh", "en"])
def test_a_theme_line_credits_the_outlet_whose_headline_it_shows_and_those_of_its_sentences(demo, language):
    """A headline is its outlet's words: "一文读懂GPT-5.4…（OpenAI Research News、OpenAI YouTube）" put a
    Chinese outlet's headline in OpenAI's mouth, because the line named the event's first outlets."""
    briefs = demo
    report = extractive_weekly(briefs, language=language)
    by_id = {b["event_id"]: b for b in briefs}
    checked = 0
    for theme in report.themes:
        for event_id, paragraph in zip(theme.events, theme.paragraphs):
            card = edition_card(by_id[event_id], language)
            own = next(m["source_name"] for m in by_id[event_id]["members"] if m["item_id"] == card.headline_item_id)
            credit = paragraph[len(card.headline) :].lstrip()
            opener, closer = ("（", "）") if language == "zh" else ("(", ")")
            assert credit.startswith(opener), paragraph
            end = _closing(credit, opener, closer)  # an outlet's name may hold brackets of its own
            named = credit[1:end].replace("、", ", ").split(", ")  # "arXiv cs.AI (Artificial Intelligence)"
            assert named[0] == own, (named, own, paragraph)
            told = credit[end + 1 :]
            for s in card.lead:
                if s.text != card.headline and s.text in told:
                    assert s.source in named, (s.source, named)
            checked += 1
    assert checked >= 3
