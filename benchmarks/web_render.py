"""How fast the web app renders its pages, next to serving a static file of the same size.

Builds a store with 1,000 events and 5,000 items (titles and summaries from the real
news fixture, analyses cut from seed 002), starts `create_app` under uvicorn in a child
process on loopback, and times the feed page, an event page and a search (Chinese and
English terms alternating), each next to a static file as large as that page, all from
the same server in one run. Prints median and p95 of each and the ratio to its static twin.
The search index is built once before the server starts and timed on its own.

    .venv/bin/python benchmarks/web_render.py [--requests 100]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
from sqlalchemy import insert

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
EVENTS, ITEMS, SOURCES, DAYS = 1000, 5000, 40, 20
SEARCHES = ["大模型", "OpenAI", "融资", "agent", "推理", "benchmark", "开源", "Claude"]


def build_store(url: str) -> None:
    from newsdesk.store import open_store
    from newsdesk.store.schema import analyses, event_members, events, feedback, items, sources

    rnd = random.Random(7)
    news = [json.loads(line) for line in (SHARED / "fixtures/news/ai-daily-harvest.jsonl").open(encoding="utf-8")]
    seed = (SHARED / "seeds/002_9757c020e57c0eec.txt").read_text(encoding="utf-8")
    paragraphs = [p.strip() for p in seed.split("\n\n") if len(p.strip()) > 200]
    engine = open_store(url)
    start = datetime(2026, 3, 1, tzinfo=UTC)
    with engine.begin() as conn:
        conn.execute(insert(sources), [
            {"id": f"src-{i}", "name": f"Outlet {i}", "url": f"https://outlet{i}.example.com/feed", "kind": "rss",
             "language": "zh" if i % 2 else "en"} for i in range(SOURCES)
        ])
        item_rows = []
        for i in range(ITEMS):
            n = news[i % len(news)]
            when = start + timedelta(minutes=i * (DAYS * 24 * 60 // ITEMS))
            item_rows.append({
                "id": i + 1, "source_id": f"src-{i % SOURCES}", "guid": f"g{i}", "url": f"https://example.com/{i}",
                "title": n["title"] + ("" if i < len(news) else f" ({i // len(news)})"), "summary": n.get("summary") or "",
                "language": "zh" if any("\u4e00" <= c <= "\u9fff" for c in n["title"]) else "en",
                "published_at": when, "first_seen_at": when, "updated_at": when, "content_hash": f"h{i}",
                "material_level": rnd.choice(["full", "summary", "summary", "title", "paywalled"]),
            })
        conn.execute(insert(items), item_rows)
        per_event = ITEMS // EVENTS
        event_rows, member_rows, analysis_rows, feedback_rows = [], [], [], []
        for e in range(EVENTS):
            first = item_rows[e * per_event]
            when = first["published_at"]
            event_rows.append({
                "id": e + 1, "title": first["title"], "lead_item_id": first["id"], "first_published_at": when,
                "last_published_at": when + timedelta(hours=2), "updated_at": when, "item_count": per_event,
                "outlets": per_event, "independent_outlets": rnd.randint(1, per_event), "languages": ["zh", "en"],
                "category": rnd.choice(["model", "funding", "research", "product", "policy"]),
                "score": rnd.uniform(0, 10), "tab": rnd.choice(["featured", "p1", "all", "all"]),
                "score_parts": {"coverage": rnd.random(), "authority": rnd.random(), "recency": rnd.random()},
            })
            for k in range(per_event):
                item = item_rows[e * per_event + k]
                member_rows.append({"item_id": item["id"], "event_id": e + 1, "role": "lead" if k == 0 else "member",
                                    "joined_at": when, "reason": "cosine 0.71"})
            body = "\n\n".join(rnd.sample(paragraphs, 4))  # a 4-paragraph analysis, as the feed shows
            analysis_rows.append({"event_id": e + 1, "language": "zh", "headline": first["title"], "body": body,
                                  "status": rnd.choice(["clean", "clean", "flagged"]), "flags": [], "material_key": str(e),
                                  "created_at": when})
            if e % 10 == 0:
                feedback_rows.append({"event_id": e + 1, "kind": "up", "note": "", "user": "bench", "at": when})
        conn.execute(insert(events), event_rows)
        conn.execute(insert(event_members), member_rows)
        conn.execute(insert(analyses), analysis_rows)
        conn.execute(insert(feedback), feedback_rows)
    engine.dispose()


def serve(url: str, port: int, static_dir: str) -> None:
    """Child process: the real app plus one static folder, on loopback."""
    import uvicorn
    from fastapi.staticfiles import StaticFiles

    from newsdesk.config import Settings
    from newsdesk.store import open_store
    from newsdesk.web.app import create_app

    app = create_app(open_store(url), Settings())
    app.mount("/bench-static", StaticFiles(directory=static_dir), name="bench-static")
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


def timed(client: httpx.Client, path: str) -> tuple[float, int]:
    t0 = time.perf_counter()
    r = client.get(path)
    elapsed = time.perf_counter() - t0
    r.raise_for_status()
    return elapsed * 1000, len(r.content)


def summary(ms: list[float]) -> tuple[float, float]:
    ms = sorted(ms)
    return statistics.median(ms), ms[min(len(ms) - 1, int(round(0.95 * (len(ms) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", type=int, default=100, help="requests per kind of page")
    ap.add_argument("--serve", nargs=3, metavar=("URL", "PORT", "STATIC_DIR"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve:
        serve(args.serve[0], int(args.serve[1]), args.serve[2])
        return

    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/bench.db"
        t0 = time.perf_counter()
        build_store(url)
        print(f"store: {EVENTS} events, {ITEMS} items, {SOURCES} sources over {DAYS} days built in {time.perf_counter() - t0:.1f} s")
        # The search index is built once and then kept up incrementally; time that once, apart from page renders.
        from newsdesk.store import open_store
        from newsdesk.search import SearchIndex, segment

        segment("载入 jieba 词典")
        engine = open_store(url)
        t0 = time.perf_counter()
        indexed = SearchIndex(engine).refresh()
        took = time.perf_counter() - t0
        print(f"search index: {indexed} documents segmented and indexed in {took:.1f} s ({indexed / took:.0f} docs/s)")
        engine.dispose()
        import socket

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        static_dir = Path(tmp) / "static"
        static_dir.mkdir()
        child = subprocess.Popen([sys.executable, __file__, "--serve", url, str(port), str(static_dir)])
        try:
            base = f"http://127.0.0.1:{port}"
            with httpx.Client(base_url=base, timeout=60) as client:
                deadline = time.monotonic() + 30
                while True:
                    try:
                        client.get("/healthz")
                        break
                    except httpx.TransportError:
                        if time.monotonic() > deadline or child.poll() is not None:
                            raise SystemExit("server did not start") from None
                        time.sleep(0.1)
                days = sorted({(datetime(2026, 3, 1, tzinfo=UTC) + timedelta(days=d, hours=12)).date().isoformat() for d in range(DAYS)})
                rnd = random.Random(1)
                pages = {
                    "feed page": lambda i: f"/?day={days[i % len(days)]}",
                    "event page": lambda i: f"/events/{rnd.randint(1, EVENTS)}",
                    "search": lambda i: "/search?" + str(httpx.QueryParams({"q": SEARCHES[i % len(SEARCHES)]})),
                }
                # One static file per page kind, as large as that page's typical response.
                kinds = dict(pages)
                for kind, path_of in pages.items():
                    size = int(statistics.median(timed(client, path_of(i))[1] for i in range(8)))
                    name = kind.replace(" ", "-") + ".html"
                    (static_dir / name).write_bytes(b"x" * size)
                    kinds[f"static ~{kind}"] = lambda i, _n=name: f"/bench-static/{_n}"
                for path_of in kinds.values():  # warm up every route once
                    timed(client, path_of(0))
                results: dict[str, list[float]] = {k: [] for k in kinds}
                sizes: dict[str, list[int]] = {k: [] for k in kinds}
                # Interleaved, so drift in machine load hits every kind alike.
                for i in range(args.requests):
                    for kind, path_of in kinds.items():
                        ms, size = timed(client, path_of(i))
                        results[kind].append(ms)
                        sizes[kind].append(size)
        finally:
            child.terminate()
            child.wait(10)

    print(f"\n{args.requests} requests each, interleaved, one client, keep-alive, loopback, same server")
    print(f"{'':20} {'median ms':>10} {'p95 ms':>9} {'median bytes':>13} {'median / same-size static':>26}")
    for kind in pages:
        for row in (kind, f"static ~{kind}"):
            med, p95 = summary(results[row])
            ratio = med / summary(results[f"static ~{kind}"])[0]
            print(f"{row:20} {med:10.2f} {p95:9.2f} {int(statistics.median(sizes[row])):13,} {ratio:26.1f}")


if __name__ == "__main__":
    main()
