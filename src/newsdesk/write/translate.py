"""Translation: the English edition of an episode digest, one unit at a time; and an event card
whose material is all in the other language, in its edition's language (translate_cards, below).

The units are the title + summary, then each section. Code keeps the structure: it asks
for exactly as many bullets as the Chinese unit has and assembles the sections in the
Chinese order, so the shape cannot drift. Each unit is checked — bullet count, every
number kept (2万 = 20,000), quotes verbatim when the transcript is English, hedges not
dropped, the checker — regenerated once with the problems spelled out (kit.checked), then
flagged. Two errors of the reference English edition (a fact about Qwen extended to Kimi;
"目前可能还没有人在做" softened to "few may be working on this") are named in the prompts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlalchemy.engine import Engine

from newsdesk.core.findings import Finding
from newsdesk.core.model import Turn
from newsdesk.llm.chat import ChatModel
from newsdesk.llm.client import in_parallel
from newsdesk.write.digest import (
    Bullet,
    Digest,
    Section,
    clean_field,
    parse_digest,
)
from newsdesk.write.episode_plan import EpisodeOptions
from newsdesk.write.episode_result import (
    EpisodeResult,
    language_note,
    reuse,
    stored_edition,
)
from newsdesk.write.kit import (
    ask_json,
    checked,
    checker_errors,
    material_key,
    messages,
    prompts_fingerprint,
    record_check,
    rule,
    with_feedback,
)
from newsdesk.write.speakers import (
    mark_uncertain,
    name_speakers,
    section_material,
    speakers,
    uncertain_names,
)
from newsdesk.write.transcript import (
    CJK,
    QuoteReport,
    TranscriptIndex,
    find_quotes,
    transcript_lines,
    verify_quotes,
)

# --- numbers ------------------------------------------------------------------------------

_SHORT_SCALE = re.compile(r"(?<![A-Za-z0-9.])(\d+(?:\.\d+)?)\s?([KMB])(?![A-Za-z])")  # 100K, 1.2B
_TIMES = re.compile(r"(?<![A-Za-z0-9.])(\d+)x(?![A-Za-z])|([十百千])倍")


def numbers(text: str) -> set[float]:
    """Every quantity in text as a plain value, by the checker's own reading (2万 = 两万 =
    20,000), plus the shorthands a translation uses: 100K = 10万, 10x = 十倍."""
    from newsdesk.text.numbers import extract_numbers

    found = {round(n.value, 6) for n in extract_numbers(text)}
    for m in _SHORT_SCALE.finditer(text):
        value = float(m.group(1))
        found.discard(value)  # the checker reads "100K" as 100 (k = a unit there)
        found.add(round(value * {"K": 1e3, "M": 1e6, "B": 1e9}[m.group(2)], 6))
    for m in _TIMES.finditer(text):
        found.add(float(m.group(1)) if m.group(1) else {"十": 10.0, "百": 100.0, "千": 1000.0}[m.group(2)])
    return found


def _fmt(value: float) -> str:
    return f"{value:,.0f}" if value == int(value) else f"{value:g}"


def number_problems(zh: str, en: str) -> list[str]:
    """Numbers the English dropped or made up (small bare counts are style, not facts)."""
    a, b = numbers(zh), numbers(en)
    out = [f"number {_fmt(v)} is missing from the English" for v in sorted(a - b) if v >= 10 or v != int(v)]
    out += [f"number {_fmt(v)} is not in the Chinese" for v in sorted(b - a) if v >= 10 or v != int(v)]
    return out


_ZH_HEDGES = re.compile(r"可能|也许|或许|大概|似乎|好像|猜测|我猜|不一定|估计|粗略|倾向于|应该")
_EN_HEDGES = re.compile(
    r"\b(may|might|could|possibly|perhaps|probably|likely|seem\w*|appear\w*|guess\w*|suspect\w*|roughly|"
    r"about|around|approximately|estimate\w*|think|believe\w*|tend\w*|should|not necessarily|unclear|uncertain)\b",
    re.I,
)


def hedge_problems(zh: str, en: str) -> list[str]:
    if _ZH_HEDGES.search(zh) and not _EN_HEDGES.search(en):
        return [
            "the Chinese hedges this claim (可能 / 也许 / 估计 …) but the English states it as certain; keep the hedge"
        ]
    return []


# --- one unit ------------------------------------------------------------------------------


@dataclass
class _Unit:
    """The result of translating one unit, with what is still wrong with it."""

    head: list[str]  # [title] or [topic, hook]
    bullets: list[str]
    problems: list[str]


def _bullets_schema(count: int, head: tuple[str, ...]) -> dict:
    props = {name: {"type": "string", "maxLength": 200} for name in head}
    item = {"type": "string", "maxLength": 1200}  # English runs longer than Chinese, but not forever
    props["bullets"] = {"type": "array", "minItems": count, "maxItems": count, "items": item}
    return {"type": "object", "properties": props, "required": [*head, "bullets"]}


class _Translator:
    def __init__(
        self, llm: ChatModel, index: TranscriptIndex, english_source: bool, options: EpisodeOptions, material: list[str]
    ):
        self.llm, self.index, self.english_source = llm, index, english_source
        self.options, self.material = options, material
        self.quotes = QuoteReport()

    def unit(
        self,
        template: str,
        values: dict,
        head: tuple[str, ...],
        zh_head: list[str],
        zh_bullets: list[str],
        material: list[str] | None = None,
    ) -> _Unit:
        count = len(zh_bullets)
        asked = messages(
            template,
            count=count,
            chinese_source=not self.english_source,
            bullets="\n".join(f"{i}. {b}" for i, b in enumerate(zh_bullets, 1)),
            **values,
        )
        schema = _bullets_schema(count, head)

        def write(errors: list[Finding]) -> _Unit:
            again = with_feedback(asked, [f.detail for f in errors]) if errors else asked
            data = ask_json(
                self.llm, again, output="translation", schema=schema, max_tokens=self.options.max_tokens * 2
            )
            return self._check(data, head, zh_head, zh_bullets, material or self.material)

        return checked(write, lambda unit: [rule(p) for p in unit.problems], keep="best").draft

    def _check(
        self, data: dict, head: tuple[str, ...], zh_head: list[str], zh_bullets: list[str], material: list[str]
    ) -> _Unit:
        problems: list[str] = []
        got_head = [clean_field(data.get(name)).replace("：", ":") for name in head]
        for name, value in zip(head, got_head):
            if not value:
                problems.append(f"'{name}' is empty")
        raw = [clean_field(b) for b in data.get("bullets", []) if isinstance(b, str)]
        bullets: list[str] = []
        for k, text in enumerate(raw):
            if self.english_source:
                text, report = verify_quotes(text, self.index)
                self.quotes.add(report)
                problems += [f"bullet {k + 1}: {n}" for n in report.notes if "dropped" in n]
            bullets.append(text)
        if len(bullets) != len(zh_bullets) or not all(bullets):
            problems.append(
                f"{len([b for b in bullets if b])} bullets, need exactly {len(zh_bullets)} (one per Chinese bullet)"
            )
        for k, (zh, en) in enumerate(zip(zh_bullets, bullets), 1):
            problems += [f"bullet {k}: {p}" for p in number_problems(zh, en) + hedge_problems(zh, en)]
            if len(find_quotes(zh)) and not find_quotes(en):
                problems.append(f"bullet {k}: the Chinese quotes the speaker; keep the quotation in “…”")
        problems += [p for zh, en in zip(zh_head, got_head) for p in number_problems(zh, en)]
        if bullets and all(bullets):
            prose = "\n".join([h for name, h in zip(head, got_head) if name != "title"] + bullets)
            problems += [f.detail for f in checker_errors(prose, material, "en")]
        return _Unit(got_head, bullets, problems)


# --- the edition ------------------------------------------------------------------------------


def english_transcript(turns: list[Turn]) -> bool:
    sample = " ".join(t.text for t in turns)[:20000]
    return len(CJK.findall(sample)) < 0.05 * max(1, len(sample))


def translation_key(zh: EpisodeResult) -> str:
    return material_key("translation", zh.material_key, zh.text, prompts_fingerprint(("translate", "rewrite")))


def shape(d: Digest) -> tuple[int, int, list[int]]:
    return len(d.summary), len(d.sections), [len(s.bullets) for s in d.sections]


def translate_episode(
    engine: Engine,
    settings,
    llm: ChatModel,
    zh: EpisodeResult,
    turns: list[Turn],
    *,
    original_title: str | None = None,
    options: EpisodeOptions | None = None,
) -> EpisodeResult:
    """The English edition of a Chinese digest, for editions/episode.py to store as editions(kind='episode',
    language='en'). Unchanged Chinese edition + prompts = the stored English edition, no call.
    `original_title`: the episode's own title, used as is when the episode is in English."""
    options = options or EpisodeOptions()
    mkey = translation_key(zh)
    row = stored_edition(engine, zh.key, "en")
    if row and row["material_key"] == mkey:
        return reuse(row, "en")

    lines = transcript_lines(turns, options.passage_tokens // 2)
    index = TranscriptIndex(lines)
    english = english_transcript(turns)
    material = ["\n".join(f"{ln.speaker}: {ln.text}" for ln in lines)]
    t = _Translator(llm, index, english, options, material)
    people = speakers(turns)
    source = zh.digest

    def translate(n: int) -> _Unit:
        """Unit 0 is the title and summary, unit n the n-th section: independent, so they run side by side."""
        if n == 0:
            return t.unit("translate_summary.md", {"title": source.title}, ("title",), [source.title], source.summary)
        s = source.sections[n - 1]
        own = section_material(lines, people, s.first_line, s.last_line) if s.last_line else None
        return t.unit(
            "translate_section.md",
            {"topic": s.topic, "hook": s.hook},
            ("topic", "hook"),
            [s.topic, s.hook],
            [b.render("zh") for b in s.bullets],
            own,
        )

    summary, *units = in_parallel(llm, translate, range(len(source.sections) + 1))
    digest, findings = _assemble(source, summary, units, _title(source, summary, original_title, english))
    digest.note = language_note(turns, "en")  # a Chinese episode says so
    _naming(digest, people, uncertain_names(lines), zh.text)
    text = digest.render()
    findings += _edition_findings(text, zh, digest, index if english else None, material)
    findings = list({f.line(): f for f in findings}.values())  # one line once
    record_check(engine, "translation", zh.key, 1, findings)
    found = [f.line() for f in findings]
    summary_n, sections_n, per = shape(digest)
    meta = {
        "number": source.number,
        "summary_bullets": summary_n,
        "sections": sections_n,
        "bullets_per_section": per,
        "translated_from": zh.material_key,
        "quotes": {k: v for k, v in t.quotes.__dict__.items() if k != "notes"},
        "findings": found,
        "model": getattr(llm, "model", None),
    }
    return EpisodeResult(
        zh.key, "en", text, digest, "flagged" if found else "clean", found, mkey, quotes=t.quotes, meta=meta
    )


def _title(source: Digest, summary: _Unit, original_title: str | None, english: bool) -> str:
    if not CJK.search(source.title):
        return source.title  # an English episode keeps its own title
    if original_title and english and not CJK.search(original_title):
        return clean_field(original_title)
    return summary.head[0] or source.title


def _assemble(source: Digest, summary: _Unit, units: list[_Unit], title: str) -> tuple[Digest, list[Finding]]:
    """The English digest in the Chinese one's shape; a bullet the model failed to give keeps its
    place with the Chinese text, and the units' problems as findings."""
    sections: list[Section] = []
    findings = [rule(p, "summary") for p in summary.problems]
    for n, (s, u) in enumerate(zip(source.sections, units), 1):
        zh_bullets = [b.render("zh") for b in s.bullets]
        topic, hook = (u.head[0] or s.topic).replace(":", " "), u.head[1] or s.hook
        bullets = [
            Bullet(u.bullets[k] if k < len(u.bullets) and u.bullets[k] else zh_b) for k, zh_b in enumerate(zh_bullets)
        ]
        sections.append(Section(topic, hook, bullets, s.first_line, s.last_line, u.problems))
        findings += [rule(p, f"section {n}") for p in u.problems]
    summary_bullets = [
        summary.bullets[k] if k < len(summary.bullets) and summary.bullets[k] else zh_b
        for k, zh_b in enumerate(source.summary)
    ]
    return Digest(title, source.number, summary_bullets, sections, "en"), findings


def _edition_findings(
    text: str, zh: EpisodeResult, digest: Digest, index: TranscriptIndex | None, material: list[str]
) -> list[Finding]:
    """The whole edition: the Chinese shape kept, quotes verbatim (an English transcript), the checker."""
    findings = []
    back = parse_digest(text, "en")
    if shape(back) != shape(parse_digest(zh.text, "zh")):
        findings.append(rule(f"shape differs: English {shape(back)} vs Chinese {shape(zh.digest)}"))
    if index is not None:
        findings += [
            Finding("quote", f"quote not found in the transcript: “{q[:60]}”", q)
            for _, _, q in find_quotes(text)
            if not index.contains(q)
        ]
    return findings + checker_errors(digest.prose(), material, "en")


def _naming(digest: Digest, people, suspects: list[str], zh_text: str) -> None:
    """Same speaker naming as the Chinese edition; uncertain names the Chinese marked stay marked."""
    marked = [name for name in suspects if re.search(rf"{re.escape(name)}\s*（音", zh_text)]
    n = len(digest.summary)
    flat = digest.summary + [b.text for s in digest.sections for b in s.bullets]
    flat = [re.sub(r"（音）", " (as heard)", x) for x in flat]
    flat = mark_uncertain(name_speakers(flat, people), marked, "en")
    digest.summary = flat[:n]
    rest = iter(flat[n:])
    for s in digest.sections:
        for b in s.bullets:
            b.text = next(rest)


# --- an event card in the other language ------------------------------------------------------
#
# Offline, an event with no material in an edition's language is shown there as what it is: its
# original headline and extract, marked (editions/cards.py). With an endpoint, the extractive card's
# headline and lead are translated into the edition's language, checked like every part (numbers
# kept, the checker against the event's material and the original), and the card becomes a full
# card of its edition, marked as translated; one that still fails after its rewrite stays as it was.

LANGUAGE_NAMES = {"zh": "Chinese", "en": "English", "other": "its original language"}
CARD_SCHEMA = {
    "type": "object",
    "properties": {
        "headline": {"type": "string", "minLength": 2, "maxLength": 300},
        "lead": {"type": "string", "maxLength": 3000},
    },
    "required": ["headline", "lead"],
}


def card_problems(source: tuple[str, str], draft: tuple[str, str], language: str) -> list[str]:
    """What a card's translation got wrong beside the checker: a part left empty or not in
    `language`, a number dropped or made up."""
    from newsdesk.text.language import detect_language

    problems = []
    for name, original, text in zip(("headline", "lead"), source, draft):
        if original.strip() and not text.strip():
            problems.append(f"the {name} is empty")
        elif text.strip() and detect_language(text) != language:
            problems.append(f"the {name} is not in {LANGUAGE_NAMES[language]}")
    a, b = numbers(" ".join(source)), numbers(" ".join(draft))
    problems += [f"number {_fmt(v)} is missing from the translation" for v in sorted(a - b) if v >= 10 or v != int(v)]
    problems += [f"number {_fmt(v)} is not in the original" for v in sorted(b - a) if v >= 10 or v != int(v)]
    return problems


def translate_card(engine: Engine, llm: ChatModel, brief: dict, row: dict, language: str, source_language: str) -> bool:
    """The stored extractive card `row` of one event in `language`, its headline and lead translated
    from `source_language` and stored in its place (same material key: the extractive writer does not
    redo it while the event is unchanged). Returns whether the translation passed its checks."""
    from newsdesk.store.schema import analyses
    from newsdesk.write.extractive.card import member_material, split_notes

    lead, notes = split_notes(row["body"])
    source = (row["headline"], lead)
    asked = messages(
        "translate_card.md",
        source_name=LANGUAGE_NAMES.get(source_language, LANGUAGE_NAMES["other"]),
        target_name=LANGUAGE_NAMES[language],
        target=language,
        headline=row["headline"],
        lead=lead,
    )
    material = [member_material(m) for m in brief["members"]] + ["\n".join(source)]

    def write(errors: list[Finding]) -> tuple[str, str]:
        again = with_feedback(asked, [f.detail for f in errors]) if errors else asked
        data = ask_json(llm, again, output="translation", schema=CARD_SCHEMA, max_tokens=1200)
        return clean_field(data.get("headline")), clean_field(data.get("lead"))

    def check(draft: tuple[str, str]) -> list[Finding]:
        found = [rule(p) for p in card_problems(source, draft, language)]
        return found + checker_errors("\n\n".join(p for p in draft if p), material, language)

    subject = f"{brief['event_id']}:{language}"
    done = checked(
        write, check, record=lambda attempt, found: record_check(engine, "translation", subject, attempt, found)
    )
    if not done.passed:
        return False  # the card stays as it was: its original text, marked
    headline, translated = done.draft
    with engine.begin() as conn:
        conn.execute(
            analyses.update()
            .where(analyses.c.id == row["id"], analyses.c.material_key == row["material_key"])
            .values(
                headline=headline,
                body="\n\n".join(p for p in [translated, *notes] if p),
                translated_from=source_language,
                attempts=done.attempts,
                flags=[f.as_dict() for f in done.findings],
            )
        )
    return True


def translate_cards(engine: Engine, settings, llm: ChatModel, *, event_ids: list[int] | None = None) -> int:
    """Every stored extractive card whose headline or lead is not in its edition's language (the event has
    no material in it), translated (translate_card), most important event first. Returns how many passed."""
    from sqlalchemy import desc, select

    from newsdesk.cluster import event_brief
    from newsdesk.store.schema import analyses, events
    from newsdesk.text.language import detect_language
    from newsdesk.write.extractive.card import EXTRACTIVE, split_notes

    query = (
        select(analyses)
        .join(events, events.c.id == analyses.c.event_id)
        .where(analyses.c.model == EXTRACTIVE, analyses.c.status == "clean", analyses.c.translated_from.is_(None))
        .where(analyses.c.language.in_(settings.languages))
        .order_by(desc(events.c.importance), analyses.c.event_id, analyses.c.language)
    )
    if event_ids is not None:
        query = query.where(analyses.c.event_id.in_(event_ids))
    with engine.connect() as conn:
        rows = [dict(r._mapping) for r in conn.execute(query)]
    done = 0
    for row in rows:
        lead = split_notes(row["body"])[0]
        written = {detect_language(row["headline"])} | ({detect_language(lead)} if lead.strip() else set())
        if written == {row["language"]}:
            continue  # already in its edition's language
        with engine.connect() as conn:
            brief = event_brief(conn, row["event_id"])
        source_language = detect_language(row["headline"] + " " + lead)
        done += translate_card(engine, llm, brief, row, row["language"], source_language)
    return done
