"""How fast the search index catches up on a store, and whether searches answer meanwhile.

Builds one store of N items (default 10,000: the English ai-blogs fixture feeds, title + summary up
to 1,500 characters, and the Chinese ai-daily harvest, alternating) and copies it twice. On one copy
the previous indexer runs (jieba over every character, nh3 over every field, one statement per
document, 50 documents per refresh with the changes recomputed before each); on the other the
current one. Both run as a server runs them, in a background thread, while the main thread
searches every 0.2 s. Prints documents/s for each, their ratio, and the median search time
during the catch-up (the previous indexer made searches wait for its lock).

`--store FILE` indexes a copy of an existing SQLite store instead (items, events and their analyses;
any search index it has is dropped from the copy first; the file is never written). `--repeat R`
runs each indexer R times on fresh copies and prints min and median documents/s (and process CPU
seconds); `--current-only` skips the previous indexer (pure-Python jieba: slow). To compare two
versions of newsdesk on the same store, run it once with each on PYTHONPATH:

    .venv/bin/python benchmarks/search_index.py [--items 10000] [--store FILE] [--repeat 3] [--current-only]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import jieba
import nh3
from sqlalchemy import insert, text

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
QUERIES = ["OpenAI", "大模型", "agent", "融资", "Claude", "推理"]


def build_store(path: Path, n: int) -> None:
    from newsdesk.core.model import Source
    from newsdesk.ingest.parse import parse_feed
    from newsdesk.store import open_store
    from newsdesk.store.schema import items, sources

    src = Source(id="s", name="S", url="https://example.com/feed")
    english = []
    for feed in sorted((FIXTURES / "feeds/ai-blogs").glob("*/*.xml")):
        english += [
            (i.title, i.summary) for i in parse_feed(feed.read_bytes(), src, fetched_at=datetime.now(UTC)).items
        ]
    chinese = [
        (r["title"], r.get("summary") or "") for r in map(json.loads, (FIXTURES / "news/ai-daily-harvest.jsonl").open())
    ]
    engine = open_store(f"sqlite:///{path}")
    start = datetime(2026, 3, 1, tzinfo=UTC)
    with engine.begin() as conn:
        conn.execute(
            insert(sources),
            [{"id": "s", "name": "S", "url": "https://example.com/feed", "kind": "rss", "language": "en"}],
        )
        rows = []
        for i in range(n):
            title, summary = (english if i % 2 else chinese)[(i // 2) % len(english if i % 2 else chinese)]
            when = start + timedelta(minutes=i)
            rows.append(
                {
                    "source_id": "s",
                    "guid": f"g{i}",
                    "url": f"https://example.com/{i}",
                    "title": title,
                    "summary": summary,
                    "language": "en" if i % 2 else "zh",
                    "published_at": when,
                    "first_seen_at": when,
                    "updated_at": when,
                    "content_hash": f"h{i}",
                }
            )
        conn.execute(insert(items), rows)
    engine.dispose()


def previous_index(engine):
    """The indexer as it was before this benchmark's change, for the baseline."""
    from newsdesk.search import index as search

    class Previous(search.SearchIndex):
        def catch_up(self) -> None:
            while self.refresh(limit=50):
                pass

        def _index(self, conn, batch) -> None:
            stamps = {(k, i): s for k, i, s in batch}
            ids = [i for k, i, _ in batch if k == "item"]
            for row in conn.execute(
                text(f"SELECT id, title, summary FROM items WHERE id IN ({','.join(map(str, ids))})")
            ):
                body = "\n".join(nh3.clean(v or "", tags=set()) for v in (row.title, row.summary))
                words = " ".join(w for w in jieba.cut_for_search(body, HMM=False) if w.strip())
                super()._put(conn, [("item", row.id, stamps[("item", row.id)], words)])  # one document per statement

        def search(self, query: str, limit: int = 50):
            self.refresh(limit=50)  # waited for the catch-up's lock
            with self.engine.connect() as conn:
                return self._words(conn, search.query_words(query), limit)

    return Previous(engine)


def drop_index(path: Path) -> None:
    """A copied store indexed from nothing: its search tables (if any) dropped."""
    import sqlite3

    db = sqlite3.connect(path)
    db.execute("DROP TABLE IF EXISTS search_fts")
    db.execute("DROP TABLE IF EXISTS search_docs")
    db.commit()
    db.close()


def run(path: Path, make_index) -> tuple[float, int, list[float], float]:
    from newsdesk.store import open_store
    from newsdesk.text.segment import words

    engine = open_store(f"sqlite:///{path}")
    index = make_index(engine)
    index.ensure()
    jieba.initialize()
    words("预热")  # the segmenter loaded before the clock starts, as a server loads it at start
    cpu = time.process_time()
    started = time.perf_counter()
    finished: list[float] = []
    worker = threading.Thread(target=lambda: (index.catch_up(), finished.append(time.perf_counter())))
    worker.start()
    waits: list[float] = []
    while worker.is_alive():
        t = time.perf_counter()
        index.search(QUERIES[len(waits) % len(QUERIES)])
        waits.append(time.perf_counter() - t)
        worker.join(0.2)  # a search every 0.2 s; the clock stops when the catch-up ends, not at the next tick
    seconds = finished[0] - started
    cpu = time.process_time() - cpu
    with engine.connect() as conn:
        indexed = conn.execute(text("SELECT count(*) FROM search_docs")).scalar()
    engine.dispose()
    return seconds, indexed, waits, cpu


def main() -> None:
    from newsdesk.search.index import SearchIndex

    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--store", type=Path, help="index a copy of this SQLite store instead of building one")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--current-only", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base.db"
        if args.store:
            shutil.copy(args.store, base)  # the given file is only read
            drop_index(base)
        else:
            build_store(base, args.items)
        indexers = (
            (("current", SearchIndex),)
            if args.current_only
            else (
                ("previous", previous_index),
                ("current", SearchIndex),
            )
        )
        results = {}
        for name, make in indexers:
            runs = []
            for _ in range(args.repeat):
                copy = Path(tmp) / f"{name}.db"
                for leftover in Path(tmp).glob(f"{name}.db*"):
                    leftover.unlink()
                shutil.copy(base, copy)
                runs.append(run(copy, make))
                seconds, indexed, waits, cpu = runs[-1]
                print(
                    f"{name:9s} {indexed} documents in {seconds:6.2f} s = {indexed / seconds:7.0f} docs/s "
                    f"({cpu:5.2f} s CPU); {len(waits)} searches meanwhile, median "
                    f"{statistics.median(waits) * 1000:7.1f} ms, max {max(waits) * 1000:7.1f} ms"
                )
            rates = [n / s for s, n, _, _ in runs]
            print(
                f"{name:9s} docs/s over {len(runs)} runs: min {min(rates):7.0f}, median {statistics.median(rates):7.0f}; "
                f"CPU s min {min(r[3] for r in runs):5.2f}, median {statistics.median(r[3] for r in runs):5.2f}"
            )
            results[name] = runs
        if not args.store:
            assert all(r[1] == args.items for runs in results.values() for r in runs), "not every item indexed"
        if "previous" in results:
            (p_s, p_n, p_w, _), (c_s, c_n, c_w, _) = results["previous"][0], results["current"][0]
            print(
                f"indexing {(c_n / c_s) / (p_n / p_s):.1f}x the previous documents/s; "
                f"median search during catch-up {statistics.median(p_w) / statistics.median(c_w):.0f}x faster"
            )


if __name__ == "__main__":
    main()
