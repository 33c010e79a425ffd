"""How fast the web app serves its pages, next to a static file of the same size.

Builds a store of --events events (5 items each, from the real news fixture, over
--events / 50 days; analyses cut from its analysis text) with the store's own writers:
sync_sources and upsert_items for sources and items, the clusterer's tables for events,
and the real daily-edition stage (build_dailies) for the day editions. Then starts the
web app on loopback in a child process, as `newsdesk serve --workers N` runs it plus one
static folder, and times the feed page, an event page and a search (Chinese and English
terms alternating), each beside a static file as large as that page, all from the same
server in one run.

Sequential (default): one client, interleaved. With --concurrency C: C clients at once
(C kept-alive connections over a few lines of asyncio HTTP/1.1, uvloop where installed:
an HTTP library's client at 200 connections took as much CPU as the server it measured, on
the same cores), at most --requests requests per kind of page and at most --seconds of
wall time, kinds interleaved; prints p50 / p99 and errors per kind, and the CPU the
client used. --runs N repeats that on the same server and prints the medians over the
runs (the first meets cold caches; event pages are drawn at random from all the events,
so most are a first read in every run). Readers send no cookie, as a first visit does.
The search index is built once before the server starts and timed on its own (docs/s);
--store FILE keeps the built store (and index) for the next run. --starts N measures what the
first readers after a start meet instead: the server is started N times and only the first run
after each start is timed (no warm-up request before it; no static twins), then each kind's p50
and p99 as min / median / max over the starts, and the median over the kinds of the median p99.

    .venv/bin/python benchmarks/web_render.py [--requests 100]
    .venv/bin/python benchmarks/web_render.py --events 10000 --concurrency 200 --requests 400 --runs 3 \
        --store /tmp/web-bench-10k.db
    .venv/bin/python benchmarks/web_render.py --events 10000 --concurrency 200 --requests 300 --starts 3 \
        --store /tmp/web-bench-10k.db
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit

import httpx
from sqlalchemy import insert

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
ITEMS_PER_EVENT, SOURCES, EVENTS_PER_DAY = 5, 40, 50
START = datetime(2026, 3, 1, tzinfo=UTC)
SEARCHES = ["大模型", "OpenAI", "融资", "agent", "推理", "benchmark", "开源", "Claude"]


def build_store(url: str, n_events: int) -> int:
    """A store of n_events events; returns its number of days."""
    from newsdesk.core.config import Settings
    from newsdesk.core.model import Item, Source
    from newsdesk.editions.daily import build_dailies
    from newsdesk.store import open_store
    from newsdesk.store.items import sync_sources, upsert_items
    from newsdesk.store.schema import analyses, event_members, events, feedback, items

    rnd = random.Random(7)
    news = [json.loads(line) for line in (FIXTURES / "news/ai-daily-harvest.jsonl").open(encoding="utf-8")]
    # Analysis paragraphs as long as an event analysis's (~1,600 characters), cut from the harvest's
    # own Chinese analysis text (each item's core point and highlights, several items a paragraph).
    paragraphs, para = [], ""
    for n in news:
        if n["source_channel"] == "wechat-ai":
            para += "".join([n.get("core_point") or "", *(n.get("highlights") or [])])
            if len(para) >= 1600:
                paragraphs, para = [*paragraphs, para], ""
    n_items, days = n_events * ITEMS_PER_EVENT, max(1, n_events // EVENTS_PER_DAY)
    step = timedelta(minutes=days * 24 * 60 / n_items)
    engine = open_store(url)
    with engine.begin() as conn:
        sync_sources(
            conn,
            [
                Source(
                    id=f"src-{i}",
                    name=f"Outlet {i}",
                    url=f"https://outlet{i}.example.com/feed",
                    language="zh" if i % 2 else "en",
                )
                for i in range(SOURCES)
            ],
        )
        batch = []
        for i in range(n_items):
            n = news[i % len(news)]
            title = n["title"] + ("" if i < len(news) else f" ({i // len(news)})")
            batch.append(
                Item(
                    source_id=f"src-{i % SOURCES}",
                    guid=f"g{i}",
                    url=f"https://example.com/{i}",
                    title=title,
                    summary=n.get("summary") or "",
                    published_at=START + i * step,
                    language="zh" if any("\u4e00" <= c <= "\u9fff" for c in title) else "en",
                    material_level=rnd.choice(["full", "summary", "summary", "title", "paywalled"]),
                )
            )
        # Seen a day at a time, as a newsroom polling its feeds sees them (all seen at the end, the
        # first months would be a feed's back catalogue, which gets no day: store/days.py).
        per_day = len(batch) // days
        for d in range(days):
            chunk = batch[d * per_day : (d + 1) * per_day] if d < days - 1 else batch[d * per_day :]
            upsert_items(conn, chunk, now=max(item.published_at for item in chunk) + timedelta(hours=1))
        ids = {
            guid: (iid, when)
            for iid, guid, when in conn.execute(
                items.select().with_only_columns(items.c.id, items.c.guid, items.c.published_at)
            )
        }
        event_rows, member_rows, analysis_rows, feedback_rows = [], [], [], []
        for e in range(n_events):
            members = [ids[f"g{e * ITEMS_PER_EVENT + k}"] for k in range(ITEMS_PER_EVENT)]
            lead_id, when = members[0]
            title = batch[e * ITEMS_PER_EVENT].title
            event_rows.append(
                {
                    "id": e + 1,
                    "title": title,
                    "lead_item_id": lead_id,
                    "first_published_at": when,
                    "last_published_at": members[-1][1],
                    "updated_at": when,
                    "item_count": ITEMS_PER_EVENT,
                    "outlets": ITEMS_PER_EVENT,
                    "independent_outlets": rnd.randint(1, ITEMS_PER_EVENT),
                    "languages": ["zh", "en"],
                    "category": rnd.choice(["model", "funding", "research", "product", "policy"]),
                    "score": rnd.uniform(0, 10),
                    "importance": rnd.uniform(0, 10),
                    "tab": rnd.choice(["featured", "p1", "all", "all"]),
                    "score_parts": {"coverage": rnd.random(), "authority": rnd.random(), "recency": rnd.random()},
                }
            )
            for k, (item_id, _) in enumerate(members):
                member_rows.append(
                    {
                        "item_id": item_id,
                        "event_id": e + 1,
                        "role": "lead" if k == 0 else "member",
                        "joined_at": when,
                        "reason": "cosine 0.71",
                    }
                )
            body = "\n\n".join(rnd.sample(paragraphs, 4))  # a 4-paragraph analysis, as the feed shows
            analysis_rows.append(
                {
                    "event_id": e + 1,
                    "language": "zh",
                    "headline": title,
                    "body": body,
                    "status": rnd.choice(["clean", "clean", "flagged"]),
                    "flags": [],
                    "material_key": str(e),
                    "created_at": when,
                }
            )
            if e % 10 == 0:
                feedback_rows.append({"event_id": e + 1, "kind": "up", "note": "", "user": "bench", "at": when})
        conn.execute(insert(events), event_rows)
        conn.execute(insert(event_members), member_rows)
        conn.execute(insert(analyses), analysis_rows)
        conn.execute(insert(feedback), feedback_rows)
    build_dailies(engine, Settings())  # the day editions, as a run stores them
    engine.dispose()
    return days


def bench_app():
    """uvicorn's factory in each server process: the real app plus one static folder."""
    from fastapi.staticfiles import StaticFiles

    from newsdesk.serve.app import app_from_environment

    app = app_from_environment()
    app.mount("/bench-static", StaticFiles(directory=os.environ["BENCH_STATIC"]), name="bench-static")
    return app


def serve(url: str, port: int, static_dir: str, workers: int) -> None:
    """Child process: serve bench_app the way `newsdesk serve` does, on loopback."""
    from newsdesk.serve.app import serve_app

    os.environ.update(NEWSDESK_DATABASE_URL=url, BENCH_STATIC=static_dir)
    sys.path.insert(0, str(Path(__file__).parent))
    serve_app("web_render:bench_app", host="127.0.0.1", port=port, workers=workers, log_level="warning")


def timed(client: httpx.Client, path: str) -> tuple[float, int]:
    t0 = time.perf_counter()
    r = client.get(path)
    elapsed = time.perf_counter() - t0
    r.raise_for_status()
    return elapsed * 1000, len(r.content)


def pct(ms: list[float], q: float) -> float:
    ms = sorted(ms)
    return ms[min(len(ms) - 1, int(round(q * (len(ms) - 1))))]


async def _get(conn: list, host: str, port: int, path: str) -> tuple[int, int]:
    """One GET on a kept-alive connection (opened on first use): status and body size. A few lines of
    HTTP/1.1 over asyncio streams, not an HTTP library: 200 clients on the same 2 cores as the server
    must cost it as little CPU as can be (httpx's client took about as much as the server did)."""
    if not conn:
        conn.extend(await asyncio.open_connection(host, port))
    reader, writer = conn
    writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
    head = await reader.readuntil(b"\r\n\r\n")
    length = None
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    if length is None:
        raise ValueError("an answer without Content-Length")
    await reader.readexactly(length)
    return int(head[9:12]), length


async def concurrent(base: str, kinds: dict, clients: int, per_kind: int, seconds: float):
    """`clients` requests in flight at once, one kept-alive connection each, until each kind had
    `per_kind` or `seconds` ran out. Returns each kind's times (ms), sizes and errors, the wall time
    and the CPU seconds this client process used meanwhile."""
    host, port = urlsplit(base).hostname, urlsplit(base).port
    order = [kind for i in range(per_kind) for kind in kinds]  # interleaved, as in the sequential run
    results: dict[str, list[float]] = {k: [] for k in kinds}
    sizes: dict[str, list[int]] = {k: [] for k in kinds}
    errors: dict[str, list[str]] = {k: [] for k in kinds}
    counter = {k: 0 for k in kinds}
    deadline = time.monotonic() + seconds
    queue = iter(order)

    async def worker():
        conn: list = []
        for kind in queue:
            if time.monotonic() > deadline:
                break
            i = counter[kind]
            counter[kind] += 1
            t0 = time.perf_counter()
            try:
                status, size = await asyncio.wait_for(_get(conn, host, port, kinds[kind](i)), 60)
            except (OSError, EOFError, ValueError, TimeoutError, asyncio.IncompleteReadError) as exc:
                errors[kind].append(type(exc).__name__)
                if conn:
                    conn[1].close()
                    conn.clear()
                continue
            if status != 200:
                errors[kind].append(f"HTTP {status}")
                continue
            results[kind].append((time.perf_counter() - t0) * 1000)
            sizes[kind].append(size)
        if conn:
            conn[1].close()

    t0, cpu0 = time.monotonic(), time.process_time()
    await asyncio.gather(*(worker() for _ in range(clients)))
    return results, sizes, errors, time.monotonic() - t0, time.process_time() - cpu0


def report(pages: dict, results: dict, sizes: dict, errors: dict) -> dict[str, tuple[float, float, float | None]]:
    """Prints p50 / p99 / errors of each kind beside its static twin; returns kind -> (p50, p99, ratio)."""
    print(
        f"{'':20} {'n':>5} {'errors':>6} {'p50 ms':>9} {'p99 ms':>9} {'median bytes':>13} {'p50 / same-size static':>23}"
    )
    figures = {}
    for kind in pages:
        for row in (kind, f"static ~{kind}"):
            if not results[row]:
                print(f"{row:20} {0:5} {len(errors[row]):6}   (no answers: {', '.join(sorted(set(errors[row])))})")
                continue
            p50, p99 = statistics.median(results[row]), pct(results[row], 0.99)
            twin = results[f"static ~{kind}"]
            ratio = p50 / statistics.median(twin) if twin else None
            figures[row] = (p50, p99, ratio)
            print(
                f"{row:20} {len(results[row]):5} {len(errors[row]):6} {p50:9.1f} {p99:9.1f} "
                f"{int(statistics.median(sizes[row])):13,} {f'{ratio:23.2f}' if ratio else f'{chr(45):>23}'}"
            )
        bad = sorted(set(errors[kind]))
        if bad:
            print(f"{'':20} errors: {', '.join(bad)}")
    return figures


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", type=int, default=100, help="requests per kind of page (static twins included)")
    ap.add_argument("--events", type=int, default=1000, help="events in the store (5 items each, 50 a day)")
    ap.add_argument("--concurrency", type=int, default=0, help="clients at once (0: one client, sequential)")
    ap.add_argument("--seconds", type=float, default=120, help="with --concurrency: stop sending after this long")
    ap.add_argument("--workers", type=int, default=None, help="server processes (default: as newsdesk serve chooses)")
    ap.add_argument("--runs", type=int, default=1, help="times to repeat the measurement on the same server")
    ap.add_argument(
        "--starts",
        type=int,
        default=0,
        help="start the server this many times; measure each first run (no static twins)",
    )
    ap.add_argument(
        "--store", help="keep the built store in this SQLite file and reuse it when it exists (same --events)"
    )
    ap.add_argument("--serve", nargs=4, metavar=("URL", "PORT", "STATIC_DIR", "WORKERS"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve:
        serve(args.serve[0], int(args.serve[1]), args.serve[2], int(args.serve[3]))
        return
    from newsdesk.serve.app import default_workers

    workers = args.workers or default_workers(f"sqlite:///{tempfile.gettempdir()}/x.db")
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(args.store).resolve() if args.store else Path(tmp) / 'bench.db'}"
        t0 = time.perf_counter()
        if args.store and Path(args.store).exists():
            days = max(1, args.events // EVENTS_PER_DAY)
            print(f"store: reusing {args.store} ({args.events} events over {days} days, as built before)")
        else:
            days = build_store(url, args.events)
            print(
                f"store: {args.events} events, {args.events * ITEMS_PER_EVENT} items, {SOURCES} sources over "
                f"{days} days (daily editions included) built in {time.perf_counter() - t0:.1f} s"
            )
        # The search index is built once and then kept up incrementally; time that once, apart from page renders.
        from newsdesk.search.index import SearchIndex, segment
        from newsdesk.store import open_store

        segment("载入 jieba 词典")
        engine = open_store(url)
        t0 = time.perf_counter()
        indexed = SearchIndex(engine).refresh()
        took = time.perf_counter() - t0
        if indexed:
            print(
                f"search index: {indexed} documents segmented and indexed in {took:.1f} s ({indexed / took:.0f} docs/s)"
            )
        engine.dispose()
        static_dir = Path(tmp) / "static"
        static_dir.mkdir()
        pages = reader_pages(days, args.events)
        if args.starts:
            first_runs(url, static_dir, workers, pages, args)
            return
        child, port = start_server(url, static_dir, workers)
        try:
            base = f"http://127.0.0.1:{port}"
            with httpx.Client(base_url=base, timeout=60) as client:
                # One static file per page kind, as large as that page's median response over the
                # requests to come (16 spread over them: days differ from a few cards to fifty).
                kinds = dict(pages)
                spread = [k * args.requests // 16 for k in range(16)]
                for kind, path_of in pages.items():
                    size = int(statistics.median(timed(client, path_of(i))[1] for i in spread))
                    name = kind.replace(" ", "-") + ".html"
                    (static_dir / name).write_bytes(b"x" * size)
                    kinds[f"static ~{kind}"] = lambda i, _n=name: f"/bench-static/{_n}"
                for path_of in kinds.values():  # warm up every route once
                    timed(client, path_of(0))
                runs = []
                for _ in range(args.runs):
                    server_cpu = tree_cpu(child.pid)
                    if args.concurrency:
                        runs.append(run_async(concurrent(base, kinds, args.concurrency, args.requests, args.seconds)))
                    else:
                        runs.append(sequential(client, kinds, args.requests))
                    runs[-1] += (tree_cpu(child.pid) - server_cpu, tree_rss(child.pid))
        finally:
            child.terminate()
            child.wait(20)

    print_runs(runs, pages, workers, args.concurrency)


def reader_pages(days: int, n_events: int) -> dict:
    """Each kind of reader page: request number -> path."""
    day_keys = [(START + timedelta(days=d, hours=12)).date().isoformat() for d in range(days)]
    rnd = random.Random(1)
    return {
        "feed page": lambda i: f"/?day={day_keys[i % len(day_keys)]}",
        "event page": lambda i: f"/events/{rnd.randint(1, n_events)}",
        "search": lambda i: "/search?" + str(httpx.QueryParams({"q": SEARCHES[i % len(SEARCHES)]})),
    }


def start_server(url: str, static_dir: Path, workers: int) -> tuple[subprocess.Popen, int]:
    """The server in a child process on a free loopback port, once it answers /healthz (uvicorn
    answers only after the app's start-up, its warming included)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    child = subprocess.Popen([sys.executable, __file__, "--serve", url, str(port), str(static_dir), str(workers)])
    deadline = time.monotonic() + 120
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
        while True:
            try:
                client.get("/healthz")
                return child, port
            except httpx.TransportError:
                if time.monotonic() > deadline or child.poll() is not None:
                    child.kill()
                    raise SystemExit("server did not start") from None
                time.sleep(0.1)


def first_runs(url: str, static_dir: Path, workers: int, pages: dict, args) -> None:
    """--starts N: start the server N times and measure only the first run after each start (no
    warm-up request before it: the readers are the first), then the min / median / max over the
    starts of each kind's p50 and p99, and the median over the kinds of the p99s."""
    per_start: dict[str, list[tuple[float, float, int]]] = {k: [] for k in pages}
    for n in range(1, args.starts + 1):
        t0 = time.perf_counter()
        child, port = start_server(url, static_dir, workers)
        started, start_cpu = time.perf_counter() - t0, tree_cpu(child.pid)
        try:
            results, sizes, errors, wall, cpu = run_async(
                concurrent(f"http://127.0.0.1:{port}", pages, args.concurrency or 1, args.requests, args.seconds)
            )
            run_cpu = tree_cpu(child.pid) - start_cpu
        finally:
            child.terminate()
            child.wait(20)
        done = sum(len(v) for v in results.values())
        print(
            f"\nstart {n} of {args.starts}: server up in {started:.1f} s ({start_cpu:.1f} s of CPU); first run, "
            f"{args.concurrency or 1} clients: {done} requests in {wall:.1f} s, the server's CPU {run_cpu:.1f} s "
            f"({run_cpu * 1000 / max(1, done):.1f} ms a request), the client's {cpu:.1f} s; "
            f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
        )
        for kind in pages:
            times = results[kind]
            if times:
                per_start[kind].append((statistics.median(times), pct(times, 0.99), len(errors[kind])))
                print(
                    f"  {kind:12} n={len(times):4} errors={len(errors[kind])} p50 {per_start[kind][-1][0]:7.1f} ms "
                    f"p99 {per_start[kind][-1][1]:7.1f} ms"
                )
            else:
                print(f"  {kind:12} no answers: {', '.join(sorted(set(errors[kind])))}")
    print(f"\nfirst run after a start, over {args.starts} starts: min / median / max (ms)")
    for kind, rows in per_start.items():
        if rows:
            p50s, p99s = sorted(r[0] for r in rows), sorted(r[1] for r in rows)
            print(
                f"{kind:12} p50 {p50s[0]:7.1f} / {statistics.median(p50s):7.1f} / {p50s[-1]:7.1f}   "
                f"p99 {p99s[0]:7.1f} / {statistics.median(p99s):7.1f} / {p99s[-1]:7.1f}   "
                f"errors {sum(r[2] for r in rows)}"
            )
    medians = [statistics.median(r[1] for r in rows) for rows in per_start.values() if rows]
    if medians:
        print(f"median over the kinds of the median p99: {statistics.median(medians):.1f} ms")


def print_runs(runs: list[tuple], pages: dict, workers: int, concurrency: int) -> None:
    """Each run's table, then the medians over the runs."""
    how = f"{concurrency} clients at once" if concurrency else "one client, interleaved"
    summary: dict[str, list[tuple]] = {}
    for n, (results, sizes, errors, wall, cpu, server_cpu, rss) in enumerate(runs, 1):
        done = sum(len(v) for v in results.values())
        print(
            f"\nrun {n} of {len(runs)}: {how}, keep-alive, loopback, {workers} server process(es): {done} requests "
            f"answered in {wall:.1f} s ({done / wall:.0f}/s), {sum(len(v) for v in errors.values())} errors"
        )
        print(
            f"CPU: the server's processes {server_cpu:.1f} s ({server_cpu * 1000 / max(1, done):.1f} ms a request, "
            f"all kinds together; {rss / 2**20:.0f} MiB resident at the end), the client {cpu:.1f} s "
            f"({cpu / wall:.0%} of one core)"
        )
        # What the same work would take on this many idle cores (the machines measured on are shared):
        # the server and client CPU a request, spread over every core, as a closed loop of C clients.
        if concurrency and done:
            rate = (os.cpu_count() or 1) / ((server_cpu + cpu) / done)
            print(
                f"at that CPU a request, {os.cpu_count()} idle cores would answer ~{rate:.0f} requests/s, so "
                f"{concurrency} clients would each wait ~{concurrency / rate * 1000:.0f} ms on average "
                "(derived, not measured)"
            )
        print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        for row, figures in report(pages, results, sizes, errors).items():
            summary.setdefault(row, []).append((*figures, len(errors[row])))
    if len(runs) > 1:
        print(f"\nmedians over {len(runs)} runs (errors: all runs together)")
        print(f"{'':20} {'errors':>6} {'p50 ms':>9} {'p99 ms':>9} {'p50 / same-size static':>23}")
        for row, per_run in summary.items():
            p50, p99 = (statistics.median(f[i] for f in per_run) for i in (0, 1))
            ratios = [f[2] for f in per_run if f[2] is not None]
            ratio = f"{statistics.median(ratios):23.2f}" if ratios else f"{'-':>23}"
            print(f"{row:20} {sum(f[3] for f in per_run):6} {p50:9.1f} {p99:9.1f} {ratio}")


def sequential(client: httpx.Client, kinds: dict, requests: int):
    """One client, kinds interleaved, so drift in machine load hits every kind alike."""
    results: dict[str, list[float]] = {k: [] for k in kinds}
    sizes: dict[str, list[int]] = {k: [] for k in kinds}
    errors: dict[str, list[str]] = {k: [] for k in kinds}
    t0, cpu0 = time.monotonic(), time.process_time()
    for i in range(requests):
        for kind, path_of in kinds.items():
            ms, size = timed(client, path_of(i))
            results[kind].append(ms)
            sizes[kind].append(size)
    return results, sizes, errors, time.monotonic() - t0, time.process_time() - cpu0


def _tree(pid: int) -> list[int]:
    """pid and every process below it (uvicorn's supervisor and its workers), from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rpartition(")")[2].split()[1])
            except OSError:
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        found.append(todo.pop())
        todo.extend(children.get(found[-1], []))
    return found


def tree_cpu(pid: int) -> float:
    """CPU seconds (user + system) used so far by pid and the processes below it; 0 without /proc."""
    if not Path("/proc").is_dir():
        return 0.0
    ticks = 0
    for p in _tree(pid):
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        ticks += int(fields[11]) + int(fields[12])  # utime, stime
    return ticks / os.sysconf("SC_CLK_TCK")


def tree_rss(pid: int) -> int:
    """Resident bytes of pid and the processes below it; 0 without /proc."""
    if not Path("/proc").is_dir():
        return 0
    pages = 0
    for p in _tree(pid):
        try:
            pages += int(Path(f"/proc/{p}/statm").read_text().split()[1])
        except OSError:
            continue
    return pages * os.sysconf("SC_PAGE_SIZE")


def run_async(coroutine):
    """The client's event loop: uvloop's where installed (less of the client's CPU per request)."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(coroutine)
    return uvloop.run(coroutine)


if __name__ == "__main__":
    main()
