"""The extractive weekly report: the week's lead events as themes (rank/themes.py: each
lead event with the events that share a specific name with it, named by its happening with its
subject), the leads that share a theme with nothing gathered into one section of the week's
headlines, each event told by its card's lead facts (no sentence twice in a theme), an overview
line per lead event with its hardest fact, a summary naming the first three, and the briefs.
Given a check, a part that fails it is left out (and recorded), never the whole report.

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

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from newsdesk.core.labels import Labels
from newsdesk.rank.themes import (
    MAX_LEADS,
    MAX_THEME,
    Named,
    ThemeEvent,
    build_themes,
    in_language,
    name_theme,
    pick_briefs,
    shown_themes,
)
from newsdesk.text.headlines import shown_headline
from newsdesk.text.language import detect_language
from newsdesk.text.sentences import (
    describes_article,
    is_complete,
    join,
    key_numbers,
    length,
    near_duplicate,
    sentences,
    shingles,
    terms,
)
from newsdesk.write.extractive.card import (
    LEVEL_RANK,
    ExtractiveCard,
    choose_headline,
    extractive_card,
    member_text,
    says_again,
)
from newsdesk.write.extractive.english import EnglishCard, english_card, english_members, told_only_in_chinese
from newsdesk.write.weekly_stories import (
    Entry,
    story_entries,
    with_story_lines,
)

MAX_BRIEF_SENTENCES = 3
# A brief whose item has no sentence of its own; lower case in English: not a name after "/".
# A brief with no sentence to tell: the headline alone is known; in English, an item whose text is in
# another language says so (the harvest summarises English reports in Chinese).
TITLE_ONLY = {"zh": "只有标题。", "en": "headline only.", "en-other": "only the headline is in English."}
MAX_BRIEFS = 12
FACT_LENGTH = 45  # an overview line's fact (text.length: words, or characters / 2): taken in at a glance


@dataclass
class Theme:
    heading: str
    events: list[int]  # in the order they are told
    paragraphs: list[str]  # one per event, in that order
    entries: list[Entry] = field(default_factory=list)  # the events threaded by story; none: each alone
    voice: int | None = None  # the event it is named from, whose fact the overview gives
    # The week's lead events it tells, (heading, voice) each, in lead order: one for a theme, one per
    # story for the section that gathers the leads no other event shares a theme with.
    leads: list[tuple[str, int]] = field(default_factory=list)

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
class Folded:
    """An event the English weekly lists apart, told only in Chinese: its original headline, outlet and link."""

    event_id: int
    item_id: int
    title: str
    source: str
    url: str

    def line(self) -> str:
        return f"{self.title} — {self.source}" + (f" / {self.url}" if self.url else "")


@dataclass
class ExtractiveWeekly:
    language: str
    summary: str
    overview: list[str]
    themes: list[Theme]
    briefs: list[Brief]
    events: int
    facts: list[str] = field(default_factory=list)  # computed counts the text states, for the checker's material
    folded: list[Folded] = field(default_factory=list)  # the English weekly's "Reported in Chinese"

    def meta(self) -> dict:
        """The parts the weekly edition stores in `meta` (the model-written report's keys; `folded` where
        there is such a list)."""
        folded = {"folded": [vars(f).copy() for f in self.folded]} if self.folded else {}
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
            **folded,
        }


def _outlets(brief: dict, language: str = "zh", card: ExtractiveCard | None = None, told: tuple[str, ...] = ()) -> str:
    """Who a line of the event quotes: the outlet whose headline the card shows and the outlets of
    the sentences `told`, then the event's first outlets (in English, those of its English reports,
    what its English text is taken from) until two are named. The headline's own outlet comes first:
    a Chinese outlet's "一文读懂GPT-5.4…" credited to OpenAI's channels would put its words in their mouth."""
    members = brief.get("members") or []
    if language != "zh":
        members = english_members(members) or members
    own = [
        m.get("source_name") or ""
        for m in brief.get("members") or []
        if card and m.get("item_id") == card.headline_item_id
    ]
    quoted = list(dict.fromkeys(n for n in [*own[:1], *told] if n))
    rest = [n for n in dict.fromkeys(m.get("source_name") or "" for m in members) if n and n not in quoted]
    return "、".join(quoted + rest[: max(0, 2 - len(quoted))])


def item_brief(brief: dict, language: str) -> Brief:
    """One item of the event (best material, edition's language first) and its own sentences; in
    English, an English report's English sentences only (a harvest item under an English headline is
    summarised in Chinese: that summary is the Chinese edition's)."""
    members = [m for m in brief.get("members") or [] if m.get("role") != "duplicate"]
    if language != "zh":
        members = english_members(members) or members
    with_text = [m for m in members if _own_sentences(m, language)]
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
    own = _own_sentences(item, language)
    # Figures first, then the item's own order; each sentence says what the others did not (a harvest
    # item's summary, core point and highlights tell one fact up to three times: "Basis完成1亿美元融资…
    # 成为独角兽" and "Basis 获 1 亿美元融资成为独角兽").
    title = (item.get("title") or "").strip()
    picked: list[str] = []
    for s in sorted(own, key=lambda s: (not key_numbers(s), own.index(s))):
        if len(picked) < MAX_BRIEF_SENTENCES and not says_again(s, picked, headline=title):
            picked.append(s)
    picked.sort(key=own.index)
    text = join(picked) or TITLE_ONLY[_no_text(item, language)]
    return Brief(
        brief["event_id"], item["item_id"], shown_headline(item.get("title") or ""), item.get("source_name") or "", text
    )


def _no_text(item: dict, language: str) -> str:
    """Which TITLE_ONLY line a brief with no sentence of its own says."""
    if language == "zh":
        return "zh"
    text = member_text(item).strip()  # an English text with no sentence to tell (a byline) is no other language
    return "en-other" if text and detect_language(text) != "en" else "en"


def _own_sentences(item: dict, language: str) -> list[str]:
    """The sentences of an item's own text a brief may tell; in another edition than the Chinese one,
    only those written in its language."""
    return [
        s
        for s in sentences(member_text(item))
        if is_complete(s)
        and 5 <= length(s) <= 70
        and not describes_article(s)
        and (language == "zh" or in_language(s, language))
    ]


def edition_card(brief: dict, language: str) -> ExtractiveCard:
    """The event's card as the edition tells it: in English from its English material alone
    (english.py, as the English daily's card), else card.py's."""
    return english_card(brief) if language == "en" else extractive_card(brief, language)


def folded_event(brief: dict, card: ExtractiveCard) -> Folded:
    """An event told only in Chinese as the English weekly lists it: the report whose headline its
    card shows (else its first), by its original headline, outlet and link."""
    members = [m for m in brief.get("members") or [] if m.get("role") != "duplicate"] or brief["members"]
    m = next((m for m in members if m["item_id"] == card.headline_item_id), members[0])
    return Folded(
        brief["event_id"], m["item_id"], (m.get("title") or "").strip(), m.get("source_name") or "", m.get("url") or ""
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
    check: Callable[[str, list[str]], list] | None = None,
    dropped: Callable[[str, str, list], None] | None = None,
) -> ExtractiveWeekly:
    """The week's report from its events (cluster.event_brief dicts, most important first) and, to
    thread themes by story, the week's stories (write.weekly_stories.week_stories, in `language`) and its key.

    With `check` (a part's text and the computed facts it may state -> its errors), each part that
    fails is rebuilt or left out, never the whole report: a theme or a brief is left out, an overview
    line too, the summary is cut to its first sentence (the headings of the week's headlines) or left out; each
    such part goes to `dropped(part, text, errors)`, the operator's record of it."""
    cards = {b["event_id"]: edition_card(b, language) for b in briefs}
    by_id = {b["event_id"]: b for b in briefs}
    events = theme_events(briefs, cards)
    named, brief_ids = compose(events, language, most=max_sections, per_theme=per_section, max_briefs=max_briefs)
    folded: list[Folded] = []
    aside: list[tuple[int, str]] = []
    if language == "en":
        built = named
        named, brief_ids, folded_ids = english_parts(named, brief_ids, events, by_id, cards, max_briefs)
        folded = [folded_event(by_id[i], cards[i]) for i in folded_ids]
        aside = folded_leads(built, folded_ids, {e.id for e in events if e.featured}, by_id, cards)
    themes = [
        extractive_theme(n.events, cards, by_id, language, heading=n.heading, stories=stories, week=week) for n in named
    ]
    for theme, n in zip(themes, named):
        theme.voice = n.voice
        theme.leads = [(theme.heading, n.voice)]
    chosen = [item_brief(by_id[i], language) for i in brief_ids]
    # A theme tells a title-only event by its card's one line (or its disclosure, "Title only: …"): code's
    # words, not a claim.
    facts = sorted({_headline_line(cards[i]) for t in themes for i in t.events if _headline_line(cards[i])})
    facts += sorted({b.text for b in chosen if b.text in TITLE_ONLY.values()})  # a brief's own words for "no text"
    if check is not None:
        themes, chosen = _passing(themes, chosen, facts, check, dropped)
    themes = gathered([t for t in themes if t.events], language)
    summary, overview, counted = extractive_summary(themes, by_id, cards, language, [n.voice for n in named])
    overview = with_aside(overview, aside)
    if not themes and chosen:
        # A week with news but no theme (an English edition whose leads were all told only in Chinese,
        # a thin week) still has its headlines: the first briefs' headlines.
        tops = [b.title for b in chosen[:3] if language == "zh" or in_language(b.title, language)]
        summary = (
            Labels(language).weekly_top.format(stories=("；" if language == "zh" else "; ").join(tops)) if tops else ""
        )
    if check is not None:
        summary, overview = _passing_summary(summary, overview, facts + counted, check, dropped)
    if not themes and not chosen:
        summary = empty_week(briefs, language, folded=len(folded))
    facts += counted + [f"events {len(briefs)}", f"themes {len(themes)}", f"briefs {len(chosen)}"]
    facts += [f"folded {len(folded)}"] if folded else []
    return ExtractiveWeekly(language, summary, overview, themes, chosen, len(briefs), facts, folded)


def english_parts(
    named: list[Named],
    brief_ids: list[int],
    events: list[ThemeEvent],
    by_id: dict[int, dict],
    cards: dict[int, ExtractiveCard],
    max_briefs: int,
) -> tuple[list[Named], list[int], list[int]]:
    """The English weekly's themes, briefs and the events it lists apart: an event told only in Chinese
    is never Chinese text under an English heading. It leaves its theme (a theme of such events only
    is left out, and one named from such an event is named again from its English ones: themes.shown_themes)
    and the briefs, which are the week's other news with English material; each such event the report
    would have told is listed, in the report's order, under "Reported in Chinese"."""
    shown = {i for i, card in cards.items() if not told_only_in_chinese(by_id[i], card.headline)}
    english = shown_themes(named, events, shown, "en")
    themed = {i for n in english for i in n.events}
    briefs = pick_briefs([e for e in events if e.id in shown], themed, max_briefs)
    told = [i for n in named for i in n.events] + brief_ids
    return english, briefs, list(dict.fromkeys(i for i in told if i not in shown))


def folded_leads(
    built: list[Named],
    folded_ids: list[int],
    featured: set[int],
    by_id: dict[int, dict],
    cards: dict[int, ExtractiveCard],
) -> list[tuple[int, str]]:
    """The week's leads told only in Chinese that led their day (`featured`), as the English overview
    lists them: (how many of its lines come before it, "headline (outlet)"), the headline in Chinese,
    which the page marks "In Chinese", as the English daily lists its day's such lead among its
    headlines. The Chinese report leads them among the others (`built`: its themes, in lead order);
    the English one listed them only at its foot, so its reader never learnt that the week's third
    story (2026-W10's "通义开源Mobile-Agent-v3.5…", its day's lead) was one. Other events told only in
    Chinese stay at the foot."""
    folded = set(folded_ids)
    out, shown = [], 0
    for n in built:
        lead = n.voice if n.voice is not None else n.events[0]
        if lead not in folded:
            shown += any(i not in folded for i in n.events)  # the English theme it keeps, one line
            continue
        if lead not in featured or (by_id[lead].get("score_parts") or {}).get("off_topic"):
            continue
        card = cards[lead]
        out.append((shown, f"{card.headline} ({_outlets(by_id[lead], 'en', card).replace('、', ', ')})"))
    return out


def with_aside(overview: list[str], aside: list[tuple[int, str]]) -> list[str]:
    """The overview with each `aside` line put after the first `n` of its own lines."""
    out = list(overview)
    for k, (n, line) in enumerate(aside):
        out.insert(min(n, len(overview)) + k, line)
    return out


def _passing(themes: list[Theme], chosen: list[Brief], facts: list[str], check, dropped):
    """The themes and briefs that pass their checks; each other one left out, and recorded."""
    kept_themes, kept_briefs = [], []
    for n, theme in enumerate(themes, 1):
        errors = check(theme.prose, facts)
        if errors and dropped:
            dropped(f"section {n}", theme.text, errors)
        kept_themes += [] if errors else [theme]
    for n, brief in enumerate(chosen, 1):
        errors = check(brief.line(), facts)
        if errors and dropped:
            dropped(f"brief {n}", brief.line(), errors)
        kept_briefs += [] if errors else [brief]
    return kept_themes, kept_briefs


def _passing_summary(summary: str, overview: list[str], facts: list[str], check, dropped):
    """The overview lines that pass, and the summary: whole, else its first sentence (the top
    stories' headings), else none; what is cut or left out recorded."""
    lines = []
    for n, line in enumerate(overview, 1):
        errors = check(line, facts)
        if errors and dropped:
            dropped(f"overview {n}", line, errors)
        lines += [] if errors else [line]
    first = re.match(r".+?(?:。|\.(?=\s|$))", summary)
    candidates = [summary, first.group(0) if first else ""]
    label, colon, heads = candidates[1].partition("：" if "：" in candidates[1] else ": ")
    if colon and heads:  # the headlines whose headings pass, by themselves
        sep = "；" if colon == "：" else "; "
        kept = [h for h in heads.rstrip("。.").split(sep) if not check(h, facts)]
        candidates.append(f"{label}{colon}{sep.join(kept)}{heads[-1]}" if kept else "")
    for text in dict.fromkeys(candidates):
        errors = check(text, facts) if text else []
        if not errors:
            return text, lines
        if dropped:
            dropped("summary", text, errors)
    return "", lines


def gathered(themes: list[Theme], language: str) -> list[Theme]:
    """The themes with the week's lead events that share a theme with no other event gathered into
    one section ("本周要闻" when it comes first, else "本周其他要闻"), where the first of them stood: a
    section of one event is a story, not a theme. A lone one keeps its own section."""
    singles = [t for t in themes if len(t.events) == 1]
    if len(singles) < 2:
        return themes
    at = sum(len(t.events) > 1 for t in themes[: themes.index(singles[0])])
    more = Theme(
        Labels(language).weekly_more if at else Labels(language).weekly_leads,
        [i for t in singles for i in t.events],
        [p for t in singles for p in t.paragraphs],
        [e for t in singles for e in t.entries],
        voice=singles[0].voice,
        leads=[line for t in singles for line in t.leads],
    )
    out = [t for t in themes if len(t.events) > 1]
    out.insert(at, more)
    return out


def empty_week(briefs: list[dict], language: str, *, folded: int = 0) -> str:
    """What a week with no news says, plainly, in place of its main lines: a replay's current week,
    whose items carry no date of their own (each stamped when it was first seen), or one of routine
    and off-topic items only; in English, one whose news was all reported in Chinese (`folded`: the
    events listed apart)."""
    n = len(briefs)
    if folded and language == "en":
        if folded == 1:
            return "No news reported in English this week: its one story was reported only in Chinese (listed below)."
        return (
            f"No news reported in English this week: its {folded} stories were reported only in Chinese (listed below)."
        )
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
    named as the week's themes are: by the name its events share and what its lead headline says.
    No sentence is told twice: a sentence an earlier item of the theme said (near-duplicate, as the
    checker reads a repeat) is left out, and an event with nothing left to add is not told."""
    zh = language == "zh"
    if heading is None:
        events = theme_events([by_id[i] for i in event_ids], cards)
        heading = name_theme(events, language).heading
    entries = story_entries(event_ids, stories, week, language) if stories else []
    order = [i for entry in entries for i in entry.events] or event_ids
    said: list[set[str]] = []
    told: dict[int, str] = {}
    for i in order:
        card = cards[i]
        fresh = [s.text for s in card.lead if s.text != card.headline and not _said(s.text, said)]
        if told and not fresh and (_said(card.headline, said) or not _headline_line(card)):
            continue  # it repeats what the theme told, or has nothing but its headline to add
        said += [shingles(t) for t in [card.headline, *fresh]]
        lead = join(fresh) or _headline_line(card)
        sources = tuple(s.source for s in card.lead if s.text in fresh)
        outlets = _outlets(by_id[i], language, card, sources)
        told[i] = (
            f"{card.headline}（{outlets}）{lead}" if zh else f"{card.headline} ({outlets.replace('、', ', ')}) {lead}"
        )
    if stories and len(told) < len(order):  # the story lines name only the events told
        entries = story_entries([i for i in event_ids if i in told], stories, week, language)
    kept = [i for entry in entries for i in entry.events] or list(told)
    return Theme(heading, kept, [told[i] for i in kept], entries)


def _headline_line(card: ExtractiveCard) -> str:
    """What a card says of an event known by its headline alone: its one line, an English card's note
    that only its headline is in English (else the English weekly told such an event by its disclosure,
    "Only feed summaries were available…", which says nothing of why no summary follows), else its
    disclosure."""
    return card.only_line or (card.note if isinstance(card, EnglishCard) else "") or card.disclosure


def _said(text: str, said: list[set[str]]) -> bool:
    grams = shingles(text)
    return any(near_duplicate(grams, other) for other in said)


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
    themes: list[Theme],
    by_id: dict[int, dict],
    cards: dict[int, ExtractiveCard],
    language: str,
    order: list[int] | None = None,
) -> tuple[str, list[str], list[str]]:
    """One overview line per lead event the themes tell, in lead order, with its hardest fact,
    attributed; the summary: the week's headlines by heading (the first three leads; in English,
    the ones with an English heading), then the first headline's hardest fact when the heading leaves its
    figures out; and the computed facts they state (for the checker's material). `order`: the leads'
    event ids as the themes were built (default: as the themes tell them)."""
    zh = language == "zh"
    leads = [line for t in themes for line in (t.leads or [(t.heading, t.voice if t.voice in cards else t.events[0])])]
    if order:
        leads.sort(key=lambda line: order.index(line[1]) if line[1] in order else len(order))
    told = [line for line in (_told(h, i, by_id, cards, language) for h, i in leads) if line]
    heads = [h for h, *_ in told if zh or in_language(h, language)][:3]
    summary = Labels(language).weekly_top.format(stories=("；" if zh else "; ").join(heads)) if heads else ""
    top = next((n for n, (h, *_) in enumerate(told) if heads and h == heads[0]), None)
    fact = told[top][3] if top is not None else None
    if top is not None and fact and not set(key_numbers(fact[0])) <= set(key_numbers(heads[0])):
        text, source = fact
        summary += f"{text.rstrip('。')}（{source}）。" if zh else f" {text.rstrip('.')} ({source})."
        again = _told(told[top][0], told[top][1], by_id, cards, language, figures=0)  # the fact is said once
        told[top] = again or told[top]
    overview = [line for _, _, line, _ in told]
    return summary, overview, [f"events {sum(len(t.events) for t in themes)}", f"themes {len(themes)}"]


def _told(
    heading: str, lead: int, by_id: dict, cards: dict, language: str, figures: int = 1
) -> tuple[str, int, str, tuple[str, str] | None] | None:
    """A lead event's overview line, (heading, lead, line, its fact or None): its hardest fact (with
    `figures`; else, or without one, its lead headline), attributed, after its heading unless the
    line says it. None for news beside AI: never a line of the week's overview."""
    zh = language == "zh"
    if (by_id.get(lead, {}).get("score_parts") or {}).get("off_topic"):
        return None
    card = cards.get(lead)
    fact = hardest_fact(card) if card and figures else None
    if fact is not None and not zh and not in_language(fact[0], language):
        fact = None  # an English line is not a Chinese sentence: its English headline says it
    if fact is None:  # no figure in its lead: the event is told by its lead headline
        text, source = (card.headline if card else heading), _outlets(by_id.get(lead) or {}, language, card)
        source = source if zh else source.replace("、", ", ")
    else:
        text, source = fact
    attributed = f"{text}（{source}）" if zh else f"{text} ({source})"
    # Its clauses are the line's, or its words are ("Anthropic收购 AI 电脑操控公司 Vercept" in "刚刚，Anthropic 再出手，
    # 收购 AI 电脑操控公司 Vercept": a heading built of a subject and a clause says nothing the line does not).
    said = all(c in text for c in re.split(r"[，：]|, |: ", heading) if c) or set(terms(heading) or [heading]) <= set(
        terms(text)
    )
    return heading, lead, (attributed if said else f"{heading}{'：' if zh else ': '}{attributed}"), fact


def load_week(conn, settings, week: str) -> list[dict]:
    """The week's event briefs (most important first), from the store."""
    from newsdesk.cluster import event_brief
    from newsdesk.write.weekly import week_events

    return [event_brief(conn, e.id) for e in week_events(conn, settings, week)]
