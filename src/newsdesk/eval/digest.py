"""`newsdesk eval digest FILE.jsonl`: the extractive episode digest against meetings with
labelled topic spans and reference summaries (QMSum's JSON Lines shape).

Two things are measured, each beside a baseline:

- Section boundaries against the meeting's topics, per speaker turn: Pk and WindowDiff
  (nltk; lower is better; k = half the mean reference topic length), beside an equal-length
  split into the same number of sections as the digest has, TextTiling given the true number
  of topics, and no boundary at all (one section: what Pk gives for saying nothing, about
  0.36 on QMSum, whose meetings have 3-5 topics).
- The summary against the reference summaries (the file's general queries' answers):
  ROUGE-1 / 2 / L F1 (Google's rouge-score, Porter stemming), scoring the summary's quoted
  sentences, beside the meeting's first N sentences for the same N, and beside its first
  sentences up to the summary's length in words (ROUGE F1 favours the longer of two texts).

Parameters (vectors, block size, LSA directions; sentence scoring and length) are tuned by k-fold
cross-validation over the meetings: for each fold, the grid point best on the other folds
(WindowDiff for the segmentation, then mean ROUGE F1 for the summary) is scored on the
held-apart fold, and only held-apart scores are reported. `evaluate_defaults` scores the
shipped parameters (DigestOptions()) on every meeting with no tuning at all: the way to
measure a file that was never tuned on, and the quick check after a change.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from itertools import product
from pathlib import Path

import numpy as np

from newsdesk.core.errors import EvalFileError
from newsdesk.core.model import Turn
from newsdesk.text.sentences import is_complete, sentences
from newsdesk.write.extractive.episode import (
    DigestOptions,
    Transcript,
    cut_inputs,
    extractive_digest,
    prepare,
    segment,
    summary_sentences,
)
from newsdesk.write.extractive.segment import (
    SegmentOptions,
    block_matrix,
    cut_table,
    penalized_starts,
    section_starts,
    spans,
)
from newsdesk.write.transcript import clean_speech

# min_sections starts at 2: a deep dive of one section has nothing to navigate, so one section is
# a baseline here (it scores Pk about 0.36 on QMSum by saying nothing), never a digest.
GRID_SEGMENT = {"block_words": (60, 100, 150, 200), "dims": (0, 5, 10, 20), "min_sections": (2, 3, 4, 5)}
# segment.penalty 0: one section per tokens_per_section (the count follows length); above 0 the cut
# chooses the count (chosen_count), each section taking away that share of the scatter. On qmsum-val
# 0.05 gave about 7 sections, 0.08 four, 0.12 two to three: the grid spans those.
GRID_PENALTY = (0.0, 0.06, 0.08, 0.1, 0.12, 0.15)
GRID_SUMMARY = {"centrality": (0.0, 0.5, 1.0), "min_words": (8, 12, 16, 20)}


@dataclass
class Meeting:
    name: str
    turns: list[Turn]
    topics: list[int]  # per turn: the reference topic it belongs to
    references: list[str]  # reference summaries


def topic_labels(topic_list: list[dict], n: int) -> list[int]:
    """Each turn's topic: the covering span that starts last (the most specific); a turn no
    span covers stays in the topic before it."""
    cover: list[tuple[int, int, int]] = []  # (start, end, topic)
    for k, topic in enumerate(topic_list):
        for a, b in topic.get("relevant_text_span") or []:
            cover.append((int(a), int(b), k))
    labels, current = [], None
    for t in range(n):
        here = [(a, k) for a, b, k in cover if a <= t <= b]
        if here:
            current = max(here)[1]
        labels.append(current if current is not None else -1)
    return labels


def read_meetings(path: Path, problems: list[str]) -> list[Meeting]:
    """Meetings of a QMSum-shaped JSON Lines file; a bad line is named in `problems` and skipped."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise EvalFileError(f"{path}: cannot read it ({exc.strerror}); give a QMSum-style JSON Lines file") from None
    out = []
    for no, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            turns = [Turn(t.get("speaker") or "", t["content"]) for t in row["meeting_transcripts"]]
            refs = [q["answer"] for q in row.get("general_query_list") or [] if q.get("answer")]
            topics = topic_labels(row["topic_list"], len(turns))
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            problems.append(
                f"{path}:{no}: skipped, not a meeting ({type(exc).__name__}: {exc}); each line needs "
                "meeting_transcripts [{speaker, content}], topic_list [{relevant_text_span}] and general_query_list"
            )
            continue
        if not turns or not refs or len(set(topics)) < 2:
            problems.append(f"{path}:{no}: skipped, it needs turns, a reference summary and two topics or more")
            continue
        out.append(Meeting(f"line {no}", turns, topics, refs))
    if len(out) < 2:
        raise EvalFileError(f"{path}: {len(out)} usable meetings; cross-validation needs two or more")
    return out


# --- the measures ------------------------------------------------------------------------


def boundaries(labels: list[int]) -> str:
    """'1' where a new section starts at that unit (never at the first)."""
    return "0" + "".join("1" if labels[i] != labels[i - 1] else "0" for i in range(1, len(labels)))


def window_k(reference: str) -> int:
    return max(2, round(len(reference) / (2 * (reference.count("1") + 1))))


def segmentation_scores(reference: str, hypothesis: str) -> tuple[float, float]:
    from nltk.metrics.segmentation import pk, windowdiff

    k = window_k(reference)
    return pk(reference, hypothesis, k=k), windowdiff(reference, hypothesis, k)


def turn_labels(transcript: Transcript, spans: list[tuple[int, int]]) -> list[int]:
    """Section index per original turn (a turn cut into several lines goes with its first)."""
    labels = [-1] * len(transcript.turns)
    for k, (a, b) in enumerate(spans):
        for line in transcript.lines[a : b + 1]:
            if labels[line.turn] == -1:
                labels[line.turn] = k
    for t in range(len(labels)):  # turns with no speech (dropped as lines) stay with the section before
        if labels[t] == -1:
            labels[t] = labels[t - 1] if t else 0
    return labels


def equal_split(n: int, sections: int) -> list[int]:
    return [min(sections - 1, i * sections // n) for i in range(n)]


_ROUGE = None


def rouge(references: list[str], summary: str) -> tuple[float, float, float]:
    global _ROUGE
    if _ROUGE is None:
        from rouge_score import rouge_scorer

        _ROUGE = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)
    scores = _ROUGE.score_multi(references, summary)
    return scores["rouge1"].fmeasure, scores["rouge2"].fmeasure, scores["rougeL"].fmeasure


def first_sentences(turns: list[Turn], n: int, words: int = 0) -> list[str]:
    """The transcript's first n whole sentences, or more until they hold `words` words."""
    out: list[str] = []
    for t in turns:
        for s in sentences(clean_speech(t.text)):
            if len(out) >= n and sum(len(x.split()) for x in out) >= words:
                return out
            if is_complete(s):
                out.append(s)
    return out


# --- cross-validation ---------------------------------------------------------------------


@dataclass
class Scores:
    pk: float = 0.0
    windowdiff: float = 0.0
    base_pk: float = 0.0
    base_windowdiff: float = 0.0
    tiling_pk: float = 0.0  # TextTiling given the true number of topics
    tiling_windowdiff: float = 0.0
    none_pk: float = 0.0  # one section, no boundary
    none_windowdiff: float = 0.0
    sections: float = 0.0
    rouge: tuple[float, float, float] = (0.0, 0.0, 0.0)
    base_rouge: tuple[float, float, float] = (0.0, 0.0, 0.0)  # first N sentences
    long_rouge: tuple[float, float, float] = (0.0, 0.0, 0.0)  # first sentences, as many words as the summary
    words: float = 0.0
    base_words: float = 0.0
    bullets: float = 0.0


@dataclass
class Fold:
    number: int
    meetings: int
    segment: SegmentOptions
    options: DigestOptions
    scores: Scores


@dataclass
class Report:
    meetings: int
    reference_topics: float
    folds: list[Fold] = field(default_factory=list)
    overall: Scores = field(default_factory=Scores)
    chosen: DigestOptions | None = None  # the grid point most folds chose
    defaults: bool = False  # the shipped parameters scored on every meeting, nothing tuned


def _mean(values) -> float:
    values = list(values)
    return statistics.fmean(values) if values else 0.0


def evaluate(
    path: Path,
    *,
    folds: int = 5,
    embed: Callable | None = None,
    progress: Callable[[str], None] | None = None,
    problems: list[str] | None = None,
) -> Report:
    problems = problems if problems is not None else []
    meetings = read_meetings(path, problems)
    folds = max(2, min(folds, len(meetings)))
    say = progress or (lambda _: None)
    say(f"preparing {len(meetings)} meetings")
    prepared = [prepare(m.turns, embed) for m in meetings]
    refs = [boundaries(m.topics) for m in meetings]

    kinds = ("lexical", "use") if embed is not None else ("lexical",)
    seg_grid = [
        SegmentOptions(vectors=v, block_words=w, dims=d, min_sections=n, penalty=p)
        for v, w, d, n, p in product(
            kinds, GRID_SEGMENT["block_words"], GRID_SEGMENT["dims"], GRID_SEGMENT["min_sections"], GRID_PENALTY
        )
        if v == "lexical" or d == 0  # LSA is for term counts
    ]
    say(f"segmentation grid: {len(seg_grid)} points")
    base = DigestOptions()
    seg_table: dict[SegmentOptions, list[tuple[float, float, int]]] = {seg: [] for seg in seg_grid}
    for t, ref in zip(prepared, refs):
        for seg, cut in segment_all(t, seg_grid, base).items():
            seg_table[seg].append((*segmentation_scores(ref, boundaries(turn_labels(t, cut))), len(cut)))

    fold_of = [i % folds for i in range(len(meetings))]
    sum_table: dict[tuple, list] = {}

    def summary_row(opts: DigestOptions) -> list:
        key = (opts.segment, opts.centrality, opts.min_words)
        if key not in sum_table:
            row = []
            for m, t in zip(meetings, prepared):
                digest = extractive_digest(t, title=m.name, language="en", options=opts)
                text = " ".join(summary_sentences(digest))
                row.append((rouge(m.references, text), len(text.split()), len(digest.summary)))
            sum_table[key] = row
        return sum_table[key]

    report = Report(meetings=len(meetings), reference_topics=_mean(len(set(m.topics)) for m in meetings))
    held_scores: list[tuple[int, Scores]] = []
    for f in range(folds):
        train = [i for i in range(len(meetings)) if fold_of[i] != f]
        test = [i for i in range(len(meetings)) if fold_of[i] == f]
        seg = min(
            seg_grid, key=lambda s: (_mean(seg_table[s][i][1] for i in train), _mean(seg_table[s][i][0] for i in train))
        )
        say(f"fold {f + 1}: segmentation {seg}")
        candidates = [
            replace(base, segment=seg, centrality=c, min_words=w)
            for c, w in product(GRID_SUMMARY["centrality"], GRID_SUMMARY["min_words"])
        ]
        opts = max(candidates, key=lambda o: _mean(sum(summary_row(o)[i][0]) for i in train))
        rows = summary_row(opts)
        held_scores += [
            (f, meeting_scores(meetings[i], prepared[i], refs[i], seg_table[seg][i], rows[i])) for i in test
        ]
        report.folds.append(Fold(f + 1, len(test), seg, opts, _average([s for g, s in held_scores if g == f])))
    report.overall = _average([s for _, s in held_scores])
    picks = [(fo.options.segment, fo.options.centrality, fo.options.min_words) for fo in report.folds]
    seg, c, w = max(picks, key=picks.count)
    report.chosen = replace(base, segment=seg, centrality=c, min_words=w)
    return report


def segment_all(
    t: Transcript, grid: list[SegmentOptions], base: DigestOptions
) -> dict[SegmentOptions, list[tuple[int, int]]]:
    """segment() of one transcript at every grid point; the points with a penalty that share
    blocks share one cut_table, so the penalties and least counts cost almost nothing more."""
    out: dict[SegmentOptions, list[tuple[int, int]]] = {}
    tables: dict[SegmentOptions, tuple[list[int], np.ndarray, np.ndarray]] = {}
    for seg in grid:
        if seg.penalty <= 0:
            out[seg] = segment(t, replace(base, segment=seg))
            continue
        blocks_of = replace(seg, penalty=1.0, min_sections=1)  # what the blocks and the table depend on
        if blocks_of not in tables:
            vectors, words = cut_inputs(t, seg)
            starts, x = block_matrix(vectors, words, seg, 1)
            tables[blocks_of] = (starts, *cut_table(x, seg.max_sections))
        starts, costs, back = tables[blocks_of]
        out[seg] = spans(penalized_starts(starts, costs, back, seg), len(t.lines))
    return out


def tiling_at_true_count(t: Transcript, reference: str) -> list[int]:
    """Turn labels of TextTiling (lexical, its shipped window) asked for the reference's number of sections."""
    true = reference.count("1") + 1
    starts = section_starts(t.lexical, t.line_weights, SegmentOptions(min_sections=true, max_sections=true))
    return turn_labels(t, spans(starts, len(t.lines)))


def meeting_scores(m: Meeting, t: Transcript, reference: str, segmented: tuple, summarised: tuple) -> Scores:
    """One meeting's scores beside its baselines: segmented (Pk, WindowDiff, sections) and
    summarised (ROUGE triple, summary words, summary bullets)."""
    pk_, wd, count = segmented
    scores, words, bullets = summarised
    b_pk, b_wd = segmentation_scores(reference, boundaries(equal_split(len(m.turns), count)))
    t_pk, t_wd = segmentation_scores(reference, boundaries(tiling_at_true_count(t, reference)))
    n_pk, n_wd = segmentation_scores(reference, "0" * len(reference))
    lead = " ".join(first_sentences(m.turns, bullets))
    longer = " ".join(first_sentences(m.turns, bullets, words))
    return Scores(
        pk_,
        wd,
        b_pk,
        b_wd,
        t_pk,
        t_wd,
        n_pk,
        n_wd,
        count,
        scores,
        rouge(m.references, lead),
        rouge(m.references, longer),
        words,
        len(lead.split()),
        bullets,
    )


def score_meeting(m: Meeting, t: Transcript, reference: str, options: DigestOptions) -> Scores:
    """The digest `options` make of one meeting, scored: sections and summary from the same digest."""
    digest = extractive_digest(t, title=m.name, language="en", options=options)
    spans = [(s.first_line, s.last_line) for s in digest.sections]
    segmented = (*segmentation_scores(reference, boundaries(turn_labels(t, spans))), len(spans))
    text = " ".join(summary_sentences(digest))
    return meeting_scores(
        m, t, reference, segmented, (rouge(m.references, text), len(text.split()), len(digest.summary))
    )


def evaluate_defaults(
    path: Path,
    *,
    options: DigestOptions | None = None,
    embed: Callable | None = None,
    progress: Callable[[str], None] | None = None,
    problems: list[str] | None = None,
) -> Report:
    """The shipped parameters on every meeting, untuned: one 'fold' holding them all."""
    problems = problems if problems is not None else []
    options = options or DigestOptions()
    meetings = read_meetings(path, problems)
    say = progress or (lambda _: None)
    say(f"scoring the shipped parameters on {len(meetings)} meetings, no tuning")
    scores = [score_meeting(m, prepare(m.turns, embed), boundaries(m.topics), options) for m in meetings]
    report = Report(meetings=len(meetings), reference_topics=_mean(len(set(m.topics)) for m in meetings))
    report.overall = _average(scores)
    report.chosen = options
    report.defaults = True
    return report


def _average(scores: list[Scores]) -> Scores:
    def tri(name):
        return tuple(_mean(getattr(s, name)[k] for s in scores) for k in range(3))

    return Scores(
        pk=_mean(s.pk for s in scores),
        windowdiff=_mean(s.windowdiff for s in scores),
        base_pk=_mean(s.base_pk for s in scores),
        base_windowdiff=_mean(s.base_windowdiff for s in scores),
        tiling_pk=_mean(s.tiling_pk for s in scores),
        tiling_windowdiff=_mean(s.tiling_windowdiff for s in scores),
        none_pk=_mean(s.none_pk for s in scores),
        none_windowdiff=_mean(s.none_windowdiff for s in scores),
        sections=_mean(s.sections for s in scores),
        rouge=tri("rouge"),
        base_rouge=tri("base_rouge"),
        long_rouge=tri("long_rouge"),
        words=_mean(s.words for s in scores),
        base_words=_mean(s.base_words for s in scores),
        bullets=_mean(s.bullets for s in scores),
    )


def count_rule(o: DigestOptions) -> str:
    """How the digest's number of sections is chosen, in words."""
    seg = o.segment
    if seg.penalty > 0:
        return f"as many sections as the cut asks for at penalty {seg.penalty} ({seg.min_sections} at least)"
    return f"one section per {o.tokens_per_section} tokens ({seg.min_sections} at least)"


def report_lines(report: Report) -> list[str]:
    """The report as the command prints it."""

    def seg_line(s: Scores) -> str:
        return (
            f"Pk {s.pk:.3f} (equal split {s.base_pk:.3f}, TextTiling at the true count {s.tiling_pk:.3f}, "
            f"one section {s.none_pk:.3f})  WindowDiff {s.windowdiff:.3f} (equal split {s.base_windowdiff:.3f}, "
            f"TextTiling at the true count {s.tiling_windowdiff:.3f}, one section {s.none_windowdiff:.3f})  "
            f"sections {s.sections:.1f}"
        )

    def rouge_line(s: Scores) -> str:
        r, b, g = s.rouge, s.base_rouge, s.long_rouge
        return (
            f"ROUGE-1/2/L F1 {r[0]:.3f}/{r[1]:.3f}/{r[2]:.3f} in {s.words:.0f} words (first {s.bullets:.1f} "
            f"sentences {b[0]:.3f}/{b[1]:.3f}/{b[2]:.3f} in {s.base_words:.0f} words; first sentences to "
            f"{s.words:.0f} words {g[0]:.3f}/{g[1]:.3f}/{g[2]:.3f})"
        )

    head = f"{report.meetings} meetings, {report.reference_topics:.1f} reference topics on average; "
    if report.defaults and report.chosen:
        seg, o = report.chosen.segment, report.chosen
        return [
            head + "the shipped parameters, nothing tuned on this file: "
            f"{seg.vectors} vectors, blocks of {seg.block_words} words, {seg.dims} LSA directions, "
            f"{count_rule(o)}, centrality {o.centrality}, min words {o.min_words}",
            "  " + seg_line(report.overall),
            "  " + rouge_line(report.overall),
        ]
    out = [head + f"{len(report.folds)}-fold cross-validation, scores on held-apart folds only"]
    for f in report.folds:
        seg = f.segment
        out.append(
            f"fold {f.number} ({f.meetings} meetings; tuned on the others: {seg.vectors} vectors, blocks of "
            f"{seg.block_words} words, {seg.dims} LSA directions, {count_rule(f.options)}, centrality {f.options.centrality}, "
            f"min words {f.options.min_words})"
        )
        out += ["  " + seg_line(f.scores), "  " + rouge_line(f.scores)]
    out += ["all held-apart folds", "  " + seg_line(report.overall), "  " + rouge_line(report.overall)]
    return out
