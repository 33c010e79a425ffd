"""Feed refresh beside newsboat: the same loopback feeds, `newsboat -x reload` vs `newsdesk ingest`.

The feeds are the ai-blogs snapshots in tests/fixtures/feeds/ai-blogs (every feed file name
seen in any snapshot: 37). Each is served by its own loopback address (127.0.0.2, .3, ...), so
newsdesk's per-host politeness (one host, one request at a time, fetch.per_host_delay apart)
holds as it would for 37 sites, and each answer carries an ETag and a Last-Modified.

Phases, in this order, each run by each reader in turn (newsboat, then newsdesk, then a baseline
newsdesk when --baseline names its source tree), all of them --repeat times from an empty cache /
store, so the readers meet the same load:

  first      every feed at its first snapshot, into an empty cache / store
  unchanged  the same bodies again; the server answers 304 to a conditional GET
  changed    every feed at its last snapshot (a new body where the feed changed)
  no-304     the same bodies again from a server that ignores If-None-Match / If-Modified-Since
             (it answers 200 with the same body: what the body hash is for)

A third reader, `warm`, is the always-on newsroom (`newsdesk run --every`, a Celery worker): one
process per round, started and imported before the first phase and not counted, whose ingest stage
(`newsdesk.ingest.run.ingest`, what each tick of the loop calls) is timed phase by phase. The
command-line reader pays Python's start and its imports on every refresh; the loop pays them once.

A fourth, `imports`, starts Python and imports the libraries the command is built on (STACK) and
does nothing else; `imports` + `warm` is the floor of any per-refresh command on that stack, printed
beside newsboat last.

Printed: each run's wall and CPU seconds (user + system of the process: less moved by the
neighbours' load than wall) and the 200 / 304 answers it got; then per phase the min and median
of each, and the ratio of the medians to newsboat's; the load average before and after.
Goal (issue 32): unchanged <= 1.5x newsboat, changed <= 2x. Needs `apt-get install newsboat`.

newsdesk runs as an installed package does, from compiled bytecode: the source trees are compiled
first (PYTHONDONTWRITEBYTECODE, set in some shells, would otherwise recompile newsdesk's modules on
every start: 0.2-0.3 s of CPU that no installed newsdesk pays).

    .venv/bin/python benchmarks/refresh_vs_newsboat.py [--repeat 3] [--baseline OLD/src] [--profile]

--profile runs newsdesk's unchanged and changed phases again under cProfile and prints the top.
"""

from __future__ import annotations

import argparse
import email.utils
import hashlib
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SNAPSHOTS = ROOT / "tests" / "fixtures" / "feeds" / "ai-blogs"


class Feeds:
    """What the loopback servers answer: one body per address, switchable between phases."""

    def __init__(self) -> None:
        self.bodies: dict[str, bytes] = {}  # host -> body
        self.stamps: dict[str, str] = {}  # host -> Last-Modified
        self.conditional = True
        self.counts: Counter[int] = Counter()
        self.lock = threading.Lock()

    def serve(self, host: str, body: bytes, when: float) -> None:
        self.bodies[host] = body
        self.stamps[host] = email.utils.formatdate(when, usegmt=True)


def handler(feeds: Feeds) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            host = self.server.server_address[0]
            body = feeds.bodies[host]
            etag = '"' + hashlib.sha1(body).hexdigest() + '"'
            stamp = feeds.stamps[host]
            fresh = feeds.conditional and (
                self.headers.get("If-None-Match") == etag or self.headers.get("If-Modified-Since") == stamp
            )
            with feeds.lock:
                feeds.counts[304 if fresh else 200] += 1
            self.send_response(304 if fresh else 200)
            self.send_header("ETag", etag)
            self.send_header("Last-Modified", stamp)
            if fresh:
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_header("Content-Type", "application/rss+xml")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args) -> None:
            pass

    return Handler


class QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        # curl (newsboat) drops the connection once it sees a 200 whose Last-Modified is not newer
        # than it asked for: a reset, not a failure worth a traceback.
        pass


def snapshots() -> dict[str, list[bytes]]:
    """Feed file name -> its bodies in snapshot order."""
    out: dict[str, list[bytes]] = {}
    for day in sorted(p for p in SNAPSHOTS.iterdir() if p.is_dir()):
        for path in sorted(day.glob("*.xml")):
            out.setdefault(path.name, []).append(path.read_bytes())
    return out


def newsdesk_env(tmp: Path, urls: dict[str, str], src: Path = ROOT / "src") -> tuple[dict[str, str], Path]:
    """A data dir whose catalog is these loopback feeds, every packaged source switched off."""
    sys.path.insert(0, str(ROOT / "src"))
    from newsdesk.ingest.catalog import _read_entries, packaged_catalog_path

    lines = []
    for raw in _read_entries(packaged_catalog_path(), []):
        lines += ["[[source]]", f'id = "{raw["id"]}"', "enabled = false", ""]
    for name, url in urls.items():
        sid = "loop-" + name.removeprefix("feed_").removesuffix(".xml").replace("_", "-")
        lines += ["[[source]]", f'id = "{sid}"', f'name = "{sid}"', f'url = "{url}"', 'kind = "rss"', ""]
    (tmp / "sources.toml").write_text("\n".join(lines), "utf-8")
    (tmp / "newsdesk.toml").write_text(
        f'data_dir = "{tmp / "data"}"\nsources_file = "{tmp / "sources.toml"}"\n[fetch]\nallow_private = true\n',
        "utf-8",
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEWSDESK_")}
    env |= {"NEWSDESK_CONFIG": str(tmp / "newsdesk.toml"), "PYTHONPATH": str(src)}
    return env, tmp


def timed(cmd: list[str], env: dict[str, str], feeds: Feeds) -> tuple[float, float, Counter[int]]:
    """Wall seconds, CPU seconds (user + system of the child), the answers it got."""
    feeds.counts = Counter()
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_s = after.ru_utime + after.ru_stime - cpu.ru_utime - cpu.ru_stime
    if done.returncode != 0:
        sys.exit(f"{cmd[0]} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return seconds, cpu_s, feeds.counts


WARM = """
import resource, sys, time
from newsdesk.core.config import load_settings
from newsdesk.ingest.run import ingest
from newsdesk.store import open_store
settings = load_settings()
engine = open_store(settings.database)
print("ready", flush=True)
for _ in sys.stdin:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    started = time.perf_counter()
    ingest(engine, settings)
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = after.ru_utime + after.ru_stime - usage.ru_utime - usage.ru_stime
    print(seconds, cpu, flush=True)
"""


class Warm:
    """The always-on reader: one started process whose ingest stage runs once per phase."""

    def __init__(self, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", WARM], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        assert self.proc.stdout is not None and self.proc.stdout.readline().strip() == "ready", "warm reader failed"

    def timed(self, feeds: Feeds) -> tuple[float, float, Counter[int]]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        feeds.counts = Counter()
        self.proc.stdin.write("go\n")
        self.proc.stdin.flush()
        got = self.proc.stdout.readline().split()
        if len(got) != 2:
            sys.exit(f"warm reader failed: {got}")
        return float(got[0]), float(got[1]), feeds.counts

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def compiled(src: Path) -> None:
    """Bytecode for the tree, as pip writes it when it installs a package."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(src / "newsdesk")], env=env, check=True)


PHASES = ("first", "unchanged", "changed", "no-304")
# The libraries a refresh command is built on (ARCHITECTURE.md: SQLAlchemy Core on SQLite, httpx,
# feedparser, Typer + Rich). The `imports` reader starts Python and imports them, nothing else: no
# command on this stack starts faster, and its time plus the warm reader's (the stage itself, once
# started) is the floor of a per-refresh command on it.
# Typer 0.29 reads every option through pydantic, so pydantic is on it too.
STACK = "sqlalchemy, sqlalchemy.dialects.sqlite, httpx, feedparser, typer, rich.progress, pydantic"


def one_round(
    feeds: Feeds, bodies: dict[str, list[bytes]], urls: dict[str, str], trees: dict[str, Path], stamp: int
) -> dict[tuple[str, str], tuple[float, float, Counter[int]]]:
    """Every phase for every reader, from an empty cache / store; (phase, reader) -> timed()."""
    hosts = {name: f"127.0.0.{n}" for n, name in enumerate(sorted(bodies), start=2)}
    for name, host in hosts.items():
        feeds.serve(host, bodies[name][0], stamp)
    feeds.conditional = True
    out = {}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        (tmp / "urls").write_text("\n".join(urls.values()) + "\n", "utf-8")
        (tmp / "newsboat.conf").write_text("", "utf-8")
        newsboat = ["newsboat", "-x", "reload", "-u", str(tmp / "urls"), "-c", str(tmp / "cache.db")]
        readers = {"newsboat": (newsboat + ["-C", str(tmp / "newsboat.conf")], {**os.environ, "HOME": str(tmp)})}
        for label, src in trees.items():
            (tmp / label).mkdir()
            env, _ = newsdesk_env(tmp / label, urls, src)
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            readers[label] = ([sys.executable, "-m", "newsdesk", "ingest"], env)
        readers["imports"] = ([sys.executable, "-c", f"import {STACK}"], readers["newsdesk"][1])
        (tmp / "warm").mkdir()
        warm_env, _ = newsdesk_env(tmp / "warm", urls, trees["newsdesk"])
        warm_env.pop("PYTHONDONTWRITEBYTECODE", None)
        warm = Warm(warm_env)
        for phase in PHASES:
            if phase == "changed":
                for name, host in hosts.items():
                    feeds.serve(host, bodies[name][-1], stamp + 100_000)
            feeds.conditional = phase != "no-304"
            for reader, (cmd, env) in readers.items():
                out[(phase, reader)] = timed(cmd, env, feeds)
            out[(phase, "warm")] = warm.timed(feeds)
        warm.close()
    return out


def print_floor(runs: list[dict]) -> None:
    """Per phase, the floor of a per-refresh command on STACK (imports + warm, medians) beside newsboat."""
    for phase in PHASES:
        nb_wall = statistics.median(run[(phase, "newsboat")][0] for run in runs)
        floor = sum(statistics.median(run[(phase, r)][0] for run in runs) for r in ("imports", "warm"))
        print(
            f"floor of a command on this stack, {phase:9s}: imports + warm {floor:5.2f} s = {floor / nb_wall:4.2f}x newsboat"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--repeat", type=int, default=3, help="rounds of every phase, each from an empty store")
    ap.add_argument(
        "--src", type=Path, default=ROOT / "src", help="the newsdesk source tree to run (e.g. a baseline's)"
    )
    ap.add_argument("--baseline", type=Path, help="a second newsdesk source tree, run beside --src (before → after)")
    args = ap.parse_args()
    if not shutil.which("newsboat"):
        sys.exit("newsboat is not installed: apt-get install newsboat")
    bodies = snapshots()
    feeds = Feeds()
    servers = []
    urls: dict[str, str] = {}
    for n, name in enumerate(sorted(bodies), start=2):
        host = f"127.0.0.{n}"
        server = QuietServer((host, 0), handler(feeds))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        urls[name] = f"http://{host}:{server.server_address[1]}/{name}"
    trees = {"newsdesk": args.src.resolve()}
    if args.baseline:
        trees["baseline"] = args.baseline.resolve()
    for src in trees.values():
        compiled(src)
    changed = sum(v[0] != v[-1] for v in bodies.values())
    load_before = os.getloadavg()
    print(f"{len(urls)} loopback feeds, {changed} with a different body at the last snapshot")
    print(f"load before {load_before[0]:.1f} {load_before[1]:.1f} {load_before[2]:.1f} ({os.cpu_count()} CPUs)")
    runs = []
    for r in range(args.repeat):
        got = one_round(feeds, bodies, urls, trees, 1_700_000_000 + 1_000_000 * r)
        runs.append(got)
        for phase in PHASES:
            print(
                f"round {r + 1} {phase:10s} "
                + "   ".join(
                    f"{reader} {w:5.2f}s cpu {c:4.2f}s ({n[200]:2d}x200 {n[304]:2d}x304)"
                    for (p, reader), (w, c, n) in got.items()
                    if p == phase
                )
            )
    load_after = os.getloadavg()
    print(f"load after {load_after[0]:.1f} {load_after[1]:.1f} {load_after[2]:.1f}")
    readers = ["newsboat", *trees, "imports", "warm"]
    print(f"over {args.repeat} rounds: min / median seconds; ratio = median / newsboat's median")
    for phase in PHASES:
        cells = []
        nb = [run[(phase, "newsboat")] for run in runs]
        nb_wall, nb_cpu = statistics.median(x[0] for x in nb), statistics.median(x[1] for x in nb)
        for reader in readers:
            got = [run[(phase, reader)] for run in runs]
            walls, cpus = [x[0] for x in got], [x[1] for x in got]
            cell = f"{reader} wall {min(walls):5.2f}/{statistics.median(walls):5.2f} cpu {min(cpus):4.2f}/{statistics.median(cpus):4.2f}"
            if reader != "newsboat":
                cell += f" ({statistics.median(walls) / nb_wall:4.2f}x wall, {statistics.median(cpus) / max(nb_cpu, 1e-3):4.2f}x cpu)"
            cells.append(cell)
        print(f"{phase:10s} " + "   ".join(cells))
    print_floor(runs)
    print("goal: unchanged <= 1.5x newsboat, changed <= 2x (warm: the always-on loop's ingest stage, started once)")

    if args.profile:
        with tempfile.TemporaryDirectory() as tmp_name:
            tmp = Path(tmp_name)
            env, _ = newsdesk_env(tmp, urls, trees["newsdesk"])
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            prof = tmp / "ingest.prof"
            for n, name in enumerate(sorted(bodies), start=2):
                feeds.serve(f"127.0.0.{n}", bodies[name][0], 1_600_000_000)
            timed([sys.executable, "-m", "newsdesk", "ingest"], env, feeds)
            for n, name in enumerate(sorted(bodies), start=2):
                feeds.serve(f"127.0.0.{n}", bodies[name][-1], 1_600_100_000)
            import pstats

            for label in ("changed", "unchanged"):
                timed([sys.executable, "-m", "cProfile", "-o", str(prof), "-m", "newsdesk", "ingest"], env, feeds)
                print(f"--- newsdesk ingest, {label}")
                pstats.Stats(str(prof)).sort_stats("tottime").print_stats(30)
    for server in servers:
        server.shutdown()


if __name__ == "__main__":
    main()
