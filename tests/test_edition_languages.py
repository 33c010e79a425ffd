"""Each edition in its language: on a real day of the harvest replayed offline and on the demo,
every card headline and lead of the en edition is English and of the zh edition Chinese, or is
marked as written in another language; an event with material in the edition's language leads
with it; one without keeps its place and is shown for what it is (compact in the en edition)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import FIXTURES, PACK
from sqlalchemy import select

from newsdesk.core.config import Settings, WriteSettings
from newsdesk.editions.cards import first_sentence, language_marks
from newsdesk.editions.languages import edition_languages, unmarked_parts
from newsdesk.run.pipeline import DEMO_LIMITS, run_pipeline
from newsdesk.store import open_store
from newsdesk.store.schema import editions
from newsdesk.text.language import detect_language
from newsdesk.write.digest import Bullet, Digest, Section, parse_digest

DAY = "2026-02-26"  # a day of the dev week 2026-W09 (never the held-out W11)
STAGES = ["ingest", "cluster", "stories", "rank", "write", "daily", "weekly", "episode", "publish"]


def _replay(tmp_path, source, **run) -> tuple[Settings, dict]:
    s = Settings(data_dir=str(tmp_path), site_dir=str(tmp_path / "site"), write=WriteSettings(by="extractive"))
    engine = open_store(s.database)
    report = run_pipeline(engine, s, stages=STAGES, source=source, **run)
    assert report.problems == []
    with engine.connect() as conn:
        rows = conn.execute(select(editions)).mappings().all()
    engine.dispose()
    s.editions = {
        (r["kind"], r["key"], r["language"]): r for r in rows
    }  # every edition, for the weekly's and episode's tests
    return s, {(r["key"], r["language"]): r["meta"]["cards"] for r in rows if r["kind"] == "daily"}


@pytest.fixture(scope="module")
def real_day(tmp_path_factory):
    """The harvest's items of DAY, imported and run offline as `replay-real` runs them."""
    folder = tmp_path_factory.mktemp("real-day")
    day = folder / "harvest-day.jsonl"
    with open(FIXTURES / "news" / "ai-daily-harvest.jsonl", encoding="utf-8") as f:
        day.write_text("".join(line for line in f if (json.loads(line).get("pub_date") or "")[:10] == DAY))
    return _replay(folder, day)


@pytest.fixture(scope="module")
def demo_offline(tmp_path_factory):
    return _replay(tmp_path_factory.mktemp("demo-offline"), PACK, limits=DEMO_LIMITS)


def _editions(replayed, day=None):
    _, cards = replayed
    return [(key, lang, c) for (key, lang), c in sorted(cards.items()) if day is None or key == day]


@pytest.mark.parametrize("which", ["real_day", "demo_offline"])
def test_every_card_is_in_its_editions_language_or_marked(which, request):
    replayed = request.getfixturevalue(which)
    shown = _editions(replayed, DAY if which == "real_day" else None)
    assert {lang for _, lang, _ in shown} == {"zh", "en"}
    for key, lang, cards in shown:
        assert cards, key
        wrong = [(c["headline"], unmarked_parts(c, lang)) for c in cards if unmarked_parts(c, lang)]
        assert wrong == [], (key, lang)
    for lang in ("zh", "en"):
        counts = edition_languages([c for _, code, cards in shown for c in cards if code == lang], lang)
        assert counts.unmarked == 0 and counts.headline_own > 0, counts.line()  # not vacuous: cards in the language


def test_material_in_the_editions_language_leads_and_the_rest_keeps_its_place(real_day):
    s, cards = real_day
    zh, en = cards[(DAY, "zh")], cards[(DAY, "en")]
    assert [c["event_id"] for c in zh] == [c["event_id"] for c in en]  # the ranking is the same in both
    for card in en:
        english = [m for m in card["members"] if detect_language(m["title"]) == "en"]
        if english:  # an event with an English headline in its coverage leads with one in the en edition
            assert detect_language(card["headline"]) == "en", card["headline"]
        else:  # none: its original headline, marked, compact
            assert card["compact"] and card["language_mark"]["headline"] == "In Chinese", card["headline"]
    assert any(c["compact"] for c in en) and any(not c["compact"] for c in en)
    assert any(
        c["language_mark"]["headline"] == "英文报道" for c in zh
    )  # English coverage the zh edition shows as such
    page = (Path(s.site_dir) / "en" / "daily" / f"{DAY}.html").read_text(encoding="utf-8")
    compact = next(c for c in en if c["compact"])
    assert 'class="card compact other-language"' in page and "In Chinese" in page
    assert compact["excerpt"] == "" or compact["excerpt"] in page.replace("&#34;", '"').replace("&#39;", "'")


def test_a_part_in_another_language_is_marked_once():
    assert unmarked_parts({"headline": "英伟达财报超预期", "summary": "营收681亿美元。"}, "en") == ["headline", "lead"]
    marks = language_marks("英伟达财报超预期", "营收681亿美元，同比增长73%。（量子位）", "en")
    assert marks["language_mark"] == {"headline": "In Chinese", "lead": ""} and marks["compact"]
    assert marks["excerpt"] == "营收681亿美元，同比增长73%。（量子位）"
    english_headline = language_marks("Nvidia beats estimates", "营收681亿美元。（量子位）", "en")
    assert english_headline["language_mark"] == {"headline": "", "lead": "In Chinese"}
    assert not english_headline["compact"]
    assert language_marks("Claude Code Remote Control", "", "zh")["language_mark"]["headline"] == "英文报道"
    assert language_marks("英伟达财报", "营收681亿美元。", "zh")["language_mark"] == {"headline": "", "lead": ""}
    card = {"headline": "英伟达财报", "summary": "营收681亿美元。", **marks}
    assert unmarked_parts(card, "en") == []


def test_a_compact_cards_extract_is_its_first_whole_sentence():
    lead = "Q4营收681亿美元（同比+73%）。（量子位）英伟达称数据中心收入623亿美元。（机器之心）"
    assert first_sentence(lead) == "Q4营收681亿美元（同比+73%）。（量子位）"
    assert first_sentence("It ships today. (The Verge) More later. (Ars)") == "It ships today. (The Verge)"


def test_the_weekly_and_the_episode_digest_have_both_editions(demo_offline):
    s, _ = demo_offline
    weekly = {lang: row for (kind, _, lang), row in s.editions.items() if kind == "weekly"}
    assert set(weekly) == {"zh", "en"}
    assert weekly["en"]["title"].startswith("AI Weekly ") and "📊 The week at a glance" in weekly["en"]["body"]
    assert weekly["zh"]["title"].startswith("AI周报 ") and "📊 本周概览" in weekly["zh"]["body"]
    # The en weekly's parts in Chinese (the demo week's Chinese coverage, its overview lines too) are marked, each once,
    # on its page. Under the test limits its themes are led by English members and it may hold none.
    meta = weekly["en"]["meta"]
    parts = [p for sec in meta["sections"] for p in re.split(r"\n\s*\n", sec["text"].strip())]
    parts += meta["overview"]
    parts += [b["title"] + " " + b["text"] for b in meta["briefs"]]
    chinese = [p for p in parts if detect_language(p) != "en"]
    page = (Path(s.site_dir) / "en" / "weekly" / f"{weekly['en']['key']}.html").read_text(encoding="utf-8")
    body = page.split('class="weekly"', 1)[1]
    assert body.count('<span class="language-mark">In Chinese</span>') == len(chinese)
    meta = weekly["zh"]["meta"]  # and the zh weekly's English parts, which it does hold: 英文报道, each once
    parts = [p for sec in meta["sections"] for p in re.split(r"\n\s*\n", sec["text"].strip())] + meta["overview"]
    parts += [b["title"] + " " + b["text"] for b in meta["briefs"]]
    english = [p for p in parts if detect_language(p) == "en"]
    page = (Path(s.site_dir) / "zh" / "weekly" / f"{weekly['zh']['key']}.html").read_text(encoding="utf-8")
    body = page.split('class="weekly"', 1)[1]
    assert english and body.count('<span class="language-mark">英文报道</span>') == len(english)
    # The demo's episode is in English: the zh digest says so first, and that its quotes are as spoken.
    episode = {lang: row for (kind, _, lang), row in s.editions.items() if kind == "episode"}
    assert set(episode) == {"zh", "en"}
    zh_lines = [ln for ln in episode["zh"]["body"].splitlines() if ln.strip()]
    assert zh_lines[1] == "本期节目的语言是英文。下面的引文是节目原话，没有翻译。" and zh_lines[2] == "摘要"
    assert [ln for ln in episode["en"]["body"].splitlines() if ln.strip()][1] == "Summary"


def test_a_digest_keeps_its_language_note_when_read_back():
    digest = Digest("Week in review", "1", ["A point."], [Section("Topic", "", [Bullet("Said it.")])], "en")
    digest.note = "This episode is in Chinese."
    back = parse_digest(digest.render(), "en")
    assert back.note == digest.note and back.summary == ["A point."] and back.render() == digest.render()
    assert parse_digest(Digest("T", None, ["A."], digest.sections, "en").render(), "en").note == ""
