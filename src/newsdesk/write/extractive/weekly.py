"""The extractive weekly report: the week's events grouped into themes by the weekly's own
grouping (write.weekly.group_themes over the events' vectors), each theme named from its
events' own headlines, each event told by its card's lead facts, and the briefs.

    briefs, vectors = load_week(conn, settings, "2025-W09")
    report = extractive_weekly(briefs, vectors, language="zh")
    report.render(title, properties)    # the model-written report's form, block for block

A theme's heading is the terms its events' headlines share (rarest in the week first), or
for a theme whose headlines share none, its lead event's most distinctive headline terms.
A brief is one item: its title, its source and 1–3 sentences of that item's own text (the
ones with figures first), never a sentence from another member of the event. Given the week's
stories (editions.weekly.week_stories), a theme's events of one story are one entry under
their story line, as in the written report.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from newsdesk.write.extractive.card import (
    LEVEL_RANK,
    ExtractiveCard,
    choose_headline,
    extractive_card,
    member_text,
)
from newsdesk.write.extractive.text import (
    describes_article,
    is_complete,
    join,
    key_numbers,
    length,
    sentences,
    terms,
)
from newsdesk.write.weekly import (
    MAX_BRIEFS,
    MAX_SECTIONS,
    PER_SECTION,
    WeekEvent,
    group_themes,
)
from newsdesk.write.weekly_edition import (
    Entry,
    render_weekly,
    story_entries,
    with_story_lines,
)

MAX_BRIEF_SENTENCES = 3
HEADING_TERMS = 3


@dataclass
class Theme:
    heading: str
    events: list[int]  # in the order they are told
    paragraphs: list[str]  # one per event, in that order
    entries: list[Entry] = field(default_factory=list)  # the events threaded by story; none: each alone

    @property
    def story_lines(self) -> list[str]:
        return [e.line for e in self.entries if e.line]

    @property
    def prose(self) -> str:
        """What the checker reads: the heading and the items. The story lines are left out, as from
        the written report: stored headlines and dates arranged by code, no sentence of the material;
        they would only be counted against it (a line naming a theme's events once more can read as a loop)."""
        return "\n\n".join([self.heading, *self.paragraphs])

    @property
    def text(self) -> str:
        """The theme as published: each story's line before its events."""
        if not self.entries:
            return self.prose
        blocks, _ = with_story_lines(dict(zip(self.events, self.paragraphs)), self.entries)
        return "\n\n".join([self.heading, *blocks])


@dataclass
class Brief:
    event_id: int
    item_id: int
    title: str
    source: str
    text: str

    def line(self) -> str:
        return f"{self.title} — {self.source} / {self.text}"


@dataclass
class ExtractiveWeekly:
    language: str
    summary: str
    overview: list[str]
    themes: list[Theme]
    briefs: list[Brief]
    events: int
    facts: list[str] = field(default_factory=list)  # computed counts the text states, for the checker's material

    def render(self, title: str, properties: dict) -> str:
        return render_weekly(
            title,
            {**properties, "summary": self.summary},
            self.overview,
            [t.text for t in self.themes],
            [b.line() for b in self.briefs],
        )

    def meta(self) -> dict:
        """The parts the weekly edition stores in `meta` (the model-written report's keys)."""
        return {
            "summary": self.summary,
            "overview": self.overview,
            "sections": [
                {
                    "heading": t.heading,
                    "status": "clean",
                    "findings": [],
                    "events": t.events,
                    "text": t.text,
                    "story_lines": t.story_lines,
                }
                for t in self.themes
            ],
            "briefs": [
                {"event_id": b.event_id, "item_id": b.item_id, "title": b.title, "source": b.source, "text": b.text}
                for b in self.briefs
            ],
            "flags": [],
            "events": self.events,
            "extractive": True,
        }


def _display(term: str, texts: list[str]) -> str:
    for text in texts:
        m = re.search(rf"(?<![A-Za-z0-9]){re.escape(term)}(?![A-Za-z0-9])", text, re.I)
        if m:
            return m.group(0)
    return term


def theme_heading(headlines: list[str], idf: dict[str, float], language: str) -> str:
    """The terms the theme's headlines share, rarest in the week first; else the most
    distinctive terms of its first (lead) headline."""
    per = [set(terms(h)) for h in headlines]
    counts = Counter(t for s in per for t in s)
    shared = [t for t, c in counts.items() if c >= 2]
    pool = shared or list(dict.fromkeys(terms(headlines[0])))
    chosen = sorted(pool, key=lambda t: (-counts[t], -idf.get(t, 0.0)))[:HEADING_TERMS]
    # Shown in the order the lead headline says them, as its sources wrote them.
    lead = headlines[0].lower()
    chosen.sort(key=lambda t: lead.find(t) if t in lead else len(lead))
    return ("、" if language == "zh" else ", ").join(_display(t, headlines) for t in chosen) or headlines[0]


def _outlets(brief: dict) -> str:
    names = list(dict.fromkeys(m.get("source_name") or "" for m in brief.get("members") or []))
    return "、".join(names[:2])


def item_brief(brief: dict, language: str) -> Brief:
    """One item of the event (best material, edition's language first) and its own sentences."""
    members = [m for m in brief.get("members") or [] if m.get("role") != "duplicate"]
    with_text = [m for m in members if member_text(m).strip()]
    if with_text:
        item = min(
            with_text,
            key=lambda m: (
                m.get("language") != language,
                LEVEL_RANK.get(m.get("material_level"), 9),
                m.get("role") != "lead",
            ),
        )
    else:
        _, item_id = choose_headline(members, language, brief.get("title") or "")
        item = next((m for m in members if m["item_id"] == item_id), members[0])
    own = [
        s for s in sentences(member_text(item)) if is_complete(s) and 5 <= length(s) <= 70 and not describes_article(s)
    ]
    # Figures first, then the item's own order.
    picked = sorted(own, key=lambda s: (not key_numbers(s), own.index(s)))[:MAX_BRIEF_SENTENCES]
    picked.sort(key=own.index)
    text = join(picked) or ("只有标题。" if language == "zh" else "Title only.")
    return Brief(
        brief["event_id"], item["item_id"], (item.get("title") or "").strip(), item.get("source_name") or "", text
    )


def extractive_weekly(
    briefs: list[dict],
    vectors: dict[int, np.ndarray],
    *,
    language: str = "zh",
    stories: dict[int, dict] | None = None,
    week: str = "",
    max_sections: int = MAX_SECTIONS,
    per_section: int = PER_SECTION,
    max_briefs: int = MAX_BRIEFS,
) -> ExtractiveWeekly:
    """The week's report from its events (cluster.event_brief dicts, most important first), each
    event's vector (mean of its members' item vectors) and, to thread themes by story, the week's
    stories (editions.weekly.week_stories, in `language`) and its key."""
    cards = {b["event_id"]: extractive_card(b, language) for b in briefs}
    by_id = {b["event_id"]: b for b in briefs}
    candidates = [
        WeekEvent(
            id=b["event_id"],
            title=cards[b["event_id"]].headline,
            score=float(len(briefs) - n),
            sources=[],
            material="",
            members=[],
            fingerprint=[],
            vector=vectors.get(b["event_id"]),
        )
        for n, b in enumerate(briefs)
    ]
    groups = group_themes(
        [e for e in candidates if e.vector is not None], max_sections=max_sections, per_section=per_section
    )
    idf = headline_idf(cards)

    themes = [
        extractive_theme([e.id for e in group], cards, by_id, idf, language, stories=stories, week=week)
        for group in groups
    ]
    themed = {i for t in themes for i in t.events}
    chosen = [item_brief(b, language) for b in briefs if b["event_id"] not in themed][:max_briefs]
    summary, overview, facts = extractive_summary(themes, by_id, len(briefs), language)
    facts += [f"events {len(briefs)}", f"themes {len(themes)}", f"briefs {len(chosen)}"]
    # A theme tells a title-only event by its card's disclosure ("Title only: …"): code's words, not a claim.
    facts += sorted({cards[i].disclosure for t in themes for i in t.events if cards[i].disclosure})
    return ExtractiveWeekly(language, summary, overview, themes, chosen, len(briefs), facts)


def headline_idf(cards: dict[int, ExtractiveCard]) -> dict[str, float]:
    """How rare each headline term is in the week: what names a theme."""
    headlines = [c.headline for c in cards.values()]
    df = Counter(t for h in headlines for t in set(terms(h)))
    return {t: math.log((1 + len(headlines)) / (1 + c)) for t, c in df.items()}


def extractive_theme(
    event_ids: list[int],
    cards: dict[int, ExtractiveCard],
    by_id: dict[int, dict],
    idf: dict[str, float],
    language: str,
    *,
    stories: dict[int, dict] | None = None,
    week: str = "",
) -> Theme:
    """One theme of these events (most important first): named from their headlines, each event told
    by its card's lead sentences; with `stories`, the events of one story together under their line."""
    zh = language == "zh"
    entries = story_entries(event_ids, stories, week, language) if stories else []
    told = [i for entry in entries for i in entry.events] or event_ids
    paragraphs = []
    for i in told:
        card = cards[i]
        lead = join([s.text for s in card.lead if s.text != card.headline]) or card.disclosure
        paragraphs.append(
            f"{card.headline}（{_outlets(by_id[i])}）{lead}"
            if zh
            else f"{card.headline} ({_outlets(by_id[i]).replace('、', ', ')}) {lead}"
        )
    # Named in the order of importance: the lead headline's terms come first.
    return Theme(theme_heading([cards[i].headline for i in event_ids], idf, language), list(told), paragraphs, entries)


def extractive_summary(
    themes: list[Theme], by_id: dict[int, dict], events: int, language: str
) -> tuple[str, list[str], list[str]]:
    """The summary (the week's counts and its themes' names), one overview line per theme with its
    coverage, and the computed facts they state (for the checker's material)."""
    zh = language == "zh"
    heads = [t.heading for t in themes]
    if zh:
        summary = f"本周共 {events} 个事件，{len(themes)} 个主题：" + "；".join(heads) + "。"
    else:
        summary = f"This week: {events} events in {len(themes)} themes: " + "; ".join(heads) + "."
    overview, facts = [], [f"events {events}", f"themes {len(themes)}"]
    for t in themes:
        outlets = sum(by_id[i].get("outlets") or 0 for i in t.events)
        independent = sum(by_id[i].get("independent_outlets") or 0 for i in t.events)
        facts += [f"{outlets} outlets", f"{independent} independent"]
        overview.append(
            f"{t.heading}：{len(t.events)} 个事件，{outlets} 个来源报道，其中 {independent} 个独立。"
            if zh
            else f"{t.heading}: {len(t.events)} events, {outlets} outlets, {independent} of them independent."
        )
    return summary, overview, facts


def load_week(conn, settings, week: str) -> tuple[list[dict], dict[int, np.ndarray]]:
    """The week's event briefs (most important first) and their vectors, from the store."""
    from newsdesk.cluster import event_brief
    from newsdesk.write.weekly import attach_vectors, week_events

    events = week_events(conn, settings, week)
    attach_vectors(conn, settings, events)
    return [event_brief(conn, e.id) for e in events], {e.id: e.vector for e in events if e.vector is not None}
