"""A card's first sentence states the news: real harvest lines (Nvidia's Q4 results, Claude Code's
remote control) imported, clustered and carded. The harvester's summaries describe the article
("…财报深度解读，重点关注…", "…功能详解，涵盖…"); its core_point and highlights state the facts."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from newsdesk.check.checker import check_output
from newsdesk.cluster import cluster_new_items, event_brief
from newsdesk.core.config import Settings
from newsdesk.ingest.run import ingest
from newsdesk.store import open_store
from newsdesk.store.schema import events
from newsdesk.text.sentences import describes_article
from newsdesk.write.extractive.card import extractive_card, structured_summary

# Harvest titles (2026-02-25 … 27): two reports of one earnings release, three of one feature.
NVIDIA = (
    "吸金681亿美元，英伟达业绩没有暴雷，Blackwell全年出货600万颗",
    "暴增73%，英伟达上个财季再创记录，营收681亿美元远超行业预测",
)
REMOTE = (
    "Claude Code 新功能：手机远程控制",
    "Claude Code官方推出远程控制功能：随时随地写代码",
    "Claude Code更新，你终于可以随时随地在手机上Vibe Coding了。",
)


@pytest.fixture(scope="module")
def cards(fixtures, tmp_path_factory):
    rows = [json.loads(line) for line in open(fixtures / "news/ai-daily-harvest.jsonl", encoding="utf-8")]
    picked = [r for r in rows if r["title"] in NVIDIA + REMOTE]
    assert len(picked) == len(NVIDIA + REMOTE)
    tmp = tmp_path_factory.mktemp("leads")
    (tmp / "h.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in picked), encoding="utf-8")
    s = Settings(data_dir=str(tmp / "data"))
    engine = open_store(s.database)
    ingest(engine, s, tmp / "h.jsonl")
    cluster_new_items(engine, s)
    with engine.connect() as conn:
        briefs = [event_brief(conn, r.id) for r in conn.execute(select(events.c.id))]
    return [(b, extractive_card(b, "zh")) for b in briefs]


def test_the_first_sentence_states_the_news_not_the_article(cards):
    for brief, card in cards:
        first = card.lead[0].text
        assert not describes_article(first), first
        assert all(not describes_article(s.text) for s in card.lead)
        analysis = card.analysis()
        result = check_output(
            analysis["headline"] + "\n\n" + analysis["body"],
            card.material(brief["members"]),
            levels=[m["material_level"] for m in brief["members"]],
            language="zh",
        )
        assert result.passed, [f.detail for f in result.errors]
    nvidia = [c for b, c in cards if any(m["title"] in NVIDIA for m in b["members"])]
    # The results' hardest facts lead, from core_point, where the summary said "财报深度解读".
    assert nvidia and all("681亿美元" in c.lead[0].text for c in nvidia), [c.lead[0].text for c in nvidia]


def test_structured_summary_keeps_claim_evidence_and_highlights_not_the_implication():
    extra = {
        "core_point": "① Claim 主张：英伟达Q4业绩远超预期。② Evidence 论据：Q4营收681亿美元（同比+73%）；"
        "数据中心收入623亿美元。③ Implication 启示：英伟达将巩固领导地位。",
        "highlights": ["亮点1：营收、利润均大幅超预期", "Blackwell芯片产能顺利爬坡。"],
    }
    assert structured_summary(extra).split("\n") == [
        "英伟达Q4业绩远超预期。",
        "Q4营收681亿美元（同比+73%）；数据中心收入623亿美元。",
        "营收、利润均大幅超预期。",
        "Blackwell芯片产能顺利爬坡。",
    ]
    assert structured_summary({"core_point": "【主张】文章认为X。【论据】Y上涨5%。"}).split("\n") == [
        "文章认为X。",
        "Y上涨5%。",
    ]
    assert structured_summary({}) == ""


@pytest.mark.parametrize(
    "sentence, about",
    [
        ("英伟达2026财年第四财季财报深度解读，重点关注数据中心业务与Blackwell芯片出货量。", True),
        ("报道了OpenAI因GitHub频繁宕机拟开发替代品。", True),
        ("介绍 Claude Code 官方新增的远程控制功能，支持开发者在移动端监控和决策代码任务。", True),
        ("Claude Code远程控制功能评测，展示了如何通过手机实现Vibe Coding及其背后的架构竞争。", True),
        ("Nano Banana 2 发布详情，涵盖定价策略分析与技术规格对比。", True),
        ("文章总结了2026年初AI从工具向‘自主劳动力’的质变。", True),
        ("通过腾讯混元团队的 CL-bench 测试指出，当前大模型在‘情境学习’能力上普遍极弱。", True),
        ("This post explores how coding agents pick their tools.", True),
        ("In this episode, Boris Cherny talks about Claude Code.", True),
        ("Q4营收681亿美元（同比+73%），净利润430亿美元（同比+94%）。", False),
        ("Anthropic 收购 AI 电脑操控初创公司 Vercept，旨在强化 Claude 的 Computer Use 能力。", False),
        ("Gemini 3.1 Pro 在多项评测中领先，价格不变。", False),
        ("英伟达发布财报，分析师普遍看好。", False),
        ("华为发布了新的开发者指南。", False),
        ("We developed a scalable approach to measuring how AI models can assist in fraud.", False),
        ("Claude Sonnet 4.6 is now available in Windsurf.", False),
    ],
)
def test_describes_article(sentence, about):
    assert describes_article(sentence) is about


def test_a_sales_line_never_leads():
    """GPT-5.4's English card led with Windsurf's promotional pricing (a real replay, 03-05)."""
    from newsdesk.text.sentences import is_promotion
    from newsdesk.write.extractive.card import lead_sentences

    assert is_promotion("For a limited time, self serve users enjoy promotional pricing starting at 1x credits.")
    assert is_promotion("限时优惠：前 1000 名报名免费领取算力券。")
    assert not is_promotion("GPT-5.4 scores 83% on GDPval, OpenAI said.")
    windsurf = {
        "item_id": 1,
        "source_name": "Windsurf Blog",
        "material_level": "summary",
        "summary": "GPT-5.4 is now available in Windsurf with multiple reasoning effort levels. "
        "For a limited time, self serve users enjoy promotional pricing starting at 1x credits.",
    }
    lead = lead_sentences([windsurf], "en", {"gpt-5.4"}, set())
    assert [s.text for s in lead] == ["GPT-5.4 is now available in Windsurf with multiple reasoning effort levels."]


def test_a_lead_tells_one_claim_once_even_with_a_clause_added():
    """The Codex-on-Windows card (a real replay, 03-05) told its news twice: the feed summary repeats the
    core_point's first sentence and adds a clause, so most of the shorter sentence is in the longer."""
    from newsdesk.eval.cards import repeated_fact
    from newsdesk.write.extractive.card import lead_sentences

    codex = {
        "item_id": 1,
        "source_name": "OpenAI YouTube",
        "material_level": "summary",
        "summary": "OpenAI 的 Codex 应用正式登陆 Windows，提供原生 Agent 沙箱支持。",
        "extra": {
            "core_point": "OpenAI 宣布 Codex 应用现已登陆 Windows 平台。Windows 用户可以获得完整的 Codex 应用体验，"
            "包括一个原生的代理沙盒以及对 PowerShell 等 Windows 开发者环境的支持。这扩大了 Codex 开发工具的可及性。",
            "highlights": [
                "亮点1：Codex 应用正式在 Windows 平台上线。",
                "亮点2：Windows 版本提供原生代理沙盒和对 PowerShell 等开发环境的支持。",
            ],
        },
    }
    lead = [
        s.text
        for s in lead_sentences([codex], "zh", {"codex", "windows"}, set(), headline="The Codex app is now on Windows")
    ]
    assert lead[0] == "OpenAI 宣布 Codex 应用现已登陆 Windows 平台。"
    assert "OpenAI 的 Codex 应用正式登陆 Windows，提供原生 Agent 沙箱支持。" not in lead
    assert not repeated_fact(lead), lead


# Real harvest lines of 2026-03-02 whose cards a reader stopped at: MiniMax's opened on a claim with no
# subject (its one sentence naming MiniMax was framed "文章聚焦…："), Coinbase's on "团队…" (its
# sentences naming Coinbase were about the talk, the next one opened on "他"), Andrew Ng's on a
# summary of the interview (his own claims open on "他").
REAL_LEADS = {
    # "他们设计了…" read as the team's stays behind the sentence that named the team first.
    "喝杯咖啡或帮助抗癌？华人团队打造咖啡因+CRISPR黑科技，能激活体内基因编辑": "美国德州农工大学的研究团队开发出",
    "MiniMax 财报发布：首份大模型成绩单": "MiniMax首份年报中的关键财务亮点：",
    "How Coinbase scaled AI to 1,000+ engineers | Chintan Turakhia": "Coinbase高级工程总监Chintan Turakhia将AI视为",
    "吴恩达复盘百度岁月：我带过的自动驾驶、智能音箱都成了！Altman 我也带过，但 Gemini 3 比 ChatGPT 强": "吴恩达提出了",
}


def _harvest_member(row: dict, item_id: int = 1) -> dict:
    return {
        "item_id": item_id,
        "source_name": row["source"],
        "title": row["title"],
        "material_level": "summary",
        "summary": row["summary"],
        "language": "zh",
        "extra": {"core_point": row["core_point"], "highlights": row["highlights"]},
    }


@pytest.mark.parametrize("title", list(REAL_LEADS))
def test_the_opening_names_its_subject_not_a_pronoun_or_the_article(fixtures, title):
    from newsdesk.eval.cards import repeated_fact, tells_other_event
    from newsdesk.eval.editorial import describes_article as reads_about_article
    from newsdesk.text.sentences import dangling_opening, terms
    from newsdesk.write.extractive.card import lead_sentences, member_material

    rows = [json.loads(line) for line in open(fixtures / "news/ai-daily-harvest.jsonl", encoding="utf-8")]
    member = _harvest_member(next(r for r in rows if r["title"] == title))
    lead = [s.text for s in lead_sentences([member], "zh", set(terms(title)), set(), headline=title)]
    assert lead and lead[0].startswith(REAL_LEADS[title]), lead
    first = lead[0]
    assert not dangling_opening(first) and not reads_about_article(first) and not tells_other_event(title, first)
    assert not repeated_fact(lead), lead
    result = check_output(title + "\n\n" + "".join(lead), [member_material(member)], language="zh")
    assert result.passed, [f.detail for f in result.errors]


def test_subject_of_and_resolve_pronoun():
    from newsdesk.text.sentences import resolve_pronoun, subject_of, unframed

    assert subject_of("吴恩达在访谈中呼吁为AGI概念降温。") == "吴恩达"
    assert subject_of("在播客节目《How I AI》中，嘉宾Jesse Genet分享了如何使用五个代理。") == "嘉宾Jesse Genet"
    assert subject_of("美国密苏里大学的研究团队在《PNAS Nexus》上发表了研究。") == "美国密苏里大学的研究团队"
    assert subject_of("华为与香港城市大学联合团队在CVRPLib竞赛中夺冠。").startswith("华为与香港城市大学")
    assert subject_of("文章分享了作者的经验。") == ""  # the article is no news's subject
    assert subject_of("研究团队提出新方法。") == ""  # no name: whose team is not known
    assert resolve_pronoun("他提出了新版图灵测试。", "吴恩达") == "吴恩达提出了新版图灵测试。"
    assert resolve_pronoun("它石智航由陈亦伦创立。", "吴恩达") == "它石智航由陈亦伦创立。"
    assert resolve_pronoun("他提出了新版图灵测试。", "") == "他提出了新版图灵测试。"
    assert unframed("文章指出，今年的Multi-Agent已演进为Agent集群。") == "今年的Multi-Agent已演进为Agent集群。"
    assert unframed("文章探讨了注意力机制。") == "文章探讨了注意力机制。"
    assert unframed("文章报道了拓竹的创业故事。") == "文章报道了拓竹的创业故事。"  # a noun phrase, no statement
