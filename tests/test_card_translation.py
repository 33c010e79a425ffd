"""With an endpoint, an event with no material in an edition's language gets its extractive card's
headline and lead translated into it, checked like every part (numbers kept, the checker against
the event's material), rewritten once, and becomes a full card of that edition, marked as
translated; a translation that still fails leaves the card as it was (its original text, marked)."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from fakes import CardTranslator as Translator
from sqlalchemy import func, select, update
from test_daily import add_event, seed

from newsdesk.cluster import event_brief
from newsdesk.core.config import Settings
from newsdesk.editions.cards import event_cards
from newsdesk.editions.languages import unmarked_parts
from newsdesk.store.schema import analyses, checks, event_members, events, items
from newsdesk.write.extractive.checked import store_card
from newsdesk.write.translate import translate_cards

HEADLINE = "OpenAI 发布 GPT-5.4，上下文达 100 万 token"
SUMMARY = "OpenAI称GPT-5.4在SWE-bench Verified上得分80%，价格为每百万输入token 2.5美元。"
GOOD = {
    "headline": "OpenAI releases GPT-5.4 with a context of 1 million tokens",
    "lead": "OpenAI says GPT-5.4 scored 80% on SWE-bench Verified, at $2.5 per million input tokens. (机器之心)",
}


def _store(engine) -> int:
    """An event covered only in Chinese, its extractive cards stored in zh and en (as offline)."""
    with engine.begin() as conn:
        seed(conn)
        event_id = add_event(
            conn,
            title=HEADLINE,
            when=datetime(2026, 3, 5, 8, tzinfo=UTC),
            score=0.95,
            tab="featured",
            category="model",
            members=[("jqzx", HEADLINE, "https://jqzx.example/gpt", datetime(2026, 3, 5, 7, tzinfo=UTC), "lead")],
        )
        item_ids = select(event_members.c.item_id).where(event_members.c.event_id == event_id)
        conn.execute(update(items).where(items.c.id.in_(item_ids)).values(summary=SUMMARY))
        brief = event_brief(conn, event_id)
    for language in ("zh", "en"):
        store_card(engine, brief, language, stored_key=None)
    return event_id


def _en_card(engine, event_id) -> dict:
    with engine.connect() as conn:
        row = conn.execute(select(events).where(events.c.id == event_id)).one()
        return event_cards(conn, [row], "en", "Asia/Shanghai")[0]


def test_an_event_with_no_english_material_becomes_a_full_english_card(sqlite_engine):
    event_id = _store(sqlite_engine)
    before = _en_card(sqlite_engine, event_id)
    # Offline: shown as what it is, in the en edition's "Reported in Chinese" list.
    assert before["compact"] and before["folded"] and before["language_mark"]["headline"] == "In Chinese"
    llm = Translator(GOOD)
    assert translate_cards(sqlite_engine, Settings(), llm) == 1
    assert len(llm.calls) == 1 and HEADLINE in llm.calls[0][1]["content"]  # only the en card needed it
    card = _en_card(sqlite_engine, event_id)
    assert card["headline"] == GOOD["headline"] and not card["compact"] and unmarked_parts(card, "en") == []
    assert not card["folded"]  # translated: in the en edition's main list
    assert card["language_mark"] == {"headline": "", "lead": ""}
    assert card["analysis"]["body"] == GOOD["lead"] and card["analysis"]["translated_from"] == "zh"
    badges = {b["kind"]: b["text"] for b in card["badges"]}
    assert badges["translated"] == "translated from Chinese" and badges["extract"] == "extract"
    assert card["notes"] and all(re.search(r"[A-Za-z]", n) for n in card["notes"])  # the notes stay English
    # Unchanged material: nothing to translate again, and the extractive writer keeps the translation.
    assert translate_cards(sqlite_engine, Settings(), Translator(GOOD)) == 0
    with sqlite_engine.connect() as conn:
        key = conn.execute(select(analyses.c.material_key).where(analyses.c.language == "en")).scalar()
        brief = event_brief(conn, event_id)
    assert store_card(sqlite_engine, brief, "en", stored_key=key) is False


def test_a_translation_is_checked_and_rewritten_once(sqlite_engine):
    event_id = _store(sqlite_engine)
    made_up = {**GOOD, "lead": GOOD["lead"].replace("80%", "85%")}  # a figure the original does not have
    llm = Translator(made_up, GOOD)
    assert translate_cards(sqlite_engine, Settings(), llm) == 1 and len(llm.calls) == 2
    assert "85" in llm.calls[1][-1]["content"]  # the rewrite is told what was wrong
    card = _en_card(sqlite_engine, event_id)
    assert card["headline"] == GOOD["headline"]


def test_a_translation_that_still_fails_leaves_the_original_marked(sqlite_engine):
    event_id = _store(sqlite_engine)
    dropped = {**GOOD, "lead": "OpenAI says GPT-5.4 did well on SWE-bench Verified. (机器之心)"}  # 80% and $2.5 gone
    untranslated = {"headline": HEADLINE, "lead": SUMMARY}
    for draft in (dropped, untranslated):
        assert translate_cards(sqlite_engine, Settings(), Translator(draft)) == 0
    card = _en_card(sqlite_engine, event_id)
    assert card["headline"] == HEADLINE and card["compact"] and card["language_mark"]["headline"] == "In Chinese"
    assert card["analysis"]["translated_from"] is None and card["folded"]
    with sqlite_engine.connect() as conn:
        found = conn.execute(
            select(checks.c.findings).where(checks.c.output == "translation", checks.c.passed.is_(False))
        ).scalars()
        details = [f["detail"] for row in found for f in row]
        assert (
            conn.execute(select(func.count()).select_from(checks).where(checks.c.output == "translation")).scalar() == 4
        )
    assert any("number 80 is missing" in d for d in details) and any("not in English" in d for d in details)
