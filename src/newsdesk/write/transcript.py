"""A transcript as the writers see it: numbered lines, passages, and the quotes in a text
looked up in it (kept, corrected to the transcript's words, or dropped).

    lines = transcript_lines(turns, max_tokens=900)     one line per turn, a long turn cut at sentence ends
    index = TranscriptIndex(lines)                      where a quote is said, and by whom
    text, report = verify_quotes(text, index)           every “quote” in text checked against it

The episode digest and its English edition share these; speakers.py names the people in it.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from dataclasses import dataclass, field

from rapidfuzz import fuzz, process

from newsdesk.core.model import Turn

_MARKER = re.compile(r"\{[a-z_]+\}")  # qmsum/ASR annotations: {vocalsound}, {disfmarker}, {gap}
CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")  # Chinese, Japanese, Korean


def estimate_tokens(text: str) -> int:
    """Rough token count: about one per CJK character, one per 3.5 other characters."""
    cjk = len(CJK.findall(text))
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


def text_key(text: str) -> str:
    """What two texts must share to be "the same words": letters and digits, casefolded."""
    return _norm(text)[0]


def quote_key(quote: str) -> str:
    return text_key(clean_speech(quote))


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


def sentence_span(text: str, start: int, end: int) -> tuple[int, int]:
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
            drops.append(sentence_span(text, a, b))
            report.dropped += 1
            report.notes.append(f"quote not in the transcript, sentence dropped: “{body[:60]}”")
    edits = [e for e in edits if not any(s <= e[0] < t for s, t in drops)]
    edits += [(s, t, "") for s, t in drops]
    for a, b, new in sorted(set(edits), reverse=True):  # from the end: earlier offsets stay valid
        text = text[:a] + new + text[b:]
    return re.sub(r"\s+", " ", text).strip(), report
