"""Cluster the real AI news stream (ai-daily-harvest.jsonl) through the store stage and list the events.

    .venv/bin/python benchmarks/cluster_harvest.py [OUT.md]

Items are imported with newsdesk.ingest.jsonl.read_harvest into a fresh SQLite store. 147 lines
have no pub_date; the file is in harvest order, so such an item gets the previous line's date
(otherwise all 147 would share the import time and look like one day's news).
"""

from __future__ import annotations

import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

from sqlalchemy import select

from newsdesk.cluster import cluster_new_items, event_brief
from newsdesk.cluster.embed import UseEmbedder
from newsdesk.core.config import Settings
from newsdesk.ingest.jsonl import read_harvest
from newsdesk.store import open_store
from newsdesk.store.items import sync_sources, upsert_item
from newsdesk.store.schema import events

HARVEST = Path(__file__).resolve().parents[1] / "tests/fixtures/news/ai-daily-harvest.jsonl"


def main(out: str | None) -> None:
    tmp = tempfile.mkdtemp()
    engine = open_store(f"sqlite:///{tmp}/harvest.db")
    errors: list[str] = []
    last = None
    with engine.begin() as conn:
        for n, (source, item) in enumerate(read_harvest(HARVEST, errors)):
            if item.published_at is None:
                item.published_at = last + timedelta(seconds=n) if last else None
            last = item.published_at or last
            sync_sources(conn, [source])
            upsert_item(conn, item)
    start = time.perf_counter()
    stats = cluster_new_items(engine, Settings(), embedder=UseEmbedder(threads=2))
    took = time.perf_counter() - start
    with engine.connect() as conn:
        ids = [r.id for r in conn.execute(select(events.c.id).order_by(events.c.id))]
        briefs = [event_brief(conn, i) for i in ids]
    multi = [b for b in briefs if b["item_count"] > 1]
    lines = [
        f"items {stats.items} ({len(errors)} lines skipped), events {len(briefs)}, multi-member events {len(multi)}, "
        f"duplicates {stats.duplicates}, syndicated {stats.syndicated}; {took:.1f}s",
        "",
        "## ten largest events",
    ]

    def show(b):
        lines.append(
            f"\n### event {b['event_id']}: {b['item_count']} items, {b['outlets']} outlets, "
            f"{b['independent_outlets']} independent, {b['first_published_at']:%m-%d}..{b['last_published_at']:%m-%d}, anchors {b['anchors'][:5]}"
        )
        for m in b["members"]:
            lines.append(
                f"- [{m['role']}] {m['source_name']} {m['published_at']:%m-%d}: {m['title']}  — _{(m['reason'] or '')[:120]}_"
            )

    for b in sorted(briefs, key=lambda b: (-b["item_count"], b["event_id"]))[:10]:
        show(b)
    lines += ["", "## every multi-member event, in time order"]
    for b in multi:
        show(b)
    text = "\n".join(lines) + "\n"
    if out:
        Path(out).write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
