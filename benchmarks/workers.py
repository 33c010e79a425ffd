"""Celery workers: how the newsroom scales with worker processes, all figures from one run.

    python benchmarks/workers.py [--store postgresql://root@127.0.0.1/test] [--broker redis://127.0.0.1:6379/0]

1. 40 analyses through a loopback OpenAI-compatible endpoint that answers each call in 2 s
   (a hosted model's pace): 1 worker vs 4 workers, one unit at a time each. The issue asks ≥ 3x.
2. 200 loopback sources (each feed answers after --feed-delay s, a remote server's pace):
   1 worker vs 4 workers, one unit at a time each.

Each configuration gets a fresh PostgreSQL schema and its own queues on the broker; the workers
are real `newsdesk worker` processes, and the clock runs from the first message sent to the last
result stored.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import uuid
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import create_engine, func, insert, select, text

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from cluster_rig import Cluster, FeedServer, ModelServer, harvest, wait_until

from newsdesk.cluster import refresh_event
from newsdesk.core.model import Item, Source
from newsdesk.store import open_store
from newsdesk.store.items import sync_sources, upsert_item
from newsdesk.store.schema import analyses, event_members, events, fetches, items


@contextmanager
def fresh_schema(url: str):
    schema = "bench_" + uuid.uuid4().hex[:10]
    admin = create_engine(url)
    with admin.begin() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    try:
        yield f"{url}{'&' if '?' in url else '?'}options=-csearch_path%3D{schema}"
    finally:
        with admin.begin() as conn:
            conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
        admin.dispose()


def start_workers(cluster: Cluster, n: int, queues: str, concurrency: int) -> None:
    procs = [cluster.start_worker(concurrency=concurrency, queues=queues) for _ in range(n)]
    logs = sorted(cluster.tmp.glob("worker-*.log"))
    if not wait_until(lambda: all("ready." in p.read_text(errors="replace") for p in logs), 180, 0.5):
        raise SystemExit(f"workers did not start:\n{cluster.logs()}")
    assert all(p.poll() is None for p in procs)


def events_from(rows: list[dict], engine) -> list[int]:
    """One event per harvest item, stored as the cluster stage would (the writer's input)."""
    now = datetime.now(UTC)
    out = []
    with engine.begin() as conn:
        sync_sources(
            conn,
            [
                Source(f"bench-{n}", f"Outlet {n}", f"https://example.com/{n}.xml", language="zh")
                for n in range(len(rows))
            ],
        )
        for n, row in enumerate(rows):
            published = datetime.fromisoformat(row["pub_date"]).replace(hour=8, tzinfo=UTC)
            upsert_item(
                conn,
                Item(
                    f"bench-{n}",
                    row["link"],
                    row["link"],
                    row["title"],
                    summary=row.get("summary") or "",
                    language="zh",
                    published_at=published,
                ),
                now=now,
            )
            item_id = conn.execute(select(items.c.id).where(items.c.guid == row["link"])).scalar_one()
            event_id = conn.execute(
                insert(events).values(
                    title=row["title"], first_published_at=published, last_published_at=published, updated_at=now
                )
            ).inserted_primary_key[0]
            conn.execute(insert(event_members).values(item_id=item_id, event_id=event_id, role="lead", joined_at=now))
            refresh_event(conn, event_id, now=now)
            out.append(event_id)
    return out


def analyses_run(args, rows: list[dict], workers: int) -> float:
    from newsdesk.run.units import Unit
    from newsdesk.run.workers import configure, send

    model = ModelServer(delay=args.model_delay)
    with fresh_schema(args.store) as url, tempfile.TemporaryDirectory() as tmp:
        cluster = Cluster(Path(tmp), url, model.base_url, broker=args.broker, languages=("zh",), settle=0.5)
        settings = cluster.settings()
        engine = open_store(settings.database)
        ids = events_from(rows, engine)
        try:
            start_workers(cluster, workers, "write", 1)
            configure(settings)
            started = time.monotonic()
            send(engine, settings, [Unit("analysis", {"event": e, "language": "zh"}) for e in ids], "bench")

            def stored() -> bool:
                with engine.connect() as conn:
                    return conn.execute(select(func.count()).select_from(analyses)).scalar() == len(ids)

            if not wait_until(stored, 900, 0.2):
                raise SystemExit(f"analyses did not finish:\n{cluster.logs()}")
            took = time.monotonic() - started
        finally:
            cluster.stop()
            engine.dispose()
            model.close()
    return took


def fetch_run(args, rows: list[dict], workers: int) -> float:
    from newsdesk.run.workers import configure, start_pass

    feeds = FeedServer(rows, delay=args.feed_delay)
    model = ModelServer()
    with fresh_schema(args.store) as url, tempfile.TemporaryDirectory() as tmp:
        cluster = Cluster(Path(tmp), url, model.base_url, broker=args.broker)
        settings = cluster.settings()
        engine = open_store(settings.database)
        ids = [f"src-{n:03d}" for n in range(len(rows))]
        with engine.begin() as conn:
            sync_sources(conn, [Source(sid, f"Source {n}", feeds.url(n), language="zh") for n, sid in enumerate(ids)])
        try:
            start_workers(cluster, workers, "fetch", 1)  # placing and writing are left queued, untimed
            configure(settings)
            started = time.monotonic()
            start_pass(engine, settings, ids)

            def fetched() -> bool:
                with engine.connect() as conn:
                    return conn.execute(select(func.count(func.distinct(fetches.c.source_id)))).scalar() == len(ids)

            if not wait_until(fetched, 900, 0.2):
                raise SystemExit(f"fetches did not finish:\n{cluster.logs()}")
            took = time.monotonic() - started
        finally:
            cluster.stop()
            engine.dispose()
            feeds.close()
            model.close()
    return took


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", default="postgresql+psycopg://root@127.0.0.1:5432/test")
    ap.add_argument("--broker", default="redis://127.0.0.1:6379/0")
    ap.add_argument("--fixtures", default=str(ROOT / "tests" / "fixtures"))
    ap.add_argument("--analyses", type=int, default=40)
    ap.add_argument("--model-delay", type=float, default=2.0, help="seconds the endpoint takes per call")
    ap.add_argument("--sources", type=int, default=200)
    ap.add_argument("--feed-delay", type=float, default=0.2, help="seconds each feed takes to answer")
    ap.add_argument("--part", choices=["all", "analyses", "sources"], default="all")
    args = ap.parse_args()
    rows = harvest(Path(args.fixtures), max(args.analyses, args.sources))

    if args.part in ("all", "analyses"):
        analyses_part(args, rows)
    if args.part in ("all", "sources"):
        sources_part(args, rows)


def analyses_part(args, rows: list[dict]) -> None:
    print(f"{args.analyses} analyses, endpoint answering each call in {args.model_delay:.1f} s:")
    a1 = analyses_run(args, rows[: args.analyses], 1)
    print(f"  1 worker : {a1:6.1f} s  ({args.analyses / a1:.2f} analyses/s)")
    a4 = analyses_run(args, rows[: args.analyses], 4)
    print(f"  4 workers: {a4:6.1f} s  ({args.analyses / a4:.2f} analyses/s)")
    print(f"  speed-up : {a1 / a4:.2f}x")


def sources_part(args, rows: list[dict]) -> None:
    print(f"{args.sources} loopback sources, each feed answering in {args.feed_delay:.2f} s:")
    f1 = fetch_run(args, rows[: args.sources], 1)
    print(f"  1 worker : {f1:6.1f} s  ({args.sources / f1:.1f} sources/s)")
    f4 = fetch_run(args, rows[: args.sources], 4)
    print(f"  4 workers: {f4:6.1f} s  ({args.sources / f4:.1f} sources/s)")
    print(f"  speed-up : {f1 / f4:.2f}x")


if __name__ == "__main__":
    main()
