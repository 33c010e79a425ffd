"""The extractive weekly report: the week's lead events as themes (rank/themes.py: each
lead event with the events that share a specific name with it, named by that name and what its
lead headline says), each event told by its card's lead facts, an overview line per theme with
its lead event's hardest fact, and the briefs.

    briefs = load_week(conn, settings, "2025-W09")
    report = extractive_weekly(briefs, language="zh")
    report.meta()                       # its parts as data; editions/weekly.py renders them in the
                                        # model-written report's form, block for block

A brief is one item: its title, its source and 1–3 sentences of that item's own text (the
ones with figures first), never a sentence from another member of the event. Briefs are the
week's other news, the days' featured news first (themes.pick_briefs); routine and
off-topic events are left out. Given the week's
stories (write.weekly_stories.week_stories), a theme's events of one story are one entry under
their story line, as in the written report.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from newsdesk.rank.themes import (
    MAX_LEADS,
    MAX_THEME,
    Named,
    ThemeEvent,
    build_themes,
    in_language,
    name_theme,
    pick_briefs,
)
from newsdesk.text.sentences import (
    describes_article,
    is_complete,
    join,
    key_numbers,
    length,
    sentences,
    terms,
)
from newsdesk.write.extractive.card import (
    LEVEL_RANK,
    ExtractiveCard,
    choose_headline,
    extractive_card,
    member_text,
)
from newsdesk.write.weekly_stories import (
    Entry,
    story_entries,
    with_story_lines,
)

MAX_BRIEF_SENTENCES = 3
# A brief whose item has no sentence of its own; lower case in English: not a name after "/".
TITLE_ONLY = {"zh": "只有标题。", "en": "title only."}
MAX_BRIEFS = 12
FACT_LENGTH = 45  # an overview line's fact (text.length: words, or characters / 2): taken in at a glance


@dataclass
class Theme:
    heading: str
    events: list[int]  # in the order they are told
    paragraphs: list[str]  # one per event, in that order
    entries: list[Entry] = field(default_factory=list)  # the events threaded by story; none: each alone
    voice: int | None = None  # the event it is named from, whose fact the overview gives

    @property
    def story_lines(self) -> list[str]:
        return [e.line for e in self.entries if e.line]

    @property
    def prose(self) -> str:
        """What the checker reads: the items. The heading and the story lines are left out: clauses of
        stored headlines and dates arranged by code, no sentence of the material; they would only be
        counted against it (a heading that is its lead's whole headline reads as a repeat of that
        item, a line naming a theme's events once more as a loop)."""
        return "\n\n".join(self.paragraphs)

    @property
    def text(self) -> str:
        """The theme as published: each story's line before its events."""
        if not self.entries:
            return "\n\n".join([self.heading, *self.paragraphs])
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
    text = join(picked) or TITLE_ONLY["zh" if language == "zh" else "en"]
    return Brief(
        brief["event_id"], item["item_id"], (item.get("title") or "").strip(), item.get("source_name") or "", text
    )


def theme_events(briefs: list[dict], cards: dict[int, ExtractiveCard]) -> list[ThemeEvent]:
    """The week's events as the themes read them: shown headline, importance, reports' titles."""
    out = []
    for b in briefs:
        titles = [m.get("title") or "" for m in b.get("members") or [] if m.get("role") != "duplicate"]
        card = cards[b["event_id"]]
        told = any(s.text != card.headline for s in card.lead)
        parts = b.get("score_parts") or {}
        out.append(
            ThemeEvent.of(
                b["event_id"],
                card.headline,
                parts,
                b.get("tab") or "",
                titles=titles,
                told=told,
                importance=b.get("score"),
            )
        )
    return out


def compose(
    events: list[ThemeEvent],
    language: str = "zh",
    *,
    most: int = MAX_LEADS,
    per_theme: int = MAX_THEME,
    max_briefs: int = MAX_BRIEFS,
) -> tuple[list[Named], list[int]]:
    """What the weekly holds: its themes (themes.build_themes) and its briefs' event ids
    (themes.pick_briefs), as both writers and benchmarks/weekly_folds.py choose them."""
    named = build_themes(events, language, most=most, per_theme=per_theme)
    return named, pick_briefs(events, {i for n in named for i in n.events}, max_briefs)


def extractive_weekly(
    briefs: list[dict],
    *,
    language: str = "zh",
    stories: dict[int, dict] | None = None,
    week: str = "",
    max_sections: int = MAX_LEADS,
    per_section: int = MAX_THEME,
    max_briefs: int = MAX_BRIEFS,
) -> ExtractiveWeekly:
    """The week's report from its events (cluster.event_brief dicts, most important first) and, to
    thread themes by story, the week's stories (write.weekly_stories.week_stories, in `language`) and its key."""
    cards = {b["event_id"]: extractive_card(b, language) for b in briefs}
    by_id = {b["event_id"]: b for b in briefs}
    named, brief_ids = compose(
        theme_events(briefs, cards), language, most=max_sections, per_theme=per_section, max_briefs=max_briefs
    )
    themes = [
        extractive_theme(n.events, cards, by_id, language, heading=n.heading, stories=stories, week=week) for n in named
    ]
    for theme, n in zip(themes, named):
        theme.voice = n.voice
    chosen = [item_brief(by_id[i], language) for i in brief_ids]
    summary, overview, facts = extractive_summary(themes, by_id, cards, language)
    if not themes and not chosen:
        summary = empty_week(briefs, language)
    facts += [f"events {len(briefs)}", f"themes {len(themes)}", f"briefs {len(chosen)}"]
    # A theme tells a title-only event by its card's disclosure ("Title only: …"): code's words, not a claim.
    facts += sorted({cards[i].disclosure for t in themes for i in t.events if cards[i].disclosure})
    facts += sorted({b.text for b in chosen if b.text in TITLE_ONLY.values()})  # a brief's own words for "no text"
    return ExtractiveWeekly(language, summary, overview, themes, chosen, len(briefs), facts)


def empty_week(briefs: list[dict], language: str) -> str:
    """What a week with no news says, plainly, in place of its main lines: a replay's current week,
    whose items carry no date of their own (each stamped when it was first seen), or one of routine
    and off-topic items only."""
    n = len(briefs)
    undated = all((b.get("score_parts") or {}).get("undated") for b in briefs)
    if language == "zh":
        if undated:
            return f"本周没有带日期的新闻：本周的 {n} 个事件都没有自己的发布日期，只按首次抓取的时间计入本周。"
        return f"本周没有可报道的新闻：{n} 个事件都是例行内容、与 AI 无关或没有日期。"
    if n == 1:  # one event, in the singular
        if undated:
            return "No dated news this week: its one event carries no date of its own and falls in it only by when it was first seen."
        return "No news to report this week: its one event is routine, not about AI, or undated."
    if undated:
        return f"No dated news this week: its {n} events carry no date of their own and fall in it only by when they were first seen."
    return f"No news to report this week: its {n} events are routine, not about AI, or undated."


def extractive_theme(
    event_ids: list[int],
    cards: dict[int, ExtractiveCard],
    by_id: dict[int, dict],
    language: str,
    *,
    heading: str | None = None,
    stories: dict[int, dict] | None = None,
    week: str = "",
) -> Theme:
    """One theme of these events (most important first), each told by its card's lead sentences;
    with `stories`, the events of one story together under their line. Without a `heading`, it is
    named as the week's themes are: by the name its events share and what its lead headline says."""
    zh = language == "zh"
    if heading is None:
        events = theme_events([by_id[i] for i in event_ids], cards)
        heading = name_theme(events, language).heading
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
    return Theme(heading, list(told), paragraphs, entries)


def hardest_fact(card: ExtractiveCard) -> tuple[str, str] | None:
    """The lead sentence with the most figures that says what it is about (names a word of the
    headline: not "That is 30 times the input price"), in the edition's language first; and its
    source. None without a figure."""
    said = [s for s in card.lead if s.text != card.headline and length(s.text) <= FACT_LENGTH and key_numbers(s.text)]
    if not said:
        return None
    named = {t for t in terms(card.headline) if len(t) > 2}
    best = max(
        said,
        key=lambda s: (
            in_language(s.text, card.language),  # the edition's own language first
            bool(named & set(terms(s.text))),
            len(key_numbers(s.text)),
        ),
    )
    return best.text, best.source


def extractive_summary(
    themes: list[Theme], by_id: dict[int, dict], cards: dict[int, ExtractiveCard], language: str
) -> tuple[str, list[str], list[str]]:
    """One overview line per theme with its lead event's hardest fact, attributed; the summary (the
    week's main lines: its first three themes with a figure, by heading, so no line is said twice);
    and the computed facts they state (for the checker's material)."""
    zh = language == "zh"
    overview, lines = [], []
    for t in themes:
        lead = t.voice if t.voice in cards else t.events[0]
        card = cards.get(lead)
        fact = hardest_fact(card) if card else None
        if fact is None:  # no figure in its lead: the event is told by its lead headline
            text, source = (card.headline if card else t.heading), _outlets(by_id[lead])
            source = source if zh else source.replace("、", ", ")
        else:
            text, source = fact
            lines.append(t.heading)
        if text.startswith(t.heading):  # the heading is the headline's first clause: said once
            overview.append(f"{text}（{source}）" if zh else f"{text} ({source})")
        else:
            overview.append(f"{t.heading}：{text}（{source}）" if zh else f"{t.heading}: {text} ({source})")
    if not zh:  # an English sentence names the English main lines; the Chinese ones are marked below
        lines = [h for h in lines if in_language(h, language)]
    more = len(themes) > len(lines[:3])
    if zh:
        summary = (f"本周的主线：{'；'.join(lines[:3])}。" if lines else "") + ("其余见下文各节。" if more else "")
    else:
        summary = (f"This week's main lines: {'; '.join(lines[:3])}." if lines else "") + (
            " More below." if more else ""
        )
    return summary.strip(), overview, [f"events {sum(len(t.events) for t in themes)}", f"themes {len(themes)}"]


def load_week(conn, settings, week: str) -> list[dict]:
    """The week's event briefs (most important first), from the store."""
    from newsdesk.cluster import event_brief
    from newsdesk.write.weekly import week_events

    return [event_brief(conn, e.id) for e in week_events(conn, settings, week)]
