"""The weekly report: its form parsed back, themes from the week's leads, checks with one rewrite, no repeats.

The writer here (CopyingBackend, tests/fakes.py) is a deterministic backend behind the real LLM client (cache, ledger and
schema repair are real); it writes only sentences copied from the material, so the real
checker can pass it, and it plants defects when asked so the rewrite and flag paths run.
One test at the end runs the embedded model on one small section.
"""

from __future__ import annotations

import re
import time
from datetime import UTC, date, datetime

import pytest
from fakes import CopyingBackend, Untouchable, copying_llm
from sqlalchemy import func, select

from newsdesk.cluster import cluster_new_items
from newsdesk.core.config import Settings
from newsdesk.core.findings import load_findings
from newsdesk.editions.weekly import build_weekly, published_at
from newsdesk.llm.client import LLM
from newsdesk.rank.score import rank_events
from newsdesk.rank.themes import (
    ThemeEvent,
    build_themes,
    clauses,
    is_news,
    name_theme,
    pick_briefs,
    shown_themes,
    tells,
    theme_heading,
)
from newsdesk.store.items import sync_sources, upsert_item
from newsdesk.store.schema import checks, editions, llm_usage
from newsdesk.text.sentences import is_complete
from newsdesk.write import weekly
from newsdesk.write.weekly import (
    MAX_SECTIONS,
    WeeklyError,
    parse_week,
    repeated_sentences,
)

HARVEST_WEEK = "2026-W09"  # 2026-02-23 … 03-01 in tests/fixtures/news/ai-daily-harvest.jsonl, a dev week
# (2026-W11 is held out: never built, read or tuned on here)


# --- loading the harvest week -----------------------------------------------------------------


def load_week(engine, fixtures, first=date(2026, 2, 23), last=date(2026, 3, 1), limit=None) -> int:
    """Harvest items of the week into the store, clustered into events and ranked, as the pipeline does."""
    from newsdesk.ingest.jsonl import read_harvest

    loaded = []
    with engine.begin() as conn:
        for source, item in read_harvest(fixtures / "news/ai-daily-harvest.jsonl", errors=[]):
            if item.published_at is None or not (first <= item.published_at.date() <= last):
                continue
            sync_sources(conn, [source])
            if upsert_item(conn, item) == "new":
                loaded.append(item)
            if limit and len(loaded) >= limit:
                break
    cluster_new_items(engine, Settings())
    rank_events(engine, now=datetime.combine(last, datetime.min.time(), tzinfo=UTC))
    return len(loaded)


def parse_report(text: str) -> dict:
    """The weekly report's form read back: title line, the five properties, overview, sections, briefs."""
    blocks = text.strip().split("\n\n")
    title = blocks[0]
    props = {}
    i = 1
    for key in ("type", "status", "date", "slug", "summary"):
        assert blocks[i] == key, (i, blocks[i])
        props[key] = blocks[i + 1]
        i += 2
    assert blocks[i] == "📊 本周概览"
    briefs_at = blocks.index("📌 本周简讯")
    body = blocks[i + 1 : briefs_at]
    # A heading is a short block with no closing punctuation; overview lines come before the first one.
    heading_at = [j for j, b in enumerate(body) if len(b) <= 80 and b[-1] not in "。！？.!?）)”"]
    overview = body[: heading_at[0]] if heading_at else body
    sections = []
    for k, start in enumerate(heading_at):
        end = heading_at[k + 1] if k + 1 < len(heading_at) else len(body)
        sections.append({"heading": body[start], "paragraphs": body[start + 1 : end]})
    return {
        "title": title,
        "properties": props,
        "overview": overview,
        "sections": sections,
        "briefs": blocks[briefs_at + 1 :],
    }


# --- tests --------------------------------------------------------------------------------------


def test_week_keys_are_checked():
    assert parse_week("2026-W09") == date(2026, 2, 23)
    with pytest.raises(WeeklyError, match="YYYY-Www"):
        parse_week("2026-11")
    with pytest.raises(WeeklyError, match="does not exist"):
        parse_week("2026-W54")


def test_repeated_summary_sentences_are_found():
    summary = "本周最清晰的信号是 agent 产能超过基础设施。第二条主线是开源权重分层。"
    assert repeated_sentences(summary, "第二条主线是开源权重分层。还有别的。")
    assert not repeated_sentences(summary, "开源权重分层这一节看部署梯队。")


def test_every_weekly_prompt_shares_its_prefix_and_ends_with_the_material():
    material = "[1] 来源：机器之心\n标题：某事"
    built = [weekly.messages(task, material) for task in ("weekly_section.md", "weekly_summary.md", "weekly_briefs.md")]
    assert (
        len({m[0]["content"] for m in built}) == 1
    )  # one system prefix, byte for byte: the server's prompt cache hits
    assert all(m[1]["content"].endswith(material) for m in built)


def _event(i, headline, importance, *, eligible=True):
    return ThemeEvent(i, headline, importance, [headline], eligible=eligible, joins=True)


def test_themes_are_the_leads_with_what_shares_a_specific_name_with_them():
    events = [
        _event(1, "吸金681亿美元，英伟达业绩没有暴雷，Blackwell全年出货600万颗", 3.6),
        _event(2, "暴增73%，英伟达上个财季再创记录，营收681亿美元远超行业预测", 3.1),
        _event(3, "Nvidia posts $68.1 billion quarter, stock slips", 2.3),  # the same figure, in English
        _event(4, "刚刚，Anthropic 再出手，收购 AI 电脑操控公司 Vercept", 3.0),
        _event(5, "Anthropic 指控三家中国 AI 公司大规模蒸馏 Claude，马斯克嘲讽：你偷来的东西被偷了？", 2.7),
        _event(6, "三家中国大模型公司被卷入蒸馏风波，律师解读：Anthropic的指控从法律上很牵强", 2.1),
        _event(7, "AI 智能体发布了新模型", 2.6),  # generic words only: its own theme, tied to nobody
        _event(8, "Claude 使用技巧十则", 2.4, eligible=False),  # routine: joins what it names, never leads
        *(_event(10 + n, f"Anthropic 的第 {n} 篇博客", 1.0) for n in range(6)),  # "Anthropic" is common this week
    ]
    themes = build_themes(events)
    assert [t.events for t in themes] == [[1, 2, 3], [4], [5, 6, 8], [7]]
    headings = [t.heading for t in themes]
    assert headings[0] == "英伟达业绩没有暴雷，吸金681亿美元" and themes[0].shared == "英伟达"
    # The cry "再出手" is not the news; its subject runs into the clause that opens on what it did.
    assert headings[1] == "Anthropic收购 AI 电脑操控公司 Vercept"
    assert headings[2] == "Anthropic 指控三家中国 AI 公司大规模蒸馏 Claude"
    assert len(build_themes(events, most=2)) == 2


def test_an_edition_showing_some_events_keeps_their_themes_named_from_what_it_shows():
    # The English weekly shows the events with English material: W07+W10's replay headed a theme
    # "林俊旸离职风波始末" in English, named from its Chinese reports where an English one was a member.
    events = [
        _event(1, "吸金681亿美元，英伟达业绩没有暴雷，Blackwell全年出货600万颗", 3.6),
        _event(2, "暴增73%，英伟达上个财季再创记录，营收681亿美元远超行业预测", 3.1),
        _event(3, "Nvidia posts $68.1 billion quarter, stock slips", 2.3),
        _event(5, "Anthropic 指控三家中国 AI 公司大规模蒸馏 Claude，马斯克嘲讽：你偷来的东西被偷了？", 2.7),
        _event(6, "三家中国大模型公司被卷入蒸馏风波，律师解读：Anthropic的指控从法律上很牵强", 2.1),
        _event(9, "OpenAI raises $110 billion at a $730 billion valuation", 2.9),
    ]
    events[2].told = False  # the English report is a title: the theme is named from a Chinese one
    named = build_themes(events, "en")
    assert [n.events for n in named] == [[1, 2, 3], [9], [5, 6]]
    assert re.search(r"[\u3400-\u9fff]", named[0].heading) and named[0].voice == 1
    shown = shown_themes(named, events, {3, 9}, "en")
    # The theme of Chinese reports only is left out; the other keeps its English event, named from it.
    assert [n.events for n in shown] == [[3], [9]]
    assert shown[0].voice == 3 and shown[0].heading.startswith("Nvidia posts $68.1 billion quarter")
    assert shown[1] == named[1]  # named from what the edition shows already: as it was


def test_a_days_featured_launch_names_its_theme_however_little_its_card_says():
    # W06's replay headed the English weekly "Opus 4.6 is now available in Windsurf": Anthropic's two
    # posts are headlines alone, so the partner's note, which says more, named the launch's theme.
    launch = ThemeEvent(
        1, "Introducing Claude Opus 4.6", 6.5, ["Introducing Claude Opus 4.6"], told=False, featured=True
    )
    partner = ThemeEvent(
        2, "Opus 4.6 is now available in Windsurf", 3.0, ["Opus 4.6 is now available in Windsurf"], featured=True
    )
    named = name_theme([launch, partner], "en")
    assert named.voice == 1 and "Claude Opus 4.6" in named.heading
    # not featured, it does not: a theme is summed up from what says more than a title
    launch.featured = False
    assert name_theme([launch, partner], "en").voice == 2
    # nor does an English title name a Chinese edition's theme its Chinese report tells
    launch.featured = True
    told = ThemeEvent(3, "Anthropic发布Claude Opus 4.6，编程能力再升级", 4.0, ["Anthropic发布Claude Opus 4.6"])
    assert name_theme([launch, told], "zh").voice == 3


def _parts(kinds: str, importance: float, **more) -> dict:
    return {"importance": importance, "kinds": kinds, **more}


def test_the_analysis_of_a_happening_is_news_for_the_week_a_how_to_is_not():
    # W10's Pentagon deal reached the harvest only as an explainer: the week's report of a lead event.
    assert is_news(_parts("major, policy, explainer", 2.2, routine=-0.4))
    assert is_news(_parts("major, paper, explainer", 2.6, routine=-0.4))  # led by its explainer, the paper a member
    assert not is_news(_parts("major, explainer", 1.7, routine=-0.4))  # a big name alone is no happening
    assert not is_news(_parts("major, money, how-to", 2.3, routine=-0.6))  # "AI公司怎么估值？" is a how-to
    assert not is_news(_parts("major, policy", 2.2, undated=-0.5))
    # a launch's partner note dated before the launch (rank/chronology.py) joins it, leads nothing
    assert not is_news(_parts("release, versioned", 2.5, misdated=-0.5))


def test_a_happening_leads_before_a_big_name_alone_and_a_seed_round_after_both():
    events = [
        ThemeEvent.of(1, "Mac变身AI超算！用Claude逆向M4芯片", _parts("major", 2.1)),
        ThemeEvent.of(2, "是的，美国和伊朗的冲突让全世界的AI中断了", _parts("incident", 1.8)),
        ThemeEvent.of(3, "速递｜高通800万美元投资AI合同审阅平台SpotDraft", _parts("money", 2.3)),
        ThemeEvent.of(4, "Upwind获2.5亿美元融资", _parts("money", 2.0)),
    ]
    assert [e.hard for e in events] == [False, True, False, True] and events[2].small
    assert [t.events for t in build_themes(events, most=3)] == [[4], [2], [1]]  # by importance, a happening 0.5 more
    # What no theme holds is a brief, the days' featured news first, the rest as leads are ordered.
    featured = ThemeEvent.of(5, "Codex for Open Source", _parts("major", 1.9), "featured")
    assert pick_briefs([*events, featured], {2}, 3) == [5, 4, 1]


def test_a_venue_ties_no_two_papers():
    events = [
        _event(1, "Z Tech｜ICLR 2026字节发布：DiscoX为长文翻译提供评测新范式", 2.3),
        _event(2, "视听分离SOTA提速6倍！清华发布首个6M高性能模型｜ICLR'26", 1.8),
        _event(3, "GLM-5真够顶的：超24小时自己跑代码", 3.0),
    ]
    assert [t.events for t in build_themes(events)] == [[3], [1], [2]]


def test_a_venue_and_its_year_is_no_figure_for_a_heading():
    headline = "ICLR 2026 | GPT-5竟给废图打高分？首个图表“信达雅”评测基准发布"
    # A quote mark holds a name inside its clause, never parts it (it read "首个图表").
    assert theme_heading(headline, "", ["图表"], "") == "首个图表“信达雅”评测基准发布"
    assert theme_heading("告别CLIP！DeepSeek-OCR-2开源：首创视觉因果流", "", ["DeepSeek"], "") == "DeepSeek-OCR-2开源"


def test_a_heading_is_the_happening_with_its_subject_never_a_cut_clause_or_a_bare_amount():
    # A clause that opens on its sum or its verb runs on from its subject ("谷歌：320 亿美元" read as a cut).
    assert theme_heading("谷歌：320亿美元收购Wiz", "Wiz", ["Wiz"], "谷歌") == "谷歌320亿美元收购Wiz"
    # Never the bare amount nor the clause cut before its object ("Meta：吓坏网友的"): the two clauses that
    # tell who did what, as the headline joins them.
    moltbook = "10.3亿美元！吓坏网友的Moltbook，被Meta收购了"
    assert theme_heading(moltbook, "Moltbook", ["Moltbook", "Meta"], "Meta") == "吓坏网友的Moltbook，被Meta收购了"
    assert theme_heading("10.3亿美元！Meta收购Moltbook", "", ["Moltbook", "Meta"], "Meta") == "Meta收购Moltbook"
    # A quoted name stays in its clause, so no lone quote mark reaches a heading: the replayed W07's
    # "马斯克：“公司终局是纯 AI" held the whole Chinese weekly back at its check.
    musk = "“公司终局是纯 AI、纯机器人！”马斯克酒后激进预言：让机器人造机器人"
    heading = theme_heading(musk, "", ["AI"], "马斯克")
    assert heading == "“公司终局是纯 AI、纯机器人！”马斯克酒后激进预言" and is_complete(heading + "。")
    nvidia = theme_heading("英伟达也要“养龙虾”，GTC大会前曝光新平台", "", ["GTC"], "英伟达")
    assert nvidia != "英伟达也要" and nvidia.count("“") == nvidia.count("”")
    for clause, happening, whole in [
        ("10.3 亿美元", 0, False),  # figures alone
        ("英伟达也要", 1, False),  # cut before its object
        ("吓坏网友的", 1, False),
        ("Meta收购Moltbook", 2, True),
        ("OpenAI发布GPT-5.4", 2, True),
    ]:
        assert tells(clause) == (happening, whole), clause


def test_an_english_heading_is_one_story_of_a_contents_list_and_keeps_a_title_whole():
    batch = "Claude Opus 4.6 Thinks Smarter, xAI Joins SpaceX, AI Outperforms Doctors, Standardized AI Audits"
    assert theme_heading(batch, "Claude Opus 4.6", ["Claude Opus 4.6"], "", "en") == "Claude Opus 4.6 Thinks Smarter"
    # A clause that opens in lower case goes on from the one before: the title stays whole.
    harness = "Harness engineering: leveraging Codex in an agent-first world"
    assert theme_heading(harness, "", ["Codex"], "", "en") == harness
    assert clauses("Hybrid reasoning, a $150 model and more") == ["Hybrid reasoning, a $150 model and more"]


def test_an_english_heading_keeps_the_clause_that_names_who():
    headline = "The Pentagon’s bombshell deal with OpenAI, explained"  # a curly apostrophe: not ASCII
    assert (
        theme_heading(headline, "", ["Pentagon", "OpenAI"], "OpenAI", "en")
        == "The Pentagon’s bombshell deal with OpenAI"
    )
    # Its figure joins with a Latin comma: the replayed W09 read "Anthropic’s Responsible Scaling Policy，Version 3.0".
    assert (
        theme_heading("Anthropic’s Responsible Scaling Policy: Version 3.0", "", ["Anthropic"], "Anthropic", "en")
        == "Anthropic’s Responsible Scaling Policy, Version 3.0"
    )


def test_the_date_is_the_weeks_last_day_or_the_time_it_was_published_live():
    tz = "Asia/Shanghai"
    late = datetime(2026, 12, 2, 8, 0, tzinfo=UTC)  # a February week rebuilt in December
    assert published_at("2026-W09", late, tz).astimezone(UTC) == datetime(2026, 3, 1, 15, 59, tzinfo=UTC)
    live = datetime(2026, 2, 27, 2, 0, tzinfo=UTC)
    assert published_at("2026-W09", live, tz) == live


def test_weekly_from_the_harvest_week_has_the_weekly_report_form(sqlite_engine, fixtures, tmp_path):
    loaded = load_week(sqlite_engine, fixtures)
    assert loaded > 150
    settings = Settings(site_name="Recsys Frontier")
    llm = copying_llm(sqlite_engine)
    stats = build_weekly(sqlite_engine, settings, llm, HARVEST_WEEK, now=datetime(2026, 3, 2, 1, 30, tzinfo=UTC))
    assert stats.built and stats.status == "clean", stats
    with sqlite_engine.connect() as conn:
        row = conn.execute(select(editions).where(editions.c.kind == "weekly")).one()
    report = parse_report(row.body)
    assert report["title"] == "AI周报 2026-W09 | Recsys Frontier" == row.title
    props = report["properties"]
    assert props["type"] == "Post" and props["status"] == "Published" and props["slug"] == "ai-weekly-2026-W09"
    assert props["date"] == "Mar 01, 2026 23:59"  # Notion's format, the week's last minute in the newsroom's timezone
    assert props["summary"].startswith("本周最清晰的信号是") and "第二条主线是" in props["summary"]
    assert 3 <= len(report["sections"]) <= MAX_SECTIONS
    assert len(report["overview"]) == len(report["sections"])
    for section in report["sections"]:
        items = [p for p in section["paragraphs"] if re.match(r"^[^（]{1,200}（[^）]+）", p)]
        assert items, section  # name（source）paragraphs
        assert len(section["paragraphs"]) == len(items) + 2  # thesis … items … synthesis
    assert report["briefs"] and all(re.match(r"^.+ — .+ / .+[。！？.!?]$", b) for b in report["briefs"])
    for paragraph in report["overview"]:  # a reference weekly's defect (its overview in the summary) is not repeated
        assert paragraph not in props["summary"] and not repeated_sentences(props["summary"], paragraph)
    # Every part was checked and recorded under the week's key.
    with sqlite_engine.connect() as conn:
        rows = conn.execute(
            select(checks).where(checks.c.output == "weekly", checks.c.subject_id == HARVEST_WEEK)
        ).all()
    assert len(rows) == len(report["sections"]) + 1 + stats.briefs // weekly.BRIEF_BATCH + (
        stats.briefs % weekly.BRIEF_BATCH > 0
    )
    assert all(r.passed for r in rows)
    # The same week again: the model is not even touched, nothing is rewritten.
    again = build_weekly(sqlite_engine, settings, Untouchable(), HARVEST_WEEK)
    assert not again.built and again.status == "unchanged"
    with sqlite_engine.connect() as conn:
        assert conn.execute(select(editions.c.updated_at)).scalar() == row.updated_at


def test_failing_parts_are_rewritten_once_then_flagged(sqlite_engine, fixtures):
    load_week(sqlite_engine, fixtures, limit=40)
    settings = Settings()
    fixed = copying_llm(sqlite_engine, defects={"number", "repeat"})
    stats = build_weekly(sqlite_engine, settings, fixed, HARVEST_WEEK)
    assert stats.status == "clean"  # the rewrite with the findings fixed both defects
    with sqlite_engine.connect() as conn:
        failed = conn.execute(select(checks.c.findings).where(checks.c.passed.is_(False))).scalars().all()
    details = [f.detail for fs in failed for f in load_findings(fs)]
    assert any("987.65" in d for d in details) and any("overview repeats the summary" in d for d in details)

    stubborn = copying_llm(sqlite_engine, defects={"number"}, stubborn=True)
    stubborn.model = stubborn.backend.model = "stubborn-writer"  # a different model: no cache hits, rebuilt
    settings.llm.model = "stubborn-writer"
    stats = build_weekly(sqlite_engine, settings, stubborn, HARVEST_WEEK)
    assert stats.built and stats.status == "flagged"
    with sqlite_engine.connect() as conn:
        row = conn.execute(select(editions).where(editions.c.kind == "weekly")).one()
    assert row.status == "flagged" and row.meta["properties"]["status"] == "Flagged"
    assert "Flagged" in row.body and "Published" not in row.body
    assert any("987.65" in str(flag["findings"]) for flag in row.meta["flags"])


def test_a_brief_written_about_another_event_is_caught_and_rewritten(sqlite_engine, fixtures):
    load_week(sqlite_engine, fixtures, limit=40)
    stats = build_weekly(sqlite_engine, Settings(), copying_llm(sqlite_engine, defects={"swap"}), HARVEST_WEEK)
    assert stats.briefs and stats.status == "clean"  # the rewrite, told which event's facts it used, fixed it
    with sqlite_engine.connect() as conn:
        failed = conn.execute(select(checks.c.findings).where(checks.c.passed.is_(False))).scalars().all()
    found = [f for fs in failed for f in load_findings(fs)]
    assert found and all(f.part.startswith("briefs") for f in found)
    assert any(
        f.kind == "subject"
        and re.match(r"event \[\d\]: .+ (belongs to another item|is another item's number)", f.detail)
        for f in found
    )


def test_a_summary_the_model_cannot_give_leaves_the_report_flagged_not_lost(sqlite_engine, fixtures):
    load_week(sqlite_engine, fixtures, limit=40)
    stats = build_weekly(sqlite_engine, Settings(), copying_llm(sqlite_engine, defects={"cut-summary"}), HARVEST_WEEK)
    assert stats.built and stats.status == "flagged" and stats.sections >= 3
    with sqlite_engine.connect() as conn:
        row = conn.execute(select(editions).where(editions.c.kind == "weekly")).one()
    report = parse_report(row.body)
    assert len(report["sections"]) == stats.sections and len(report["overview"]) == stats.sections
    assert report["properties"]["summary"].startswith(f"本周 {stats.sections} 个主题")
    assert not repeated_sentences(report["properties"]["summary"], "\n".join(report["overview"]))
    assert any("no summary from the model" in str(flag["findings"]) for flag in row.meta["flags"])


def test_a_week_without_events_says_so(sqlite_engine):
    with pytest.raises(WeeklyError, match="no events"):
        build_weekly(sqlite_engine, Settings(), copying_llm(sqlite_engine), HARVEST_WEEK)


@pytest.mark.slow
def test_embedded_model_writes_one_small_section(sqlite_engine, fixtures):
    """The real embedded model through open_llm: a section of one event, parsed and checked."""
    from newsdesk.llm.client import open_llm

    load_week(sqlite_engine, fixtures, limit=6)
    settings = Settings()
    settings.llm.backend = "embedded"
    settings.llm.max_tokens = 1000  # a section of one event, with room for a long summary
    settings.llm.retries = 0  # a retry would only queue behind the request the server is still on
    llm = open_llm(settings, sqlite_engine)
    with sqlite_engine.connect() as conn:
        chosen = weekly.week_events(conn, settings, HARVEST_WEEK)[:1]
    writer = weekly._Writer(sqlite_engine, llm, HARVEST_WEEK)
    started = time.monotonic()
    try:
        part, kept = weekly._section(writer, 1, chosen, chosen[0].title)
    finally:
        llm.close()
    elapsed = time.monotonic() - started
    heading, *paragraphs = part.text.split("\n\n")
    assert heading and part.status in ("clean", "flagged")
    if kept:  # thesis, the 名称（来源） item, synthesis
        assert len(paragraphs) == 3 and all(re.match(r"^.+（.+）", p) for p in paragraphs[1:-1])
    else:  # the 0.5B model samples (temperature 0.3) and sometimes leaves the event out: flagged, never published
        assert part.status == "flagged" and any("has no item" in str(f) for f in part.findings), part.findings
    with sqlite_engine.connect() as conn:
        recorded = conn.execute(select(func.count()).select_from(checks)).scalar()
        calls = conn.execute(
            select(func.count()).select_from(llm_usage).where(llm_usage.c.cache_hit.is_(False))
        ).scalar()
    assert recorded in (1, 2) and calls >= 1
    print(f"embedded section: {elapsed:.1f}s, {calls} model calls, status {part.status}, findings {part.findings[:3]}")


def test_a_rewrite_the_model_cannot_give_keeps_the_first_draft_flagged(sqlite_engine, fixtures):
    from newsdesk.llm.client import LLMError

    class RefusesRewrites(CopyingBackend):
        def chat(self, messages, **kwargs):
            if len(messages) > 2:
                raise LLMError("fake-endpoint: the rewrite was refused")
            return super().chat(messages, **kwargs)

    load_week(sqlite_engine, fixtures, limit=40)
    llm = LLM(RefusesRewrites(defects={"number"}), sqlite_engine, concurrency=1)
    stats = build_weekly(sqlite_engine, Settings(), llm, HARVEST_WEEK)
    assert stats.built and stats.status == "flagged" and stats.sections >= 3
    with sqlite_engine.connect() as conn:
        row = conn.execute(select(editions).where(editions.c.kind == "weekly")).one()
        failed = conn.execute(select(checks.c.findings).where(checks.c.passed.is_(False))).scalars().all()
    flagged = [f for f in row.meta["flags"] if f["part"].startswith("section")]
    assert flagged and all(any("the rewrite failed" in x for x in f["findings"]) for f in flagged)
    assert any("987.65" in x for f in flagged for x in f["findings"])  # the first draft, with its own findings
    assert "987.65" in row.body  # kept, and the report is flagged rather than lost
    assert all(f.part.startswith("section") for fs in failed for f in load_findings(fs))


def test_the_weekly_follows_the_editorial_policy_file(sqlite_engine, fixtures, tmp_path):
    class Recording(CopyingBackend):
        systems: set = set()

        def chat(self, messages, **kwargs):
            self.systems.add(messages[0]["content"])
            return super().chat(messages, **kwargs)

    load_week(sqlite_engine, fixtures, limit=40)
    own = tmp_path / "policy.md"
    own.write_text("# 方针\n\n## 禁用的写法\n\n- 营销词：划时代。\n", encoding="utf-8")
    settings = Settings()
    settings.llm.policy_file = str(own)
    backend = Recording()
    build_weekly(sqlite_engine, settings, LLM(backend, sqlite_engine, concurrency=1), HARVEST_WEEK)
    assert len(backend.systems) == 1 and "- 营销词：划时代。" in next(iter(backend.systems))
    # A changed policy is a changed report: written again, not kept.
    own.write_text("# 方针\n\n## 禁用的写法\n\n- 营销词：颠覆。\n", encoding="utf-8")
    assert build_weekly(sqlite_engine, settings, LLM(Recording(), sqlite_engine, concurrency=1), HARVEST_WEEK).built
