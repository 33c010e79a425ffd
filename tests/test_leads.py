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


# --- the harvest's week 2026-W09, replayed: openings a reader stopped at (eval cards, 16 findings) ------


@pytest.mark.parametrize(
    "sentence",
    [
        "OpenAI 官方关于 Prompt Caching（提示词缓存）的技术原理与实操优化指南。",  # a guide named, nothing happened
        "Seedance 2.0视频生成工具的9种商用玩法总结及提示词分享。",
        "一位怀疑论者对 AI Agent 编程能力的实测记录，展示了从简单脚本到重写 Rust 库的演进。",
        "Simon 分享其使用“Vibe Coding”在短时间内开发 macOS 演示应用的过程。",
        "专业律师从著作权与商业秘密视角，深度解析了Anthropic对中国大模型公司‘数据蒸馏’指控的法理困境。",
        "We further discuss current risk management frameworks and how they approach agentic security.",
        "Our new report examines today’s AI oversight landscape.",
        "视频解释了提示词缓存的工作原理，并指导如何设计提示词以最大化缓存命中率。",
        "内容涵盖了缓存的实际内容、适用场景。",
    ],
)
def test_a_sentence_naming_a_piece_is_about_the_article(sentence):
    assert describes_article(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "华为发布了新的开发者指南。",
        "谷歌推出新的开发者指南。",
        "该工具支持一键分享。",
        "英伟达第四财季营收681亿美元，同比增长73%。",
    ],
)
def test_news_about_a_guide_or_sharing_is_news(sentence):
    assert not describes_article(sentence)


def test_the_harvesters_labels_and_trailing_coverage_clauses_are_cut_from_the_statement():
    from newsdesk.text.sentences import is_complete, is_implication, unframed

    assert unframed("核心论据在于，通过API调用获取的内容难以构成作品。") == "通过API调用获取的内容难以构成作品。"
    assert (
        unframed("论据是，过去十年开发工具的创新主要集中在“外循环”。") == "过去十年开发工具的创新主要集中在“外循环”。"
    )
    assert unframed("作者Simon Willison在演讲前夜快速开发了一款macOS演示应用。") == (
        "Simon Willison在演讲前夜快速开发了一款macOS演示应用。"
    )
    assert unframed("AR3D-R1研究首次将RL（GRPO）引入3D生成，并总结了奖励模型选择、Token级优化等关键方法论。") == (
        "AR3D-R1研究首次将RL（GRPO）引入3D生成。"
    )
    assert (
        unframed("作者认为最新的编码模型有了质的飞跃。") == "作者认为最新的编码模型有了质的飞跃。"
    )  # an opinion stays his
    assert is_implication("启示在于，下一代开发工具将实现端到端智能化。")
    # news about copyright is no page furniture ("版权所有" is)
    assert is_complete("法律分析指出，AI生成内容因缺乏人类作者身份，其可版权性存疑。")
    assert not is_complete("版权所有，转载请注明出处。")


def test_a_fact_told_in_a_clause_of_two_sentences_is_told_once():
    """Latent Space's "Closing the Loop" card (W09, 02-25) told the outer-loop claim twice: the structured
    summary's "文章指出，2010年代…" and its "论据是，过去十年…" share a clause, not most of their words."""
    from newsdesk.eval.cards import repeated_fact
    from newsdesk.write.extractive.card import lead_sentences

    loop = {
        "item_id": 1,
        "source_name": "Latent Space",
        "material_level": "summary",
        "summary": "文章敏锐捕捉到了AI编程工具的闭环演进趋势。",
        "extra": {
            "core_point": "作者主张，当前AI开发工具领域出现了一个核心趋势，即“闭环”。论据是，过去十年开发工具的创新主要"
            "集中在“外循环”（云端部署、CI/CD），而“内循环”（本地IDE开发）多为免费开源工具；但AI的出现颠覆了这一格局，"
            "Copilot等工具引领了“内循环”的AI化浪潮。启示在于，领先的编程助手公司正将AI能力向“外循环”延伸。",
            "highlights": [
                "文章指出，2010年代开发工具的创新主要集中在“外循环”，诞生了GitLab、GitHub、Netlify/Vercel等公司，"
                "而“内循环”工具（如VSCode、TypeScript）多为免费开源。",
            ],
        },
    }
    lead = [s.text for s in lead_sentences([loop], "zh", set(), set(), headline="Closing the Loop")]
    assert lead and not repeated_fact(lead), lead
    assert not any(s.startswith(("论据", "启示")) for s in lead), lead


def test_the_opening_tells_the_headlines_event_not_a_lawyers_argument():
    """The distillation card (W09, 02-25) opened on "核心论据在于，…": the label read as a subject."""
    from newsdesk.write.extractive.card import lead_sentences

    accusation = {
        "item_id": 1,
        "source_name": "AGI Hunt",
        "material_level": "summary",
        "summary": "Anthropic 控诉中国 AI 公司的“蒸馏攻击”事件及其引发的行业争议。",
        "extra": {"core_point": "Anthropic指控三家中国AI公司对Claude模型进行大规模蒸馏攻击，此指控遭到网友广泛质疑。"},
    }
    lawyer = {
        "item_id": 2,
        "source_name": "腾讯科技",
        "material_level": "summary",
        "summary": "专业律师从著作权与商业秘密视角，深度解析了Anthropic对中国大模型公司‘数据蒸馏’指控的法理困境。",
        "extra": {
            "core_point": "律师针对Anthropic指控中国大模型公司蒸馏一事进行解读。核心论据在于，通过API调用获取的AI生成内容"
            "缺乏人类作者的智力创造，难以构成受著作权法保护的作品；且蒸馏是行业常见技术迭代手段。"
        },
    }
    title = "Anthropic 指控三家中国 AI 公司大规模蒸馏 Claude"
    lead = [
        s.text
        for s in lead_sentences([accusation, lawyer], "zh", {"anthropic", "蒸馏", "claude"}, set(), headline=title)
    ]
    assert lead[0].startswith("Anthropic指控三家中国AI公司"), lead
    assert not any(describes_article(s) or s.startswith("核心论据") for s in lead), lead


def test_two_sentences_opening_on_one_subject_are_two_facts():
    """Sherwin Wu's card (W09, 02-24): the subject clause "OpenAI API工程负责人Sherwin Wu…" opens both
    sentences, which tell two facts (the scaffolding claim; 95% of engineers on Codex)."""
    from newsdesk.write.extractive.card import shares_clause

    first = "OpenAI API工程负责人Sherwin Wu指出，模型终将吃掉为弥补其当前缺陷而构建的复杂脚手架。"
    second = "OpenAI API工程负责人Sherwin Wu以OpenAI内部为例，指出95%的工程师使用Codex，100%的代码合并请求由其审核。"
    assert not shares_clause(second, first) and not shares_clause(first, second)
    lead = _lead_of(first + second, "Z Potentials", {"codex"}, "OpenAI API华人工程负责人：模型会把你的脚手架当早餐吃掉")
    assert sorted(lead) == sorted([first, second]), lead


def _lead_of(summary: str, source: str, key_terms: set[str], headline: str) -> list[str]:
    """The sentences a zh card's lead takes from one report's summary."""
    from newsdesk.write.extractive.card import lead_sentences

    report = {"item_id": 1, "source_name": source, "material_level": "summary", "summary": summary}
    return [s.text for s in lead_sentences([report], "zh", key_terms, set(), headline=headline)]


def test_a_sentence_retelling_a_clause_but_adding_a_figure_is_kept():
    """SWE-bench's card (W09, 02-23): the reason (60% of 138 problems unsolvable) shares the clause
    "停止报告SWE-Bench Verified" with the opening; its figures are the news."""

    first = "OpenAI团队的研究人员宣布停止报告SWE-Bench Verified基准测试结果，并转而支持SWE-Bench Pro。"
    second = "OpenAI团队在深入分析138个疑难问题后，发现其中60%的问题本质上无法解决，这是停止报告SWE-Bench Verified的关键原因。"
    lead = _lead_of(first + second, "Latent Space", {"swe-bench"}, "Why we no longer evaluate SWE-bench Verified")
    assert sorted(lead) == sorted([first, second]), lead


def test_two_small_measurements_told_again_are_one_fact():
    """BYD's card (W10, 03-07): "9分钟…零下30度…3分钟" twice, once from the core_point's evidence, once
    from a highlight; figures() leaves counts under 100 out, so the figure test did not see it."""
    from newsdesk.write.extractive.card import lead_sentences, shares_measures

    first = "新电池技术实现了9分钟从10%充至97%，且在零下30度低温下仅比常温慢3分钟，同时能量密度提升5%。"
    again = "第二代刀片电池实现“9分钟充饱”，并承诺零下30度低温充电仅慢3分钟。"
    assert shares_measures(again, first) and not shares_measures("发布会持续了90分钟，王传福演讲了30分钟。", first)
    byd = {"item_id": 1, "source_name": "极客公园", "material_level": "summary", "summary": first + again}
    lead = [s.text for s in lead_sentences([byd], "zh", {"电池"}, set(), headline="比亚迪：9 分钟充饱")]
    assert len(lead) == 1, lead


def test_a_launch_told_again_by_another_summary_is_told_once():
    """PaperBanana's card (W09, 02-24) opened "谷歌开源了PaperBanana，…" and went on "谷歌开源学术配图框架
    PaperBanana，…": one release, twice. A second release sentence naming more (a second model) or
    bringing a figure is news and stays."""
    first = "谷歌开源了PaperBanana，一个能自动为学术论文生成高质量流程图的AI系统。"
    again = "谷歌开源学术配图框架PaperBanana，通过多智能体协作解决AI科学家在视觉传达上的短板。"
    lead = _lead_of(first + again, "PaperAgent", {"paperbanana"}, "谷歌开源PaperBanana：顶会级论文自动配图")
    assert len(lead) == 1 and "PaperBanana" in lead[0], lead
    # Claude Code's (02-25): the second report's summary told the launch without the product's name.
    first = "Claude Code新推出的远程控制功能允许用户通过网页、iOS或桌面应用向本地运行的会话发送指令。"
    again = "官方推出远程控制功能，实现从终端到手机的无缝编程体验切换。"
    assert _lead_of(first + again, "AI工程化", {"claude"}, "Claude Code 新功能：手机远程控制") == [first]
    more = "OpenAI同时发布了GPT-5 mini和GPT-5 nano两个小模型。"
    lead = _lead_of("OpenAI发布了GPT-5，面向所有ChatGPT用户。" + more, "InfoQ", {"gpt-5"}, "OpenAI发布GPT-5")
    assert more in lead, lead
