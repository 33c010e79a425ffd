"""The cluster stage's time, run after run: min / median / max of N fresh stores.

The harvest (tests/fixtures/news/ai-daily-harvest.jsonl) without the held-out week
(2026-03-09 … 03-15) is imported into a fresh SQLite store and clustered by the store stage,
N times; the embedder is loaded once before (not counted) with `threads=` as given. Prints each
run's wall and CPU seconds, then min / median / max, and the BLAS threads threadpoolctl reports
while the embedder runs (the setting holds only when it is installed).

    .venv/bin/python benchmarks/cluster_stage_runs.py [--runs 5] [--threads 2]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from newsdesk.cluster import cluster_new_items
from newsdesk.cluster.embed import UseEmbedder
from newsdesk.core.config import Settings
from newsdesk.ingest.run import import_jsonl
from newsdesk.store import open_store

ROOT = Path(__file__).resolve().parents[1]
HARVEST = ROOT / "tests" / "fixtures" / "news" / "ai-daily-harvest.jsonl"
HELD_OUT = ("2026-03-09", "2026-03-15")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    embedder = UseEmbedder(threads=args.threads)
    embedder.embed(["load the model"])
    try:
        from threadpoolctl import threadpool_info

        blas = ", ".join(f"{i['internal_api']} {i['num_threads']} threads" for i in threadpool_info())
    except ImportError:
        blas = "threadpoolctl not installed: threads= is not applied"
    with tempfile.TemporaryDirectory() as tmp:
        kept = Path(tmp) / "harvest.jsonl"
        lines = [
            line
            for line in HARVEST.read_text("utf-8").splitlines()
            if not HELD_OUT[0] <= (json.loads(line).get("pub_date") or "")[:10] <= HELD_OUT[1]
        ]
        kept.write_text("\n".join(lines) + "\n", "utf-8")
        walls, cpus = [], []
        for run in range(args.runs):
            engine = open_store(f"sqlite:///{tmp}/run{run}.db")
            import_jsonl(engine, kept)
            start, cpu = time.perf_counter(), time.process_time()
            stats = cluster_new_items(engine, Settings(), embedder=embedder)
            walls.append(time.perf_counter() - start)
            cpus.append(time.process_time() - cpu)
            print(
                f"run {run + 1}: {stats.items} items placed in {walls[-1]:.1f}s wall, {cpus[-1]:.1f}s CPU "
                f"(load {os.getloadavg()[0]:.1f})"
            )
            engine.dispose()
    print(f"BLAS outside the embedder's calls: {blas}; embedder threads={args.threads}")
    for name, xs in (("wall", walls), ("CPU", cpus)):
        print(f"{name}: min {min(xs):.1f}s  median {statistics.median(xs):.1f}s  max {max(xs):.1f}s")


if __name__ == "__main__":
    main()
