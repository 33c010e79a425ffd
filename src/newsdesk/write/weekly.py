"""The weekly report: themed sections, an overview and briefs.

How a week becomes a report:
1. The week's events (newest member inside the ISO week, newsroom timezone), by score.
2. Themes (rank/themes.py, shared with the extractive weekly): each of the week's lead
   events with the events that share a specific name with it, named by code from its lead
   headline (the model is told the name, and cannot change it).
3. One structured LLM call per theme writes thesis, per-event fields and the closing
   synthesis; one call writes the summary and the overview (each line its lead event's
   hardest fact, attributed); briefs, the week's other news, are written in small batches. Code, not the model, assembles the text, so the form is fixed: a
   theme's events of one story are numbered together in date order, and the published
   section shows them as one entry under its story line (write/weekly_stories.py).
4. Every written part is checked against its material; a failing part is written once
   more with the findings, then kept but flagged (the report is then flagged too).
5. The parts come back as WeeklyParts; editions/weekly.py renders them in the report's form and
   stores the edition.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta

from sqlalchemy import select
from sqlalchemy.engine import Connection, Engine

from newsdesk.check.checker import check_output, check_subject
from newsdesk.core.config import Settings
from newsdesk.core.errors import NewsdeskError
from newsdesk.core.findings import Finding
from newsdesk.llm.chat import ChatModel
from newsdesk.llm.client import BudgetExhausted, LLMError, in_parallel
from newsdesk.rank.themes import MAX_LEADS, MAX_THEME, MIN_LEADS, ThemeEvent, build_themes, pick_briefs
from newsdesk.store.days import NoEvents, back_catalogue, local_day_bounds, local_time
from newsdesk.store.edition_rows import stored_material_key
from newsdesk.store.schema import analyses, event_members, events, items, sources
from newsdesk.write import kit
from newsdesk.write.kit import (
    banned_phrases,
    checked,
    material_key,
    policy,
    prompts_fingerprint,
    record_check,
    render,
    rule,
)
from newsdesk.write.weekly_stories import (
    in_entry_order,
    stories_fingerprint,
    story_entries,
    week_stories,
    with_story_lines,
)

LANGUAGE = "zh"  # the weekly report's first edition: the model writes it in Chinese; the en edition is extractive
WEEKLY_FORMAT = 8  # bump when what a weekly is built from changes: stored weeklies are rebuilt
WEEK_RE = re.compile(r"^(\d{4})-W(\d{1,2})$")
MAX_SECTIONS = MAX_LEADS
MIN_SECTIONS = MIN_LEADS
PER_SECTION = MAX_THEME
MAX_BRIEFS = 12
BRIEF_BATCH = 6
BODY_CHARS = 800  # of each member's body sent to the model
SUMMARY_EVENT_CHARS = 4000  # of all themed events' material together, in the summary's prompt


class WeeklyError(NewsdeskError):
    """The weekly report cannot be built; the message names the input and the fix."""


# --- weeks ---------------------------------------------------------------------------


def parse_week(week: str) -> date:
    """The Monday of an ISO week written as 2026-W42."""
    m = WEEK_RE.match(week.strip())
    if not m:
        raise WeeklyError(f"week {week!r} is not an ISO week; write it as YYYY-Www, e.g. 2026-W42")
    try:
        return date.fromisocalendar(int(m.group(1)), int(m.group(2)), 1)
    except ValueError:
        raise WeeklyError(f"week {week!r} does not exist; ISO weeks run from W01 to W52 or W53") from None


def week_key(day: date) -> str:
    year, number, _ = day.isocalendar()
    return f"{year}-W{number:02d}"


def latest_week(conn: Connection, tz: str) -> str | None:
    """The week of the newest event in the store (what `newsdesk weekly` builds by default)."""
    newest = conn.execute(
        select(events.c.first_published_at).order_by(events.c.first_published_at.desc()).limit(1)
    ).scalar()
    return week_key(local_time(newest, tz).date()) if newest else None


# --- the week's material ---------------------------------------------------------------


@dataclass(eq=False)  # identity: two events are never "equal" by content
class WeekEvent:
    id: int
    title: str
    score: float
    sources: list[str]  # outlet names, lead first
    material: str  # what the writer may use, as sent to the model
    members: list[int]
    fingerprint: list  # what changes the report when it changes
    titles: list[str] = field(default_factory=list)  # its reports' own titles, lead first
    parts: dict = field(default_factory=dict)  # events.score_parts (rank/score.py)
    brief: str = ""  # the brief's sentences, once written

    tab: str = ""  # its day's feed tab (rank/score.py): featured | p1 | all

    def theme_event(self) -> ThemeEvent:
        return ThemeEvent.of(self.id, self.title, self.parts, self.tab, titles=self.titles, importance=self.score)


def _material_text(title: str, rows: list) -> str:
    return render("weekly_event.md", title=title, members=rows, body_chars=BODY_CHARS)


def week_events(conn: Connection, settings: Settings, week: str) -> list[WeekEvent]:
    monday = parse_week(week)
    start, _ = local_day_bounds(monday, settings.timezone)
    _, end = local_day_bounds(monday + timedelta(days=6), settings.timezone)
    rows = conn.execute(
        # A week holds the events first reported in it, as a day does (store/days.py).
        select(events)
        .where(events.c.first_published_at >= start, events.c.first_published_at < end)
        .order_by(events.c.importance.desc(), events.c.id)
    ).all()
    # A feed's back catalogue is no day's news (store/days.py), nor its week's: a source added in August
    # whose feed lists January posts leaves January's weeklies as they were.
    archive = back_catalogue(conn, between=(start, end))
    rows = [r for r in rows if r.id not in archive]
    if not rows:
        return []
    ids = [r.id for r in rows]
    member_rows: dict[int, list] = {}
    for i in range(0, len(ids), 900):
        for m in conn.execute(
            select(
                event_members.c.event_id,
                event_members.c.role,
                items.c.id,
                items.c.title,
                items.c.summary,
                items.c.body,
                items.c.material_level,
                items.c.content_hash,
                sources.c.name.label("source_name"),
            )
            .join(items, items.c.id == event_members.c.item_id)
            .join(sources, sources.c.id == items.c.source_id)
            .where(event_members.c.event_id.in_(ids[i : i + 900]), event_members.c.role != "duplicate")
            .order_by(items.c.published_at, items.c.id)
        ):
            member_rows.setdefault(m.event_id, []).append(m)
    headlines = dict(
        conn.execute(
            select(analyses.c.event_id, analyses.c.headline).where(
                analyses.c.language == LANGUAGE, analyses.c.headline != ""
            )
        ).all()
    )
    out = []
    for r in rows:
        members = sorted(member_rows.get(r.id, []), key=lambda m: m.role != "lead")
        if not members:
            continue
        title = headlines.get(r.id) or r.title
        out.append(
            WeekEvent(
                id=r.id,
                title=title,
                score=r.importance,
                sources=list(dict.fromkeys(m.source_name for m in members)),
                material=_material_text(title, members[:4]),
                members=[m.id for m in members],
                fingerprint=[r.id, title, round(r.importance, 4), sorted(m.content_hash for m in members)],
                titles=[m.title or "" for m in members],
                parts=dict(r.score_parts or {}),
                tab=r.tab or "",
            )
        )
    return out


# --- prompts and schemas -----------------------------------------------------------------


def messages(task: str, material: str, banned: str = "") -> list[dict]:
    """Shared system prefix (byte-identical for every weekly call), then the task, the material last.
    `banned`: the editorial policy's banned phrases."""
    return kit.messages(task, material=material, banned=banned)


def _text(most: int) -> dict:
    # maxLength bounds a grammar-constrained model (llama.cpp) from running on inside one string until
    # max_tokens cuts the JSON off; sized well above what each prompt asks for.
    return {"type": "string", "minLength": 2, "maxLength": most}


SECTION_SCHEMA = {
    "type": "object",
    "required": ["thesis", "items", "synthesis"],
    "properties": {
        "thesis": _text(400),
        "items": {
            "type": "array",
            "minItems": 1,
            "maxItems": PER_SECTION,
            "items": {
                "type": "object",
                "required": ["n", "name", "problem", "method", "numbers", "assessment"],
                "properties": {
                    "n": {"type": "integer"},
                    "name": _text(80),
                    "problem": _text(240),
                    "method": _text(360),
                    "numbers": {"type": "string", "maxLength": 240},
                    "assessment": _text(360),
                },
            },
        },
        "synthesis": _text(400),
    },
}
SUMMARY_SCHEMA = {
    "type": "object",
    "required": ["summary", "overview"],
    "properties": {
        "summary": {"type": "string", "minLength": 20, "maxLength": 700},
        "overview": {
            "type": "array",
            "minItems": 1,
            "maxItems": MAX_SECTIONS,
            "items": {
                "type": "object",
                "required": ["n", "text"],
                "properties": {"n": {"type": "integer"}, "text": _text(200)},
            },
        },
    },
}
BRIEFS_SCHEMA = {
    "type": "object",
    "required": ["briefs"],
    "properties": {
        "briefs": {
            "type": "array",
            "minItems": 1,
            "maxItems": BRIEF_BATCH,
            "items": {
                "type": "object",
                "required": ["n", "text"],
                "properties": {"n": {"type": "integer"}, "text": _text(300)},
            },
        }
    },
}


def numbered(chosen: list[WeekEvent], chars: int | None = None) -> str:
    def clip(text: str) -> str:
        return text if chars is None or len(text) <= chars else text[:chars].rstrip() + "……"

    return render(
        "weekly_events.md", events=[{"sources": "、".join(e.sources[:3]), "material": clip(e.material)} for e in chosen]
    )


# --- assembling text -----------------------------------------------------------------------

_END = '。！？!?.…”"）)'


def sentence(text: str) -> str:
    text = " ".join(str(text).split())  # the model's line breaks are not ours
    return text if not text or text[-1] in _END else text + "。"


def source_label(e: WeekEvent) -> str:
    return "、".join(e.sources[:2])


def item_paragraph(e: WeekEvent, fields: dict) -> str:
    name = " ".join(str(fields.get("name") or e.title).split())
    body = "".join(sentence(fields.get(k, "")) for k in ("problem", "method", "numbers", "assessment"))
    return f"{name}（{source_label(e)}）{body}"


def section_text(heading: str, thesis: str, paragraphs: list[str], synthesis: str) -> str:
    return "\n\n".join([heading, sentence(thesis), *paragraphs, sentence(synthesis)])


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[。！？!?])", text) if len(s.strip()) >= 12]


def repeated_sentences(summary: str, overview: str) -> list[str]:
    """Summary sentences that reappear word for word in the overview (a defect of the reference report this form follows)."""
    return [f"overview repeats the summary: “{s}”" for s in _sentences(summary) if s in overview]


def wrong_event(n, text: str, numbered_events: list[WeekEvent]) -> list[Finding]:
    """What the text written for event [n] takes from the other numbered events and not from its own material:
    a brief or item about the wrong event (every number in it may still be in the prompt's material)."""
    if not isinstance(n, int) or not 1 <= n <= len(numbered_events):
        return []
    own, wider = [numbered_events[n - 1].material], [e.material for e in numbered_events]
    return [replace(f, detail=f"event [{n}]: {f.detail}") for f in check_subject(text, own, wider, language=LANGUAGE)]


# --- checked writing ------------------------------------------------------------------------


@dataclass
class Part:
    name: str
    data: dict | None  # None: the model gave no usable answer
    text: str
    status: str  # clean | flagged
    findings: list = field(default_factory=list)


class _Writer:
    """Holds no transaction while the model thinks: the LLM client writes its cache and ledger meanwhile."""

    def __init__(self, engine: Engine, llm: ChatModel, week: str, banned: str = ""):
        self.engine, self.llm, self.week, self.banned = engine, llm, week, banned

    def record(self, name: str, attempt: int, findings: list[Finding]) -> None:
        record_check(self.engine, "weekly", self.week, attempt, [replace(f, part=name) for f in findings])

    def write(self, name: str, task: str, material: str, schema: dict, assemble, extra_check=None) -> Part:
        """One structured call, checked; once more with the findings if it fails; then flagged.
        A rewrite the model cannot give keeps the first draft, flagged."""
        first = messages(task, material, self.banned)
        replies = []

        def write(errors):
            asked = (
                first
                if not errors
                else first
                + [
                    {"role": "assistant", "content": replies[-1].text},
                    {"role": "user", "content": render("weekly_rewrite.md", problems=[f.detail for f in errors])},
                ]
            )
            replies.append(self.llm.chat(asked, output="weekly", schema=schema))
            return replies[-1].data, assemble(replies[-1].data), replies[-1].finish_reason

        def check(draft):
            data, text, finish_reason = draft
            # Material levels are not passed: disclosure is the analyses' duty; the weekly sums them up.
            found = check_output(text, [material], language=LANGUAGE, finish_reason=finish_reason).findings
            return found + (extra_check(data) if extra_check else [])

        done = checked(
            write,
            check,
            record=lambda attempt, found: self.record(name, attempt, found),
            salvage=lambda exc: isinstance(exc, LLMError) and not isinstance(exc, BudgetExhausted),
        )
        data, text, _ = done.draft
        return Part(name, data, text, done.status, [f.detail for f in done.errors])


# --- the report ------------------------------------------------------------------------------


@dataclass
class WeeklyStats:
    week: str
    events: int = 0
    sections: int = 0
    briefs: int = 0
    built: bool = False  # False: nothing changed since the stored report, no model call made
    status: str = ""
    replaced: list[str] = field(default_factory=list)  # parts that failed their checks: their extracts stand in
    editions: list[WeeklyParts] = field(default_factory=list)  # what to store: one per language built


@dataclass
class WeeklyParts:
    """A weekly edition's written parts, as editions/weekly.py renders and stores them: `meta` holds the
    parts as data, `material_key` what they were written from."""

    week: str
    summary: str
    overview: list[str]
    sections: list[str]
    briefs: list[str]
    meta: dict
    status: str
    material_key: str
    language: str = LANGUAGE
    now: datetime | None = None  # the report's build time (default: when it is stored)
    # The English weekly's events told only in Chinese, one line each (original headline, outlet, link),
    # listed last under "Reported in Chinese (N)".
    folded: list[str] = field(default_factory=list)


def _item_paragraphs(group: list[WeekEvent], data: dict) -> dict[int, str]:
    """Event id -> its item paragraph, for the events of `group` (numbered from 1) the model wrote up."""
    by_n = {}
    for fields in data["items"]:
        by_n.setdefault(fields.get("n"), fields)
    return {e.id: item_paragraph(e, by_n[n]) for n, e in enumerate(group, 1) if n in by_n}


def published_section(
    part: Part, group: list[WeekEvent], heading: str, stories: dict[int, dict], week: str
) -> tuple[str, list[str]]:
    """The section as readers get it, and its story lines. The lines are stored headlines and dates
    arranged by code, added after the check: the model cannot change them, so they must not send
    its draft into a rewrite."""
    paragraphs = _item_paragraphs(group, part.data)
    blocks, lines = with_story_lines(paragraphs, story_entries(list(paragraphs), stories, week, LANGUAGE))
    return section_text(heading, part.data["thesis"], blocks, part.data["synthesis"]), lines


def _section(writer: _Writer, number: int, group: list[WeekEvent], heading: str) -> tuple[Part, list[WeekEvent]]:
    """The written section under its theme's heading (code's, from the lead headline: the model is
    told it) and the events it actually covers (the others fall back to briefs)."""

    def assemble(data):
        return section_text(heading, data["thesis"], list(_item_paragraphs(group, data).values()), data["synthesis"])

    def covered(data):
        ns = {f.get("n") for f in data["items"]}
        missing = [rule(f"event [{n}] has no item in the section") for n in range(1, len(group) + 1) if n not in ns]
        return missing + [
            f
            for fields in data["items"]
            for f in wrong_event(
                fields.get("n"),
                " ".join(str(fields.get(k, "")) for k in ("name", "problem", "method", "numbers")),
                group,
            )
        ]

    material = f"本节标题（已定）：{heading}\n\n{numbered(group)}"
    part = writer.write(f"section {number}", "weekly_section.md", material, SECTION_SCHEMA, assemble, covered)
    written = {f.get("n") for f in part.data["items"]}
    return part, [e for n, e in enumerate(group, 1) if n in written]


def _briefs(writer: _Writer, chosen: list[WeekEvent]) -> list[tuple[WeekEvent, Part]]:
    batches = [chosen[start : start + BRIEF_BATCH] for start in range(0, len(chosen), BRIEF_BATCH)]

    def write_batch(job):
        number, batch = job

        def assemble(data):
            texts = {b.get("n"): b["text"] for b in data["briefs"]}
            return "\n\n".join(brief_line(e, texts.get(n, "")) for n, e in enumerate(batch, 1))

        def complete(data):
            ns = {b.get("n") for b in data["briefs"]}
            missing = [rule(f"event [{n}] has no brief") for n in range(1, len(batch) + 1) if n not in ns]
            return missing + [f for b in data["briefs"] for f in wrong_event(b.get("n"), str(b["text"]), batch)]

        name = f"briefs {number}"
        try:
            return writer.write(name, "weekly_briefs.md", numbered(batch), BRIEFS_SCHEMA, assemble, complete)
        except BudgetExhausted:
            raise
        except LLMError as exc:  # these events go without a brief this week; the rest goes on
            writer.record(name, 1, [rule(str(exc))])
            return None

    out = []
    for batch, part in zip(batches, in_parallel(writer.llm, write_batch, enumerate(batches, 1))):
        if part is None:
            continue
        texts = {b.get("n"): b["text"] for b in part.data["briefs"]}
        for n, e in enumerate(batch, 1):
            if texts.get(n):
                e.brief = " ".join(texts[n].split())
                out.append((e, part))
    return out


def fallback_summary(sections: list[Part]) -> str:
    """Summary and overview assembled from the sections themselves when the model gave none:
    the summary names the themes, each overview line is its section's thesis."""
    heads = [p.text.split("\n\n")[0] for p in sections]
    theses = [(p.text.split("\n\n") + [""])[1] for p in sections]
    summary = f"本周 {len(heads)} 个主题：" + "；".join(heads) + "。"
    return "\n\n".join([summary, *(f"{h}：{t}" for h, t in zip(heads, theses))])


def brief_line(e: WeekEvent, text: str) -> str:
    return f"{e.title} — {source_label(e)} / {sentence(text)}"


def _sections(
    writer: _Writer, themes: list[tuple[str, list[WeekEvent]]], stories: dict[int, dict]
) -> tuple[list[Part], list[dict], set[int]]:
    """The themes (heading, events) written side by side: their parts, their meta (with the text as
    published), and the ids of the events they cover."""

    def write_section(job):
        number, (heading, group) = job
        try:
            return _section(writer, number, group, heading)
        except BudgetExhausted:
            raise  # nothing is stored; the cached calls make the next run cheap
        except LLMError as exc:  # one theme failing leaves its events to the briefs
            writer.record(f"section {number}", 1, [rule(str(exc))])
            return None

    sections, meta, themed = [], [], set()
    for (heading, group), written in zip(themes, in_parallel(writer.llm, write_section, enumerate(themes, 1))):
        if written is None:
            continue
        part, kept = written
        sections.append(part)
        themed |= {e.id for e in kept}
        text, lines = published_section(part, group, heading, stories, writer.week)
        meta.append(
            {
                "heading": heading,
                "status": part.status,
                "findings": part.findings,
                "events": [e.id for e in kept],
                "text": text,
                "story_lines": lines,
            }
        )
    return sections, meta, themed


def _summary(writer: _Writer, sections: list[Part], headings: list[str], themed_events: list[WeekEvent]) -> Part:
    """Summary and overview, written from the checked sections against all their material;
    when the model gives none, a plain one from the sections, flagged."""

    def assemble(data):
        texts = {o.get("n"): o["text"] for o in data["overview"]}
        lines = [f"{h}：{sentence(texts[n])}" for n, h in enumerate(headings, 1) if texts.get(n)]
        return "\n\n".join([" ".join(data["summary"].split()), *lines])

    def not_repeated(data):
        summary = " ".join(data["summary"].split())
        overview = "\n".join(o["text"] for o in data["overview"])
        missing = [
            f"section [{n}] has no overview line"
            for n in range(1, len(headings) + 1)
            if n not in {o.get("n") for o in data["overview"]}
        ]
        return [rule(p) for p in repeated_sentences(summary, overview) + missing]

    # The sections carry the week's checked facts; the events' own material is clipped to a
    # share of SUMMARY_EVENT_CHARS so that the prompt fits an 8k-token model with any number of themes.
    share = SUMMARY_EVENT_CHARS // max(1, len(themed_events))
    material = "\n\n".join(
        [f"[{n}] {p.text}" for n, p in enumerate(sections, 1)] + [numbered(themed_events, chars=share)]
    )
    try:
        return writer.write("summary", "weekly_summary.md", material, SUMMARY_SCHEMA, assemble, not_repeated)
    except BudgetExhausted:
        raise
    except LLMError as exc:  # the written sections are not lost for want of a summary
        writer.record("summary", 1, [rule(str(exc))])
        return Part("summary", None, fallback_summary(sections), "flagged", [f"no summary from the model: {exc}"])


def _week(engine: Engine, settings: Settings, week: str | None) -> tuple[str, list[WeekEvent]]:
    with engine.begin() as conn:
        week = week or latest_week(conn, settings.timezone)
        if week is None:
            raise NoEvents()
        parse_week(week)
        all_events = week_events(conn, settings, week)
    if not all_events:
        raise WeeklyError(
            f"week {week} has no events in the store; pick a week with items (e.g. the demo pack's 2025-W09)"
        )
    return week, all_events


def _weekly_key(settings: Settings, week: str, banned, all_events, stories, caps: list[int]) -> str:
    """What the stored weekly was built from; the same key means nothing to rebuild. The model is
    named from settings, not asked of the LLM: a lazily opened model stays closed when nothing changed."""
    return material_key(
        "weekly",
        WEEKLY_FORMAT,
        week,
        settings.site_name,
        settings.llm.backend,
        settings.llm.model,
        prompts_fingerprint(("weekly",)),
        banned,
        [e.fingerprint for e in all_events],
        stories_fingerprint(stories),
        caps,
    )


def write_weekly(
    engine: Engine,
    settings: Settings,
    llm: ChatModel,
    week: str | None = None,
    *,
    now: datetime | None = None,
    max_sections: int = MAX_SECTIONS,
    per_section: int = PER_SECTION,
    max_briefs: int = MAX_BRIEFS,
) -> WeeklyStats:
    """Write the weekly report of `week`, unless its material is unchanged since the stored one: its
    parts come back in `editions` for editions/weekly.py to store.

    `max_sections` (at least MIN_SECTIONS), `per_section` and `max_briefs` cap the model's
    work: the demo asks for the smallest report of the full form."""
    max_sections = max(MIN_SECTIONS, max_sections)
    week, all_events = _week(engine, settings, week)
    stats = WeeklyStats(week=week, events=len(all_events))
    with engine.connect() as conn:
        stories = week_stories(conn, [e.id for e in all_events], LANGUAGE, settings.timezone)
    banned = banned_phrases(policy(settings))
    key_now = _weekly_key(settings, week, banned, all_events, stories, [max_sections, per_section, max_briefs])
    with engine.connect() as conn:
        if stored_material_key(conn, "weekly", week, LANGUAGE) == key_now:
            stats.status = "unchanged"
            return stats

    by_id = {e.id: e for e in all_events}
    named = build_themes([e.theme_event() for e in all_events], LANGUAGE, most=max_sections, per_theme=per_section)
    # A theme's events of one story are numbered together, in date order: the model reads them as
    # a sequence, and the section can show them as one entry.
    themes = [
        (
            n.heading,
            in_entry_order(
                [by_id[i] for i in n.events], story_entries(n.events, stories, week, LANGUAGE), key=lambda e: e.id
            ),
        )
        for n in named
    ]
    groups = [g for _, g in themes]
    writer = _Writer(engine, llm, week, banned)
    # Themes are written side by side; briefs wait for them (they take the week's other news).
    sections, section_meta, themed = _sections(writer, themes, stories)
    news = pick_briefs([e.theme_event() for e in all_events], set(themed), max_briefs)
    brief_parts = _briefs(writer, [by_id[i] for i in news])
    top = _summary(writer, sections, [m["heading"] for m in section_meta], [e for g in groups for e in g])
    summary_text, *overview = top.text.split("\n\n")

    parts = [*sections, top, *{id(p): p for _, p in brief_parts}.values()]
    status = "clean" if all(p.status == "clean" for p in parts) else "flagged"
    edition = WeeklyParts(
        week=week,
        summary=summary_text,
        overview=overview,
        sections=[m["text"] for m in section_meta],
        briefs=[brief_line(e, e.brief) for e, _ in brief_parts],
        status=status,
        material_key=key_now,
        now=now,
        meta={
            "summary": summary_text,
            "overview": overview,
            "sections": section_meta,
            "briefs": [
                {"event_id": e.id, "title": e.title, "source": source_label(e), "text": e.brief, "part": p.name}
                for e, p in brief_parts
            ],
            "flags": [{"part": p.name, "findings": p.findings} for p in parts if p.status != "clean"],
            "events": len(all_events),
        },
    )
    stats.sections, stats.briefs, stats.built, stats.status = len(sections), len(brief_parts), True, status
    stats.editions = [edition]
    return stats
