"""Event cards and the daily feed's tabs: what a reader sees of an event in a list.

One builder makes the card for the daily edition (stored in its `meta`, then rendered by
the site, the feeds and the Markdown) and for the web app's feed and event pages, so every
place shows an event the same way. A card is a plain, JSON-ready dict; its titles are plain
text (a feed's markup removed), escaped where they are rendered:

    event_id, headline (the analysis's, else the event title), title, importance, tab,
    category, outlets (distinct outlets that covered it), independent_outlets,
    first_published_at, last_published_at (local, "YYYY-MM-DD HH:MM"),
    update     the event began on an earlier day and grew on this one (store/days.py)
    other      the event is not about AI (rank/score.py): the day shows it last, folded under 其他 / Other
    misdated   its feed dates it before the maker announced what it reports (rank/chronology.py)
    roundup    a newsletter's issue listing several stories (rank/score.py's kinds): the day shows it in its
               rank's place as one line (headline, outlet, link), unnumbered, no lead
    members    the member items a reader can open, lead first, then by time (on an update, the
               day's new reports first); a day's card lists the reports up to that day's end, and its
               headline (an update's: one of the day's reports), lead, material badge and outlet counts
               are that day's (a later report is told on its own day): item_id, outlet, title, url, published_at (local,
               "YYYY-MM-DD HH:MM", or only the date when the source gave no time of day),
               material_level, language, role
               (a duplicate, the same URL or text again, e.g. one arXiv paper in two
               listings, is left out: it adds an outlet to the count, not a link)
    analysis   {language, headline, body, status, flags (lines), extractive, replaces_failed} or None;
               only an analysis that passed its checks (a flagged one is never published); an
               extractive body is its lead alone, its notes moved to `notes`
    notes      the extractive card's coverage and disclosure sentences (the event page shows them)
    badges     the notes as one line a reader scans, in the card's language: [{kind, text, title}],
               kinds extract, level (the best material any member had), outlets, misdated (its feed
               dates it before the maker announced what it reports, rank/chronology.py), check
    category_label  the category in the reader's language (core/labels.py)
    check      clean | missing
    summary    with no analysis: the lead item's summary as plain text, else ""
    follows    the earlier event this one follows up (stories/threads.py): {event_id, headline}, or None
    story      the story it is part of, or None: {story_id, title, events: [{event_id, headline,
               date (local YYYY-MM-DD), follows_event_id}]}, its events in time order
    text_language   {headline, lead}: the language each is written in (zh, en or other; lead "" when
               the card has none), read from the text itself, not from the source's catalog entry
    language_mark   {headline, lead}: the label a part shown in another language than the edition's
               carries ("英文报道" / "In Chinese"), "" for a part in the edition's language; the lead
               is marked only when its language differs from the headline's (one mark per language)
    compact    the card has no text in the edition's language: the English edition shows it compact,
               as what it is (its original headline, marked, and the start of its extract)
    excerpt    a compact card's extract, cut to a line
    folded     an English card of an event told only in Chinese that day (no English report of the day, a Chinese
               headline; write/extractive/english.told_only_in_chinese): the English
               edition lists it last, under "Reported in Chinese (N)", by its original headline,
               outlet and link, never in its main list nor under Other, about AI or not (a model's
               translation makes it English: not folded)

In the English edition a card's English reports come first in its coverage list.
"""

from __future__ import annotations

import re

from sqlalchemy import select
from sqlalchemy.engine import Connection, Row

from newsdesk.core.findings import load_findings
from newsdesk.core.labels import Labels
from newsdesk.store.days import minute
from newsdesk.store.schema import analyses, event_members, items, sources
from newsdesk.stories.timelines import story_facts
from newsdesk.text.headlines import shown_headline
from newsdesk.text.html import plain_text, snippet
from newsdesk.text.language import detect_language
from newsdesk.write.extractive.card import (
    EXTRACTIVE,
    LEVEL_RANK,
    choose_headline,
    is_coverage_note,
    split_notes,
    update_lead,
)
from newsdesk.write.extractive.english import english_members, told_only_in_chinese
from newsdesk.write.failed import replaced

SUMMARY_CHARS = 280
EXCERPT_CHARS = 160  # a compact card's extract: about one sentence
MEMBERS_SHOWN = 3  # a card lists this many reports; the rest fold behind "N more"


def flag_lines(flags: list) -> list[str]:
    """The checker's findings as lines a reader can take in; warnings (recorded only) are left out."""
    return [f.line() for f in load_findings(flags) if f.severity != "warn"]


def _members(conn: Connection, event_ids: list[int], tz) -> dict[int, list[dict]]:
    rows = conn.execute(
        select(
            event_members.c.event_id,
            event_members.c.role,
            items.c.id,
            items.c.title,
            items.c.url,
            items.c.published_at,
            items.c.material_level,
            items.c.language,
            items.c.summary,
            items.c.dated_by,
            sources.c.name.label("outlet"),
            sources.c.owner,
        )
        .join(items, items.c.id == event_members.c.item_id)
        .join(sources, sources.c.id == items.c.source_id)
        .where(event_members.c.event_id.in_(event_ids), event_members.c.role != "duplicate")
        .order_by(event_members.c.event_id, event_members.c.role != "lead", items.c.published_at, items.c.id)
    ).all()
    out: dict[int, list[dict]] = {}
    for r in rows:
        out.setdefault(r.event_id, []).append(card_member(r, tz))
    return out


def card_member(r, tz) -> dict:
    """A member report as a card lists it, from a row of items joined to its member row and source
    (role, id, title, url, published_at, dated_by, material_level, language, summary, outlet, and
    the outlet's owner where the row has it: one company's channels are one origin)."""
    return {
        "item_id": r.id,
        "outlet": r.outlet,
        "owner": getattr(r, "owner", None) or "",
        "title": plain_text(r.title),
        "url": r.url,
        "published_at": shown_time(r.published_at, r.dated_by, tz),
        "material_level": r.material_level,
        "language": r.language,
        "role": r.role,
        "summary": r.summary,
    }


def shown_time(moment, dated_by: str, tz) -> str:
    """An item's time on a card: to the minute, or only its date when the source gave no time of
    day (dated_by "day": a made-up 08:00 is UTC midnight in Shanghai, not a time anyone reported)."""
    return minute(moment, tz)[:10] if dated_by == "day" else minute(moment, tz)


def readable_analyses(conn: Connection, event_ids: list[int]) -> list[dict]:
    """The analyses readers may see: those that passed their checks (a flagged one is never
    published as content), each marked `extractive` (chosen from the material by code) and
    `replaces_failed` (standing in for a written draft that failed its checks)."""
    rows = conn.execute(
        select(analyses)
        .where(analyses.c.event_id.in_(event_ids), analyses.c.status == "clean")
        .order_by(analyses.c.event_id, analyses.c.language)
    ).all()
    stand_ins = replaced(
        conn, "analysis", {(f"{r.event_id}:{r.language}", r.material_key) for r in rows if r.model == EXTRACTIVE}
    )
    return [
        {
            **dict(r._mapping),
            "extractive": r.model == EXTRACTIVE,
            "replaces_failed": (f"{r.event_id}:{r.language}", r.material_key) in stand_ins,
        }
        for r in rows
    ]


def _analyses(conn: Connection, event_ids: list[int], readable: list[dict] | None) -> dict[int, dict[str, dict]]:
    out: dict[int, dict[str, dict]] = {}
    for r in readable_analyses(conn, event_ids) if readable is None else readable:
        out.setdefault(r["event_id"], {})[r["language"]] = {
            "language": r["language"],
            "headline": plain_text(r["headline"]),
            "body": r["body"],
            "status": r["status"],
            "flags": flag_lines(r["flags"] or []),
            "extractive": r["extractive"],
            "replaces_failed": r["replaces_failed"],
            "translated_from": r.get("translated_from"),  # its headline and lead translated (write/translate.py)
        }
    return out


def badges(card: dict, language: str, own: list[dict] | None = None) -> list[dict]:
    """A card's notes as one line of badges: extract (the rules' disclosure that code chose the
    sentences), the best material level (what the card could read: its own reports', `own`, default
    its members; an English card's English ones where it has any), outlets / independent, checked.
    Each badge's `title` holds the sentence it stands for, where there is one."""
    t = Labels(language)
    analysis = card["analysis"] or {}
    out = []
    if analysis.get("extractive"):
        text = t.badge_extract + (" · " + t.badge_replaces if analysis.get("replaces_failed") else "")
        out.append(
            {
                "kind": "extract",
                "text": text,
                "title": t.extractive + (" " + t.replaces_failed if analysis.get("replaces_failed") else ""),
            }
        )
    if analysis.get("translated_from"):  # the extract's headline and lead, translated by the model
        source = analysis["translated_from"]
        out.append(
            {
                "kind": "translated",
                "text": t.badge_translated.format(
                    language=t["lang_" + source] if source in ("zh", "en") else t.lang_other
                ),
                "title": t.translated_note,
            }
        )
    own = card["members"] if own is None else own
    if language == "en":  # an English card is told from its English material alone (english.py)
        own = english_members(own) or own
    levels = [m["material_level"] for m in own if m.get("material_level")]
    if levels:
        best = min(levels, key=lambda level: LEVEL_RANK.get(level, 9))
        out.append({"kind": "level", "text": t.get("level_" + best), "title": " ".join(card["notes"])})
    outlets = (
        t.badge_one_outlet
        if card["outlets"] <= 1
        else t.badge_outlets.format(n=card["outlets"], m=card["independent_outlets"])
    )
    out.append({"kind": "outlets", "text": outlets, "title": ""})
    if card.get("misdated"):
        out.append({"kind": "misdated", "text": t.badge_misdated, "title": t.misdated_note})
    out.append(
        {"kind": "check", "text": t.badge_checked if card["check"] == "clean" else t[card["check"]], "title": ""}
    )
    return out


def day_members(event: Row, members: list[dict]) -> tuple[list[dict], list[dict]]:
    """(the reports a day's card shows, the day's own reports) of a row from store.days.day_events: the
    reports published up to the day's end (a later one is told on its own day, as an update), the day's
    new reports first; its own are the first day's reports, or an update's new ones. A row that is no
    day's (the event's page) shows every report, all its own."""
    if not hasattr(event, "day_items"):
        return members, members
    new = set(event.day_items)
    own = [m for m in members if m["item_id"] in new]
    day = min((m["published_at"][:10] for m in own), default="") or min(
        (m["published_at"][:10] for m in members), default=""
    )
    if not own:  # the first day's card: every report of that day
        own = [m for m in members if m["published_at"][:10] <= day]
    shown = [m for m in members if m["published_at"][:10] <= day]
    # The day's new reports first (a stable sort keeps lead-then-time within each part).
    return sorted(shown, key=lambda m: m["item_id"] not in new), own


def _card(event: Row, members: list[dict], analysis: dict | None, tz, language: str) -> dict:
    update = getattr(event, "update", False)
    # A day's card reads that day's reports: its headline, lead, badges and counts (`own`); an earlier
    # report stays listed as context on an update, a later one is its own day's update.
    members, own = day_members(event, members)
    lead_summary = own[0]["summary"] if own else ""  # on an update, a new report's
    if language == "en":  # an English-only reader opens an English report first (the day's first)
        members = sorted(members, key=lambda m: (m not in own, detect_language(m["title"]) != language))
    for m in members:
        m.pop("summary")
    notes: list[str] = []
    headline = shown_headline((analysis or {}).get("headline") or plain_text(event.title))  # no column label
    # A model's analysis is written in the edition's language: its headline stands (a day's raw title
    # would put Chinese over an English analysis and fold the card).
    written = analysis is not None and not analysis["extractive"]
    if update and not written:  # the day's headline is a report of that day, in the edition's language where it has one
        headline = plain_text(choose_headline(own, language, headline)[0])
    if analysis and analysis["extractive"]:
        body, notes = split_notes(analysis["body"])
        if update:  # an update's card says what the day's new reports add, not the first day's lead again
            day = min((m["published_at"][:10] for m in own), default="")
            body = update_lead(analysis["body"], day) or body
        analysis = {**analysis, "body": body}
    outlets = len({m["outlet"] for m in members})
    # One origin a company (cluster/independence.py): Anthropic News and Claude Blog are Anthropic once.
    origins = len({m.get("owner") or m["outlet"] for m in members if m["role"] not in ("syndicated", "duplicate")})
    if members and outlets < event.outlets:  # the event's coverage in words counts later days' outlets too
        notes = [n for n in notes if not is_coverage_note(n)]
    card = {
        "event_id": event.id,
        "headline": headline,
        "title": plain_text(event.title),
        "importance": round(event.importance, 4),
        "tab": event.tab,
        "update": update,
        # Not about AI (rank/score.py): shown after the day's news under 其他 / Other, folded.
        "other": bool((event.score_parts or {}).get("off_topic")),
        # Dated before the maker announced what it reports (rank/chronology.py): a badge says so.
        "misdated": bool((event.score_parts or {}).get("misdated")),
        "roundup": roundup(event),
        "category": event.category or "",
        "category_label": Labels(language).category(event.category) if event.category else "",
        # The outlets of the reports shown: the day's, not coverage that came later.
        "outlets": min(event.outlets, outlets) if members else event.outlets,
        # A syndicated copy is another outlet, not another origin (duplicates are not shown at all).
        "independent_outlets": min(event.independent_outlets, origins or 1) if members else event.independent_outlets,
        "first_published_at": minute(event.first_published_at, tz),
        "last_published_at": minute(event.last_published_at, tz),
        "members": members,
        "analysis": analysis,
        "check": analysis["status"] if analysis else "missing",
        "summary": "" if analysis else snippet(lead_summary, SUMMARY_CHARS),
        "notes": notes,
    }
    card["badges"] = badges(card, language, own)
    card.update(language_marks(card["headline"], lead_text(card), language))
    # Told only in Chinese that day (no English report of its own, a Chinese headline): the English
    # edition folds it; a title-only card's one line is English even when nothing else is.
    # A model's English analysis is never folded (see the module's `folded`).
    card["folded"] = language == "en" and not written and told_only_in_chinese({"members": own}, card["headline"])
    return card


def roundup(event: Row) -> bool:
    """A roundup (a newsletter's issue listing several stories, cluster/terms.is_roundup, recorded by
    rank/score.py among the event's kinds): a day shows it as one line, in its rank's place."""
    kinds = str((event.score_parts or {}).get("kinds") or "")
    return "roundup" in (k.strip() for k in kinds.split(","))


def lead_text(card: dict) -> str:
    """What a card says under its headline: its analysis's prose, else the lead item's summary."""
    return (card["analysis"] or {}).get("body") or card["summary"] or ""


def language_marks(headline: str, lead: str, language: str) -> dict:
    """The languages a card's headline and lead are written in, the marks a part in another
    language than the edition's carries, and whether the card is compact (nothing in the
    edition's language). Read from the text: a harvest item under an English headline is
    summarised in Chinese, and a written analysis is in the language it was asked for."""
    t = Labels(language)
    head = detect_language(headline)
    lead_language = detect_language(lead) if lead.strip() else ""
    foreign = {part: code != language for part, code in (("headline", head), ("lead", lead_language)) if code}
    marks = {
        "headline": t.written_in(head) if foreign.get("headline") else "",
        "lead": t.written_in(lead_language) if foreign.get("lead") and lead_language != head else "",
    }
    compact = all(foreign.values())
    return {
        "text_language": {"headline": head, "lead": lead_language},
        "language_mark": marks,
        "compact": compact,
        "excerpt": first_sentence(lead) if compact else "",
    }


def headline_member(card: dict) -> dict:
    """The report whose headline the card shows (the one a folded card lists), else its first."""
    return next(
        (m for m in card["members"] if card["headline"] in (m["title"], shown_headline(m["title"]))), card["members"][0]
    )


# A lead sentence and the outlet after it, as extractive cards write them: "…。（量子位）" or "…. (The Verge)",
# an outlet's own brackets kept whole: "(The Batch (DeepLearning.AI))"
_ATTRIBUTED = re.compile(r"^.+?[。！？.!?][”’\"')）]?\s*(?:（[^（）\n]{1,80}）|\((?:[^()\n]|\([^()\n]*\)){1,80}\))")


def first_sentence(lead: str) -> str:
    """A compact card's extract: the lead's first sentence with its outlet, whole (a cut sentence
    is never shown), else the start of the text cut at EXCERPT_CHARS."""
    text = " ".join(plain_text(lead).split())
    found = _ATTRIBUTED.match(text)
    if found and len(found.group(0)) <= 2 * EXCERPT_CHARS:
        return found.group(0)
    return snippet(text, EXCERPT_CHARS)


def event_cards(
    conn: Connection,
    rows: list[Row],
    language: str,
    tz,
    *,
    any_language: bool = False,
    readable: list[dict] | None = None,
    members: dict[int, list[dict]] | None = None,
) -> list[dict]:
    """One card per event row, in the rows' order, with the analysis in `language`.

    any_language: without an analysis in `language`, show one in another language rather
    than none (the web app does; a published edition in one language does not).
    readable: readable_analyses of these events, when the caller read them already (the event page).
    members: each event's members as card_member gives them (no duplicates; the lead first, then by
    time), when the caller read them already (the event page reads every member).
    """
    ids = [r.id for r in rows]
    if not ids:
        return []
    members, written = members if members is not None else _members(conn, ids, tz), _analyses(conn, ids, readable)
    stories = story_facts(conn, ids, language, tz)
    cards = []
    for r in rows:
        by_language = written.get(r.id, {})
        analysis = by_language.get(language)
        if analysis is None and any_language:
            analysis = next(iter(by_language.values()), None)
        cards.append(
            {
                **_card(r, members.get(r.id, []), analysis, tz, language),
                **stories.get(r.id, {"follows": None, "story": None}),
            }
        )
    return cards


def day_tabs(cards: list[dict], language: str) -> list[dict]:
    """Tabs of a day's feed: all, then featured and p1 (要闻 includes 精选), then categories by size.

    Each tab is {id, label, events: [event ids in the cards' order]}; empty tabs are left out.
    `cards` only needs event_id, tab and category.
    """
    t = Labels(language)
    tabs = [{"id": "all", "label": t.all, "events": [c["event_id"] for c in cards]}]
    ranked = {"featured": ("featured",), "p1": ("featured", "p1")}
    for tab, included in ranked.items():
        chosen = [c["event_id"] for c in cards if c["tab"] in included]
        if chosen:
            tabs.append({"id": tab, "label": t[tab], "events": chosen})
    by_category: dict[str, list[int]] = {}
    for c in cards:
        if c["category"]:
            by_category.setdefault(c["category"], []).append(c["event_id"])
    for category, chosen in sorted(by_category.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        tabs.append({"id": "category-" + category, "label": t.category(category), "events": chosen})
    return tabs


HEADLINES = 10  # the headline list fits one screen


def event_path(language: str, event_id: int) -> str:
    """An event's page on the published site, relative to its root (site_url in absolute links)."""
    return f"{language}/events/{event_id}.html"


def day_headlines(cards: list[dict]) -> list[dict]:
    """The day's headline list: its featured events, then its p1 events, in the cards' order.
    Each is {event_id, headline, outlets, tab, mark}: one line with its outlet count, linking to the
    card; `mark` is the headline's language mark when it is in another language ("" else). A roundup
    is no headline. A folded card (the English edition's "Reported in Chinese") is one only when it is
    the day's featured news: its line, marked "In Chinese", links to its place in that list (the
    replayed 2026-03-04's English page led with an OpenAI physics post while the departure of Qwen's
    lead, the day's featured news, reported only in Chinese, was a line at its foot)."""
    # Cards stored before the fold or roundups have no such key; a roundup is a line, no headline.
    shown = [c for c in cards if not c.get("roundup") and (not c.get("folded") or c["tab"] == "featured")]
    chosen = [c for c in shown if c["tab"] == "featured"] + [c for c in shown if c["tab"] == "p1"]
    return [
        {
            "event_id": c["event_id"],
            "headline": c["headline"],
            "outlets": c["outlets"],
            "tab": c["tab"],
            "mark": (c.get("language_mark") or {}).get("headline", ""),  # cards stored before marks have none
        }
        for c in chosen[:HEADLINES]
    ]
