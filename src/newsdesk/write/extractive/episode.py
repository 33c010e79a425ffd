"""The extractive episode digest: sections found by topic segmentation, the speakers' own
sentences quoted verbatim with their time codes, and a summary of the sections' best lines.

    transcript = prepare(turns, embed)            # lines, sentences, vectors (embed once)
    digest = extractive_digest(transcript, title="…", number="110", language="zh")

The result is the same Digest / Section / Bullet the model-written digest uses, so the site,
the feeds and the Markdown render it with the same code. Nothing in it is written: a heading
is its section's most distinctive terms (tf-idf against the other sections) and, as its
hook, a short sentence of the section; every bullet is one speaker's whole sentence, in
quotation marks, with who said it and when.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from newsdesk.model import Turn
from newsdesk.write.digest import Bullet, Digest, Section
from newsdesk.write.extractive.segment import (
    SegmentOptions,
    lexical_vectors,
    section_starts,
    spans,
)
from newsdesk.write.extractive.text import (
    has_quotes,
    is_cjk,
    is_complete,
    length,
    near_duplicate,
    numbers,
    salient_terms,
    sentences,
    shingles,
    terms,
)
from newsdesk.write.speakers import name_speakers, speakers
from newsdesk.write.transcript import Line, estimate_tokens, transcript_lines

Embed = Callable[[list[str]], np.ndarray]  # texts -> L2-normalized rows (cluster.embed's Embedder.embed)


@dataclass(frozen=True)
class DigestOptions:
    # Defaults: what most held-apart folds chose in `newsdesk eval digest` on QMSum meetings.
    segment: SegmentOptions = field(default_factory=SegmentOptions)
    centrality: float = 1.0  # a sentence's score: this share closeness to its section, the rest its distinctive terms
    min_words: int = 12  # a quotable sentence: at least this long (words, or Chinese characters / 2) …
    max_words: int = 45  # … and at most this long
    summary_min: int = 5
    summary_max: int = 9
    max_bullets: int = 4
    lines_per_bullet: int = 40  # a section gets one more bullet per this many lines, up to max_bullets
    tokens_per_section: int = 1200  # the most sections a talk gets: one per this much speech (a two-hour talk ≈ 30)


@dataclass
class Sentence:
    line: int  # index into Transcript.lines
    text: str
    terms: list[str]
    words: int = 0  # length(text)
    whole: bool = False  # complete, fluent, no quotation marks inside, two terms or more: fit to quote
    figures: int = 0  # numbers it states


def sentence(line: int, text: str) -> Sentence:
    found = terms(text)
    whole = is_complete(text) and not has_quotes(text) and len(set(found)) >= 2 and fluent(text)
    return Sentence(line, text, found, length(text), whole, len(numbers(text)) if whole else 0)


@dataclass
class Transcript:
    """A transcript made ready for choosing: its lines, quotable sentences and their vectors."""

    turns: list[Turn]
    lines: list[Line]
    line_vectors: np.ndarray
    line_weights: np.ndarray
    sentences: list[Sentence]
    sentence_vectors: np.ndarray  # embeddings, or the sentences' term counts without an embedder
    lexical: np.ndarray  # bag-of-words per line

    def time_of(self, line: int) -> float | None:
        return self.turns[self.lines[line].turn].start


def prepare(turns: list[Turn], embed: Embed | None = None, *, max_line_tokens: int = 900) -> Transcript:
    """Lines (one per turn, long turns cut at sentence ends), sentences and vectors. Without
    `embed` the lines are compared by their words alone (lexical TextTiling)."""
    lines = transcript_lines(turns, max_line_tokens)
    if not lines:
        raise ValueError("transcript has no speech to digest (every turn is empty)")
    texts = [ln.text for ln in lines]
    weights = np.sqrt(np.array([length(t) + 1 for t in texts], dtype=np.float64))
    found = [sentence(i, s) for i, ln in enumerate(lines) for s in sentences(ln.text)]
    both = lexical_vectors(texts + [s.text for s in found])  # one vocabulary for lines and sentences
    lexical = both[: len(texts)]
    if embed is None:
        line_vectors, sentence_vectors = lexical, both[len(texts) :]
    else:
        line_vectors = np.asarray(embed(texts), dtype=np.float32)
        sentence_vectors = np.asarray(
            embed([s.text for s in found]) if found else np.zeros((0, line_vectors.shape[1])), dtype=np.float32
        )
    return Transcript(turns, lines, line_vectors, weights, found, sentence_vectors, lexical)


def time_code(seconds: float | None) -> str:
    if seconds is None:
        return ""
    s = int(seconds)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60:02d}:{s % 60:02d}"


_FILLERS = re.compile(r"\b(?:uh|um|eh|er|ah|hmm|mm)\b|[嗯呃啊哦]", re.I)
# "I I I", "the the", "is the is the", "t - " (a word broken off)
_STUTTER = re.compile(r"\b(\w+)(?:\s+\1\b)+|\b(\w+ \w+) \2\b|\b\w{1,3} - ", re.I)


def fluent(text: str) -> bool:
    """Speech a reader can take in quoted: few fillers, no stutters or broken-off words."""
    return len(_FILLERS.findall(text)) <= 1 and not _STUTTER.search(text)


def quotable(s: Sentence, options: DigestOptions) -> bool:
    return s.whole and options.min_words <= s.words <= options.max_words


def segment(transcript: Transcript, options: DigestOptions) -> list[tuple[int, int]]:
    """Section spans; a talk gets at most one section per tokens_per_section of speech."""
    seg = options.segment
    vectors = transcript.lexical if seg.vectors == "lexical" else transcript.line_vectors
    tokens = sum(estimate_tokens(ln.text) for ln in transcript.lines)
    most = max(seg.min_sections, min(seg.max_sections, tokens // options.tokens_per_section))
    return spans(
        section_starts(vectors, transcript.line_weights, replace(seg, max_sections=most)), len(transcript.lines)
    )


@dataclass
class _Choice:
    sentence: Sentence
    vector_index: int
    score: float


def _scored(
    transcript: Transcript, span: tuple[int, int], weights: dict[str, float], options: DigestOptions
) -> list[_Choice]:
    first, last = span
    idx = [k for k, s in enumerate(transcript.sentences) if first <= s.line <= last and quotable(s, options)]
    if not idx:
        return []
    top = max(weights.values(), default=0.0) or 1.0
    salience = np.array(
        [
            sum(weights.get(t, 0.0) for t in set(transcript.sentences[k].terms))
            / top
            / np.sqrt(len(set(transcript.sentences[k].terms)))
            for k in idx
        ]
    )
    salience = salience / (salience.max() or 1.0)
    vecs = transcript.sentence_vectors[idx]
    norms = np.linalg.norm(vecs, axis=1)
    norms[norms == 0] = 1.0
    centroid = vecs.sum(axis=0)
    centrality = (vecs @ (centroid / (np.linalg.norm(centroid) or 1.0))) / norms
    # A stated figure is the kind of fact a digest exists to keep.
    bonus = np.array([0.1 * min(2, transcript.sentences[k].figures) for k in idx])
    score = options.centrality * centrality + (1 - options.centrality) * salience + bonus
    return [_Choice(transcript.sentences[k], k, float(v)) for k, v in zip(idx, score)]


def _display(term: str, text: str) -> str:
    """A term as the speakers wrote it (jieba's terms are lower-cased)."""
    m = re.search(rf"(?<![A-Za-z0-9]){re.escape(term)}(?![A-Za-z0-9])", text, re.I)
    return m.group(0) if m else term


def heading_terms(weights: dict[str, float], section_text: str, speakers: set[str], n: int = 3) -> list[str]:
    """The section's most distinctive terms a heading can stand on: names of things first (a Latin
    term written with a capital or a digit inside a sentence, or a Chinese word), never a speaker's
    name ("Maya" heads nothing) and never conversation ("welcome", "believe")."""

    def named(term: str) -> bool:
        if _CJK_TERM.search(term) or re.search(r"\d", term):
            return True
        inside = re.finditer(rf"(?<=[^.!?\s] )({re.escape(term)})(?![A-Za-z0-9])", section_text, re.IGNORECASE)
        return any(not m.group(1).islower() for m in inside)

    ranked = sorted(
        (
            (w * (3 if named(t) else 1), t)
            for t, w in weights.items()
            if w > 0 and t not in speakers and t not in _CALENDAR
        ),
        reverse=True,
    )
    return [t for _, t in ranked[:n]]


_CJK_TERM = re.compile(r"[\u3400-\u9fff]")
# When something was said is not what a section is about.
_CALENDAR = frozenset(
    [
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
        "today",
        "yesterday",
        "tomorrow",
        "week",
        "weekend",
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ]
)


def _quote(transcript: Transcript, s: Sentence, language: str) -> str:
    line = transcript.lines[s.line]
    when = time_code(transcript.time_of(s.line))
    if language == "zh":
        return f"{line.speaker}（{when}）：“{s.text}”" if when else f"{line.speaker}：“{s.text}”"
    return f"{line.speaker} ({when}): “{s.text}”" if when else f"{line.speaker}: “{s.text}”"


def extractive_digest(
    transcript: Transcript,
    *,
    title: str,
    number: str | None = None,
    language: str | None = None,
    options: DigestOptions | None = None,
) -> Digest:
    """Sections in the conversation's order, each with 1–4 quoted sentences, and 5–9 summary
    bullets. No sentence appears twice: the summary takes each chosen section's best sentence
    and the section quotes the next ones (a digest that repeats itself fails the checker)."""
    options = options or DigestOptions()
    language = language or ("zh" if is_cjk(" ".join(ln.text for ln in transcript.lines[:200])) else "en")
    section_spans = segment(transcript, options)
    docs = [[t for s in transcript.sentences if a <= s.line <= b for t in s.terms] for a, b in section_spans]
    weights = salient_terms(docs)
    ranked = [
        sorted(_scored(transcript, span, w, options), key=lambda c: -c.score) for span, w in zip(section_spans, weights)
    ]
    picks = summary_choices(ranked, options)
    used = {id(c) for _, c in picks}
    said = [shingles(c.sentence.text) for _, c in picks]

    def fresh(c: _Choice) -> bool:
        grams = shingles(c.sentence.text)
        return id(c) not in used and not any(near_duplicate(grams, g) for g in said)

    speaker_words = {part.lower() for t in transcript.turns for part in re.findall(r"\w+", t.speaker or "")}
    sections: list[Section] = []
    for number_, (span, w, candidates) in enumerate(zip(section_spans, weights, ranked), 1):
        size = span[1] - span[0] + 1
        want = max(1, min(options.max_bullets, 1 + size // options.lines_per_bullet))
        chosen: list[_Choice] = []
        for c in candidates:
            if len(chosen) == want:
                break
            if fresh(c):
                chosen.append(c)
                said.append(shingles(c.sentence.text))
        if not chosen:  # nothing quotable left (a run of short replies): the section's longest line, whole
            longest = max(range(span[0], span[1] + 1), key=lambda i: len(transcript.lines[i].text))
            chosen = [_Choice(sentence(longest, transcript.lines[longest].text), -1, 0.0)]
        used |= {id(c) for c in chosen}
        section_text = " ".join(transcript.lines[i].text for i in range(span[0], span[1] + 1))
        top_terms = heading_terms(w, section_text, speaker_words)
        topic = ("、" if language == "zh" else ", ").join(_display(t, section_text) for t in top_terms) or (
            f"第{number_}段" if language == "zh" else f"Part {number_}"
        )
        hook_from = [
            c
            for c in candidates
            if c.sentence.words <= 20 and top_terms and top_terms[0] in c.sentence.terms and fresh(c)
        ]
        hook = ""
        if hook_from:
            hook = f"“{hook_from[0].sentence.text}”"
            said.append(shingles(hook))
        chosen.sort(key=lambda c: (c.sentence.line, c.vector_index))
        sections.append(
            Section(topic, hook, [Bullet(_quote(transcript, c.sentence, language)) for c in chosen], span[0], span[1])
        )

    # A summary bullet is the quote alone: its section's topic would repeat the heading word for word.
    summary = [_quote(transcript, c.sentence, language) for _, c in picks]
    digest = Digest(title, number, summary, sections, language)
    _name_speakers(digest, transcript)
    return digest


def summary_choices(ranked: list[list[_Choice]], options: DigestOptions) -> list[tuple[int, _Choice]]:
    """(section, sentence) pairs for the summary, in the conversation's order: the best sentence
    of each section that has another one left to quote, the best first when there are more
    than summary_max; next-best sentences when there are fewer than summary_min."""
    picks = [(k, r[0]) for k, r in enumerate(ranked) if len(r) >= 2]
    picks = [
        p
        for n, p in enumerate(picks)  # one sentence said twice in two sections is one pick
        if not any(near_duplicate(shingles(p[1].sentence.text), shingles(q[1].sentence.text)) for q in picks[:n])
    ]
    picks = sorted(picks, key=lambda p: -p[1].score)[: options.summary_max]
    depth = 1
    while len(picks) < options.summary_min:
        more = [(k, r[depth]) for k, r in enumerate(ranked) if len(r) > depth + 1]
        if not more:
            break
        picks += sorted(more, key=lambda p: -p[1].score)[: options.summary_min - len(picks)]
        depth += 1
    return sorted(picks, key=lambda p: (p[0], p[1].sentence.line))


def _name_speakers(digest: Digest, transcript: Transcript) -> None:
    """Full name at a speaker's first mention, the given name after (quotations untouched)."""
    flat = name_speakers(
        digest.summary + [b.text for s in digest.sections for b in s.bullets], speakers(transcript.turns)
    )
    digest.summary = flat[: len(digest.summary)]
    rest = iter(flat[len(digest.summary) :])
    for s in digest.sections:
        for b in s.bullets:
            b.text = next(rest)


def transcript_material(transcript: Transcript) -> list[str]:
    """The transcript as the checker's material: each line with its speaker and time code, as quoted."""
    return [
        "\n".join(
            f"[{time_code(transcript.time_of(i))}] {ln.speaker}: {ln.text}" for i, ln in enumerate(transcript.lines)
        )
    ]


def summary_sentences(digest: Digest) -> list[str]:
    """The quoted sentences of the summary alone (what `eval digest` scores against references)."""
    return [b.rsplit("“", 1)[-1].rstrip("”") for b in digest.summary]
