"""Episode digest (SPEC Output C, seed 000) from a transcript of any length.

The model writes prose; code owns the structure. The steps:

1. The transcript becomes numbered *lines* (one per turn; a turn too long for a passage is
   cut at sentence ends) and *passages* that fit the model's context (token estimate,
   cut only between lines).
2. Each passage is summarised as points, each tied to the line where it starts.
3. One call over all points proposes the sections (start line + topic); code validates
   the boundaries and splits / merges until the count and sizes are right.
4. Each section is written (topic, hook, 1–4 bullets) from its own lines; then the
   summary bullets from the sections.
5. Every quote is looked up in the transcript: kept, corrected to the transcript's words,
   or dropped. Speakers are named in full once, then by given name; names speech
   recognition may have misheard are marked.
6. Code assembles the text, the checker checks it, a failing part is regenerated once,
   then flagged. The edition is stored with a material key, so a re-run does nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from rapidfuzz import fuzz, process
from sqlalchemy import insert, select
from sqlalchemy.engine import Engine

from newsdesk.editions import store as editions_store
from newsdesk.errors import PARTIAL, NewsdeskError
from newsdesk.ingest.transcripts import TranscriptError
from newsdesk.llm.client import in_parallel
from newsdesk.model import Turn
from newsdesk.store.schema import checks, transcripts
from newsdesk.write.kit import banned_phrases, policy, prompts_fingerprint
from newsdesk.write.kit import messages as prompt

HEADINGS = {"zh": ("摘要", "精读"), "en": ("Summary", "Deep dive")}
COLON = {"zh": "：", "en": ": "}
BULLET = "• "
UNCERTAIN_MARK = {"zh": "（音）", "en": " (as heard)"}


class DigestFormatError(NewsdeskError, ValueError):
    """A digest's text does not have Output C/D's shape; the message names the line."""

    exit_code = PARTIAL  # that digest is not stored; the rest of the run is


# --- the digest as data, and its text ------------------------------------------------


@dataclass
class Bullet:
    text: str
    label: str = ""

    def render(self, language: str) -> str:
        return f"{self.label}{COLON[language]}{self.text}" if self.label else self.text


@dataclass
class Section:
    topic: str
    hook: str
    bullets: list[Bullet]
    first_line: int = 0
    last_line: int = 0  # inclusive
    flags: list[str] = field(default_factory=list)


@dataclass
class Digest:
    title: str
    number: str | None
    summary: list[str]
    sections: list[Section]
    language: str = "zh"

    def render(self) -> str:
        summary_head, sections_head = HEADINGS[self.language]
        colon = COLON[self.language]
        out = [f"{self.number}. {self.title}" if self.number else self.title, "", summary_head, ""]
        out += [BULLET + b for b in self.summary]
        out += ["", sections_head, ""]
        for n, section in enumerate(self.sections, 1):
            head = f"{n}. {section.topic}{colon}{section.hook}" if section.hook else f"{n}. {section.topic}"
            out += [head, ""] + [BULLET + b.render(self.language) for b in section.bullets] + [""]
        return "\n".join(out).rstrip() + "\n"

    def prose(self) -> str:
        """What the checker reads: every sentence, without the title line and the numbering."""
        parts = list(self.summary)
        for s in self.sections:
            parts.append(f"{s.topic}{COLON[self.language]}{s.hook}" if s.hook else s.topic)
            parts += [b.render(self.language) for b in s.bullets]
        return "\n".join(parts)

    def texts(self) -> list[str]:
        """Every piece of prose in reading order (for naming rules and checks)."""
        parts = [self.title, *self.summary]
        for s in self.sections:
            parts += [s.topic, s.hook, *(b.render(self.language) for b in s.bullets)]
        return parts


def parse_digest(text: str, language: str = "zh") -> Digest:
    """Read a rendered digest back; raises DigestFormatError naming the first bad line."""
    summary_head, sections_head = HEADINGS[language]
    lines = [ln.rstrip() for ln in text.splitlines()]
    numbered = [(i + 1, ln) for i, ln in enumerate(lines) if ln.strip()]
    if not numbered:
        raise DigestFormatError("digest is empty")
    _, first = numbered[0]
    m = re.match(r"^(\d+)\. (.+)$", first)
    number, title = (m.group(1), m.group(2)) if m else (None, first)
    summary: list[str] = []
    sections: list[Section] = []
    part = "title"
    for lineno, ln in numbered[1:]:
        if ln == summary_head and part == "title":
            part = "summary"
        elif ln == sections_head and part == "summary":
            part = "sections"
        elif part == "summary" and ln.startswith(BULLET):
            summary.append(ln[len(BULLET):])
        elif part == "sections" and (h := re.match(r"^(\d+)\. (.+)$", ln)):
            if int(h.group(1)) != len(sections) + 1:
                raise DigestFormatError(f"line {lineno}: section {h.group(1)} out of order")
            topic, _, hook = h.group(2).partition(COLON[language].strip())
            sections.append(Section(topic.strip(), hook.strip(), []))
        elif part == "sections" and ln.startswith(BULLET) and sections:
            sections[-1].bullets.append(Bullet(ln[len(BULLET):]))
        else:
            raise DigestFormatError(f"line {lineno}: unexpected {ln[:60]!r} in the {part} part")
    if part != "sections":
        raise DigestFormatError(f"digest lacks the '{summary_head}' or '{sections_head}' heading")
    for s in sections:
        if not s.bullets:
            raise DigestFormatError(f"section '{s.topic}' has no bullet")
    return Digest(title, number, summary, sections, language)


def clean_field(value: object) -> str:
    """One line of prose: no newlines, no literal escapes, no leading bullet or number."""
    text = str(value or "").replace("\\n", " ").replace("\\t", " ")
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"^(?:[•\-\*·]\s*|\d+[.、)]\s+)", "", text)
    return text.strip()


# --- transcript: lines, passages, token estimate --------------------------------------

_MARKER = re.compile(r"\{[a-z_]+\}")  # qmsum/ASR annotations: {vocalsound}, {disfmarker}, {gap}
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")


def estimate_tokens(text: str) -> int:
    """Rough token count: about one per CJK character, one per 3.5 other characters."""
    cjk = len(_CJK.findall(text))
    return cjk + (len(text) - cjk) * 2 // 7 + 1


def clean_speech(text: str) -> str:
    """Drop annotation markers and tokenizer spacing ("that 's ," -> "that's,")."""
    text = _MARKER.sub(" ", text)
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r" (?=[,.;:?!%)\]])", "", text)
    return re.sub(r" (?='s\b|'re\b|'ve\b|'ll\b|'d\b|'m\b|n't\b)", "", text)


@dataclass
class Line:
    id: int
    turn: int  # index into the original turns
    speaker: str
    text: str

    def render(self) -> str:
        return f"[{self.id}] {self.speaker}: {self.text}"


def transcript_lines(turns: list[Turn], max_tokens: int) -> list[Line]:
    """Numbered lines: one per non-empty turn, a turn over max_tokens cut at sentence ends."""
    lines: list[Line] = []
    for t_idx, turn in enumerate(turns):
        text = clean_speech(turn.text)
        if not re.search(r"\w", text):
            continue
        pieces = [text]
        if estimate_tokens(text) > max_tokens:
            pieces, current = [], ""
            for sentence in re.split(r"(?<=[.!?。！？])\s*", text):
                if current and estimate_tokens(current + " " + sentence) > max_tokens:
                    pieces.append(current)
                    current = ""
                current = f"{current} {sentence}".strip()
            if current:
                pieces.append(current)
        for piece in pieces:
            lines.append(Line(len(lines), t_idx, (turn.speaker or "").strip() or "Speaker", piece))
    return lines


def passages(lines: list[Line], max_tokens: int) -> list[list[Line]]:
    """Consecutive runs of lines, each within max_tokens (cut only between lines)."""
    out: list[list[Line]] = []
    current: list[Line] = []
    size = 0
    for line in lines:
        cost = estimate_tokens(line.render())
        if current and size + cost > max_tokens:
            out.append(current)
            current, size = [], 0
        current.append(line)
        size += cost
    if current:
        out.append(current)
    return out


def plan_sections(
    lines: list[Line], starts: list[int], *, min_sections: int, max_sections: int, max_tokens: int
) -> list[tuple[int, int]]:
    """Turn proposed start lines into valid (first, last) spans: ordered, covering every line,
    no section tiny, none over max_tokens, between min and max sections where lines allow."""
    n = len(lines)
    if n == 0:
        return []
    cost = [estimate_tokens(ln.render()) for ln in lines]
    bounds = sorted({s for s in starts if isinstance(s, int) and 0 < s < n})
    spans = [(a, b - 1) for a, b in zip([0, *bounds], [*bounds, n])]

    def size(span: tuple[int, int]) -> int:
        return sum(cost[span[0] : span[1] + 1])

    def split(span: tuple[int, int]) -> list[tuple[int, int]]:
        a, b = span
        half, run, cut = size(span) / 2, 0, a + 1
        for i in range(a, b):
            run += cost[i]
            cut = i + 1
            if run >= half:
                break
        # Prefer a cut where the speaker changes, near the middle.
        for delta in range(0, max(1, (b - a) // 4)):
            for c in (cut + delta, cut - delta):
                if a < c <= b and lines[c].speaker != lines[c - 1].speaker:
                    return [(a, c - 1), (c, b)]
        return [(a, cut - 1), (cut, b)]

    # Tiny sections (a line or two of talk) join the section before them.
    floor = max(1, min(120, sum(cost) // (max_sections * 4)))
    merged: list[tuple[int, int]] = []
    for span in spans:
        if merged and size(span) < floor:
            merged[-1] = (merged[-1][0], span[1])
        else:
            merged.append(span)
    spans = merged
    while len(spans) > max_sections:
        i = min(range(len(spans) - 1), key=lambda k: size(spans[k]) + size(spans[k + 1]))
        spans[i : i + 2] = [(spans[i][0], spans[i + 1][1])]
    while True:
        oversize = [i for i, s in enumerate(spans) if size(s) > max_tokens and s[1] > s[0]]
        if not oversize and len(spans) >= min_sections:
            break
        splittable = [i for i, s in enumerate(spans) if s[1] > s[0]]
        if not splittable:
            break
        i = oversize[0] if oversize else max(splittable, key=lambda k: size(spans[k]))
        spans[i : i + 1] = split(spans[i])
    return spans


# --- quotes: find, correct or drop -----------------------------------------------------

_QUOTE = re.compile(r"“([^“”]+)”|\"([^\"]+)\"|「([^「」]+)」")
_FUZZY_MIN_CHARS = 16  # shorter quotes must match exactly: fuzzy hits on short strings are noise
_FUZZY_SCORE = 88.0


def _norm(text: str) -> tuple[str, list[int]]:
    """Letters and digits only, casefolded and width-normalised; with each char's source index."""
    chars, where = [], []
    for i, ch in enumerate(text):
        if ch == "\x00":
            chars.append(ch)
            where.append(i)
            continue
        for c in unicodedata.normalize("NFKC", ch).casefold():
            if c.isalnum():
                chars.append(c)
                where.append(i)
    return "".join(chars), where


def quote_key(quote: str) -> str:
    return _norm(clean_speech(quote))[0]


def find_quotes(text: str) -> list[tuple[int, int, str]]:
    """(start, end, inner) of every quotation in text, end exclusive, marks included."""
    return [(m.start(), m.end(), next(g for g in m.groups() if g is not None)) for m in _QUOTE.finditer(text)]


class TranscriptIndex:
    """The transcript as one searchable string; a quote may not cross a turn boundary."""

    def __init__(self, lines: list[Line]):
        self.raw = "\x00".join(ln.text for ln in lines)
        self.norm, self.where = _norm(self.raw)
        self.line_norms = [_norm(ln.text) for ln in lines]
        self.starts = []  # raw offset where each line starts, to map a hit to its speaker
        pos = 0
        for ln in lines:
            self.starts.append(pos)
            pos += len(ln.text) + 1
        self.lines = lines

    def contains(self, quote: str) -> bool:
        key = quote_key(quote)
        return bool(key) and key in self.norm

    def correct(self, quote: str) -> str | None:
        """The transcript's own words closest to quote (within one line), or None when
        nothing is close enough."""
        key = quote_key(quote)
        if len(key) < _FUZZY_MIN_CHARS:
            return None
        # Only lines long enough to hold the whole quote: a short line would "match" any long quote.
        candidates = {i: n for i, (n, _) in enumerate(self.line_norms) if len(n) >= 0.9 * len(key)}
        best = process.extractOne(key, candidates, scorer=fuzz.partial_ratio, score_cutoff=_FUZZY_SCORE)
        if best is None:
            return None
        i = best[2]
        norm, where = self.line_norms[i]
        hit = fuzz.partial_ratio_alignment(key, norm)
        raw = self.lines[i].text
        a, b = where[hit.dest_start], where[hit.dest_end - 1] + 1
        while a > 0 and raw[a - 1].isalnum():
            a -= 1  # whole words, not a fragment of one
        while b < len(raw) and raw[b].isalnum():
            b += 1
        span = raw[a:b].strip(" ,;:")
        return span if span and self.contains(span) else None

    def speakers_of(self, quote: str) -> set[str]:
        """Everyone whose line holds these words (a short phrase may have several)."""
        key = quote_key(quote)
        return {ln.speaker for ln, (n, _) in zip(self.lines, self.line_norms) if key and key in n}


_QUOTE_TALLY = threading.Lock()


@dataclass
class QuoteReport:
    kept: int = 0
    corrected: int = 0
    unquoted: int = 0
    dropped: int = 0
    notes: list[str] = field(default_factory=list)

    def add(self, other: QuoteReport) -> None:
        with _QUOTE_TALLY:  # sections are written side by side
            self._add(other)

    def _add(self, other: QuoteReport) -> None:
        self.kept += other.kept
        self.corrected += other.corrected
        self.unquoted += other.unquoted
        self.dropped += other.dropped
        self.notes += other.notes


_SENTENCE_END = re.compile(r"[。！？]|[.!?](?=\s|$)")


def _sentence_span(text: str, start: int, end: int) -> tuple[int, int]:
    """The sentence around text[start:end], not cutting inside any quotation."""
    quotes = find_quotes(text)

    def inside(i: int) -> bool:
        return any(a <= i < b for a, b, _ in quotes)

    a = 0
    for m in _SENTENCE_END.finditer(text, 0, start):
        if not inside(m.start()):
            a = m.end()
    b = len(text)
    for m in _SENTENCE_END.finditer(text, end):
        if not inside(m.start()):
            b = m.end()
            break
    return a, b


def verify_quotes(text: str, index: TranscriptIndex) -> tuple[str, QuoteReport]:
    """Every “quote” checked against the transcript: kept when found, corrected to the
    closest transcript span when near, unquoted when a short term, else its sentence dropped.
    Quotation marks come out uniform (“…”)."""
    report = QuoteReport()
    edits: list[tuple[int, int, str]] = []  # (start, end, replacement) on the original text
    drops: list[tuple[int, int]] = []
    for a, b, inner in find_quotes(text):
        body = inner.strip()
        if index.contains(body):
            edits.append((a, b, f"“{body}”"))
            report.kept += 1
        elif fixed := index.correct(body):
            edits.append((a, b, f"“{fixed}”"))
            report.corrected += 1
            report.notes.append(f"quote corrected from the transcript: “{body[:60]}” -> “{fixed[:60]}”")
        elif len(quote_key(body)) <= 8 and len(body.split()) <= 2:
            # A short term in quotes (a label, a translated word) is no claim of verbatim speech.
            edits.append((a, b, body))
            report.unquoted += 1
        else:
            drops.append(_sentence_span(text, a, b))
            report.dropped += 1
            report.notes.append(f"quote not in the transcript, sentence dropped: “{body[:60]}”")
    edits = [e for e in edits if not any(s <= e[0] < t for s, t in drops)]
    edits += [(s, t, "") for s, t in drops]
    for a, b, new in sorted(set(edits), reverse=True):  # from the end: earlier offsets stay valid
        text = text[:a] + new + text[b:]
    return re.sub(r"\s+", " ", text).strip(), report


# --- speakers and uncertain names ------------------------------------------------------

_ROLE_WORDS = {
    "manager", "professor", "phd", "grad", "marketing", "interface", "user", "designer",
    "industrial", "host", "guest", "speaker", "moderator", "interviewer", "chair",
    "postdoc", "student", "presenter", "narrator", "unknown", "audience", "project",
}


@dataclass
class Speaker:
    full: str
    short: str  # the given name used after the first mention; == full when not a person's name


def speakers(turns: list[Turn]) -> list[Speaker]:
    """Speakers in order of first appearance, with the short name for later mentions."""
    spoken = " ".join(t.text for t in turns)
    out: list[Speaker] = []
    for name in dict.fromkeys((t.speaker or "").strip() for t in turns):
        if not name:
            continue
        short = name
        if _CJK.search(name):
            if len(name) == 3:
                short = name[1:]  # 郑博元 -> 博元
        else:
            tokens = [t for t in name.split() if not t.endswith(".")]  # Hon., Dr., Mr. are not names
            is_person = (
                len(tokens) >= 2
                and all(t[:1].isupper() and t.isalpha() and len(t) > 1 for t in tokens)
                and not any(t.lower() in _ROLE_WORDS for t in tokens)
            )
            if is_person:
                # Given name: the token people use alone in the conversation, else the first.
                short = max(tokens, key=lambda t: (len(re.findall(rf"\b{re.escape(t)}\b", spoken)), -tokens.index(t)))
        out.append(Speaker(name, short))
    return out


def name_speakers(texts: list[str], people: list[Speaker]) -> list[str]:
    """Across texts in reading order: the first mention of a speaker is the full name,
    every later one the short name. Quotations are left as spoken."""
    out = list(texts)
    for sp in people:
        if sp.short == sp.full:
            continue
        pattern = re.compile(rf"(?<![A-Za-z])(?:{re.escape(sp.full)}|{re.escape(sp.short)})(?![A-Za-z])")
        seen = False
        for k, text in enumerate(out):
            quotes = find_quotes(text)

            def swap(m: re.Match, quotes=quotes) -> str:
                nonlocal seen
                if any(a <= m.start() < b for a, b, _ in quotes):
                    return m.group(0)
                word = sp.short if seen else sp.full
                seen = True
                return word

            out[k] = pattern.sub(swap, text)
    return out


def _person(label: str) -> str:
    """One person under several labels: "Hon. Pierre Poilievre (Carleton, CPC)" = "Pierre Poilievre"."""
    label = re.sub(r"\([^)]*\)", " ", label)
    return " ".join(t for t in label.split() if not t.endswith(".")).casefold()


def attribution_problems(text: str, index: TranscriptIndex, people: list[Speaker]) -> list[str]:
    """A quote whose sentence names speakers, none of whom said it: misattributed."""
    out = []
    for a, b, quote in find_quotes(text):
        said = index.speakers_of(quote)
        if not said:
            continue
        s, e = _sentence_span(text, a, b)
        outside = text[s:a] + text[b:e]
        named = {
            sp.full
            for sp in people
            if re.search(rf"(?<![A-Za-z]){re.escape(sp.full)}(?![A-Za-z])", outside)
            or (sp.short != sp.full and re.search(rf"(?<![A-Za-z]){re.escape(sp.short)}(?![A-Za-z])", outside))
        }
        if named and not {_person(n) for n in named} & {_person(n) for n in said}:
            out.append(f"quote “{quote[:50]}” is attributed to {', '.join(sorted(named))} but was said by {', '.join(sorted(said))}")
    return out


_NAME = re.compile(r"\b[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*\b")


_CALENDAR = {
    f"{d}{s}" for d in ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday") for s in ("", "s")
} | {"january", "february", "march", "april", "june", "july", "august", "september", "october", "november", "december"}


def uncertain_names(lines: list[Line]) -> list[str]:
    """Proper nouns speech recognition may have misheard: spelled two ways across the
    transcript (SeeAct / SeaAct), or a mixed-case coinage heard only once."""
    counts: Counter[str] = Counter()
    lowered: set[str] = set()
    for ln in lines:
        for m in _NAME.finditer(ln.text):
            w = m.group(0)
            counts[w] += 1
            if w.islower():
                lowered.add(w)
    # Proper nouns are never written in lower case; common words are, somewhere.
    proper = [w for w in counts if not w.islower() and w.lower() not in lowered and len(w) >= 4]
    # A coinage heard once (SeeAct), not a surname pattern (McLeod, LeBlanc, DeBellefeuille).
    camel = re.compile(r"^(?!Mc|Mac|De|Le|La|Di|Du|Van|Von)[A-Z][a-z]+[A-Z]")
    suspects = {w for w in proper if counts[w] == 1 and camel.search(w)}
    for i, a in enumerate(proper):
        for b in proper[i + 1 :]:
            la, lb = a.lower(), b.lower()
            if la == lb or min(len(a), len(b)) < 5 or la in lb or lb in la or {la, lb} <= _CALENDAR:
                continue
            if len(os.path.commonprefix([la, lb])) >= min(len(la), len(lb)) - 1:
                continue  # differ only in the ending: Canada / Canadian, Transcriber / Transcribers
            if fuzz.ratio(la, lb) >= 80:
                suspects.update((a, b))
    return sorted(suspects)


def mark_uncertain(texts: list[str], names: list[str], language: str) -> list[str]:
    """Mark each uncertain name once, at its first mention outside quotations."""
    mark = UNCERTAIN_MARK[language]
    out = list(texts)
    for name in names:
        pattern = re.compile(rf"(?<![A-Za-z0-9]){re.escape(name)}(?![A-Za-z0-9])")
        for k, text in enumerate(out):
            quotes = find_quotes(text)
            hit = next((m for m in pattern.finditer(text) if not any(a <= m.start() < b for a, b, _ in quotes)), None)
            if hit is None:
                continue
            after = text[hit.end() :]
            if not after.lstrip().startswith(("（音", "(as heard", "（音）", mark.strip())):
                out[k] = text[: hit.end()] + mark + after
            break
    return out


# --- prompts and model calls -----------------------------------------------------------


def editorial_policy(settings) -> str:
    """The banned phrases of the editorial policy (kit.policy): the rest of the policy shapes an
    event analysis (first person, 4–9 paragraphs, no bullets), not a digest, and costs the small model time."""
    return banned_phrases(policy(settings))


def ask_json(llm, messages: list[dict], *, stage: str, schema: dict, max_tokens: int) -> dict:
    """One structured call; a reply that is not a JSON object comes back as {} (callers
    treat missing fields as a failed attempt, never as content)."""
    from newsdesk.llm.client import BudgetExhausted, LLMError

    try:
        reply = llm.chat(messages, stage=stage, schema=schema, max_tokens=max_tokens)
    except BudgetExhausted:
        raise
    except LLMError as exc:
        if "schema" not in str(exc):  # endpoint down, bad key: the user must see it
            raise
        return {}  # the model could not fit the schema even after the client's repair
    data = reply.data
    if data is None:
        text = (reply.text or "").strip()
        m = re.search(r"\{.*\}", text, re.S)
        try:
            data = json.loads(m.group(0)) if m else None
        except json.JSONDecodeError:
            data = None
    return data if isinstance(data, dict) else {}


def with_feedback(messages: list[dict], problems: list[str]) -> list[dict]:
    note = "The previous answer had these problems; write it again and fix them:\n- " + "\n- ".join(problems)
    return [*messages, {"role": "user", "content": note}]


def points_schema(max_points: int) -> dict:
    # maxItems bounds a grammar-constrained model's answer, not only the prompt's wish.
    item = {
        "type": "object",
        "properties": {"line": {"type": "integer"}, "point": {"type": "string", "maxLength": 160}},
        "required": ["line", "point"],
    }
    return {
        "type": "object",
        "properties": {"points": {"type": "array", "minItems": 1, "maxItems": max_points, "items": item}},
        "required": ["points"],
    }
def sections_schema(max_sections: int) -> dict:
    item = {
        "type": "object",
        "properties": {"start_line": {"type": "integer"}, "topic": {"type": "string", "maxLength": 40}},
        "required": ["start_line", "topic"],
    }
    return {
        "type": "object",
        "properties": {"sections": {"type": "array", "minItems": 1, "maxItems": max_sections, "items": item}},
        "required": ["sections"],
    }


def section_schema(max_bullets: int) -> dict:
    return {
        "type": "object",
        "properties": {
            # maxLength: a grammar-constrained model stops instead of copying the transcript.
            "topic": {"type": "string", "maxLength": 40},
            "hook": {"type": "string", "maxLength": 100},
            "bullets": {
                "type": "array",
                "minItems": 1,
                "maxItems": max_bullets,
                "items": {
                    "type": "object",
                    "properties": {"label": {"type": "string", "maxLength": 12}, "text": {"type": "string", "maxLength": 600}},
                    "required": ["label", "text"],
                },
            },
        },
        "required": ["topic", "hook", "bullets"],
    }


def summary_schema(low: int, high: int) -> dict:
    return {
        "type": "object",
        "properties": {
            "bullets": {
                "type": "array",
                "minItems": low,
                "maxItems": high,
                "items": {
                    "type": "object",
                    "properties": {
                        "thesis": {"type": "string", "maxLength": 120},
                        "evidence": {"type": "string", "maxLength": 480},
                    },
                    "required": ["thesis", "evidence"],
                },
            }
        },
        "required": ["bullets"],
    }


# --- checks ----------------------------------------------------------------------------


def run_checker(text: str, material: list[str], language: str = "zh") -> tuple[bool, list[str]]:
    """The Writing stage's deterministic checker (numbers, quotes, names, hygiene); a
    transcript is full material. Returns (passed, the errors as lines)."""
    from newsdesk.write.check import check_output

    result = check_output(text, material, materials=["full"], language=language)
    return result.passed, [f.detail for f in result.errors]


def record_check(engine: Engine, subject: str, subject_id: str, attempt: int, passed: bool, findings: list[str]) -> None:
    with engine.begin() as conn:
        conn.execute(
            insert(checks).values(
                subject=subject,
                subject_id=subject_id[:80],
                attempt=attempt,
                passed=passed,
                findings=findings,
                at=datetime.now(UTC),
            )
        )


# --- editions --------------------------------------------------------------------------


@dataclass
class EpisodeResult:
    key: str
    language: str
    text: str
    digest: Digest
    status: str  # clean | flagged
    findings: list[str]
    material_key: str
    reused: bool = False  # the stored edition was current: nothing written, no model call
    quotes: QuoteReport = field(default_factory=QuoteReport)


def episode_slug(title: str, number: str | int | None) -> str:
    words = re.findall(r"[a-z0-9]+", unicodedata.normalize("NFKD", title).lower())
    base = "-".join(words)[:60].strip("-")
    digest = hashlib.sha1(title.encode()).hexdigest()[:8]
    parts = [str(number)] if number not in (None, "") else []
    parts.append(base or digest)
    return "-".join(parts)[:80]


def stored_edition(engine: Engine, key: str, language: str) -> dict | None:
    with engine.connect() as conn:
        return editions_store.stored_edition(conn, "episode", key, language)


def save_edition(engine: Engine, result: EpisodeResult, meta: dict) -> None:
    with engine.begin() as conn:
        editions_store.store_edition(
            conn,
            kind="episode",
            key=result.key,
            language=result.language,
            title=result.digest.title,
            body=result.text,
            meta=meta,
            status=result.status,
            material_key=result.material_key,
        )


def reuse(row: dict, language: str) -> EpisodeResult:
    meta = row.get("meta") or {}
    digest = parse_digest(row["body"], language)
    for section, span in zip(digest.sections, meta.get("section_lines", [])):
        section.first_line, section.last_line = span  # which transcript lines each section covers
    return EpisodeResult(
        key=row["key"],
        language=language,
        text=row["body"],
        digest=digest,
        status=row["status"],
        findings=list(meta.get("findings", [])),
        material_key=row["material_key"],
        reused=True,
    )


def section_material(lines: list[Line], people: list[Speaker], first: int, last: int) -> list[str]:
    names = ", ".join(f"{sp.full} ({sp.short})" for sp in people)
    return [f"Speakers: {names}", "\n".join(f"{ln.speaker}: {ln.text}" for ln in lines[first : last + 1])]


def stored_turns(engine: Engine, item_id: int) -> list[Turn]:
    """The transcript ingest stored for a podcast item ([] when it has none)."""
    with engine.connect() as conn:
        turns = conn.execute(select(transcripts.c.turns).where(transcripts.c.item_id == item_id)).scalar()
    return [Turn(t.get("speaker") or "", t.get("text") or "", t.get("start"), t.get("end")) for t in turns or []]


# --- writing the Chinese digest ---------------------------------------------------------


EPISODE_FORMAT = 2  # bump when the way a digest is planned changes: stored digests are rewritten (2: section cap)


@dataclass
class EpisodeOptions:
    passage_tokens: int = 1800  # a passage (and a section) fits the model's context with room to answer
    min_sections: int = 5
    max_sections: int = 40
    tokens_per_section: int = 1200  # seed 000: ~32 sections for a two-hour talk
    summary_min: int = 5
    summary_max: int = 9
    summary_target: int = 7
    max_bullets: int = 4
    max_tokens: int = 900  # per answer


def material_key(turns: list[Turn], title: str, number, options: EpisodeOptions, policy: str = "") -> str:
    h = hashlib.sha256()
    payload = {
        "turns": [[t.speaker, t.text] for t in turns],
        "title": title,
        "number": str(number) if number is not None else None,
        "options": options.__dict__,
        "prompts": prompts_fingerprint(("episode",)),
        "policy": policy,
        "format": EPISODE_FORMAT,
    }
    h.update(json.dumps(payload, ensure_ascii=False, sort_keys=True).encode())
    return h.hexdigest()


class _Writer:
    """One episode's Chinese digest: holds the transcript views every step needs."""

    def __init__(self, llm, turns: list[Turn], options: EpisodeOptions, policy: str = ""):
        self.llm, self.options, self.policy = llm, options, policy
        self.lines = transcript_lines(turns, options.passage_tokens // 2)
        if not self.lines:
            raise TranscriptError("transcript has no speech to digest (every turn is empty)")
        self.index = TranscriptIndex(self.lines)
        self.people = speakers(turns)
        self.suspects = uncertain_names(self.lines)
        self.quotes = QuoteReport()
        self.material = ["\n".join(f"{ln.speaker}: {ln.text}" for ln in self.lines)]

    def section_material(self, first: int, last: int) -> list[str]:
        """A section is checked against its own lines (and who is speaking): the checker's
        cost grows with the material, and a section's facts come from its lines."""
        return section_material(self.lines, self.people, first, last)

    def points(self) -> list[tuple[int, str]]:
        chunks = passages(self.lines, self.options.passage_tokens)

        def note(job) -> list[tuple[int, str]]:
            k, chunk = job
            ids = {ln.id for ln in chunk}
            most = max(2, min(8, len(chunk) // 4))  # a point per few lines; a long turn is one line
            messages = prompt(
                "episode_passage.md",
                passage_no=k,
                passage_count=len(chunks),
                first_line=chunk[0].id,
                last_line=chunk[-1].id,
                lines="\n".join(ln.render() for ln in chunk),
                min_points=min(3, most),
                max_points=most,
            )
            data = ask_json(self.llm, messages, stage="episode", schema=points_schema(most), max_tokens=self.options.max_tokens)
            got = [
                (p["line"], clean_field(p.get("point")))
                for p in data.get("points", [])
                if isinstance(p, dict) and isinstance(p.get("line"), int) and p["line"] in ids and clean_field(p.get("point"))
            ]
            if not got:  # the passage still needs a marker: its opening words stand in
                got = [(chunk[0].id, f"{chunk[0].speaker}: {' '.join(chunk[0].text.split()[:25])}")]
            return sorted(set(got))

        # Passages are read independently, side by side.
        return [p for got in in_parallel(self.llm, note, enumerate(chunks, 1)) for p in got]

    def spans(self, points: list[tuple[int, str]]) -> tuple[list[tuple[int, int]], dict[int, str]]:
        o = self.options
        cost = {ln.id: estimate_tokens(ln.render()) for ln in self.lines}
        total = sum(cost.values())
        target = max(o.min_sections, min(o.max_sections, round(total / o.tokens_per_section)))
        # The model proposes where topics change; it may not cut a short talk into two-line
        # sections (a 0.5B model proposed 36 for 71 turns): at most half again the target.
        most = min(o.max_sections, target + max(2, target // 2))
        # A long episode's points do not fit one prompt: windows of points, each asked for its
        # share of the sections; code joins the boundaries and fixes the count below.
        windows: list[list[tuple[int, str]]] = [[]]
        for point in points:
            if windows[-1] and estimate_tokens("\n".join(t for _, t in windows[-1] + [point])) > 2 * o.passage_tokens:
                windows.append([])
            windows[-1].append(point)
        proposed: list[dict] = []
        for k, window in enumerate(windows):
            upto = windows[k + 1][0][0] if k + 1 < len(windows) else len(self.lines)
            share = sum(c for i, c in cost.items() if window[0][0] <= i < upto) / max(1, total)
            want = target if len(windows) == 1 else max(1, round(target * share))
            cap = most if len(windows) == 1 else max(1, round(most * share))
            messages = prompt(
                "episode_sections.md",
                target=want,
                min_sections=1 if len(windows) > 1 else o.min_sections,
                max_sections=cap,
                first_line=window[0][0],
                points="\n".join(f"[{line}] {text}" for line, text in window),
            )
            data = ask_json(self.llm, messages, stage="episode", schema=sections_schema(cap), max_tokens=o.max_tokens)
            proposed += [s for s in data.get("sections", []) if isinstance(s, dict) and isinstance(s.get("start_line"), int)]
            if k > 0:  # a window boundary is a candidate boundary too; plan_sections may merge it away
                proposed.append({"start_line": window[0][0], "topic": ""})
        hints = {s["start_line"]: clean_field(s.get("topic")) for s in proposed if clean_field(s.get("topic"))}
        spans = plan_sections(
            self.lines,
            [s["start_line"] for s in proposed],
            min_sections=o.min_sections,
            max_sections=most,
            max_tokens=o.passage_tokens,
        )
        return spans, hints

    def section(self, number: int, span: tuple[int, int], hint: str, earlier: list[str]) -> Section:
        first, last = span
        chunk = self.lines[first : last + 1]
        messages = prompt(
            "episode_section.md",
            number=number,
            topic_hint=hint,
            first_line=first,
            last_line=last,
            lines="\n".join(ln.render() for ln in chunk),
            # Only who speaks here and which doubtful names occur here: a parliament has hundreds.
            speakers="\n".join(
                f"  {sp.full}" + (f" (later: {sp.short})" if sp.short != sp.full else "")
                for sp in self.people
                if any(ln.speaker == sp.full for ln in chunk)
            ),
            suspects=", ".join(n for n in self.suspects if any(n in ln.text for ln in chunk)),
            earlier="; ".join(earlier[-6:]),
            policy=self.policy,
        )
        schema = section_schema(self.options.max_bullets)
        problems: list[str] = []
        best: Section | None = None
        for attempt in (1, 2):
            asked = messages if attempt == 1 else with_feedback(messages, problems)
            data = ask_json(self.llm, asked, stage="episode", schema=schema, max_tokens=self.options.max_tokens)
            candidate, problems = self._section_from(data, first, last)
            if best is None or len(problems) < len(best.flags):
                best = candidate
            if not problems:
                break
        assert best is not None
        best.flags = _defects(best.flags)
        if not best.bullets:
            # Nothing usable after two tries: the section keeps its place with the speakers' own words.
            longest = max(chunk, key=lambda ln: len(ln.text))
            words = " ".join(longest.text.split()[:60])
            best.bullets = [Bullet(f"{longest.speaker}：“{words}”")]
            best.topic = best.topic or hint or f"第{number}段"
        return best

    def _section_from(self, data: dict, first: int, last: int) -> tuple[Section, list[str]]:
        problems: list[str] = []
        topic = clean_field(re.sub(r"[：:]", " ", clean_field(data.get("topic"))))
        hook = clean_field(data.get("hook"))
        bullets: list[Bullet] = []
        seen: set[str] = set()
        for b in data.get("bullets", [])[: self.options.max_bullets]:
            if not isinstance(b, dict):
                continue
            text, report = verify_quotes(clean_field(b.get("text")), self.index)
            self.quotes.add(report)
            problems += [n for n in report.notes if "dropped" in n]
            key = _norm(text)[0]
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
        hook, report = verify_quotes(hook, self.index)
        self.quotes.add(report)
        if not topic:
            problems.append("the topic is empty")
        if not bullets:
            problems.append("no bullet with content (1 to 4 bullets required)")
        section = Section(topic, hook, bullets, first, last)
        if bullets:
            text = "\n".join([f"{topic}：{hook}", *(b.render("zh") for b in bullets)])
            passed, findings = run_checker(text, self.section_material(first, last))
            if not passed:
                problems += findings
        section.flags = problems
        return section, problems

    def summary(self, sections: list[Section]) -> tuple[list[str], list[str]]:
        o = self.options
        budget = 2 * o.passage_tokens
        blocks = [
            "\n".join([f"{n}. {s.topic}：{s.hook}", *(f"• {b.render('zh')}" for b in s.bullets)])
            for n, s in enumerate(sections, 1)
        ]
        per = max(20, budget // max(1, len(blocks)))
        # Long episodes: each section keeps an equal share of the prompt (its heading first).
        shown = [b if estimate_tokens(b) <= per else _clip(b, per) for b in blocks]
        messages = prompt(
            "episode_summary.md",
            target=o.summary_target,
            min_bullets=o.summary_min,
            max_bullets=o.summary_max,
            sections="\n\n".join(shown),
        )
        schema = summary_schema(o.summary_min, o.summary_max)
        best: tuple[list[str], list[str]] | None = None
        problems: list[str] = []
        for attempt in (1, 2):
            asked = messages if attempt == 1 else with_feedback(messages, problems)
            data = ask_json(self.llm, asked, stage="episode", schema=schema, max_tokens=o.max_tokens * 2)
            bullets, problems = [], []
            for b in data.get("bullets", [])[: o.summary_max]:
                if not isinstance(b, dict):
                    continue
                thesis, evidence = clean_field(b.get("thesis")), clean_field(b.get("evidence"))
                if _norm(evidence)[0] == _norm(thesis)[0]:
                    problems.append(f"evidence only repeats the thesis: {thesis[:40]!r}")
                    evidence = ""
                if thesis and not re.search(r"[。.!?！？]$", thesis):
                    thesis += "。"
                text, report = verify_quotes(f"{thesis} {evidence}".strip(), self.index)
                self.quotes.add(report)
                problems += [n for n in report.notes if "dropped" in n]
                if text and _PLACEHOLDER.search(text):
                    problems.append(f"the prompt's placeholder was copied: {text[:40]!r}")
                elif text and _norm(text)[0] in {_norm(x)[0] for x in bullets}:
                    problems.append(f"summary bullet repeated: {text[:40]!r}")
                elif text:
                    problems += attribution_problems(text, self.index, self.people)
                    bullets.append(text)
            if len(bullets) < o.summary_min:
                problems.append(f"the summary has {len(bullets)} bullets; write {o.summary_target} ({o.summary_min}–{o.summary_max})")
            if bullets:
                passed, findings = run_checker("\n".join(bullets), self.material)
                problems += [] if passed else findings
            if best is None or len(problems) < len(best[1]):
                best = (bullets, problems)
            if not problems:
                break
        assert best is not None
        return best[0], _defects(best[1])


_PLACEHOLDER = re.compile(r"<[^<>]{1,30}>")  # the prompts show a bullet's shape with <…> slots


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


def write_episode(
    engine: Engine,
    settings,
    llm,
    turns: list[Turn],
    *,
    title: str,
    number: str | int | None = None,
    key: str | None = None,
    options: EpisodeOptions | None = None,
) -> EpisodeResult:
    """The Chinese digest of an episode, stored as editions(kind='episode', language='zh').

    A stored edition with the same material key (same transcript, title, prompts) is
    returned as it is: no model call. `settings` is accepted for the pipeline's uniform
    call shape; the model and its limits come with `llm`.
    """
    options = options or EpisodeOptions()
    title = clean_field(title) or "Untitled episode"
    number = str(number) if number not in (None, "") else None
    key = key or episode_slug(title, number)
    policy = editorial_policy(settings)
    mkey = material_key(turns, title, number, options, policy)
    row = stored_edition(engine, key, "zh")
    if row and row["material_key"] == mkey:
        return reuse(row, "zh")

    w = _Writer(llm, turns, options, policy)
    spans, hints = w.spans(w.points())
    topics = [next((h for start, h in sorted(hints.items()) if span[0] <= start <= span[1] and h), "") for span in spans]
    # Sections are written side by side; each is told the planned topics before it, not the written ones.
    sections: list[Section] = in_parallel(
        llm, lambda n: w.section(n + 1, spans[n], topics[n], [t for t in topics[:n] if t]), range(len(spans)))
    summary, summary_problems = w.summary(sections)
    if not summary:
        # Nothing usable after two tries: the digest still opens with a summary, made of the
        # sections' own checked openings, and is flagged (as a section falls back to the speakers' words).
        summary = [f"{s.topic}：{s.hook}" if s.hook else f"{s.topic}：{s.bullets[0].text}" for s in sections][: options.summary_max]
        summary_problems.append("no usable summary bullet from the model; the sections' openings stand in")

    digest = Digest(title, number, summary, sections, "zh")
    _apply_naming(digest, w.people, w.suspects)
    text = digest.render()

    findings = structure_findings(parse_digest(text, "zh"), options)
    findings += [f"section {n}: {p}" for n, s in enumerate(sections, 1) for p in s.flags]
    findings += [f"summary: {p}" for p in summary_problems]
    passed, checker = run_checker(digest.prose(), w.material)
    findings += [] if passed else checker
    findings += unfound_quotes(text, w.index)
    status = "clean" if not findings else "flagged"
    record_check(engine, "episode", key, 1, not findings, findings)
    result = EpisodeResult(key, "zh", text, digest, status, findings, mkey, quotes=w.quotes)
    meta = {
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
        "findings": findings,
        "model": getattr(llm, "model", None),
    }
    save_edition(engine, result, meta)
    return result


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


def unfound_quotes(text: str, index: TranscriptIndex) -> list[str]:
    return [f"quote not found in the transcript: “{q[:60]}”" for _, _, q in find_quotes(text) if not index.contains(q)]
