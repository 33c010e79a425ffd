"""Ingest throughput: newsdesk's whole ingest path against bare feedparser, same files, same run.

Reads every feed of the tests/fixtures/feeds/ai-blogs/<date>/ snapshots (in date order,
as polling would) and times, per repetition:

  bare    feedparser.parse(bytes) of each file
  ingest  parse_feed (feedparser + normalize) and storing every item into a fresh SQLite file
          with newsdesk.store.items.upsert_items, one transaction per feed (plus its fetch row);
          with --postgres URL, into a fresh schema of that PostgreSQL database (dropped after)

Prints the median of 5 repetitions as items/s and the ratio ingest / bare (target: <= 2.0).

    .venv/bin/python benchmarks/ingest_throughput.py [--reps 5] [--profile] [--postgres postgresql://host/db]
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import pstats
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import feedparser

from newsdesk.core.model import Source
from newsdesk.ingest.parse import parse_feed
from newsdesk.store import open_store
from newsdesk.store.items import record_fetch, sync_sources, upsert_items

ROOT = Path(__file__).resolve().parents[1]
SNAPSHOTS = ROOT / "tests" / "fixtures" / "feeds" / "ai-blogs"


def load_feeds() -> list[tuple[Source, bytes]]:
    feeds = []
    for day in sorted(p for p in SNAPSHOTS.iterdir() if p.is_dir()):
        for path in sorted(day.glob("*.xml")):
            sid = path.stem.removeprefix("feed_").replace("_", "-")
            feeds.append((Source(id=sid, name=sid, url=f"https://example.com/{path.name}"), path.read_bytes()))
    return feeds


def run_bare(feeds) -> int:
    return sum(len(feedparser.parse(body).entries) for _, body in feeds)


@contextmanager
def fresh_store(db_dir: Path, rep: int, postgres: str | None) -> Iterator[str]:
    """The URL of an empty store: an SQLite file in db_dir, or a new schema of the PostgreSQL
    database at `postgres`, dropped afterwards."""
    if not postgres:
        yield f"sqlite:///{db_dir / f'bench-{rep}.db'}"
        return
    from sqlalchemy import create_engine, text

    url = postgres.replace("postgresql://", "postgresql+psycopg://", 1)
    schema = f"bench_ingest_{uuid.uuid4().hex[:10]}"
    admin = create_engine(url)
    with admin.begin() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    try:
        yield f"{url}{'&' if '?' in url else '?'}options=-csearch_path%3D{schema}"
    finally:
        with admin.begin() as conn:
            conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
        admin.dispose()


def run_ingest(feeds, url: str) -> tuple[int, float]:
    """Returns (items stored or updated, seconds). Store opening/migration is set-up, not timed."""
    engine = open_store(url)
    with engine.begin() as conn:
        sync_sources(conn, list({s.id: s for s, _ in feeds}.values()))
    gc.collect()
    started = time.perf_counter()
    stored = 0
    for source, body in feeds:
        now = datetime.now(UTC)
        t0 = time.perf_counter()
        parsed = parse_feed(body, source, fetched_at=now, url=source.url)
        with engine.begin() as conn:
            outcomes = upsert_items(conn, parsed.items, now)
            record_fetch(
                conn,
                source.id,
                started_at=now,
                duration_ms=int((time.perf_counter() - t0) * 1000),
                http_status=200,
                items_seen=len(outcomes),
                items_new=outcomes.count("new"),
                items_updated=outcomes.count("updated"),
                warnings=parsed.warnings,
                error=parsed.error,
            )
        stored += len(outcomes)
    elapsed = time.perf_counter() - started
    engine.dispose()
    return stored, elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--profile", action="store_true", help="cProfile one ingest pass and print the top functions")
    ap.add_argument(
        "--postgres", metavar="URL", help="store into a fresh schema of this PostgreSQL database, not SQLite"
    )
    args = ap.parse_args()
    if not SNAPSHOTS.is_dir():
        sys.exit(f"{SNAPSHOTS} missing: run from a full checkout of the project")
    feeds = load_feeds()
    entries = run_bare(feeds)  # warm-up: imports, regex compilation, file cache
    print(f"{len(feeds)} feed files, {entries} entries (5 snapshots, date order), store: {args.postgres or 'SQLite'}")

    bare_times, ingest_times = [], []
    with tempfile.TemporaryDirectory() as tmp:
        with fresh_store(Path(tmp), -1, args.postgres) as url:
            run_ingest(feeds, url)  # warm-up of the whole path
        for rep in range(args.reps):
            gc.collect()
            t0 = time.perf_counter()
            run_bare(feeds)
            bare_times.append(time.perf_counter() - t0)
            with fresh_store(Path(tmp), rep, args.postgres) as url:
                stored, seconds = run_ingest(feeds, url)
            ingest_times.append(seconds)
            print(
                f"  rep {rep + 1}: bare {bare_times[-1]:.2f}s  ingest {seconds:.2f}s  ratio {seconds / bare_times[-1]:.2f}"
            )
        if args.profile:
            with fresh_store(Path(tmp), 99, args.postgres) as url:
                profiler = cProfile.Profile()
                profiler.enable()
                run_ingest(feeds, url)
                profiler.disable()
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(30)

    bare, ingest = statistics.median(bare_times), statistics.median(ingest_times)
    print(f"bare feedparser.parse : {bare:6.2f}s  {entries / bare:8.0f} items/s")
    print(
        f"newsdesk ingest path  : {ingest:6.2f}s  {entries / ingest:8.0f} items/s  ({stored} items upserted per pass)"
    )
    print(f"ratio ingest / bare   : {ingest / bare:.2f}x  (target <= 2.00x; median of {args.reps})")


if __name__ == "__main__":
    main()
