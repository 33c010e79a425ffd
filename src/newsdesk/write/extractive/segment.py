"""Topic segmentation of a transcript: TextTiling's depth scores over line vectors.

At every gap between two lines, the lines in a window before it are compared with the lines
in a window after it (cosine of their summed vectors). Where the conversation changes
topic that similarity dips; a dip's *depth* is how far it falls below the nearest peaks on
either side (Hearst's TextTiling). The deepest dips, at least `min_lines` apart, become
section starts: all whose depth clears mean - cutoff x std of the dips, then as many more or
fewer as the section count bounds ask.

The vectors are either sentence embeddings (multilingual USE: the default, it carries
meaning across synonyms and languages) or bag-of-words counts over jieba terms (TextTiling's
own lexical cohesion). nltk's TextTilingTokenizer was the library candidate; it needs the
nltk stopwords corpus (not installable from PyPI) and splits words on \\w+, which makes a
run of Chinese characters one "word", so it cannot serve Chinese transcripts.
`newsdesk eval digest` measures both vector kinds and the parameters by cross-validation.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from newsdesk.text.sentences import terms


@dataclass(frozen=True)
class SegmentOptions:
    # Defaults: what most held-apart folds chose in `newsdesk eval digest` on QMSum meetings.
    vectors: str = "lexical"  # lexical | use
    window: int = 45  # lines on each side of a gap
    cutoff: float = -2.0  # dips deeper than mean - cutoff x std become boundaries
    min_sections: int = 5
    max_sections: int = 40
    min_lines: int = 8  # no section shorter than this many lines (where the transcript allows)


def lexical_vectors(texts: list[str]) -> np.ndarray:
    """Term counts per line over the transcript's vocabulary (terms said at least twice)."""
    toks = [terms(t) for t in texts]
    counts: dict[str, int] = {}
    for ts in toks:
        for t in ts:
            counts[t] = counts.get(t, 0) + 1
    vocab = {t: i for i, t in enumerate(t for t, c in counts.items() if c >= 2)}
    out = np.zeros((len(texts), max(1, len(vocab))), dtype=np.float32)
    for row, ts in enumerate(toks):
        for t in ts:
            if t in vocab:
                out[row, vocab[t]] += 1
    return out


def gap_similarity(vectors: np.ndarray, weights: np.ndarray, window: int) -> np.ndarray:
    """sim[g] for the gap before line g (g = 1 … n-1): cosine of the window before vs after."""
    weighted = vectors * weights[:, None]
    cum = np.vstack([np.zeros((1, vectors.shape[1]), dtype=np.float64), np.cumsum(weighted, axis=0, dtype=np.float64)])
    n = len(vectors)
    gaps = np.arange(1, n)
    left = cum[gaps] - cum[np.maximum(gaps - window, 0)]
    right = cum[np.minimum(gaps + window, n)] - cum[gaps]
    norm = np.linalg.norm(left, axis=1) * np.linalg.norm(right, axis=1)
    norm[norm == 0] = 1.0
    return np.concatenate([[1.0], (left * right).sum(axis=1) / norm])  # index 0: no gap before line 0


def depth_scores(sim: np.ndarray) -> np.ndarray:
    """How far each gap's similarity lies below the highest points reached climbing either way."""
    n = len(sim)
    depth = np.zeros(n)
    for g in range(1, n):
        left = g
        while left > 1 and sim[left - 1] >= sim[left]:
            left -= 1
        right = g
        while right < n - 1 and sim[right + 1] >= sim[right]:
            right += 1
        depth[g] = (sim[left] - sim[g]) + (sim[right] - sim[g])
    return depth


def section_starts(vectors: np.ndarray, weights: np.ndarray, options: SegmentOptions) -> list[int]:
    """Where each section starts (line indices, the first is 0)."""
    n = len(vectors)
    if n == 0:
        return []
    sim = gap_similarity(vectors, weights, options.window)
    # A light smoothing (TextTiling smooths too): one short turn should not make a dip.
    if n > 4:
        sim[1:] = np.convolve(np.pad(sim[1:], 1, mode="edge"), np.ones(3) / 3, mode="valid")
    depth = depth_scores(sim)
    min_lines = max(1, min(options.min_lines, n // max(1, options.min_sections)))
    dips = [g for g in range(1, n) if depth[g] > 0 and min_lines <= g <= n - min_lines]
    if not dips:
        dips = list(range(min_lines, n - min_lines + 1))
    if not dips:  # one line (or too few to cut): one section; the statistics of no gaps are NaN and warn
        return [0]
    values = depth[dips]
    threshold = values.mean() - options.cutoff * values.std()
    most = max(0, min(options.max_sections, n // min_lines) - 1)
    least = min(options.min_sections - 1, most)
    chosen: list[int] = []
    for g in sorted(dips, key=lambda g: -depth[g]):
        if len(chosen) >= most or (depth[g] < threshold and len(chosen) >= least):
            break
        if all(abs(g - c) >= min_lines for c in chosen):
            chosen.append(g)
    return [0, *sorted(chosen)]


def spans(starts: list[int], n: int) -> list[tuple[int, int]]:
    """Section starts as (first, last) line spans, last inclusive."""
    return [(a, b - 1) for a, b in zip(starts, [*starts[1:], n])]
