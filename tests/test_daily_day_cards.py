"""A day's card reads that day's reports (its headline, lead, material badge and counts), a roundup is a
line, and a headline shows no column label: real SQLite store, the real writer stage and daily edition.
Each case is one the 2026-W07/W09 replay showed a reader."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from rows import add_source
from sqlalchemy import insert, select

from newsdesk.core.config import Settings
from newsdesk.editions.daily import build_daily
from newsdesk.store.schema import editions, event_members, events, items
from newsdesk.write.extractive.checked import store_cards

SETTINGS = Settings(languages=["zh", "en"])
OUTLETS = {  # id: (name, language, category)
    "anthropic": ("Anthropic News", "en", "lab"),
    "xzy": ("新智元", "zh", "media"),
    "windsurf": ("Windsurf Blog", "en", "company"),
    "cyber": ("赛博禅心", "zh", "media"),
    "batch": ("The Batch (DeepLearning.AI)", "en", "newsletter"),
    "latent": ("Latent Space", "en", "newsletter"),
    "simonw": ("Simon Willison's Weblog", "en", "blog"),
    "claude": ("Claude Blog", "en", "lab"),
}
OWNERS = {"anthropic": "Anthropic", "claude": "Anthropic"}  # the catalog's owner: one company, two channels


def day(d: int, month: int = 2) -> datetime:
    return datetime(2026, month, d, 2, 0, tzinfo=UTC)  # 10:00 in Shanghai: that local day


def _event(conn, importance: float, reports: list[tuple], **values) -> int:
    """An event of `reports` = [(outlet id, title, summary, material level, published, role)], the
    first its lead, with its coverage counts as the clusterer sets them."""
    now = datetime.now(UTC)
    event_id = conn.execute(
        insert(events).values(
            **{
                "title": reports[0][1],
                "first_published_at": min(r[4] for r in reports),
                "last_published_at": max(r[4] for r in reports),
                "item_count": len(reports),
                "outlets": len({r[0] for r in reports}),
                "independent_outlets": len({r[0] for r in reports}),
                "languages": sorted({OUTLETS[r[0]][1] for r in reports}),
                "category": "lab",
                "score": importance,
                "importance": importance,
                "tab": "featured" if importance >= 4 else "all",
                "updated_at": now,
                **values,
            }
        )
    ).inserted_primary_key[0]
    for n, (outlet, title, summary, level, published, role) in enumerate(reports):
        url = f"https://{outlet}.example/{event_id}/{n}"
        item_id = conn.execute(
            insert(items).values(
                source_id=outlet,
                guid=url,
                url=url,
                title=title,
                summary=summary,
                language=OUTLETS[outlet][1],
                published_at=published,
                first_seen_at=now,
                updated_at=now,
                material_level=level,
                content_hash=url,
            )
        ).inserted_primary_key[0]
        conn.execute(insert(event_members).values(item_id=item_id, event_id=event_id, role=role, joined_at=now))
    return event_id


def _outlets(conn) -> None:
    for sid, (name, language, category) in OUTLETS.items():
        add_source(conn, sid, name, language=language, category=category, owner=OWNERS.get(sid))


def _store(engine, build: list[str], *events_: tuple) -> tuple[list[int], dict]:
    with engine.begin() as conn:
        _outlets(conn)
        ids = [_event(conn, importance, reports, **values) for importance, reports, values in events_]
    store_cards(engine, SETTINGS)  # the writer stage: each event's extractive card in both languages
    for key in build:
        build_daily(engine, SETTINGS, key)
    with engine.connect() as conn:
        rows = conn.execute(select(editions.c.key, editions.c.language, editions.c.body, editions.c.meta)).all()
    return ids, {(r.key, r.language): r for r in rows}


def _card(edition, event_id: int) -> dict:
    return next(c for c in edition.meta["cards"] if c["event_id"] == event_id)


SERIES_G = "Anthropic raises $30 billion in Series G funding at $380 billion post-money valuation"
XZY = "300亿美金为AI新王加冕！Anthropic估值狂飙至3800亿，马斯克急了"
XZY_SUMMARY = "Anthropic完成300亿美元G轮融资，估值达3800亿美元。首次披露年化营收达140亿美元，过去三年增长超10倍。"


def test_a_days_card_badge_and_counts_are_that_days_reports(sqlite_engine):
    """2026-02-12: Anthropic's title-only post said "The headline alone is known" under a "summary
    only" badge and "2 outlets": the level and the count were those of 新智元's report of the 13th."""
    (series_g,), built = _store(
        sqlite_engine,
        ["2026-02-12", "2026-02-13"],
        (
            5.0,
            [
                ("anthropic", SERIES_G, "", "title", day(12), "lead"),
                ("xzy", XZY, XZY_SUMMARY, "summary", day(13), "member"),
            ],
            {},
        ),
    )
    for language, level, one in (("en", "title only", "1 outlet"), ("zh", "仅标题", "1 个来源")):
        card = _card(built[("2026-02-12", language)], series_g)
        badges = {b["kind"]: b["text"] for b in card["badges"]}
        assert badges["level"] == level and badges["outlets"] == one, (language, badges)
        assert [m["outlet"] for m in card["members"]] == ["Anthropic News"]  # the 13th's report is the 13th's
        assert card["outlets"] == 1 and card["independent_outlets"] == 1
        assert "新智元" not in " ".join(b["title"] for b in card["badges"])  # nor in a badge's hover text
    assert "The headline alone is known" in built[("2026-02-12", "en")].body
    assert "title only · 1 outlet" in built[("2026-02-12", "en")].body


def test_an_update_is_headed_by_a_report_of_its_day(sqlite_engine):
    """2026-02-25 (English): the card headed "Gemini 3.1 Pro is now available in Windsurf", a report of
    the 20th, over the lead of 赛博禅心's report of the 25th. The 25th's card is that day's report: in
    Chinese alone, so the English edition lists it under "Reported in Chinese"; the Chinese edition
    heads it by 赛博禅心's headline."""
    summary = "谷歌发布了Gemini 3.1 Pro模型，核心提升在于推理能力，在ARC-AGI-2上得分翻倍。"
    (gemini,), built = _store(
        sqlite_engine,
        ["2026-02-20", "2026-02-25"],
        (
            4.0,
            [
                (
                    "windsurf",
                    "Gemini 3.1 Pro is now available in Windsurf",
                    "Gemini 3.1 Pro is now available in Windsurf for all paid users at a promotional price.",
                    "summary",
                    day(20),
                    "member",
                ),
                ("cyber", "Gemini 3.1 Pro 发布", summary, "summary", day(25), "lead"),
            ],
            {"score_parts": {"updates": {"2026-02-25": 3.0}}},
        ),
    )
    first = _card(built[("2026-02-20", "en")], gemini)
    assert first["headline"] == "Gemini 3.1 Pro is now available in Windsurf" and not first["folded"]
    zh = _card(built[("2026-02-25", "zh")], gemini)
    assert zh["update"] and zh["headline"] == "Gemini 3.1 Pro 发布"
    en = _card(built[("2026-02-25", "en")], gemini)
    assert en["update"] and en["headline"] == "Gemini 3.1 Pro 发布" and en["folded"]
    body = built[("2026-02-25", "en")].body
    assert "Gemini 3.1 Pro is now available in Windsurf" not in body
    assert "# Reported in Chinese (1)" in body and "[Gemini 3.1 Pro 发布](https://cyber.example/" in body


BATCH = "Gemini Seizes the Lead, Investors Panic Over Agentic AI, Optimism at Global AI Summit, Local Versus Cloud"
BATCH_BLURB = (
    "The Batch AI News and Insights: We just released a Skill Builder tool to help you understand in which "
    "areas of AI you're strong."
)


def test_a_roundup_is_one_line_in_its_ranks_place(sqlite_engine, tmp_path):
    """2026-02-27 (English): The Batch's issue was numbered card #6 with its self-promotion as a lead.
    It keeps its place (the ranking is the editorial eval's) as one line: headline, outlet, link."""
    from newsdesk.editions.feed_cards import _fragment
    from newsdesk.eval.cards import CardsReport, lint_edition
    from newsdesk.publish.markdown import headlines_summary

    before = "OpenAI introduces the Stateful Runtime Environment for Agents in Amazon Bedrock"
    after = "An AI agent coding skeptic tries AI agent coding, in excessive detail"
    (first, batch, last), built = _store(
        sqlite_engine,
        ["2026-02-27"],
        (3.0, [("simonw", before, before + " with persistent memory.", "summary", day(27), "lead")], {}),
        (
            2.0,
            [("batch", BATCH, BATCH_BLURB, "summary", day(27), "lead")],
            {"score_parts": {"kinds": "major, roundup"}},
        ),
        (
            1.0,
            [
                (
                    "simonw",
                    after,
                    "Max Woolf rewrote a Rust library with coding agents in two weeks.",
                    "summary",
                    day(27),
                    "lead",
                )
            ],
            {},
        ),
    )
    for language in ("en", "zh"):
        edition = built[("2026-02-27", language)]
        assert [c["event_id"] for c in edition.meta["cards"]] == [first, batch, last]  # the rank's order
        body = edition.body
        line = f"- [{BATCH}](https://batch.example/{batch}/0) — The Batch (DeepLearning.AI)"
        assert line in body and f"## 2. {BATCH}" not in body and "Skill Builder" not in body
        assert body.index("## 1. ") < body.index(line) < body.index("## 2. ")  # numbered cards only
        html = "".join(_fragment(_card(edition, batch), language))
        assert 'class="members roundup"' in html and "Skill Builder" not in html and "<article" not in html
        summary = headlines_summary({"meta": edition.meta, "body": body})  # the Markdown export's summary line
        assert BATCH not in summary and before in summary
        report = CardsReport()
        lint_edition(report, "2026-02-27", language, edition.meta, body, {})
        assert report.total() == 0, report.findings
    # The site's feed lists the day's headlines numbered, and the issue apart as its line.
    from newsdesk.publish.site import publish_site

    publish_site(sqlite_engine, Settings(languages=["zh", "en"], site_dir=str(tmp_path / "site")))
    feed = json.loads((tmp_path / "site" / "en" / "daily.json").read_text("utf-8"))
    entry = next(i for i in feed["items"] if "2026-02-27" in json.dumps(i))
    html = entry.get("content_html") or ""
    numbered, _, rest = html.partition("</ol>")
    assert before in numbered and BATCH not in numbered
    assert f'<li><a href="https://batch.example/{batch}/0">{BATCH}</a> — The Batch (DeepLearning.AI)</li>' in rest


def test_a_headline_shows_no_column_label(sqlite_engine):
    """W09 (English): the weekly and the day's card showed "[AINews] Nano Banana 2 …": the newsletter's
    label in brackets, the outlet's furniture and not the news."""
    title = "[AINews] Nano Banana 2 aka Gemini 3.1 Flash Image Preview: the new SOTA Imagegen model"
    (nano,), built = _store(
        sqlite_engine,
        ["2026-02-27"],
        (
            4.0,
            [
                (
                    "latent",
                    title,
                    "Google shipped Nano Banana 2, its new image model, at half the price.",
                    "summary",
                    day(27),
                    "lead",
                )
            ],
            {},
        ),
    )
    for language in ("en", "zh"):
        card = _card(built[("2026-02-27", language)], nano)
        assert card["headline"] == title.removeprefix("[AINews] "), language
        heads = [ln for ln in built[("2026-02-27", language)].body.splitlines() if ln.startswith(("## 1.", "- 1."))]
        assert len(heads) == 2 and not any("[AINews]" in ln for ln in heads), heads  # the report's link keeps it
    from newsdesk.text.headlines import shown_headline

    assert shown_headline("【速递】Basis完成1亿美元融资") == "Basis完成1亿美元融资"
    assert shown_headline("Inside the lab [Podcast]") == "Inside the lab"
    assert shown_headline("Scaling laws [revisited]") == "Scaling laws [revisited]"  # no column's word
    assert shown_headline("[AINews]") == "[AINews]"  # a label alone stays what it is


def test_shown_headline_keeps_a_bracketed_subject():
    """Only a column's label opening a headline is taken off; a subject in brackets is the news itself."""
    from newsdesk.text.headlines import shown_headline

    assert shown_headline("【GPT-5.4发布】三大亮点一览") == "【GPT-5.4发布】三大亮点一览"
    assert shown_headline("【OpenAI 发布 GPT-5.4】一文读懂") == "【OpenAI 发布 GPT-5.4】一文读懂"
    assert shown_headline("[GPT-5] is here") == "[GPT-5] is here"
    assert shown_headline("[AINews] — Nano Banana 2") == "Nano Banana 2"  # the label's dash goes with it
    assert shown_headline("【速递】：Basis完成1亿美元融资") == "Basis完成1亿美元融资"
    assert shown_headline("［速递］Basis完成1亿美元融资") == "Basis完成1亿美元融资"  # full-width brackets
    assert shown_headline("Basis完成1亿美元融资［速递］") == "Basis完成1亿美元融资"
    assert shown_headline("[Paper] Scaling laws") == "Scaling laws"
    assert shown_headline("[Updated] Claude 4.6 pricing") == "Claude 4.6 pricing"
    assert (
        shown_headline("[Cookbook] Fix(contextual-embeddings): prepend context")
        == "Fix(contextual-embeddings): prepend context"
    )


def test_an_update_written_by_a_model_keeps_its_english_headline(sqlite_engine):
    """An update whose day has only Chinese reports, its English analysis a model's: the card keeps the
    model's English headline and stays in the main list (cards.py `folded`: a model's translation makes
    it English); re-heading it by the day's Chinese title folded it under "Reported in Chinese"."""
    from sqlalchemy import update

    from newsdesk.store.schema import analyses

    summary = "谷歌发布了Gemini 3.1 Pro模型，核心提升在于推理能力，在ARC-AGI-2上得分翻倍。"
    written = "Google releases Gemini 3.1 Pro with doubled reasoning scores"
    (gemini,), _ = _store(
        sqlite_engine,
        [],
        (
            4.0,
            [
                (
                    "windsurf",
                    "Gemini 3.1 Pro is now available in Windsurf",
                    "Gemini 3.1 Pro in Windsurf.",
                    "summary",
                    day(20),
                    "member",
                ),
                ("cyber", "Gemini 3.1 Pro 发布", summary, "summary", day(25), "lead"),
            ],
            {"score_parts": {"updates": {"2026-02-25": 3.0}}},
        ),
    )
    with sqlite_engine.begin() as conn:
        conn.execute(
            update(analyses)
            .where(analyses.c.event_id == gemini, analyses.c.language == "en")
            .values(
                model="a-model", headline=written, body="Google released Gemini 3.1 Pro; its reasoning score doubled."
            )
        )
    build_daily(sqlite_engine, SETTINGS, "2026-02-25")
    with sqlite_engine.connect() as conn:
        edition = conn.execute(
            select(editions.c.meta, editions.c.body).where(editions.c.key == "2026-02-25", editions.c.language == "en")
        ).one()
    card = _card(edition, gemini)
    assert card["update"] and card["headline"] == written and not card["folded"]
    assert "Reported in Chinese" not in edition.body


def test_a_days_independent_count_leaves_out_a_syndicated_copy(sqlite_engine):
    """Day one: Anthropic's post and a syndicated copy of it, one origin; 新智元's own report came the
    next day (the event's 2 independent outlets). Day one's card said "2 outlets / 2 independent"."""
    (series_g,), built = _store(
        sqlite_engine,
        ["2026-02-12"],
        (
            5.0,
            [
                ("anthropic", SERIES_G, "Anthropic raised $30 billion.", "summary", day(12), "lead"),
                ("simonw", SERIES_G, "Anthropic raised $30 billion.", "summary", day(12), "syndicated"),
                ("xzy", XZY, XZY_SUMMARY, "summary", day(13), "member"),
            ],
            {"independent_outlets": 2},
        ),
    )
    for language in ("en", "zh"):
        card = _card(built[("2026-02-12", language)], series_g)
        assert card["outlets"] == 2 and card["independent_outlets"] == 1, (language, card["badges"])


def test_a_days_independent_count_takes_one_companys_channels_as_one_origin(sqlite_engine):
    """Anthropic News and the Claude Blog told the Opus 4.6 launch the same day: two outlets, one
    company speaking; 新智元 reported it the next day (the event's 2 independent outlets). The
    replayed 02-05 card said "2 outlets / 2 independent"."""
    (launch,), built = _store(
        sqlite_engine,
        ["2026-02-05"],
        (
            5.0,
            [
                ("anthropic", "Introducing Claude Opus 4.6", "Our smartest model yet.", "summary", day(5), "lead"),
                (
                    "claude",
                    "Advancing finance with Claude Opus 4.6",
                    "Opus 4.6 for analysts.",
                    "summary",
                    day(5),
                    "member",
                ),
                ("xzy", XZY, XZY_SUMMARY, "summary", day(6), "member"),
            ],
            {"independent_outlets": 2},
        ),
    )
    for language in ("en", "zh"):
        card = _card(built[("2026-02-05", language)], launch)
        assert card["outlets"] == 2 and card["independent_outlets"] == 1, (language, card["badges"])


def test_the_headlines_report_is_the_same_in_html_and_markdown():
    """A folded card headed "Basis完成1亿美元融资" (its report's title without the column label): the
    templates matched members by the raw title, never found it and linked the first report, while the
    Markdown linked the second (editions/cards.headline_member: one rule everywhere)."""
    from newsdesk.core.labels import Labels
    from newsdesk.editions.daily import render_folded, render_roundup
    from newsdesk.editions.feed_cards import _environment as web_environment
    from newsdesk.publish.site import _environment as site_environment

    def member(n: int, title: str) -> dict:
        url = f"https://cyber.example/{n}"
        return {
            "item_id": n,
            "outlet": "赛博禅心",
            "title": title,
            "url": url,
            "published_at": "2026-02-25 10:00",
            "language": "zh",
        }

    card = {
        "event_id": 1,
        "headline": "Basis完成1亿美元融资",
        "folded": True,
        "roundup": False,
        "members": [member(1, "一文看懂AI记账赛道"), member(2, "【速递】Basis完成1亿美元融资")],
    }
    link = 'href="https://cyber.example/2"'
    assert "(https://cyber.example/2)" in render_folded([card], "en")
    for env in (site_environment(), web_environment()):
        html = env.get_template("_folded.html").render(cards=[card], t=Labels("en"))
        assert link in html and "cyber.example/1" not in html
    roundup = {**card, "folded": False, "roundup": True}
    assert "(https://cyber.example/2)" in render_roundup(roundup)
    html = web_environment().get_template("_card.html").render(card=roundup, t=Labels("en"), card_link="/events/1")
    assert link in html and "cyber.example/1" not in html
    feed = site_environment().get_template("feed_daily.html")
    html = feed.render(meta={"cards": [roundup]}, edition={"language": "en"}, root="", t=Labels("en"))
    assert link in html and "cyber.example/1" not in html


def test_a_misdated_events_card_says_its_date_is_doubtful(sqlite_engine):
    """A replayed 2026-02-03 carried "Windsurf Next 1.9544.1028" (its feed's date), which tells of Opus
    4.6 two days before Anthropic announced it: the ranking reads it as misdated (rank/chronology.py),
    and each edition's card says the date is doubtful, in its language."""
    (early,), built = _store(
        sqlite_engine,
        ["2026-02-03"],
        (
            2.5,
            [
                (
                    "windsurf",
                    "Windsurf Next 1.9544.1028",
                    "Claude Opus 4.6 (fast mode) is now available in Windsurf in research preview.",
                    "summary",
                    day(3),
                    "lead",
                ),
            ],
            {"score_parts": {"misdated": -0.5, "dated": "dated 2026-02-03, 2 days before Anthropic News announced it"}},
        ),
    )
    for language, text in (("en", "date doubtful"), ("zh", "日期存疑")):
        badges = {b["kind"]: b for b in _card(built[("2026-02-03", language)], early)["badges"]}
        assert badges["misdated"]["text"] == text and badges["misdated"]["title"]
    assert "date doubtful" in built[("2026-02-03", "en")].body


def test_the_writer_stage_counts_the_cards_held_back(sqlite_engine):
    """The replayed harvest's run summary said analyses_flagged=0 while ten cards had failed their
    checks (unbalanced quotes in a headline) and were not published: the operator reads the count."""
    from newsdesk.write.writers import ExtractiveWriters

    with sqlite_engine.begin() as conn:
        _outlets(conn)
        summary = "Anthropic 发布 Claude Opus 4.6，编程与长上下文能力全面提升，价格不变。"
        _event(conn, 3.0, [("xzy", "Claude Opus 4.6 发布，跑分霸榜", summary, "summary", day(6), "lead")])
        _event(conn, 2.0, [("cyber", "他说“这不对，模型还得再练", summary, "summary", day(6), "lead")])
    stats = ExtractiveWriters().cards(sqlite_engine, SETTINGS)
    assert (stats.written, stats.flagged, stats.clean) == (4, 2, 2)
