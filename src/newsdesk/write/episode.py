"""The Chinese digest of an episode (摘要 + 精读) from a transcript of any length.

The model writes prose; code owns the structure. The steps:

1. The transcript becomes numbered lines and passages (transcript.py); the sections' spans
   are planned over the passages' points (episode_plan.py).
2. Each section is written (topic, hook, 1–4 bullets) from its own lines; then the summary
   bullets from the sections. Each is checked and, failing, written once more with the
   problems (kit.checked); the better draft is kept.
3. Every quote is looked up in the transcript: kept, corrected to the transcript's words,
   or dropped. Speakers are named in full once, then by given name; names speech
   recognition may have misheard are marked (speakers.py).
4. Code assembles the text (digest.py), the checker checks it, and the edition is stored
   with a material key, so a re-run does nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from sqlalchemy.engine import Engine

from newsdesk.core.findings import Finding
from newsdesk.core.model import Turn
from newsdesk.ingest.transcripts import TranscriptError
from newsdesk.llm.chat import ChatModel
from newsdesk.llm.client import in_parallel
from newsdesk.write.digest import (
    Bullet,
    Digest,
    Section,
    clean_field,
    parse_digest,
)
from newsdesk.write.episode_plan import EpisodeOptions, plan_episode
from newsdesk.write.episode_result import (
    EpisodeResult,
    episode_slug,
    language_note,
    reuse,
    stored_edition,
)
from newsdesk.write.kit import (
    ask_json,
    banned_phrases,
    checked,
    checker_errors,
    material_key,
    messages,
    policy,
    prompts_fingerprint,
    record_check,
    rule,
    with_feedback,
)
from newsdesk.write.speakers import (
    Speaker,
    attribution_problems,
    mark_uncertain,
    name_speakers,
    section_material,
    speakers,
    uncertain_names,
)
from newsdesk.write.transcript import (
    QuoteReport,
    TranscriptIndex,
    estimate_tokens,
    find_quotes,
    text_key,
    transcript_lines,
    verify_quotes,
)

EPISODE_FORMAT = 2  # bump when the way a digest is planned changes: stored digests are rewritten (2: section cap)
_PLACEHOLDER = re.compile(r"<[^<>]{1,30}>")  # the prompts show a bullet's shape with <…> slots


def digest_key(turns: list[Turn], title: str, number, options: EpisodeOptions, banned: str = "") -> str:
    """The transcript, title, options, prompts and policy a digest was written from."""
    return material_key(
        "episode",
        EPISODE_FORMAT,
        [[t.speaker, t.text] for t in turns],
        title,
        str(number) if number is not None else None,
        options.__dict__,
        prompts_fingerprint(("episode", "rewrite")),
        banned,
    )


def section_schema(max_bullets: int) -> dict:
    bullet = {
        "type": "object",
        "properties": {"label": {"type": "string", "maxLength": 12}, "text": {"type": "string", "maxLength": 600}},
        "required": ["label", "text"],
    }
    return {
        "type": "object",
        "properties": {
            # maxLength: a grammar-constrained model stops instead of copying the transcript.
            "topic": {"type": "string", "maxLength": 40},
            "hook": {"type": "string", "maxLength": 100},
            "bullets": {"type": "array", "minItems": 1, "maxItems": max_bullets, "items": bullet},
        },
        "required": ["topic", "hook", "bullets"],
    }


def summary_schema(low: int, high: int) -> dict:
    bullet = {
        "type": "object",
        "properties": {
            "thesis": {"type": "string", "maxLength": 120},
            "evidence": {"type": "string", "maxLength": 480},
        },
        "required": ["thesis", "evidence"],
    }
    return {
        "type": "object",
        "properties": {"bullets": {"type": "array", "minItems": low, "maxItems": high, "items": bullet}},
        "required": ["bullets"],
    }


def _defects(problems: list[str]) -> list[str]:
    """What is still wrong after the repairs: a made-up quote whose sentence was dropped asks
    for a retry, but the text that remains is sound, so it is noted, not flagged."""
    return [p for p in problems if "sentence dropped" not in p]


def _clip(text: str, tokens: int) -> str:
    out = ""
    for line in text.split("\n"):
        if estimate_tokens(out + line) > tokens:
            room = max(0, tokens - estimate_tokens(out))
            return out + line[: room * 2] + "…"
        out += line + "\n"
    return out


def _problems(draft) -> list[Finding]:
    """A section's or a summary's problems, as the kit's loop weighs them (fewer is better)."""
    return [rule(p) for p in draft[1]]


class _Writer:
    """One episode's Chinese digest: holds the transcript views every step needs."""

    def __init__(self, llm: ChatModel, turns: list[Turn], options: EpisodeOptions, banned: str = ""):
        self.llm, self.options, self.banned = llm, options, banned
        self.lines = transcript_lines(turns, options.passage_tokens // 2)
        if not self.lines:
            raise TranscriptError("transcript has no speech to digest (every turn is empty)")
        self.index = TranscriptIndex(self.lines)
        self.people = speakers(turns)
        self.suspects = uncertain_names(self.lines)
        self.quotes = QuoteReport()
        self.material = ["\n".join(f"{ln.speaker}: {ln.text}" for ln in self.lines)]

    def ask(self, asked: list[dict], errors: list[Finding], schema: dict, max_tokens: int) -> dict:
        """The first ask, or the rewrite: the same chat and the first answer's problems."""
        if errors:
            asked = with_feedback(asked, [f.detail for f in errors])
        return ask_json(self.llm, asked, output="episode", schema=schema, max_tokens=max_tokens)

    def verified(self, text: str, problems: list[str]) -> str:
        """text with its quotes checked against the transcript; a dropped quote is a problem."""
        text, report = verify_quotes(text, self.index)
        self.quotes.add(report)
        problems += [n for n in report.notes if "dropped" in n]
        return text

    # --- a section ---

    def section(self, number: int, span: tuple[int, int], hint: str, earlier: list[str]) -> Section:
        first, last = span
        chunk = self.lines[first : last + 1]
        asked = messages(
            "episode_section.md",
            number=number,
            topic_hint=hint,
            first_line=first,
            last_line=last,
            lines="\n".join(ln.render() for ln in chunk),
            # Only who speaks here and which doubtful names occur here: a parliament has hundreds.
            speakers=[sp for sp in self.people if any(ln.speaker == sp.full for ln in chunk)],
            suspects=", ".join(n for n in self.suspects if any(n in ln.text for ln in chunk)),
            earlier="; ".join(earlier[-6:]),
            policy=self.banned,
        )
        schema = section_schema(self.options.max_bullets)
        done = checked(
            lambda errors: self._section_from(self.ask(asked, errors, schema, self.options.max_tokens), span),
            _problems,
            keep="best",
        )
        best = done.draft[0]
        best.flags = _defects(best.flags)
        if not best.bullets:
            # Nothing usable after two tries: the section keeps its place with the speakers' own words.
            longest = max(chunk, key=lambda ln: len(ln.text))
            words = " ".join(longest.text.split()[:60])
            best.bullets = [Bullet(f"{longest.speaker}：“{words}”")]
            best.topic = best.topic or hint or f"第{number}段"
        return best

    def _bullets(self, data: dict, problems: list[str]) -> list[Bullet]:
        bullets: list[Bullet] = []
        seen: set[str] = set()
        for b in data.get("bullets", [])[: self.options.max_bullets]:
            if not isinstance(b, dict):
                continue
            text = self.verified(clean_field(b.get("text")), problems)
            key = text_key(text)
            if _PLACEHOLDER.search(text):
                problems.append(f"the prompt's placeholder was copied: {text[:40]!r}")
                continue
            if len(key) < 12 or key in seen:
                problems.append(f"bullet too thin or repeated: {text[:40]!r}" if text else "an empty bullet")
                continue
            seen.add(key)
            problems += attribution_problems(text, self.index, self.people)
            label = clean_field(b.get("label"))
            # A label is a short name for the bullet (观点, 数据), never a number or the text itself.
            label = label if 0 < len(label) <= 12 and re.search(r"[^\W\d_]", label) and label not in text[:20] else ""
            bullets.append(Bullet(text, label))
        return bullets

    def _section_from(self, data: dict, span: tuple[int, int]) -> tuple[Section, list[str]]:
        first, last = span
        problems: list[str] = []
        topic = clean_field(re.sub(r"[：:]", " ", clean_field(data.get("topic"))))
        hook = clean_field(data.get("hook"))
        bullets = self._bullets(data, problems)
        hook, report = verify_quotes(hook, self.index)
        self.quotes.add(report)
        if not topic:
            problems.append("the topic is empty")
        if not bullets:
            problems.append("no bullet with content (1 to 4 bullets required)")
        if bullets:
            text = "\n".join([f"{topic}：{hook}", *(b.render("zh") for b in bullets)])
            # A section is checked against its own lines (and who speaks): the checker's cost grows
            # with the material, and a section's facts come from its lines.
            problems += [f.detail for f in checker_errors(text, section_material(self.lines, self.people, first, last))]
        return Section(topic, hook, bullets, first, last, problems), problems

    # --- the summary ---

    def summary(self, sections: list[Section]) -> tuple[list[str], list[str]]:
        o = self.options
        blocks = [
            "\n".join([f"{n}. {s.topic}：{s.hook}", *(f"• {b.render('zh')}" for b in s.bullets)])
            for n, s in enumerate(sections, 1)
        ]
        per = max(20, 2 * o.passage_tokens // max(1, len(blocks)))
        # Long episodes: each section keeps an equal share of the prompt (its heading first).
        shown = [b if estimate_tokens(b) <= per else _clip(b, per) for b in blocks]
        asked = messages(
            "episode_summary.md",
            target=o.summary_target,
            min_bullets=o.summary_min,
            max_bullets=o.summary_max,
            sections="\n\n".join(shown),
        )
        schema = summary_schema(o.summary_min, o.summary_max)
        done = checked(
            lambda errors: self._summary_from(self.ask(asked, errors, schema, o.max_tokens * 2)), _problems, keep="best"
        )
        bullets, problems = done.draft
        return bullets, _defects(problems)

    def _summary_from(self, data: dict) -> tuple[list[str], list[str]]:
        o = self.options
        bullets: list[str] = []
        problems: list[str] = []
        for b in data.get("bullets", [])[: o.summary_max]:
            if not isinstance(b, dict):
                continue
            thesis, evidence = clean_field(b.get("thesis")), clean_field(b.get("evidence"))
            if text_key(evidence) == text_key(thesis):
                problems.append(f"evidence only repeats the thesis: {thesis[:40]!r}")
                evidence = ""
            if thesis and not re.search(r"[。.!?！？]$", thesis):
                thesis += "。"
            text = self.verified(f"{thesis} {evidence}".strip(), problems)
            if text and _PLACEHOLDER.search(text):
                problems.append(f"the prompt's placeholder was copied: {text[:40]!r}")
            elif text and text_key(text) in {text_key(x) for x in bullets}:
                problems.append(f"summary bullet repeated: {text[:40]!r}")
            elif text:
                problems += attribution_problems(text, self.index, self.people)
                bullets.append(text)
        if len(bullets) < o.summary_min:
            problems.append(
                f"the summary has {len(bullets)} bullets; write {o.summary_target} ({o.summary_min}–{o.summary_max})"
            )
        if bullets:
            problems += [f.detail for f in checker_errors("\n".join(bullets), self.material)]
        return bullets, problems


def write_episode(
    engine: Engine,
    settings,
    llm: ChatModel,
    turns: list[Turn],
    *,
    title: str,
    number: str | int | None = None,
    key: str | None = None,
    options: EpisodeOptions | None = None,
) -> EpisodeResult:
    """The Chinese digest of an episode, for editions/episode.py to store as editions(kind='episode',
    language='zh'); its edition's meta in `meta`.

    A stored edition with the same material key (same transcript, title, prompts, policy) is
    returned as it is: no model call. The model and its limits come with `llm`.
    """
    options = options or EpisodeOptions()
    title = clean_field(title) or "Untitled episode"
    number = str(number) if number not in (None, "") else None
    key = key or episode_slug(title, number)
    banned = banned_phrases(policy(settings))
    mkey = digest_key(turns, title, number, options, banned)
    row = stored_edition(engine, key, "zh")
    if row and row["material_key"] == mkey:
        return reuse(row, "zh")

    w = _Writer(llm, turns, options, banned)
    spans, topics = plan_episode(llm, w.lines, options)
    # Sections are written side by side; each is told the planned topics before it, not the written ones.
    sections: list[Section] = in_parallel(
        llm, lambda n: w.section(n + 1, spans[n], topics[n], [t for t in topics[:n] if t]), range(len(spans))
    )
    summary, summary_problems = w.summary(sections)
    if not summary:
        # Nothing usable after two tries: the digest still opens with a summary, made of the
        # sections' own checked openings, and is flagged (as a section falls back to the speakers' words).
        summary = [f"{s.topic}：{s.hook}" if s.hook else f"{s.topic}：{s.bullets[0].text}" for s in sections][
            : options.summary_max
        ]
        summary_problems.append("no usable summary bullet from the model; the sections' openings stand in")

    digest = Digest(title, number, summary, sections, "zh", note=language_note(turns, "zh"))
    _apply_naming(digest, w.people, w.suspects)
    text = digest.render()
    findings = _digest_findings(w, digest, text, summary_problems)
    record_check(engine, "episode", key, 1, findings)
    lines = [f.line() for f in findings]
    return EpisodeResult(
        key,
        "zh",
        text,
        digest,
        "flagged" if findings else "clean",
        lines,
        mkey,
        quotes=w.quotes,
        meta={
            "number": number,
            "summary_bullets": len(digest.summary),
            "sections": len(digest.sections),
            "bullets_per_section": [len(s.bullets) for s in digest.sections],
            "section_lines": [[s.first_line, s.last_line] for s in digest.sections],
            "turns": len(turns),
            "speakers": [sp.__dict__ for sp in w.people],
            "uncertain_names": w.suspects,
            "quotes": {k: v for k, v in w.quotes.__dict__.items() if k != "notes"},
            "quote_notes": w.quotes.notes[:50],
            "findings": lines,
            "model": getattr(llm, "model", None),
        },
    )


def _digest_findings(w: _Writer, digest: Digest, text: str, summary_problems: list[str]) -> list[Finding]:
    """What is still wrong with the assembled digest: its shape, its parts' problems, the checker, quotes."""
    findings = [rule(p) for p in structure_findings(parse_digest(text, "zh"), w.options)]
    findings += [rule(p, f"section {n}") for n, s in enumerate(digest.sections, 1) for p in s.flags]
    findings += [rule(p, "summary") for p in summary_problems]
    findings += checker_errors(digest.prose(), w.material)
    return findings + unfound_quotes(text, w.index)


def _apply_naming(digest: Digest, people: list[Speaker], suspects: list[str]) -> None:
    """Speaker naming and uncertain-name marks, applied over the digest in reading order."""
    summary_n = len(digest.summary)
    flat = digest.summary + [b.text for s in digest.sections for b in s.bullets]
    flat = mark_uncertain(name_speakers(flat, people), suspects, digest.language)
    digest.summary = flat[:summary_n]
    rest = iter(flat[summary_n:])
    for s in digest.sections:
        for b in s.bullets:
            b.text = next(rest)


def structure_findings(digest: Digest, options: EpisodeOptions) -> list[str]:
    out = []
    if not options.summary_min <= len(digest.summary) <= options.summary_max:
        out.append(f"summary has {len(digest.summary)} bullets (needs {options.summary_min}–{options.summary_max})")
    if len(digest.sections) < options.min_sections:
        out.append(f"{len(digest.sections)} sections (needs at least {options.min_sections})")
    for n, s in enumerate(digest.sections, 1):
        if not 1 <= len(s.bullets) <= options.max_bullets:
            out.append(f"section {n} has {len(s.bullets)} bullets (needs 1–{options.max_bullets})")
    return out


def unfound_quotes(text: str, index: TranscriptIndex) -> list[Finding]:
    return [
        Finding("quote", f"quote not found in the transcript: “{q[:60]}”", q)
        for _, _, q in find_quotes(text)
        if not index.contains(q)
    ]


def episode_digests(
    engine: Engine, settings, llm: ChatModel, turns: list[Turn], *, title: str, number: str | int | None = None
) -> Iterator[EpisodeResult]:
    """The episode's model-written digest in Chinese and (with "en" in settings.languages) its English
    translation, as published, each handed on as it is done (editions/episode.py stores it before the
    next is written). An edition that still fails its checks is never published: its draft is kept for
    the operator and the extractive digest stands in its place (_published). A Chinese stand-in is not
    translated (readers never see the draft it replaced): the English edition is extractive too."""
    from newsdesk.write.extractive.checked import checked_episode
    from newsdesk.write.translate import translate_episode

    zh = _published(
        engine, llm, write_episode(engine, settings, llm, turns, title=title, number=number), "episode", turns, number
    )
    yield zh
    if "en" not in settings.languages:
        return
    if zh.meta.get("extractive"):
        yield checked_episode(engine, turns, title=zh.digest.title, number=number, language="en", key=zh.key)
    else:
        yield _published(
            engine,
            llm,
            translate_episode(engine, settings, llm, zh, turns, original_title=title),
            "translation",
            turns,
            number,
        )


def _published(
    engine: Engine, llm: ChatModel, result: EpisodeResult, kind: str, turns: list[Turn], number
) -> EpisodeResult:
    """`result` when it passed its checks; else its draft kept for the operator and the extractive digest stored
    in its place, under its material key."""
    from newsdesk.write.extractive.checked import checked_episode
    from newsdesk.write.failed import Draft, stand_in

    if result.status == "clean" or result.reused:  # reused: its draft, if any, was kept when it was written
        return result
    draft = Draft(
        kind,
        f"{result.key}:{result.language}",
        result.language,
        result.digest.title,
        result.text,
        [Finding.load(f) for f in result.findings],
        getattr(llm, "model", None),
        result.material_key,
    )
    return stand_in(
        engine,
        draft,
        lambda: checked_episode(
            engine,
            turns,
            title=result.digest.title,
            number=number,
            language=result.language,
            key=result.key,
            stands_in_for=result.material_key,
        ),
    )
