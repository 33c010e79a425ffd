"""Topic segmentation of a transcript: the best cut of its speech into sections, and how many.

The lines are merged into blocks of about `block_words` words (one short turn says too little
to compare); each block is a tf-idf vector of its terms (a term said in one block only is
dropped), reduced to its `dims` strongest latent directions (LSA: numpy's SVD) so that words
used together count as one topic. Then dynamic programming finds the cut into exactly K
contiguous sections whose blocks lie closest to their section's mean (the least within-section
scatter: k-means held to contiguous runs, solved exactly in O(K n²) over n blocks): every
boundary is placed for all the others at once, where TextTiling placed each by a local dip.

K is the cut's own (`penalty` > 0, chosen_count): the same table gives the least scatter for
every K, and a section is added while it takes away at least `penalty` of the one-section
scatter, so a talk of five distinct topics gets five sections however short it is. With
penalty 0, K follows the talk's length instead (DigestOptions.tokens_per_section). On QMSum's
meetings `newsdesk eval digest` chose the penalty (eval/digest/README.md): Pk 0.347 -> 0.324 on
its validation meetings, where it was chosen (0.377 -> 0.347 on held-apart folds), and 0.409 ->
0.372 on its test meetings, held out; TextTiling given the true number of topics scores 0.457
and 0.451 there, no boundary at all 0.364 and 0.357. Those meetings drift between topics in the
same words: at the chosen penalty each validation meeting gets the least two sections (2.0 on
average on the test meetings too), where the length rule gave 3.0.

TextTiling (Hearst's depth scores over line vectors, `section_starts`) stays as the baseline the
evaluation prints. nltk's TextTilingTokenizer was the library candidate; it needs the nltk
stopwords corpus (not installable from PyPI) and splits words on \\w+, which makes a run of
Chinese characters one "word", so it cannot serve Chinese transcripts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from newsdesk.text.sentences import terms


@dataclass(frozen=True)
class SegmentOptions:
    # Defaults: chosen on QMSum's validation meetings only (`newsdesk eval digest`): blocks of 200
    # words in 20 directions (three folds of five), penalty 0.12 (four folds; 0.15 in one).
    vectors: str = "lexical"  # lexical (term counts) | use (sentence embeddings, summed per block)
    block_words: int = 200  # lines are merged into blocks of at least this many words
    dims: int = 20  # LSA directions kept of the blocks' tf-idf (0: the tf-idf itself)
    # Two at least (all five held-apart folds chose 2 of 2-5): a talk is not cut into five sections
    # its topics do not have.
    min_sections: int = 2
    max_sections: int = 40
    # 0: the number of sections follows the talk's length (DigestOptions.tokens_per_section). Above 0:
    # the cut chooses it, one more section while it takes away at least this share of the talk's
    # scatter (chosen_count); blocks are then at most 1/min_blocks of the talk. All five held-apart
    # folds chose a penalty over the length rule (Pk 0.347 against 0.377 on held-apart folds).
    penalty: float = 0.12
    min_blocks: int = 20
    # TextTiling's parameters (the baseline, `section_starts`):
    window: int = 45  # lines on each side of a gap
    cutoff: float = -2.0  # dips deeper than mean - cutoff x std become boundaries
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


# --- the optimal cut over blocks ----------------------------------------------------------


def blocks(words: list[int], size: int) -> list[int]:
    """The first line of each block: consecutive lines until they hold `size` words."""
    starts, held = [0], 0
    for i, w in enumerate(words[:-1]):
        held += w
        if held >= size:
            starts.append(i + 1)
            held = 0
    return starts


def _normalized(x: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return x / norms


def block_vectors(counts: np.ndarray, starts: list[int], dims: int) -> np.ndarray:
    """Unit tf-idf rows of the blocks' term counts, in their `dims` strongest LSA directions."""
    x = np.add.reduceat(counts.astype(np.float64), starts, axis=0)
    df = (x > 0).sum(axis=0)
    x = x[:, df >= 2]  # a term of one block says nothing about where its topic ends
    if x.shape[1] == 0:
        return np.zeros((len(starts), 1))
    n = len(starts)
    x = np.where(x > 0, 1 + np.log(np.maximum(x, 1)), 0) * (np.log((1 + n) / (1 + df[df >= 2])) + 1)
    x = _normalized(x)
    if 0 < dims < min(x.shape) - 1:
        u, s, _ = np.linalg.svd(x, full_matrices=False)
        x = u[:, :dims] * s[:dims]
    return _normalized(x)


def cut_table(x: np.ndarray, most: int) -> tuple[np.ndarray, np.ndarray]:
    """The least scatter of a cut into k contiguous runs, for every k up to `most` (costs[k], k ≥ 1;
    costs[0] unused), and the back pointers that recover each cut. Scatter: sum over runs of
    (length - |sum of the run's unit rows|^2 / length)."""
    n = len(x)
    most = max(1, min(most, n))
    cum = np.vstack([np.zeros((1, x.shape[1])), np.cumsum(x, axis=0)])
    gram = cum @ cum.T
    sq = np.diag(gram)
    ends = np.arange(n + 1)
    size = ends[None, :] - ends[:, None]  # run from block i to block j (exclusive)
    with np.errstate(divide="ignore", invalid="ignore"):
        cost = size - (sq[None, :] + sq[:, None] - 2 * gram) / np.where(size > 0, size, 1)
    cost[size < 1] = np.inf
    best = np.full(n + 1, np.inf)
    best[0] = 0.0
    back = np.zeros((most + 1, n + 1), dtype=int)
    costs = np.full(most + 1, np.inf)
    for k in range(1, most + 1):
        total = best[:, None] + cost  # [i, j]: the best k-1 runs up to i, then one run i..j
        back[k] = np.argmin(total, axis=0)
        best = total[back[k], ends]
        costs[k] = max(0.0, best[n])  # rounding can leave -1e-15 where a run is all one vector
    return costs, back


def _cuts(back: np.ndarray, sections: int, n: int) -> list[int]:
    cuts, j = [], n
    for k in range(sections, 0, -1):
        j = int(back[k][j])
        cuts.append(j)
    return sorted(cuts)[1:]


def optimal_cuts(x: np.ndarray, sections: int) -> list[int]:
    """Block indices where sections 2..K start: the cut into K contiguous runs with the least scatter."""
    sections = max(1, min(sections, len(x)))
    return _cuts(cut_table(x, sections)[1], sections, len(x))


def chosen_count(costs: np.ndarray, least: int, penalty: float) -> int:
    """The number of sections the cut itself asks for: the k ≥ least with the least
    cost(k) / cost(1) + penalty · k. Each section must take away at least `penalty` of the
    whole talk's scatter to be worth its heading, so five distinct topics give five sections
    whatever their length, and one topic few; scatter relative to the one-section cut makes
    the penalty mean the same for a short talk and a long one."""
    most = len(costs) - 1
    least = max(1, min(least, most))
    whole = costs[1]
    if not whole > 0:  # every block says the same: no cut explains anything
        return least
    return min(range(least, most + 1), key=lambda k: costs[k] / whole + penalty * k)


def block_matrix(
    vectors: np.ndarray, words: list[int], options: SegmentOptions, sections: int
) -> tuple[list[int], np.ndarray]:
    """The blocks the cut is made of: each one's first line, and its unit vector."""
    # A short talk gets smaller blocks: two a section at least, so it can still have its sections
    # (with the penalty: min_blocks at least, so a short talk can show the topics it has).
    fine = options.min_blocks if options.penalty > 0 else 2 * sections
    starts = blocks(words, min(options.block_words, max(1, sum(words) // fine)))
    if options.vectors == "lexical":
        return starts, block_vectors(vectors, starts, options.dims)
    # embeddings: a block is the sum of its lines' unit vectors
    return starts, _normalized(np.add.reduceat(vectors.astype(np.float64), starts, axis=0))


def penalized_starts(starts: list[int], costs: np.ndarray, back: np.ndarray, options: SegmentOptions) -> list[int]:
    """Line starts of the cut into as many sections as chosen_count asks for (cut_table's costs and back)."""
    sections = chosen_count(costs, options.min_sections, options.penalty)
    return [0, *(starts[c] for c in _cuts(back, sections, len(starts)))]


def optimal_starts(vectors: np.ndarray, words: list[int], options: SegmentOptions, sections: int) -> list[int]:
    """Where each section starts (line indices, the first is 0), by the optimal cut over blocks:
    `sections` of them, or with options.penalty set, as many as the cut asks for (chosen_count,
    options.min_sections to options.max_sections); fewer where the transcript has fewer blocks."""
    if len(vectors) == 0:
        return []
    starts, x = block_matrix(vectors, words, options, sections)
    if options.penalty > 0:
        return penalized_starts(starts, *cut_table(x, options.max_sections), options)
    return [0, *(starts[c] for c in optimal_cuts(x, sections))]


# --- TextTiling (the baseline) -------------------------------------------------------------


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
