"""The checker over real drafts of the embedded model: no model call.

tests/fixtures/drafts/embedded/ holds what the embedded Qwen2.5-0.5B wrote through the real
writers on the demo pack (benchmarks/embedded_drafts.py), each with the material it was checked
against and `labels`: the defects a person found by reading it (echo, loop, cut, subject,
number; [] = none of them). A labelled defect the checker does not find yet is listed in
`checker_misses`, a flag a reader disagrees with in `checker_false_flags`, each with a reason
in `note`; anything else the checker does differently is a regression and fails here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from newsdesk.check.checker import echoes
from newsdesk.eval.checker import (
    DRAFT_KINDS,
    check_draft,
    draft_scores,
    load_drafts,
)

EMBEDDED = Path(__file__).parent / "fixtures" / "drafts" / "embedded"
CASES = load_drafts(EMBEDDED)


def test_the_drafts_are_real_and_labelled():
    assert len(CASES) >= 5
    for name, case in CASES.items():
        assert case["model"].startswith("qwen2.5-0.5b"), name
        assert case["seconds"] > 0 and case["prompt"] and case["reply"] and case["material"], name
        assert isinstance(case["labels"], list), f"{name}: not labelled yet"
        assert set(case.get("checker_misses", [])) <= set(case["labels"]), name
        assert not set(case.get("checker_false_flags", [])) & set(case["labels"]), name
    writers = {case["kind"].split()[0] for case in CASES.values()}
    assert writers >= {"analysis", "weekly", "episode"}, writers


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_checker_finds_what_a_reader_found_and_no_more(name):
    case = CASES[name]
    found = {f.kind for f in check_draft(case)} & set(DRAFT_KINDS)
    labels = set(case["labels"]) & set(DRAFT_KINDS)
    missed = labels - found - set(case.get("checker_misses", []))
    extra = found - labels - set(case.get("checker_false_flags", []))
    assert not missed, f"labelled but not found: {missed} ({[f.line() for f in check_draft(case)]})"
    assert not extra, f"found but not labelled: {extra} ({[f.line() for f in check_draft(case)]})"


def test_each_form_check_catches_real_drafts():
    scores, unlabelled = draft_scores(EMBEDDED)
    assert unlabelled == 0
    for score in scores:
        if score.name in ("echo", "loop", "cut"):
            assert score.tp >= 1, score


def test_a_material_header_copied_into_a_weekly_item_is_an_echo():
    # The embedded model named an item "Anthropic News｜GPT-4.5｜材料级别：summary": weekly_event.md's member line.
    assert [f.kind for f in echoes("GPT-4.5 的价格。\nAnthropic News｜GPT-4.5｜材料级别：summary", "")] == ["echo"]
    assert echoes("事件概况：8 个来源，5 个看起来独立。\n共同锚点：model:claude-3.7-sonnet", "")
    assert echoes("材料只有摘要级别，正文未获取。材料级别不是全文时要明说。", "") == []  # the words, not the label
