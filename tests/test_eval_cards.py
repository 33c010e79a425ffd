"""`newsdesk eval cards`: a reader's lint over the published daily editions. Each class is found on a
card made to show it (so the lint can fail), and the demo, run offline through every stage, is at zero
in every class, in both languages."""

from __future__ import annotations

import json

import pytest
from conftest import PACK
from typer.testing import CliRunner

from newsdesk.cli import app
from newsdesk.core.config import Settings, WriteSettings
from newsdesk.eval.cards import CLASSES, CardsReport, lint_card, lint_site, lint_store, report_lines
from newsdesk.run.pipeline import run_pipeline
from newsdesk.store import open_store
from newsdesk.text.sentences import dangling_opening
from newsdesk.write.extractive.card import split_notes, update_lead, update_paragraph

STAGES = ["ingest", "cluster", "stories", "rank", "write", "daily", "weekly", "episode", "publish"]


def _card(headline: str, lead: str, *, members=None, **more) -> dict:
    members = members or [
        {"outlet": "量子位", "title": headline, "material_level": "summary", "published_at": "2026-02-12 09:00"}
    ]
    return {
        "event_id": 1,
        "headline": headline,
        "analysis": {"body": lead},
        "summary": "",
        "members": members,
        "outlets": len({m["outlet"] for m in members}),
        "badges": [],
        "language_mark": {},
        **more,
    }


def _kinds(card: dict, language: str = "zh", earlier=None) -> set[str]:
    return {kind for kind, _ in lint_card(card, language, "2026-02-12", earlier or {})}


def test_a_folded_card_is_a_headline_and_a_link_with_no_lead_to_read():
    """The English edition's "Reported in Chinese" shows the original headline, outlet and link; the
    card's Chinese lead is not on the page (2026-02-09's W07 replay counted it as an opening)."""
    card = _card("2026 年硅谷书单", "本文汇总了700多本推荐书籍。（十字路口）", folded=True)
    assert _kinds(card, "en") == set()
    assert "about article" in _kinds({**card, "folded": False}, "zh")


def test_a_clean_card_has_no_finding():
    card = _card(
        "英伟达Q4营收681亿美元", "英伟达第四财季营收681亿美元，同比增长73%。（量子位）数据中心收入623亿美元。（量子位）"
    )
    assert _kinds(card) == set()


@pytest.mark.parametrize(
    "lead, kind",
    [
        ("", "blank"),
        ("英伟达第四财季营收681亿美元。（量子位）单季营收达681亿美元，创下纪录。（36氪）", "repeated fact"),
        ("③ 这提醒用户，英伟达的营收仍在增长。（量子位）", "dangling"),
        ("此外，英伟达第四财季营收创新高。（量子位）", "dangling"),
        ("指出英伟达的底气在于数据中心业务。（量子位）", "dangling"),
        ("本文介绍了英伟达第四财季的财报。（量子位）", "about article"),
        ("苹果发布了新款耳机，售价249美元。（量子位）", "headline/lead"),
    ],
)
def test_each_class_is_found(lead, kind):
    assert kind in _kinds(_card("英伟达Q4营收681亿美元", lead))


@pytest.mark.parametrize(
    "headline, lead",
    [
        # W09's false alarms: a word holding 作者 ("知识工作者"), an author the news is about, "to explore"
        (
            "引爆SaaS万亿美元抛售之后，Anthropic加码Cowork",
            "Anthropic将Cowork平台升级为企业级Agent平台，旨在改变所有知识工作者的工作方式。（腾讯科技）",
        ),
        (
            "An AI agent coding skeptic tries AI agent coding",
            "一位原本对AI编码智能体持怀疑态度的作者，通过一系列项目亲自尝试后，改变了看法。（Simon Willison's Weblog）",
        ),
        (
            "chardet relicensed",
            "chardet库的维护者发布了MIT许可的重写版，但原始作者认为无权重新许可。（Simon Willison's Weblog）",
        ),
        ("Claude Code 连接 Slack", "Carl Vellotti展示了如何从终端分享状态更新。（Peter Yang）"),
        (
            "What Parameter Golf taught us",
            "Parameter Golf brought together 1,000+ participants to explore AI-assisted research. (OpenAI)",
        ),
        # a changelog's version alone is the release its lines tell (ai-blogs, Claude Code's feed)
        ("v2.1.114", "Fixed a crash in the permission dialog when a teammate requested tool permission. (Claude Code)"),
        # a column's label names no event: "[AINews]", "｜MindCode周报No.62"
        (
            "[AINews] The Unreasonable Effectiveness of Closing the Loop",
            "2010年代开发工具的创新主要集中在外循环，诞生了GitLab等公司。（Latent Space）",
        ),
        (
            "为什么越聪明的人，越容易在技术革命里亏钱? ｜MindCode周报No.62",
            "ChatGPT出现后，市场认为Google搜索将死，但其收入反而增至630亿美元。（MindCode）",
        ),
        (  # an update's own line quotes a later report's title: the title is not the card's voice
            "Introducing GPT-5.4",
            "腾讯科技、Latent Space 也有报道（《一文读懂GPT-5.4：83%任务执行超人类专家，打个招呼80美元就烧完了》），"
            "没有超出此前报道的新内容。",
        ),
        (
            "Introducing GPT-5.4",
            "腾讯科技, Latent Space also reported it (“一文读懂GPT-5.4：83%任务执行超人类专家”), adding nothing "
            "beyond the earlier reports.",
        ),
        # an update headed by its day's report, which adds nothing: the line names outlets, no event
        ("一文读懂GPT-5.4：83%任务执行超人类专家", "腾讯科技、新西楼 也有报道，没有超出此前报道的新内容。"),
        (
            "GPT 5.4: SOTA Knowledge Work",
            "腾讯科技, Latent Space also reported it, adding nothing beyond the earlier reports.",
        ),
    ],
)
def test_what_is_not_a_finding(headline, lead):
    members = [{"outlet": "MindCode", "title": headline, "material_level": "summary", "published_at": "2026-02-12"}]
    assert not _kinds(_card(headline, lead, members=members)) & {"about article", "headline/lead"}


@pytest.mark.parametrize(
    "headline, lead, kind",
    [
        ("英伟达Q4营收681亿美元", "作者认为英伟达的增长还会持续。（量子位）", "about article"),
        ("英伟达Q4营收681亿美元", "本文作者梳理了英伟达的财报。（量子位）", "about article"),
        ("[AINews] 英伟达Q4营收681亿美元", "苹果发布了新款耳机，售价249美元。（量子位）", "headline/lead"),
    ],
)
def test_the_narrowed_rules_still_find(headline, lead, kind):
    assert kind in _kinds(_card(headline, lead))


def test_title_only_cards_say_so_and_counts_agree_with_links():
    title = [
        {"outlet": "Anthropic", "title": "Claude Enterprise", "material_level": "title", "published_at": "2026-02-12"}
    ]
    assert "title unsaid" in _kinds(_card("Claude Enterprise", "", members=title), "en")
    said = "The headline alone is known: Anthropic gave no summary, and the article was not read."
    assert _kinds(_card("Claude Enterprise", said, members=title), "en") == set()
    assert "counts" in _kinds(_card("Claude Enterprise", said, members=title, outlets=3), "en")
    badge = [{"kind": "outlets", "text": "2 outlets / 1 independent"}]
    assert "counts" in _kinds(_card("Claude Enterprise", said, members=title, badges=badge), "en")


def test_later_reports_updates_and_other_language():
    members = [
        {
            "outlet": "量子位",
            "title": "Anthropic融资300亿美元",
            "material_level": "summary",
            "published_at": "2026-02-12 09:00",
        },
        {
            "outlet": "新智元",
            "title": "Anthropic估值3800亿",
            "material_level": "summary",
            "published_at": "2026-02-13 09:00",
        },
    ]
    later = _card("Anthropic估值3800亿", "Anthropic完成300亿美元融资。（新智元）", members=members)
    assert "later report" in _kinds(later)
    update = _card("Anthropic融资300亿美元", "Anthropic完成300亿美元融资。（量子位）", members=members, update=True)
    assert "update repeats" in _kinds(update, earlier={1: "Anthropic完成300亿美元融资。（量子位）"})
    assert "other language" in _kinds(_card("Anthropic raises $30 billion", "Anthropic raised $30 billion. (CNBC)"))


def test_dangling_openings():
    for s in (
        "③ 这提醒用户。",
        "它可以生成视频。",
        "该模型领先。",
        "此外，OpenAI发布了工具。",
        "It also ships today.",
        "1. Claude is out.",
        "OpenAI 为此引入了 CoT-Control 技术。",  # a 2026-03-05 card's opening: for what?
        "英伟达对此表示欢迎。",
        # 2026-02-24's cards: a summary's bullet whose subject the cut left out, after a scene-setting
        # phrase, or on a verb jieba tags a verbal noun; and a "该框架" after such a phrase.
        "通过对180种智能体配置的大规模评估，发现智能体系统的性能与任务属性紧密相关。",
        "针对KVCache加载效率成为性能瓶颈的问题，提出DualPath系统优化存储带宽。",
        "挑战了“智能体越多越好”的普遍假设，提出了首个定量规模化原则。",
        "在AlpacaEval 2.0任务中，该框架仅用2K合成样本就达到了SOTA方法的胜率。",
        "批判性地指出AI生成数学内容是一把“双刃剑”。",  # only adverbs before the verb
        "正式发布GPT-5，支持百万上下文。",
        "为AI智能体引入了持久化编排、记忆和安全执行功能。",  # W09's Bedrock card: the phrase, then the verb
    ):
        assert dangling_opening(s), s
    for s in (
        "研究团队提出了新框架。",
        "This week, OpenAI shipped GPT-4.5.",
        "OpenAI released GPT-4.5.",
        "2025年OpenAI发布了o3。",
        "谷歌此前发布了Gemini 3。",  # 此前 is a time ("earlier"), not a thing said before
        "百度发布文心5.0，此举引发关注。",
        "以Yoroll平台为例，它整合了AI视频生成与游戏逻辑系统。",  # the example is what 它 names
        "由清华与斯坦福团队联合研发的Ctrl-World世界模型，在WorldArena评测中排名第一。",
        "根据竞技场排名，字节跳动的豆包综合表现最佳。",
        "实验中，使用AI组在技能评估测验中平均得分低4.15分。",
        "研究基于对近万段真实对话的分析，定义了“AI流利度”指标。",
        "为抑制负面影响，他建议开发一种新形式化语言。",  # 他: the person the sentence before named
        "刚刚，OpenAI发布了GPT-5。",
        "通过API调用获取的AI生成内容缺乏人类作者的智力创造，难以构成受著作权法保护的作品。",
        "通过强化学习训练的模型取得了SOTA成绩。",  # the first verb modifies the subject
        "由清华团队研发的模型登顶了榜单。",
    ):
        assert not dangling_opening(s), s


def test_an_update_paragraph_is_read_on_its_day_only():
    body = "\n\n".join(
        [
            "首日的导语。（量子位）",
            "只有 量子位 一个来源。",
            update_paragraph("2026-02-13", "新的事实。（新智元）", "zh"),
        ]
    )
    assert split_notes(body) == ("首日的导语。（量子位）", ["只有 量子位 一个来源。"])
    assert update_lead(body, "2026-02-13") == "新的事实。（新智元）"
    assert update_lead(body, "2026-02-14") is None


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory):
    """The demo pack run offline through every stage, as `newsdesk demo` runs it."""
    folder = tmp_path_factory.mktemp("demo-cards")
    s = Settings(data_dir=str(folder), site_dir=str(folder / "site"), write=WriteSettings(by="extractive"))
    engine = open_store(s.database)
    report = run_pipeline(engine, s, stages=STAGES, source=PACK)  # as `newsdesk demo` runs it: every event carded
    assert report.problems == []
    yield folder, engine
    engine.dispose()


def test_the_demo_is_at_zero_in_every_class(demo_store):
    folder, engine = demo_store
    report = lint_store(engine)
    assert report.editions >= 10 and report.cards["zh"] == report.cards["en"] >= 15
    assert {kind: report.count(kind) for kind in CLASSES} == dict.fromkeys(CLASSES, 0), "\n".join(report_lines(report))
    result = CliRunner().invoke(app, ["eval", "cards", str(folder), "--day", "2025-02-24..2025-03-02"])
    assert result.exit_code == 0, result.output
    assert "blank" in result.output and "total" in result.output


def test_the_sites_plurals_are_read(tmp_path):
    (tmp_path / "en" / "daily").mkdir(parents=True)
    (tmp_path / "en" / "index.html").write_text("<li><a>All · 2025-03-02</a> <small>1 events</small></li>")
    (tmp_path / "en" / "daily" / "x.html").write_text("<p>3 outlets / 1 independent · 1 outlet · 2 more</p>")
    report = CardsReport()
    lint_site(report, tmp_path)
    assert report.pages == 2 and [f.day for f in report.findings] == ["en/index.html"]


def test_the_demo_sites_plurals_agree_with_their_numbers(demo_store):
    folder, _ = demo_store
    report = CardsReport()
    lint_site(report, folder / "site")
    assert report.pages > 10
    assert report.findings == []


@pytest.mark.slow
@pytest.mark.parametrize(
    "first, last",
    [
        # W09: Anthropic's distillation charge, Nvidia's Q4, Cowork; the week the lint was fixed on
        ("2026-02-23", "2026-03-01"),
        # W10: GPT-5.4, MiniMax's first annual report, the Qwen lead's departure
        ("2026-03-02", "2026-03-08"),
    ],
)
def test_a_replayed_real_week_is_at_zero_in_every_class(fixtures, tmp_path, first, last):
    """Real news, as `newsdesk ingest --from` replays it: a week of the harvest (never the held-out
    2026-03-09 … 03-15), every stage to the dailies."""
    week = tmp_path / "week.jsonl"
    with (fixtures / "news" / "ai-daily-harvest.jsonl").open(encoding="utf-8") as f:
        rows = [line for line in f if first <= json.loads(line).get("pub_date", "")[:10] <= last]
    week.write_text("".join(rows), encoding="utf-8")
    s = Settings(data_dir=str(tmp_path), site_dir=str(tmp_path / "site"), write=WriteSettings(by="extractive"))
    engine = open_store(s.database)
    stages = ["ingest", "cluster", "stories", "rank", "write", "daily"]
    assert run_pipeline(engine, s, stages=stages, source=week).problems == []
    report = lint_store(engine, first, last)
    engine.dispose()
    assert len(rows) >= 100 and report.cards["zh"] == report.cards["en"] >= 80
    assert {kind: report.count(kind) for kind in CLASSES} == dict.fromkeys(CLASSES, 0), "\n".join(report_lines(report))
