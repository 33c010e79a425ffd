"""Each edition in its language: on a real day of the harvest replayed offline and on the demo,
every card headline and lead of the en edition is English and of the zh edition Chinese, or is
marked as written in another language; an event with material in the edition's language leads
with it; in the en edition one without folds into the day's "Reported in Chinese (N)" list."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from conftest import FIXTURES, PACK
from markupsafe import escape
from sqlalchemy import insert, select, update
from test_daily import add_event, seed

from newsdesk.cluster import event_brief
from newsdesk.core.config import Settings, WriteSettings
from newsdesk.editions.cards import event_cards, first_sentence, headline_member, language_marks
from newsdesk.editions.languages import card_text, edition_languages, has_material_in, unmarked_parts
from newsdesk.run.pipeline import DEMO_LIMITS, run_pipeline
from newsdesk.store import open_store
from newsdesk.store.schema import editions, event_members, events, items, sources
from newsdesk.text.companies import names_outlet
from newsdesk.text.language import detect_language
from newsdesk.write.digest import Bullet, Digest, Section, parse_digest
from newsdesk.write.extractive.checked import store_card
from newsdesk.write.extractive.english import states_news

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


def test_the_english_main_list_is_english_and_the_rest_folds_as_reported_in_chinese(real_day):
    s, cards = real_day
    zh, en = cards[(DAY, "zh")], cards[(DAY, "en")]
    assert [c["event_id"] for c in zh] == [c["event_id"] for c in en]  # the ranking is the same in both
    main = [c for c in en if not c["folded"] and not c["other"]]
    folded = [c for c in en if c["folded"]]
    assert main and folded  # not vacuous: the day has both kinds
    for card in en:
        english = [m for m in card["members"] if detect_language(m["title"]) == "en"]
        if english:  # English material: in the main list, headline and lead in English, nothing marked
            assert not card["folded"] and detect_language(card["headline"]) == "en", card["headline"]
            lead = card_text(card)["lead"]
            assert not lead.strip() or detect_language(lead) == "en", (card["headline"], lead)
            assert card["language_mark"] == {"headline": "", "lead": ""}
            assert detect_language(card["members"][0]["title"]) == "en"  # an English report opens its coverage
            # Headline and lead from one report: the lead's sentences are that report's, or it says only the
            # headline is in English.
            # The lead's sentences are an English report's (the headline's, or one telling what it names), or
            # it says only the headline is in English.
            outlets = [m["outlet"] for m in card["members"] if detect_language(m["title"]) == "en"]
            assert lead.startswith("Only the headline is in English: the ") or any(f"({o})" in lead for o in outlets)
        elif not card["other"]:  # none: folded, never in the main list
            assert card["folded"] and card["language_mark"]["headline"] == "In Chinese", card["headline"]
    assert counts_with_material(en) == (len([c for c in en if has_material_in(c, "en")]),) * 2
    assert any(c["language_mark"]["headline"] == "英文报道" for c in zh)  # the zh edition still shows English coverage
    # The page: the main list's cards, then one "Reported in Chinese (N)" list of original headline, outlet, link.
    page = (Path(s.site_dir) / "en" / "daily" / f"{DAY}.html").read_text(encoding="utf-8")
    head, fold = page.split('<section class="folded"', 1)
    listed = head.split('<details class="other"', 1)[0]  # the main list (not about AI: folded under Other)
    assert f"Reported in Chinese ({len(folded)})" in fold and 'class="card compact' not in listed
    for card in folded:
        shown = headline_member(card)  # the report whose headline the card carries
        assert shown["title"] == card["headline"] or shown is card["members"][0]
        assert f'id="event-{card["event_id"]}"' not in head and f'data-event-id="{card["event_id"]}"' in fold
        assert escape(shown["url"]) in fold and escape(shown["title"]) in fold and escape(shown["outlet"]) in fold
    for card in main:
        assert f'id="event-{card["event_id"]}"' in head
    headlines = head.split('class="headlines"', 1)[1].split("</section>", 1)[0] if 'class="headlines"' in head else ""
    # The headline list is the main list's, and the day's featured news where only Chinese reports
    # told it (marked, linking to its line in the fold); no other folded event.
    for card in folded:
        listed_here = f'href="#event-{card["event_id"]}"' in headlines
        assert listed_here == (card["tab"] == "featured"), (card["headline"], card["tab"])
        assert f'id="event-{card["event_id"]}"' in fold  # where that link lands
    assert headlines.count("In Chinese") == len([c for c in folded if c["tab"] == "featured"])
    assert any(c["tab"] == "featured" for c in folded)  # not vacuous: this day's featured news is Chinese
    # The day's feed entry too: the main list's headlines, then the same list.
    feed = json.loads((Path(s.site_dir) / "en" / "daily.json").read_text(encoding="utf-8"))
    entry = next(e["content_html"] for e in feed["items"] if DAY in e["title"])
    listed, folded_part = entry.split('<section class="folded"', 1)
    assert f"Reported in Chinese ({len(folded)})" in folded_part and all(escape(c["headline"]) in listed for c in main)
    # The Markdown edition ends on the same list.
    body = s.editions[("daily", DAY, "en")]["body"]
    assert f"# Reported in Chinese ({len(folded)})" in body
    assert body.rstrip().endswith(f"— {headline_member(folded[-1])['outlet']}")


def counts_with_material(cards: list[dict]) -> tuple[int, int]:
    counts = edition_languages(cards, "en")
    return counts.with_material, counts.with_material_headline_own


def _english_event(engine, *, english_summary: str) -> int:
    """An event with a Chinese report full of facts and an English one, as the harvest has them."""
    when = datetime(2026, 3, 4, 2, tzinfo=UTC)
    with engine.begin() as conn:
        seed(conn)
        event_id = add_event(
            conn,
            title="OpenAI 发布 GPT-5.4",
            when=when,
            score=0.9,
            tab="featured",
            members=[
                ("jqzx", "OpenAI 发布 GPT-5.4，上下文 100 万", "https://jqzx.example/g", when, "lead"),
                ("simonw", "GPT-5.4 is out", "https://simonw.example/g", when, "member"),
            ],
        )
        rows = {
            r.title: r.id
            for r in conn.execute(
                select(items.c.id, items.c.title).join(event_members, event_members.c.item_id == items.c.id)
            )
        }
        summaries = {
            "OpenAI 发布 GPT-5.4，上下文 100 万": "OpenAI称GPT-5.4的上下文达100万token，SWE-bench得分80%，价格2.5美元。",
            "GPT-5.4 is out": english_summary,
        }
        for title, summary in summaries.items():
            language = "en" if title.startswith("GPT") else "zh"
            conn.execute(update(items).where(items.c.id == rows[title]).values(summary=summary, language=language))
    return event_id


def _stored_en(engine, event_id) -> dict:
    with engine.connect() as conn:
        store_card(engine, event_brief(conn, event_id), "en", stored_key=None)
        row = conn.execute(select(events).where(events.c.id == event_id)).one()
        return event_cards(conn, [row], "en", "Asia/Shanghai")[0]


def test_an_english_card_takes_headline_and_lead_from_one_english_report(sqlite_engine):
    event_id = _english_event(
        sqlite_engine, english_summary="OpenAI released GPT-5.4 on Tuesday with a context window of one million tokens."
    )
    card = _stored_en(sqlite_engine, event_id)
    assert card["headline"] == "GPT-5.4 is out" and card["check"] == "clean"
    assert card["analysis"]["body"] == (
        "OpenAI released GPT-5.4 on Tuesday with a context window of one million tokens. (Simon Willison)"
    )  # the English report's own sentence, not the Chinese one with more numbers
    assert not card["folded"] and not card["compact"] and card["language_mark"] == {"headline": "", "lead": ""}
    assert [m["outlet"] for m in card["members"]] == ["Simon Willison", "机器之心"]  # the English report first


def test_the_lead_report_names_an_english_card_its_sentences_tell(sqlite_engine):
    """The lab's own report names the event ("Introducing GPT-5.4") when another English report's
    sentence, which leads the card, tells the same thing; an unrelated headline never does."""
    when = datetime(2026, 3, 5, 2, tzinfo=UTC)
    with sqlite_engine.begin() as conn:
        seed(conn)
        ids = [
            add_event(
                conn,
                title=title,
                when=when,
                score=0.9,
                tab="featured",
                members=[
                    ("qbit", title, f"https://qbit.example/{n}", when, "lead"),
                    ("simonw", "GPT-5.4 is now available in Windsurf", f"https://simonw.example/{n}", when, "member"),
                ],
            )
            for n, title in enumerate(("Introducing GPT-5.4", "A week of agents"))
        ]
        for item_id, title in conn.execute(select(items.c.id, items.c.title)).all():
            if title == "GPT-5.4 is now available in Windsurf":
                text = "GPT-5.4 is now available in Windsurf with multiple reasoning effort levels."
            elif title in ("Introducing GPT-5.4", "A week of agents"):
                text = "OpenAI 发布了新模型。"
            else:
                continue
            conn.execute(update(items).where(items.c.id == item_id).values(summary=text))
    named, unrelated = (_stored_en(sqlite_engine, i) for i in ids)
    lead = "GPT-5.4 is now available in Windsurf with multiple reasoning effort levels. (Simon Willison)"
    assert named["headline"] == "Introducing GPT-5.4" and named["analysis"]["body"].startswith(lead)
    assert unrelated["headline"] == "GPT-5.4 is now available in Windsurf"  # headline and lead from one report
    assert named["check"] == unrelated["check"] == "clean"


def test_an_english_headline_over_chinese_summaries_says_so_in_english(sqlite_engine):
    event_id = _english_event(sqlite_engine, english_summary="Simon Willison 称 GPT-5.4 的价格为 2.5 美元。")
    card = _stored_en(sqlite_engine, event_id)
    assert card["headline"] == "GPT-5.4 is out" and card["check"] == "clean"
    # Both reports have a summary, both in Chinese: "summaries", plural.
    assert card["analysis"]["body"] == "Only the headline is in English: the reports' summaries are in Chinese."
    assert detect_language(card_text(card)["lead"]) == "en" and not card["folded"]
    assert not re.search(r"[\u4e00-\u9fff]", card["headline"] + card["analysis"]["body"])


# The harvest's and the ai-blogs feeds' reports of GPT-5.4 on 2026-03-05, as they came: outlet (id, name,
# catalog category, tier), headline, summary ("" for a title-only feed item), role.
GPT54 = {
    "openai": (
        ("openai-research-news", "OpenAI Research News", "lab", 1),
        "Introducing GPT-5.4",
        "",
        "lead",
    ),
    "windsurf": (
        ("windsurf-blog", "Windsurf Blog", "company", 2),
        "GPT-5.4 is now available in Windsurf",
        "GPT-5.4 is now available in Windsurf with multiple reasoning effort levels. For a limited time, self serve "
        "users enjoy promotional pricing starting at 1x credits.",
        "member",
    ),
    "ars": (
        ("ars-technica-ai", "Ars Technica — AI", "media", 2),
        "OpenAI introduces GPT-5.4 with more knowledge-work capability",
        "OpenAI 发布 GPT-5.4，大幅增强了“计算机使用”任务的处理能力。",
        "member",
    ),
    "youtube": (
        ("openai-youtube", "OpenAI YouTube", "media", 2),
        "Computer Use & Frontend UI with GPT-5.4 Thinking",
        "GPT-5.4 Thinking 的计算机使用能力（CUA）可将 Token 消耗降低三分之二。",
        "member",
    ),
    # Claude Sonnet 4.6 on 2026-02-17, from the ai-blogs feeds
    "anthropic": (("anthropic-news", "Anthropic News", "lab", 1), "Introducing Claude Sonnet 4.6", "", "lead"),
    "windsurf-sonnet": (
        ("windsurf-blog", "Windsurf Blog", "company", 2),
        "Claude Sonnet 4.6 is now available in Windsurf",
        "Claude Sonnet 4.6 is now available in Windsurf with limited-time promotional pricing for self serve "
        "users: 2x credits without thinking and 3x credits with thinking.",
        "member",
    ),
}


def _gpt54_event(engine, reports: list[str]) -> int:
    when = datetime(2026, 3, 5, 2, tzinfo=UTC)
    with engine.begin() as conn:
        for (sid, name, category, tier), *_ in (GPT54[r] for r in reports):
            conn.execute(
                insert(sources).values(
                    id=sid, name=name, url=f"https://{sid}.example/", kind="rss", language="en", tier=tier,
                    category=category,
                )
            )  # fmt: skip
        event_id = add_event(
            conn,
            title="Introducing GPT-5.4",
            when=when,
            score=0.9,
            tab="featured",
            category="lab",
            members=[(GPT54[r][0][0], GPT54[r][1], f"https://{r}.example/gpt-5-4", when, GPT54[r][3]) for r in reports],
        )
        for r in reports:
            (sid, *_), title, summary, _ = GPT54[r]
            conn.execute(
                update(items)
                .where(items.c.source_id == sid)
                .values(summary=summary, language="en", material_level="summary" if summary else "title")
            )
    return event_id


def test_an_english_card_leads_with_an_independent_outlets_statement_not_a_partners_notice(sqlite_engine):
    """GPT-5.4 on 2026-03-05: the only English sentence is Windsurf's availability notice; Ars
    Technica's headline states the news, and leads under OpenAI's own "Introducing GPT-5.4"."""
    card = _stored_en(sqlite_engine, _gpt54_event(sqlite_engine, ["openai", "windsurf", "ars", "youtube"]))
    assert card["headline"] == "Introducing GPT-5.4" and card["check"] == "clean"
    lead = card["analysis"]["body"].split("\n\n")[0]
    assert lead == "OpenAI introduces GPT-5.4 with more knowledge-work capability. (Ars Technica — AI)"


def test_another_outlets_english_headline_leads_where_no_english_sentence_exists(sqlite_engine):
    """Two English headlines from two outlets, the summary Chinese: the card states the news in
    English (Ars Technica's headline) instead of saying only the headline is in English."""
    card = _stored_en(sqlite_engine, _gpt54_event(sqlite_engine, ["openai", "ars", "youtube"]))
    assert card["headline"] == "Introducing GPT-5.4" and card["check"] == "clean"
    assert card["analysis"]["body"].startswith(
        "OpenAI introduces GPT-5.4 with more knowledge-work capability. (Ars Technica — AI)"
    )
    assert "Only the headline is in English" not in card["analysis"]["body"]


def test_a_partners_availability_headline_never_leads(sqlite_engine):
    """Claude Sonnet 4.6 on 2026-02-17: Anthropic's title alone, and Windsurf's post, whose one
    sentence sells ("limited-time promotional pricing"): its headline is the notice itself and does
    not lead; the card says the headline alone is known."""
    event_id = _gpt54_event(sqlite_engine, ["anthropic", "windsurf-sonnet"])
    card = _stored_en(sqlite_engine, event_id)
    assert card["headline"] == "Introducing Claude Sonnet 4.6" and card["check"] == "clean"
    assert "Windsurf" not in card["analysis"]["body"].split("\n\n")[0]
    assert card["analysis"]["body"].startswith("The headline alone is known")


@pytest.mark.parametrize(
    "title, statement",
    [  # the harvest's English headlines of 2026-W10
        ("OpenAI introduces GPT-5.4 with more knowledge-work capability", True),
        ("Musk fails to block California data disclosure law he fears will ruin xAI", True),
        ("Introducing GPT-5.4", False),  # no subject: the lab's own title, not a statement
        ("Are AI Datacenters Increasing Electric Bills for American Households?", False),
        ("How Coinbase scaled AI to 1,000+ engineers | Chintan Turakhia", False),
        ("The Pentagon’s bombshell deal with OpenAI, explained", False),
        ("[AINews] GPT 5.4: SOTA Knowledge Work -and- Coding -and- CUA Model, OpenAI is so very back", False),
        ("Computer Use & Frontend UI with GPT-5.4 Thinking", False),
        ("GPT-5.4 Thinking System Card", False),
    ],
)
def test_a_headline_that_states_the_news(title, statement):
    assert states_news(title) is statement


def test_a_partner_is_a_company_channel_the_events_subject_does_not_name():
    assert names_outlet("Introducing GPT-5.4", "OpenAI Research News")  # GPT-5.4 is OpenAI's
    assert not names_outlet("Introducing GPT-5.4", "Windsurf Blog")
    assert names_outlet("Windsurf Next 1.9566.1015", "Windsurf Next Changelog")


def test_english_counts_read_one_and_many():
    from newsdesk.core.labels import Labels

    t = Labels("en")
    assert [t.plural("events_n", n) for n in (0, 1, 2)] == ["events", "event", "events"]
    assert t.plural("outlets", 1, m=1) == "1 outlet (1 independent)"
    assert t.plural("outlets", 3, m=2) == "3 outlets (2 independent)"
    assert Labels("zh").plural("outlets", 1, m=1) == "1 个来源（1 个独立）"
    assert t.reported_in_zh.format(n=4) == "Reported in Chinese (4)"
    # The weekly of a week with no news says how many events it had, one or many.
    from newsdesk.write.extractive.weekly import empty_week

    routine = {"score_parts": {"routine": True}}
    assert "its one event is routine" in empty_week([routine], "en")
    assert "its 2 events are routine" in empty_week([routine, routine], "en")
    assert "its one event carries no date" in empty_week([{"score_parts": {"undated": True}}], "en")


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


def test_the_web_apps_english_day_folds_chinese_only_events_and_counts_read_right(sqlite_engine):
    """The web app reads the store live (serve/queries.py): in English, the 22nd's one event, told only
    in Chinese, is a line under "Reported in Chinese (1)", not a card; an event page and search say
    "1 outlet" where there is one."""
    from fastapi.testclient import TestClient
    from test_web_app import TOKEN, seed_store

    from newsdesk.serve.app import create_app

    seed_store(sqlite_engine)
    with TestClient(create_app(sqlite_engine, Settings(web_token=TOKEN))) as client:
        client.get("/ui/en", params={"next": "/"})
        day = client.get("/?day=2026-04-22").text
        main, fold = day.split('<section class="folded"', 1)
        assert 'id="event-4"' not in main and "Reported in Chinese (1)" in fold
        assert 'data-event-id="4"' in fold and "昨天的开源语音模型发布" in fold and "机器之心" in fold
        busy = client.get("/").text  # the 23rd: events with English reports stay cards, none folded
        assert 'id="event-1"' in busy and 'class="folded"' not in busy
        one = client.get("/events/4").text
        assert "<strong>1</strong> outlet," in one and "1 item" in one and "1 items" not in one
        assert "<strong>2</strong> outlets," in client.get("/events/1").text
