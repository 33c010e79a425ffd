"""Each clustering signal added in turn, on held-apart folds, beside the plain USE centroid baseline.

    .venv/bin/python benchmarks/cluster_ablation.py [K] FILE...

For every row, the thresholds are tuned on K-1 folds (split by event) and the held-apart fold is
scored; the scores pool the K held-apart folds. Baseline: online centroid cosine over bare USE
vectors with one threshold (benchmarks/cluster_quality.py), tuned the same way.

Fold precision is optimistic: folds are split by event, so two events of different folds are
never clustered together. "whole-file P / R" runs the thresholds most folds chose over the
whole file, where every false merge can happen.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np
from cluster_quality import baseline

from newsdesk.cluster.embed import UseEmbedder
from newsdesk.cluster.events import ClusterConfig
from newsdesk.eval.clusters import (
    _objective,
    cluster_items,
    cross_validate,
    folds_by_event,
    read_eval_file,
    scores,
)

OFF = dict(term_weight=0.0, headline_jaccard=0.0, roundups=False, sweep_days=0.0, subject_bonus=0.0)
RARE = {"term_weight": (0.0, 0.25, 0.5)}
ROWS = {  # label: (settings switched off, extra grid)
    "centroids + anchors": (OFF, {}),
    "+ same headline": (
        dict(OFF, headline_jaccard=ClusterConfig.headline_jaccard, sweep_days=ClusterConfig.sweep_days),
        {},
    ),
    "+ rare words (IDF)": ({"roundups": False, "subject_bonus": 0.0}, RARE),
    "+ roundups alone": ({"subject_bonus": 0.0}, RARE),
    "+ launch coverage, bonus tuned": ({}, dict(RARE, subject_bonus=(0.0, 0.15, 0.25))),
    "+ launch coverage, bonus 0.25 (the clusterer today)": ({}, RARE),
}
THRESHOLDS = {"same_language": (0.65, 0.70, 0.75), "cross_language": (0.40, 0.50)}


def baseline_cv(rows, vectors, k: int) -> list:
    fold = folds_by_event(rows, k)
    window = ClusterConfig().window_days
    pred: list = [None] * len(rows)
    for f in range(k):
        train = [i for i in range(len(rows)) if fold[i] != f]
        test = [i for i in range(len(rows)) if fold[i] == f]
        gold = [rows[i].event for i in train]
        sub = [rows[i] for i in train]
        th = max(
            np.arange(0.30, 0.81, 0.05), key=lambda t: _objective(baseline(sub, vectors[train], float(t), window), gold)
        )
        for i, e in zip(test, baseline([rows[i] for i in test], vectors[test], float(th), window)):
            pred[i] = (f, e)
    return pred


def line(label: str, s: dict, seconds: float, whole: dict | None = None) -> str:
    xl = s["cross_lingual_recall"]
    w = f"{whole['pairwise_precision']:.3f} / {whole['pairwise_recall']:.3f}" if whole else "n/a"
    return (
        f"| {label} | {s['bcubed_f1']:.3f} | {s['pairwise_precision']:.3f} | {s['pairwise_recall']:.3f} | "
        f"{s['pairwise_f1']:.3f} | {'n/a' if xl is None else f'{xl:.3f}'} | {s['events']} | {w} | {seconds:.0f}s |"
    )


def main(k: int, paths: list[Path]) -> None:
    embedder = UseEmbedder(threads=2)
    for path in paths:
        rows = read_eval_file(path)
        vectors = embedder.embed([r.text for r in rows])
        print(
            f"\n{path.name}: {len(rows)} items, {len(set(r.event for r in rows))} gold events, {k} held-apart folds split by event\n"
        )
        print("| | B³ F1 | pair P | pair R | pair F1 | zh–en pair R | events | whole-file pair P / R | time |")
        print("|---|---|---|---|---|---|---|---|---|")
        t = time.perf_counter()
        print(
            line("USE centroid baseline", scores(baseline_cv(rows, vectors, k), rows), time.perf_counter() - t),
            flush=True,
        )
        for label, (off, extra) in ROWS.items():
            base = replace(ClusterConfig(), **off)
            t = time.perf_counter()
            pred, chosen = cross_validate(rows, vectors, k, base, dict(THRESHOLDS, **extra))
            seconds = time.perf_counter() - t
            most = dict(Counter(tuple(sorted(c.items())) for c in chosen).most_common(1)[0][0])
            whole = scores(cluster_items(rows, vectors, replace(base, **most)), rows)
            print(line(label, scores(pred, rows), seconds, whole) + f" <!-- {most} -->", flush=True)


if __name__ == "__main__":
    args = sys.argv[1:]
    k = int(args.pop(0)) if args and args[0].isdigit() else 3
    main(k, [Path(p) for p in args])
