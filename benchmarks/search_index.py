"""How fast the search index catches up on a store, and whether searches answer meanwhile.

Builds one store of N items (default 10,000: the English ai-blogs fixture feeds, title + summary up
to 1,500 characters, and the Chinese ai-daily harvest, alternating) and copies it twice. On one copy
the previous indexer runs (jieba over every character, nh3 over every field, one statement per
document, 50 documents per refresh with the changes recomputed before each); on the other the
current one. Both run as a server runs them, in a background thread, while the main thread
searches every 0.2 s. Prints documents/s for each, their ratio, and the median search time
during the catch-up (the previous indexer made searches wait for its lock).

    .venv/bin/python benchmarks/search_index.py [--items 10000]
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


def run(path: Path, make_index) -> tuple[float, int, list[float]]:
    from newsdesk.store import open_store

    engine = open_store(f"sqlite:///{path}")
    index = make_index(engine)
    index.ensure()
    jieba.initialize()
    started = time.perf_counter()
    worker = threading.Thread(target=index.catch_up)
    worker.start()
    waits: list[float] = []
    while worker.is_alive():
        t = time.perf_counter()
        index.search(QUERIES[len(waits) % len(QUERIES)])
        waits.append(time.perf_counter() - t)
        time.sleep(0.2)
    worker.join()
    seconds = time.perf_counter() - started
    with engine.connect() as conn:
        indexed = conn.execute(text("SELECT count(*) FROM search_docs")).scalar()
    engine.dispose()
    return seconds, indexed, waits


def main() -> None:
    from newsdesk.search.index import SearchIndex

    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base.db"
        build_store(base, args.items)
        results = {}
        for name, make in (("previous", previous_index), ("current", SearchIndex)):
            copy = Path(tmp) / f"{name}.db"
            shutil.copy(base, copy)
            results[name] = run(copy, make)
            seconds, indexed, waits = results[name]
            print(
                f"{name:9s} {indexed} documents in {seconds:6.1f} s = {indexed / seconds:7.0f} docs/s; "
                f"{len(waits)} searches meanwhile, median {statistics.median(waits) * 1000:7.1f} ms, "
                f"max {max(waits) * 1000:7.1f} ms"
            )
        (p_s, p_n, p_w), (c_s, c_n, c_w) = results["previous"], results["current"]
        assert p_n == c_n == args.items, (p_n, c_n)
        print(
            f"indexing {(c_n / c_s) / (p_n / p_s):.1f}x the previous documents/s; "
            f"median search during catch-up {statistics.median(p_w) / statistics.median(c_w):.0f}x faster"
        )


if __name__ == "__main__":
    main()
