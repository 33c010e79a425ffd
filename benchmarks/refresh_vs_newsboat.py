"""Feed refresh beside newsboat: the same loopback feeds, `newsboat -x reload` vs `newsdesk ingest`.

The feeds are the ai-blogs snapshots in tests/fixtures/feeds/ai-blogs (every feed file name
seen in any snapshot: 37). Each is served by its own loopback address (127.0.0.2, .3, ...), so
newsdesk's per-host politeness (one host, one request at a time, fetch.per_host_delay apart)
holds as it would for 37 sites, and each answer carries an ETag and a Last-Modified.

Phases, each run once by each reader, side by side (newsboat, then newsdesk):

  first      every feed at its first snapshot, into an empty cache / store
  unchanged  the same bodies again; the server answers 304 to a conditional GET
  changed    every feed at its last snapshot (a new body where the feed changed)
  no-304     the same bodies again from a server that ignores If-None-Match / If-Modified-Since
             (it answers 200 with the same body: what the body hash is for)

Printed per phase: seconds for each, their ratio, and the 200 / 304 answers each reader got.
Goal (issue 32): unchanged <= 1.5x newsboat, changed <= 2x. Needs `apt-get install newsboat`.

    .venv/bin/python benchmarks/refresh_vs_newsboat.py [--profile]

--profile runs newsdesk's unchanged and changed phases again under cProfile and prints the top.
"""

from __future__ import annotations

import argparse
import email.utils
import hashlib
import os
import resource
import shutil
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--profile", action="store_true")
    ap.add_argument(
        "--src", type=Path, default=ROOT / "src", help="the newsdesk source tree to run (e.g. a baseline's)"
    )
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
        feeds.serve(host, bodies[name][0], 1_700_000_000)
    changed = sum(v[0] != v[-1] for v in bodies.values())
    print(
        f"{len(urls)} loopback feeds, {changed} with a different body at the last snapshot; load {os.getloadavg()[0]:.1f}"
    )

    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        env, _ = newsdesk_env(tmp, urls, args.src.resolve())
        (tmp / "urls").write_text("\n".join(urls.values()) + "\n", "utf-8")
        (tmp / "newsboat.conf").write_text("", "utf-8")
        nb_env = {**os.environ, "HOME": str(tmp)}
        newsboat = [
            "newsboat",
            "-x",
            "reload",
            "-u",
            str(tmp / "urls"),
            "-c",
            str(tmp / "cache.db"),
            "-C",
            str(tmp / "newsboat.conf"),
        ]
        newsdesk = [sys.executable, "-m", "newsdesk", "ingest"]

        def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float, Counter[int]]:
            """Wall seconds, CPU seconds (user + system: less moved by the neighbours' load), answers."""
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

        def phase(label: str) -> None:
            nb, nb_cpu, nb_counts = timed(newsboat, nb_env)
            nd, nd_cpu, nd_counts = timed(newsdesk, env)
            print(
                f"{label:10s} newsboat {nb:5.2f}s cpu {nb_cpu:4.2f}s ({nb_counts[200]:2d}x200 {nb_counts[304]:2d}x304)   "
                f"newsdesk {nd:5.2f}s cpu {nd_cpu:4.2f}s ({nd_counts[200]:2d}x200 {nd_counts[304]:2d}x304)   "
                f"ratio {nd / nb:5.2f}x (cpu {nd_cpu / max(nb_cpu, 1e-3):5.2f}x)"
            )

        phase("first")
        phase("unchanged")
        for n, name in enumerate(sorted(bodies), start=2):
            feeds.serve(f"127.0.0.{n}", bodies[name][-1], 1_700_100_000)
        phase("changed")
        feeds.conditional = False
        phase("no-304")
        feeds.conditional = True
        print("goal: unchanged <= 1.5x newsboat, changed <= 2x")

        if args.profile:
            prof = tmp / "ingest.prof"
            for n, name in enumerate(sorted(bodies), start=2):
                feeds.serve(f"127.0.0.{n}", bodies[name][0], 1_700_200_000)
            for label in ("changed", "unchanged"):
                timed([sys.executable, "-m", "cProfile", "-o", str(prof), "-m", "newsdesk", "ingest"], env)
                import pstats

                print(f"--- newsdesk ingest, {label}")
                pstats.Stats(str(prof)).sort_stats("tottime").print_stats(30)
    for server in servers:
        server.shutdown()


if __name__ == "__main__":
    main()
