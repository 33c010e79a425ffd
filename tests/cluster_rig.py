"""A newsroom cluster on loopback, for tests/test_workers.py and benchmarks/workers.py.

- FeedServer: N sources, each an RSS feed with one real harvest item (tests/fixtures/news), over HTTP.
- ModelServer: an OpenAI-compatible endpoint that answers each call after `delay` seconds with
  an analysis the checker passes, refuses (400) any call whose material holds `poison`, and
  logs every request (so a test can count repeats).
- Cluster: the settings file, the store and `newsdesk worker` processes (real Celery workers on
  the real broker), each started and killed by pid.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from datetime import UTC, datetime
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from xml.sax.saxutils import escape

ROOT = Path(__file__).resolve().parents[1]

ANSWERS = {
    "zh": "# 材料只有摘要\n\n标题给了这件事的主线，正文没披露价格、用户数和基准分数，材料只有 RSS 摘要级别。\n\n我的判断：先等正文，再下结论。",
    "en": "# Only the summary so far\n\nThe headline gives the main line; the material is only the RSS summary, and it does not "
    "disclose pricing, users or benchmark scores.\n\nMy verdict: wait for the full text before judging.",
}


def harvest(fixtures: Path, n: int) -> list[dict]:
    """The first `n` harvest lines with distinct titles and links."""
    out, seen = [], set()
    with open(fixtures / "news" / "ai-daily-harvest.jsonl", encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            if row["title"] in seen or row["link"] in seen or not row.get("pub_date"):
                continue
            seen |= {row["title"], row["link"]}
            out.append(row)
            if len(out) == n:
                break
    return out


def _serve(handler) -> ThreadingHTTPServer:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    server.request_queue_size = 256
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


class FeedServer:
    def __init__(self, rows: list[dict], delay: float = 0.0):
        self.rows, self.delay = rows, delay
        self.hits: dict[int, int] = {}
        rig = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                n = int(self.path.rsplit("/", 1)[1].split(".")[0])
                rig.hits[n] = rig.hits.get(n, 0) + 1
                time.sleep(rig.delay)
                body = rig.feed(n).encode()
                self.send_response(200)
                self.send_header("content-type", "application/rss+xml; charset=utf-8")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = _serve(Handler)

    def url(self, n: int) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/feed/{n}.xml"

    def feed(self, n: int) -> str:
        row = self.rows[n]
        when = datetime.fromisoformat(row["pub_date"]).replace(hour=8, tzinfo=UTC)
        return (
            f'<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>source {n}</title>'
            f"<link>{escape(self.url(n))}</link><description>loopback</description><item>"
            f"<title>{escape(row['title'])}</title><link>{escape(row['link'])}</link><guid>{escape(row['link'])}</guid>"
            f"<description>{escape(row.get('summary') or row['title'])}</description>"
            f"<pubDate>{format_datetime(when)}</pubDate></item></channel></rss>"
        )

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class ModelServer:
    def __init__(self, delay: float = 0.0, poison: str | None = None):
        self.delay, self.poison = delay, poison
        self.requests: list[tuple[str, bool]] = []  # (hash of the request body, answered 200)
        self._lock = threading.Lock()
        rig = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("content-length", 0)))
                request = json.loads(raw or b"{}")
                user = request["messages"][-1]["content"]
                refused = bool(rig.poison and rig.poison in user)
                with rig._lock:
                    rig.requests.append((hashlib.sha256(raw).hexdigest(), not refused))
                time.sleep(rig.delay)
                if refused:
                    status, payload = 400, {"error": {"message": "poisoned material", "type": "invalid_request_error"}}
                else:
                    english = "Write in English" in request["messages"][0]["content"]
                    status, payload = (
                        200,
                        {
                            "id": "x",
                            "object": "chat.completion",
                            "created": int(time.time()),
                            "model": "loopback",
                            "choices": [
                                {
                                    "index": 0,
                                    "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": ANSWERS["en" if english else "zh"]},
                                }
                            ],
                            "usage": {"prompt_tokens": 500, "completion_tokens": 80, "total_tokens": 580},
                        },
                    )
                body = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(body)

        self.server = _serve(Handler)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def answered(self) -> list[str]:
        with self._lock:
            return [h for h, ok in self.requests if ok]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class Cluster:
    """Settings, store and worker processes of one test; its own queues on the broker."""

    def __init__(
        self,
        tmp: Path,
        store_url: str,
        model_url: str,
        *,
        broker: str = "redis://127.0.0.1:6379/0",
        languages=("zh", "en"),
        llm_concurrency: int = 4,
        env: dict | None = None,
        **workers,
    ):
        """`env`: NEWSDESK_* variables over the settings file, for the workers and settings() alike."""
        self.tmp = tmp
        self.extra_env = env or {}
        self.prefix = "t" + uuid.uuid4().hex[:10]
        knobs = {"visibility_timeout": 10.0, "retry_delay": 0.5, "settle": 1.0, "max_attempts": 3} | workers
        lines = [
            f'data_dir = "{tmp / "data"}"',
            f'site_dir = "{tmp / "site"}"',
            f"database_url = {json.dumps(store_url)}",
            f"languages = {json.dumps(list(languages))}",
            'timezone = "UTC"',
            "[fetch]",
            "allow_private = true",
            "per_host_delay = 0.0",
            "per_host_concurrency = 64",
            "retries = 0",
            "[write]",
            'by = "model"',
            "[llm]",
            'backend = "openai"',
            f'base_url = "{model_url}"',
            'model = "loopback"',
            "retries = 0",
            f"concurrency = {llm_concurrency}",
            "timeout = 30.0",
            "[workers]",
            f'broker_url = "{broker}"',
            f'queue_prefix = "{self.prefix}"',
        ] + [f"{k} = {json.dumps(v)}" for k, v in knobs.items()]
        self.config = tmp / "newsdesk.toml"
        self.config.write_text("\n".join(lines) + "\n", encoding="utf-8")
        self.env = {
            **os.environ,
            "NEWSDESK_CONFIG": str(self.config),
            "OPENAI_API_KEY": "loopback",
            "PYTHONPATH": str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""),
            **self.extra_env,
        }
        self.procs: list[subprocess.Popen] = []

    def settings(self):
        from newsdesk.core.config import load_settings

        return load_settings(self.config, env=self.extra_env)

    def start_worker(
        self, concurrency: int = 2, queues: str | None = None, preload: str | None = None
    ) -> subprocess.Popen:
        """`newsdesk worker`; `preload`: a module in tests/ whose register() runs first (tests/memo_kind.py),
        as a package whose own files held what it registers would have it at import."""
        cmd = [sys.executable, "-m", "newsdesk"]
        env = self.env
        if preload:
            run = f"import {preload}; {preload}.register(); from newsdesk.cli import app; app(prog_name='newsdesk')"
            cmd = [sys.executable, "-c", run]
            env = {**env, "PYTHONPATH": str(ROOT / "tests") + os.pathsep + env["PYTHONPATH"]}
        cmd += ["worker", f"--concurrency={concurrency}"]
        if queues:
            cmd.append(f"--queues={queues}")
        log = open(self.tmp / f"worker-{len(self.procs)}.log", "w")
        proc = subprocess.Popen(cmd, env=env, cwd=self.tmp, stdout=log, stderr=subprocess.STDOUT)
        self.procs.append(proc)
        return proc

    def logs(self) -> str:
        return "\n".join(p.read_text(errors="replace")[-3000:] for p in sorted(self.tmp.glob("worker-*.log")))

    def stop(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in self.procs:
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        self.purge()

    def purge(self) -> None:
        """Drop this test's queues from the broker."""
        from kombu import Connection

        from newsdesk.run.units import queues

        with Connection(self.settings().workers.broker_url) as conn:
            channel = conn.channel()
            for q in queues():
                with contextlib.suppress(Exception):  # never declared
                    channel.queue_delete(f"{self.prefix}.{q}")


def compose_environment() -> dict[str, str]:
    """compose.yaml's newsdesk environment with each ${VAR:-default} at its default, as `docker compose up`
    runs it with nothing set."""
    import re

    import yaml

    compose = yaml.safe_load((ROOT / "compose.yaml").read_text(encoding="utf-8"))
    return {k: re.sub(r"\$\{[A-Z_]+:-(.*)\}", r"\1", str(v)) for k, v in compose["x-newsdesk"]["environment"].items()}


def wait_until(check, timeout: float, every: float = 0.5):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(every)
    return check()
