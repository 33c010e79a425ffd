"""The real harvest (tests/fixtures/news, 673 lines) imported and clustered on a fresh store, timed once the embedder is loaded.

    .venv/bin/python benchmarks/cluster_harvest_timing.py [SQLITE|POSTGRES_URL]

Ingest is `newsdesk ingest --from ai-daily-harvest.jsonl` (ingest.run.import_jsonl); cluster is
the store stage (embedding included, model load excluded: it is timed on its own). USE runs
on 2 threads, as on a 2-core machine. Then: a second run places nothing and changes no row,
and a second fresh store built from the same file gets exactly the same placements.

It prints timings and counts only, never which items were grouped: the harvest holds a
week kept unseen for evaluation.
"""

from __future__ import annotations

import sys
import tempfile
import time
import uuid
from pathlib import Path

from sqlalchemy import create_engine, select, text

from newsdesk.cluster import cluster_new_items
from newsdesk.cluster.embed import UseEmbedder
from newsdesk.core.config import Settings
from newsdesk.ingest.run import import_jsonl
from newsdesk.store import open_store
from newsdesk.store.schema import event_members, events, roundup_links

HARVEST = Path(__file__).resolve().parents[1] / "tests/fixtures/news/ai-daily-harvest.jsonl"


def fresh_store(base: str | None):
    if base and base.startswith("postgresql"):
        schema = "bench_" + uuid.uuid4().hex[:8]
        with create_engine(base).begin() as conn:
            conn.execute(text(f"CREATE SCHEMA {schema}"))
        return open_store(f"{base}?options=-csearch_path%3D{schema}")
    return open_store(f"sqlite:///{tempfile.mkdtemp()}/harvest.db")


def snapshot(engine):
    with engine.connect() as conn:
        # Placements without their clock times (joined_at is when the run happened).
        m = event_members.c
        return (
            conn.execute(
                select(m.item_id, m.event_id, m.role, m.origin_item_id, m.similarity, m.reason).order_by(m.item_id)
            ).all(),
            conn.execute(
                select(events.c.id, events.c.title, events.c.item_count, events.c.lead_item_id).order_by(events.c.id)
            ).all(),
            conn.execute(select(roundup_links).order_by(roundup_links.c.item_id, roundup_links.c.event_id)).all(),
        )


def main(base: str | None) -> None:
    start = time.perf_counter()
    embedder = UseEmbedder(threads=2)
    embedder.embed(["load the model"])
    load = time.perf_counter() - start

    engine = fresh_store(base)
    start, cpu = time.perf_counter(), time.process_time()
    outcomes = import_jsonl(engine, HARVEST)
    ingest = time.perf_counter() - start
    start = time.perf_counter()
    stats = cluster_new_items(engine, Settings(), embedder=embedder)
    cluster = time.perf_counter() - start
    cpu = time.process_time() - cpu
    first = snapshot(engine)

    start = time.perf_counter()
    again = cluster_new_items(engine, Settings(), embedder=embedder)
    rerun = time.perf_counter() - start
    unchanged = snapshot(engine) == first

    other = fresh_store(base)
    import_jsonl(other, HARVEST)
    cluster_new_items(other, Settings(), embedder=embedder)
    same = snapshot(other) == first

    stored = sum(o.new for o in outcomes)
    print(f"store: {engine.dialect.name}; model load {load:.1f}s (not counted)")
    print(f"ingest: {stored} items in {ingest:.1f}s")
    print(
        f"cluster: {stats.items} items placed ({stats.opened} events opened, {stats.joined} joined) in {cluster:.1f}s"
    )
    print(
        f"ingest + cluster: {ingest + cluster:.1f}s wall, {cpu:.1f} CPU-seconds in this process "
        f"(target < 60s on 2 cores; wall time counts whatever else the machine runs)"
    )
    print(f"re-run: {again.items} items placed in {rerun:.1f}s; store unchanged: {unchanged}")
    print(f"second fresh store, same order: identical placements: {same}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
