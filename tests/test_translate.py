"""English edition (Output D): numbers kept, hedges kept, structure one-to-one, regenerate once then flag."""

from __future__ import annotations

import pytest
from fakes import EpisodeFake
from sqlalchemy import select
from test_episode import parsed_quotes_in_transcript, qmsum_turns

from newsdesk.editions.episode import build_episode, build_translation
from newsdesk.store.schema import checks, editions
from newsdesk.write.digest import parse_digest
from newsdesk.write.transcript import find_quotes
from newsdesk.write.translate import (
    hedge_problems,
    number_problems,
    numbers,
    shape,
)


@pytest.mark.parametrize(
    "zh, en",
    [
        ("千问在阿里云上部署了2万个并行沙盒", "Qwen deployed 20,000 parallel sandboxes on Alibaba Cloud"),
        ("10万条rollout要几千美元", "100K rollouts cost several thousand dollars"),
        ("放大一千个agent", "scale that to 1,000 agents"),
        ("十倍差距", "a 10x gap"),
        ("约100-150次搜索调用", "roughly 100-150 search calls"),
        ("得23.76的accuracy", "an accuracy of 23.76"),
        ("3000多个MCP工具，扩充到两万多个", "more than 3,000 MCP tools, expanded to over 20,000"),
    ],
)
def test_numbers_survive_translation(zh, en):
    assert numbers(zh) == numbers(en)
    assert number_problems(zh, en) == []


def test_dropped_or_invented_numbers_are_named():
    problems = number_problems(
        "部署了2万个并行沙盒，约100-150次调用", "deployed parallel sandboxes, about 100 calls, 3,000 tools"
    )
    assert "number 20,000 is missing from the English" in problems
    assert "number 150 is missing from the English" in problems
    assert "number 3,000 is not in the Chinese" in problems
    assert numbers("十分重要，万一失败") == set()  # words, not quantities


def test_softened_hedge_is_caught():
    zh = "目前可能还没有人在做这个事情，但是一个非常有意思的研究方向。"
    assert hedge_problems(zh, "No one is doing this yet; it is an interesting direction.")
    assert hedge_problems(zh, "Possibly no one is doing this yet.") == []


def _zh(engine, fixtures, llm):
    turns = qmsum_turns(fixtures, 3)
    return turns, build_episode(engine, None, llm, turns, title="Remote control design", number=7, key="qmsum-3")


def test_english_edition_matches_the_chinese_one_to_one(fixtures, sqlite_engine):
    llm = EpisodeFake()
    turns, zh = _zh(sqlite_engine, fixtures, llm)
    en = build_translation(sqlite_engine, None, llm, zh, turns, original_title="Remote control design")
    d_zh, d_en = parse_digest(zh.text, "zh"), parse_digest(en.text, "en")
    assert en.text.startswith("7. Remote control design\n\nSummary\n") and "\nDeep dive\n" in en.text
    assert 5 <= len(d_en.summary) <= 9 and len(d_en.sections) >= 5
    assert shape(d_en) == shape(d_zh)
    assert parsed_quotes_in_transcript(en.text, turns) == []
    assert parsed_quotes_in_transcript(zh.text, turns) == []
    # Every quote of the Chinese edition is in the English one (the transcript is English).
    assert sorted(q for _, _, q in find_quotes(zh.text)) == sorted(q for _, _, q in find_quotes(en.text))
    with sqlite_engine.connect() as conn:
        rows = conn.execute(select(editions.c.language, editions.c.status).where(editions.c.key == "qmsum-3")).all()
        subjects = conn.execute(select(checks.c.output)).scalars().all()
    assert sorted(r.language for r in rows) == ["en", "zh"]
    assert subjects.count("translation") == 1
    # Second run: the stored English edition is current; no model call.
    calls = len(llm.calls)
    again = build_translation(sqlite_engine, None, llm, zh, turns, original_title="Remote control design")
    assert again.reused and again.text == en.text and len(llm.calls) == calls


def test_a_unit_that_loses_a_bullet_is_regenerated_once(fixtures, sqlite_engine):
    llm = EpisodeFake()
    turns, zh = _zh(sqlite_engine, fixtures, llm)
    llm.translation_faults = 2  # the summary's and section 1's first answers are one bullet short
    before = len(llm.calls)
    en = build_translation(sqlite_engine, None, llm, zh, turns)
    units = 1 + len(zh.digest.sections)
    assert len(llm.calls) - before == units + 2  # two units asked twice, the rest once
    assert shape(parse_digest(en.text, "en")) == shape(zh.digest)
    assert not any("bullets, need exactly" in f for f in en.findings)


def test_a_unit_still_wrong_after_the_retry_is_flagged(fixtures, sqlite_engine):
    llm = EpisodeFake()
    turns, zh = _zh(sqlite_engine, fixtures, llm)
    llm.translation_faults = 1000  # every first answer is short
    original = llm._translate
    llm._translate = lambda system, user, retry: original(system, user, retry=False)  # and so is every retry
    en = build_translation(sqlite_engine, None, llm, zh, turns)
    assert en.status == "flagged"
    assert any("bullets, need exactly" in f for f in en.findings)
    # The structure still holds: the missing bullet keeps its place (the Chinese text, flagged).
    assert shape(parse_digest(en.text, "en")) == shape(zh.digest)
    with sqlite_engine.connect() as conn:
        row = conn.execute(select(editions).where(editions.c.language == "en")).mappings().one()
        check = conn.execute(select(checks).where(checks.c.output == "translation")).mappings().one()
    assert row["status"] == "flagged" and check["passed"] is False and check["findings"]
