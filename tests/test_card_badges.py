"""A card's notes (coverage and disclosure) fold into one line of badges: split_notes() must
find exactly the sentences extractive_card() adds after the lead, in both languages and for
every material level, so the prose a reader sees is the news and nothing it had to disclose is lost."""

from __future__ import annotations

import pytest

from newsdesk.write.extractive.card import extractive_card, is_coverage_note, split_notes

LEAD_ZH = "英伟达公布第四财季营收681亿美元，同比增长73%，净利润430亿美元，超出市场预期。"
LEAD_EN = "Nvidia reported fourth-quarter revenue of $68.1 billion, up 73% from a year earlier, beating estimates."


def brief(levels: list[str], language: str, independent: int | None = None) -> dict:
    lead = LEAD_ZH if language == "zh" else LEAD_EN
    members = [
        {
            "item_id": n,
            "source_name": f"Outlet {n}",
            "title": f"Nvidia Q4 results {n}",
            "url": f"https://o{n}.example/a",
            "summary": lead if level != "title" else "",
            "body": lead if level == "full" else "",
            "material_level": level,
            "language": language,
            "role": "lead" if n == 1 else "member",
            "published_at": None,
        }
        for n, level in enumerate(levels, 1)
    ]
    return {
        "event_id": 7,
        "title": "Nvidia Q4",
        "outlets": len(levels),
        "independent_outlets": len(levels) if independent is None else independent,
        "anchors": [],
        "members": members,
    }


@pytest.mark.parametrize("language", ["zh", "en"])
@pytest.mark.parametrize(
    "levels,independent",
    [
        (["summary"], None),
        (["full", "summary"], 1),
        (["full", "full", "summary"], None),
        (["paywalled", "summary"], None),
        (["title"], None),
        (["title", "title"], 2),
    ],
)
def test_split_notes_takes_exactly_the_coverage_and_disclosure(levels, independent, language):
    card = extractive_card(brief(levels, language, independent), language)
    lead, notes = split_notes(card.body())
    assert notes == [p for p in (card.coverage, card.disclosure) if p]
    assert is_coverage_note(card.coverage) and not (card.disclosure and is_coverage_note(card.disclosure))
    assert card.coverage not in lead and (not card.disclosure or card.disclosure not in lead)
    if "title" in levels:  # a title-only card's prose is its one line saying only the headline is known
        assert lead == card.only_line and ("只有标题：" in lead or "The headline alone is known" in lead)
    else:
        assert (LEAD_ZH if language == "zh" else LEAD_EN) in lead


def test_a_written_sentence_that_mentions_sources_stays_in_the_lead():
    body = "两个来源都提到，英伟达营收681亿美元。\n\n只有 36氪 一个来源。"
    assert split_notes(body) == ("两个来源都提到，英伟达营收681亿美元。", ["只有 36氪 一个来源。"])
