"""The output checker on real sentences (the event analysis's style, zh and en) and on the SummaC dev files."""

from __future__ import annotations

from pathlib import Path

import pytest

from newsdesk.check.checker import check_output, check_subject, cut_names, echoes, hygiene, loops
from newsdesk.eval.checker import check_draft, draft_hits, evaluate, load_drafts
from newsdesk.text.numbers import extract_numbers
from newsdesk.write.extractive.card import extractive_card
from newsdesk.write.extractive.weekly import extractive_theme

DRAFTS = Path(__file__).parent / "fixtures" / "drafts"

# Material as the writer saw it: an official post and two reports (facts of real events).
MATERIAL = [
    "OpenAI: Introducing GPT-5.5. GPT-5.5 scores 82.7% on Terminal-Bench 2.0, compared with 75.1% for GPT-5.4. "
    "On FrontierMath Tier 4 it reaches 35.4%, up from 27.1%. Nearly 200 trusted early-access partners gave feedback. "
    "API access is coming very soon.",
    "Meta plans to lay off 10% of its workforce, about 8,000 people, and will not fill 6,000 open roles, starting May 20. "
    "A fire at the depot left 16 deaths, officials said.",
    "报道称，该公司上季度营收为 410.08 美元（每股口径），Anthropic 在私募二级市场被报到 1.05 万亿至 1.15 万亿美元，"
    "三个月前融资估值为 3800 亿美元。",
]

ZH = (
    "OpenAI在4月23日发布GPT-5.5。官方称它在Terminal-Bench 2.0上是82.7%，GPT-5.4是75.1%；FrontierMath Tier 4从27.1%涨到35.4%。"
    "我的判断很直接：这是官方主导的发布，近200个早期合作方的反馈不等于第三方验证。\n\n"
    "Meta计划裁员10%，约8000人，并冻结6000个在招岗位；报道称营收为410.08 美元。"
    "Anthropic在二级市场被报到1.05万亿至1.15万亿美元，三个月前还是3800亿美元。API价格正文未披露。"
)

EN = (
    "OpenAI released GPT-5.5 and says it scores 82.7 percent on Terminal-Bench 2.0, against 75.1% for GPT-5.4. "
    "Meta will cut about 8000 jobs, 10% of staff, and leave 6,000 roles unfilled. The depot fire left 16 deaths. "
    "Anthropic was quoted at 1.05 trillion to 1.15 trillion dollars, up from $380 billion three months earlier. "
    "The price of the API was not disclosed."
)


def _numbers(result):
    return [f.span for f in result.findings if f.kind == "number"]


def test_zh_paragraph_with_its_numbers_intact_passes():
    mat = MATERIAL + ["Published April 23."]
    result = check_output(ZH, mat, levels=["full", "full", "full"], language="zh")
    assert result.passed, result.summary()


def test_en_paragraph_with_its_numbers_intact_passes():
    result = check_output(EN, MATERIAL, levels=["full", "full", "full"], language="en")
    assert result.passed, result.summary()


@pytest.mark.parametrize(
    "before, after, named",
    [
        ("410.08 美元", "410.08 百万美元", "410.08 百万美元"),
        ("82.7%", "87.2%", "87.2%"),
        ("约8000人", "约9000人", "9000"),
        ("1.05万亿至", "1.5万亿至", "1.5万亿"),
        ("3800亿美元", "3800万美元", "3800万美元"),
    ],
)
def test_zh_altered_number_is_flagged_by_name(before, after, named):
    text = ZH.replace(before, after)
    assert text != ZH
    result = check_output(text, MATERIAL + ["Published April 23."], levels=["full"] * 3, language="zh")
    assert not result.passed
    assert named in _numbers(result), result.summary()
    assert len(_numbers(result)) == 1  # only the altered one


@pytest.mark.parametrize(
    "before, after, named",
    [
        ("16 deaths", "17 deaths", "17"),
        ("82.7 percent", "87.2 percent", "87.2 percent"),
        ("$380 billion", "$380 million", "$380 million"),
        ("1.05 trillion", "1.05 billion", "1.05 billion"),
    ],
)
def test_en_altered_number_is_flagged_by_name(before, after, named):
    result = check_output(EN.replace(before, after), MATERIAL, levels=["full"] * 3, language="en")
    assert not result.passed
    assert named in _numbers(result), result.summary()


def test_normalization_equates_written_forms():
    values = {
        n.text: n.value for n in extract_numbers("1万亿 和 1 trillion，8,000 与 8000，二十亿，3800亿，82.7 percent")
    }
    assert values["1万亿"] == values["1 trillion"] == 1e12
    assert values["8,000"] == values["8000"] == 8000
    assert values["二十亿"] == 2e9 and values["3800亿"] == 3.8e11
    assert {n.kind for n in extract_numbers("82.7 percent and 82.7%")} == {"percent"}


def test_names_with_digits_are_not_numbers():
    texts = [n.text for n in extract_numbers("GPT-5.5 和 Claude Opus 4.7 在 H100 上跑 pass@4，v2.1.116 修复，7B 模型")]
    assert texts == ["4.7"]  # the version after a space is a number, and 4.7 is in any material that names Opus 4.7


def test_invented_name_and_quote_are_flagged():
    text = "GPT-5.5 的对手是 Gemini 9 Ultra。OpenAI 官方称“这是我们有史以来最安全的模型，没有之一”。正文未披露价格。"
    result = check_output(text, MATERIAL, levels=["full"], language="zh")
    kinds = {(f.kind, f.span) for f in result.errors}
    assert ("name", "Gemini") in kinds
    assert any(k == "quote" for k, _ in kinds)


def test_verbatim_quote_passes_and_hedged_context_years_pass():
    text = (
        "官方原话是“API access is coming very soon”。我记得 2024 到 2025 年 Cursor 也走过这条路，我没核实细节。"
        "正文未披露 API 价格。"
    )
    result = check_output(text, MATERIAL, levels=["full"], language="zh")
    assert result.passed, result.summary()


def test_disclosure_rule():
    title_only = ["Intel forecast tops estimates on AI data centres"]
    silent = "Intel 的指引超过预期，股价大涨，AI 数据中心是主要驱动。我的判断是这只是估值喘息。"
    said = "正文被FT订阅墙挡住，当前可见信息只有标题。Intel 的指引超过预期。我的判断是这只是估值喘息。"
    assert any(
        f.kind == "disclosure" for f in check_output(silent, title_only, levels=["title"], language="zh").findings
    )
    assert any(
        f.kind == "disclosure" for f in check_output(silent, title_only, levels=["paywalled"], language="zh").findings
    )
    assert check_output(said, title_only, levels=["paywalled"], language="zh").passed
    summary_only = "现在材料只有 RSS 摘要级别。Intel 的指引超过预期。"
    assert check_output(summary_only, title_only, levels=["summary"], language="zh").passed
    assert not check_output(silent, title_only, levels=["summary"], language="zh").passed


def test_hygiene_catches_the_defects_reference_outputs_had():
    para = "微软把 Copilot Agent Mode 设为 Word、Excel、PowerPoint 默认体验，这是官方口径外放。"
    kinds = lambda text, **kw: {f.kind for f in hygiene(text, **kw)}  # noqa: E731
    # A reference event analysis printed "\\n" literally; a reference weekly report repeated its overview.
    assert kinds(para + "\\n\\n我对这个说法不太买账。") == {"escape"}
    assert "repeat" in kinds(para + "\n\n另一段话，说点别的事情。\n\n" + para)
    assert "truncated" in kinds("说真的，这条新闻的重点不是 Word 会不会更会写，PowerPoint 会不会更会")
    assert "truncated" in kinds(para, finish_reason="length")
    assert "quotes" in kinds("他说“这不对。")
    assert kinds(para) == set()
    # German quotes open low and close high: balanced (the AI FIRST Podcast's headlines on the
    # replayed harvest were held back as unbalanced); one left open is not.
    assert kinds("CEO von EGYM: „Wer glaubt, KI verändert seinen Job nicht, ist bei uns falsch.”") == set()
    assert kinds("„KI ist kein Werkzeug, sondern ein Kollege“ – Wie Covestro das Zusammenspiel neu definiert.") == set()
    assert "quotes" in kinds("Er sagte „KI ist kein Werkzeug. Und dann ging er.")


def test_summac_checker_beats_naive_baseline(eval_sets):
    (base, _, ours), n = evaluate(eval_sets / "faithfulness/summac-xsumfaith.json")
    assert n == 485
    assert ours.precision >= 0.95
    assert ours.recall > base.recall
    for name in ("factcc", "polytope", "summeval"):
        (b, _, o), _ = evaluate(eval_sets / f"faithfulness/summac-{name}.json")
        # Never worse than the baseline on precision by more than one false flag's worth.
        assert o.fp <= b.fp + 1, (name, o.fp, b.fp)


# --- the prompt echoed, loops, cut names, another item's facts ---------------------------------


@pytest.mark.parametrize("name", sorted(load_drafts(DRAFTS)))
def test_labelled_draft_gets_exactly_its_labelled_errors(name):
    case = load_drafts(DRAFTS)[name]
    assert sorted({f.kind for f in check_draft(case)}) == sorted(case["labels"]), [f.line() for f in check_draft(case)]


def test_each_new_check_hits_its_defective_drafts_and_no_clean_one():
    for kind, hits in draft_hits(DRAFTS).items():
        assert hits["defective"][0] == hits["defective"][1] >= 1, (kind, hits)
        assert hits["clean"][0] == 0, (kind, hits)


def test_echo_fires_on_material_headers_and_on_the_prompts_own_sentences():
    assert echoes("标题：Claude 3.7 Sonnet\n链接：https://x.test/a\n这是分析。", "")
    assert echoes("Title: GPT-5.5 is out\nURL: https://x.test/a", "")
    english = "Use only what the transcript lines below say. Every number, name and claim must come from them."
    assert [f.kind for f in echoes(english, "")] == ["echo"]


def test_echo_lets_through_the_wording_the_prompts_ask_for_and_what_the_material_says():
    asked = (
        "FT 的标题：Intel 股价涨 20%。只有标题，没有正文。材料未给出具体数字。正文未披露融资额。本周最清晰的信号是 DeepSeek 开源。"
        "现在材料只有 RSS 摘要级别。如果后续有独立评测，判断可以上调。The article sits behind a paywall."
    )
    assert echoes(asked, "") == []
    quoted = "Use only what the transcript lines below say, every number, name and claim."
    assert echoes(f"他说“{quoted}”。", quoted) == []  # the material says it too: a quote, not an echo


def test_loop_fires_on_three_same_or_near_same_sentences():
    s = "DeepGEMM 是一个用于 FP8 矩阵乘法的高效库，核心代码约 300 行。"
    assert [f.kind for f in loops(s * 3)] == ["loop"]
    near = s + s.replace("高效库", "高效的库") + s.replace("约", "大约")
    assert [f.kind for f in loops(near)] == ["loop"]
    assert loops("The model is fast. " * 2 + "It was the model is fast the model is fast the model is fast") != []


def test_loop_lets_through_a_sentence_said_twice_and_short_recurring_ones():
    s = "DeepGEMM 是一个用于 FP8 矩阵乘法的高效库，核心代码约 300 行。"
    assert loops(s * 2) == []
    assert loops("价格未披露。样本量未披露。" * 3) == []
    assert loops("Alice says yes. Bob says yes. Carol says yes.") == []
    items = "\n\n".join(f"{name} 开源了新模型。方法细节材料未披露。" for name in ("DeepSeek", "Qwen", "Kimi"))
    assert loops(items) == []  # one stock line per item of a section
    assert loops("\n\n".join(["方法细节材料未披露。"] * 3)) != []  # but not as the items themselves


# An extractive weekly theme whose heading's names every item says too (issue: the heading counted as a
# sentence each item repeats). Events written for this test, rendered by the extractive weekly's own code.
_THEME_EVENTS = {
    "zh": [
        (
            "Marlowe Robotics 与 Quillfin 签署合作协议",
            "Marlowe Robotics 周二宣布与物流公司 Quillfin 签署为期三年的合作协议。双方将在 12 个仓库部署分拣机器人。",
            "仓储日报",
        ),
        (
            "Quillfin 追加 Marlowe Robotics 订单",
            "Quillfin 表示试点仓库的分拣效率提高了 18%。公司随后向 Marlowe Robotics 追加了 400 台机器人的订单。",
            "物流观察",
        ),
        (
            "Marlowe Robotics 为 Quillfin 开设培训中心",
            "培训中心位于 Quillfin 的总部园区，首期培训 60 名技术员。Marlowe Robotics 将派驻 5 名工程师。",
            "机器人周刊",
        ),
    ],
    "en": [
        (
            "Marlowe Robotics signs deal with Quillfin",
            "Marlowe Robotics said on Tuesday it signed a three-year deal with "
            "the logistics firm Quillfin. The two will put sorting robots in 12 warehouses.",
            "Warehouse Daily",
        ),
        (
            "Quillfin expands Marlowe Robotics order",
            "Quillfin said sorting in its pilot warehouses was 18% faster. "
            "It then ordered 400 more robots from Marlowe Robotics.",
            "Logistics Watch",
        ),
        (
            "Marlowe Robotics opens Quillfin training centre",
            "The centre sits on Quillfin's head office campus and will "
            "train 60 technicians first. Marlowe Robotics will send 5 engineers.",
            "Robot Weekly",
        ),
    ],
}


def _extractive_theme(language: str, events: int) -> tuple[str, str, list[str]]:
    """(heading, the theme's text as the checker reads it, its material) for the first `events` test events."""
    briefs = [
        {
            "event_id": n,
            "title": title,
            "outlets": 1,
            "independent_outlets": 1,
            "anchors": [],
            "members": [
                {
                    "item_id": n,
                    "title": title,
                    "summary": "",
                    "body": body,
                    "material_level": "full",
                    "language": language,
                    "role": "lead",
                    "source_name": source,
                }
            ],
        }
        for n, (title, body, source) in enumerate(_THEME_EVENTS[language][:events], 1)
    ]
    cards = {b["event_id"]: extractive_card(b, language) for b in briefs}
    theme = extractive_theme(list(cards), cards, {b["event_id"]: b for b in briefs}, language)
    return (
        theme.heading,
        theme.prose,
        [f"{t}\n{body}\n{source}" for t, body, source in _THEME_EVENTS[language][:events]],
    )


@pytest.mark.parametrize("events", [2, 3])
@pytest.mark.parametrize("language", ["zh", "en"])
def test_an_extractive_theme_whose_items_name_its_heading_is_not_a_loop(language, events):
    heading, text, material = _extractive_theme(language, events)
    # Named from its lead headline, which its first item repeats: a heading, not a loop.
    assert heading == _THEME_EVENTS[language][0][0]
    assert loops(text) == []
    result = check_output(text, material, levels=["full"], language=language)
    assert result.passed, [f.line() for f in result.errors]


def test_a_loop_inside_an_extractive_theme_is_still_caught():
    _, text, _ = _extractive_theme("zh", 2)
    said = "公司随后向 Marlowe Robotics 追加了 400 台机器人的订单。"
    assert [f.kind for f in loops(text + "\n\n" + said * 3)] == ["loop"]
    # Near-same: a word changed, a few words said before it.
    plan = "Quillfin 计划明年把 Marlowe Robotics 的分拣机器人扩展到全部 40 个仓库。"
    near = [plan, plan.replace("明年", "在明年"), "据物流观察报道，" + plan]
    assert [f.kind for f in loops(text + "\n\n" + "\n\n".join(near))] == ["loop"]
    # The token limit cuts the last repeat off anywhere: a third of the sentence still counts there.
    assert loops(text + f"\n\n{plan}\n\n{plan}") == []
    assert [f.kind for f in loops(text + f"\n\n{plan}\n\n{plan}\n\n{plan[:16]}")] == ["loop"]
    _, english, _ = _extractive_theme("en", 2)
    assert [
        f.kind for f in loops(english + " It ordered more robots it ordered more robots it ordered more robots.")
    ] == ["loop"]


def test_cut_name_fires_on_a_piece_of_a_material_name():
    material = "Anthropic introduces Claude Code and Claude 3.7 Sonnet."
    assert [f.detail for f in cut_names("Anthropic 推出 Cla Code。", material)] == [
        "name cut mid-word: Cla (the material has Claude); write the name whole"
    ]
    assert cut_names("Anthropic 推出 Claude Code，又称 Anthro。", material)[0].span.endswith("又称 Anthro")
    assert cut_names("The tool is called ude Code.", material, "en") == []  # lowercase English words are words


def test_cut_name_lets_through_whole_words_parts_of_compound_names_and_inflections():
    material = "DeepSeek open-sources DeepGEMM and FlashMLA; OpenAI ships Transformers support in Theano's successor."
    text = (
        "DeepSeek 开源 DeepGEMM。Deep learning 和 Open source 社区都用 Flash kernels；OpenAI 支持 Transformer。"
        "The Theano team."
    )
    assert cut_names(text, material) == []
    assert cut_names("The Deep and Open parts of DeepSeek and OpenAI.", material, "en") == []


def test_subject_fires_on_another_items_numbers_and_names():
    own = ["DeepGEMM is a library for FP8 GEMMs and reaches 1350+ FP8 TFLOPS on Hopper GPUs."]
    other = "FlashMLA achieves up to 3000 GB/s and 580 TFLOPS on H800 SXM5."
    found = check_subject("FlashMLA 在 H800 SXM5 上达 3000 GB/s、580 TFLOPS。", own, own + [other])
    assert {f.span for f in found if f.severity == "error"} == {"FlashMLA", "H800", "SXM5", "3000", "580"}
    assert all(f.kind == "subject" for f in found)


def test_subject_lets_through_the_items_own_facts_and_names_shared_with_others():
    own = ["DeepSeek: DeepGEMM reaches 1350+ FP8 TFLOPS on Hopper GPUs."]
    other = "DeepSeek: FlashMLA reaches 580 TFLOPS on Hopper GPUs."
    assert check_subject("DeepSeek 开源 DeepGEMM，在 Hopper GPUs 上达 1350 FP8 TFLOPS。", own, own + [other]) == []
