"""The command line's contract with a scheduler and a terminal.

Exit codes: 0 all well, 1 some sources or parts failed (the rest is stored), 2 a usage or
settings error. Text from feeds, files and servers is printed as it is: `[…]` in it is
never read as Rich markup.
"""

from __future__ import annotations

import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from sqlalchemy import func, select
from typer.testing import CliRunner

from newsdesk import cli
from newsdesk.core.errors import OK, PARTIAL, USAGE, NewsdeskError
from newsdesk.store import open_store
from newsdesk.store.schema import items

RSS = """<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0"><channel><title>good</title>
<item><title>Story one</title><link>http://example.com/a/1</link><guid>g1</guid>
<description>A model was released</description><pubDate>Mon, 24 Feb 2025 10:00:00 GMT</pubDate></item>
<item><title>Story two</title><link>http://example.com/a/2</link><guid>g2</guid>
<description>Another model</description><pubDate>Mon, 24 Feb 2025 11:00:00 GMT</pubDate></item>
</channel></rss>"""


@pytest.fixture
def server():
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def do_GET(self):
            if self.path == "/good.xml":
                body = RSS.encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            # A redirect loop through a path that Rich would read as a closing tag.
            self.send_response(302)
            self.send_header("Location", "/[/x]" if self.path == "/loop.xml" else "/loop.xml")
            self.end_headers()

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


@pytest.fixture
def newsdesk(tmp_path, monkeypatch):
    """Runs `newsdesk ARGS` against a store and settings of its own; returns (exit code, output)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "newsdesk.toml").write_text("")
    monkeypatch.setenv("NEWSDESK_CONFIG", str(tmp_path / "newsdesk.toml"))
    monkeypatch.setenv("NEWSDESK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("NEWSDESK_FETCH_RETRIES", "1")
    monkeypatch.setenv("NEWSDESK_FETCH_PER_HOST_DELAY", "0")
    monkeypatch.setattr(cli.console, "width", 300)  # table cells stay on one line
    monkeypatch.setattr(cli.err, "width", 300)

    def invoke(*args: str) -> tuple[int, str]:
        monkeypatch.setattr(cli, "_state", {})
        result = CliRunner().invoke(cli.app, list(args))
        assert "Traceback" not in result.output, result.output
        return result.exit_code, result.output

    return invoke


def catalog(tmp_path, monkeypatch, **urls: str) -> None:
    entries = "".join(
        f'[[source]]\nid = "{sid}"\nname = "{sid}"\nurl = "{url}"\nkind = "rss"\n\n' for sid, url in urls.items()
    )
    (tmp_path / "mine.toml").write_text(entries)
    monkeypatch.setenv("NEWSDESK_SOURCES_FILE", str(tmp_path / "mine.toml"))


def stored(tmp_path) -> int:
    engine = open_store(f"sqlite:///{tmp_path / 'data' / 'newsdesk.db'}")
    with engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(items)).scalar()


# --- exit codes ---------------------------------------------------------------------------


def test_exit_0_when_every_source_is_read(newsdesk, tmp_path, monkeypatch, server):
    monkeypatch.setenv("NEWSDESK_FETCH_ALLOW_PRIVATE", "1")
    catalog(tmp_path, monkeypatch, good=f"{server}/good.xml")
    code, out = newsdesk("ingest", "--source", "good")
    assert code == OK, out
    assert "ingested 1 sources: 2 new" in out
    assert stored(tmp_path) == 2


def test_exit_1_when_a_source_fails_and_the_rest_is_stored(newsdesk, tmp_path, monkeypatch, server):
    monkeypatch.setenv("NEWSDESK_FETCH_ALLOW_PRIVATE", "1")
    catalog(tmp_path, monkeypatch, good=f"{server}/good.xml", loop=f"{server}/loop.xml")
    code, out = newsdesk("ingest", "--source", "good", "--source", "loop")
    assert code == PARTIAL, out
    assert "1 failed" in out
    # The server's redirect target is printed as it came, not eaten (or crashed on) as markup.
    assert f"loop: {server}/loop.xml: redirect loop ({server}/loop.xml -> {server}/[/x] -> {server}/loop.xml)" in out
    assert stored(tmp_path) == 2


def test_exit_1_from_run_when_a_stage_has_problems(newsdesk, tmp_path, fixtures):
    feeds = tmp_path / "feeds"
    feeds.mkdir()
    good = fixtures / "feeds/ai-blogs/2026-07-04"
    first = sorted(good.glob("*.xml"))[0]
    (feeds / first.name).write_bytes(first.read_bytes())
    code, out = newsdesk("run", "--from", str(feeds), "--stage", "ingest")
    assert code == OK, out
    assert "items_new=" in out and "problem:" not in out
    (feeds / "feed_broken.xml").write_text("<html>[[source]] is not a feed</html>")
    code, out = newsdesk("run", "--from", str(feeds), "--stage", "ingest")
    assert code == PARTIAL, out
    assert "problem: ingest: broken:" in out and "sources_failed=1" in out


def test_exit_2_for_a_usage_error(newsdesk, tmp_path, monkeypatch):
    code, out = newsdesk("ingest", "--source", "no-such-source")
    assert code == USAGE and "unknown source id(s): no-such-source; `newsdesk sources` lists them" in out
    code, out = newsdesk("run", "--stage", "nosuch")
    assert code == USAGE and "no stage named 'nosuch'" in out
    code, out = newsdesk("daily", "--date", "[/x]")
    assert code == USAGE and "--date '[/x]' is not a date" in out
    code, out = newsdesk("no-such-command")
    assert code == USAGE


def test_exit_2_for_a_settings_error(newsdesk, tmp_path, monkeypatch):
    (tmp_path / "newsdesk.toml").write_text('colour = "blue"\n')
    code, out = newsdesk("rank")
    assert code == USAGE and "unknown setting 'colour'" in out
    (tmp_path / "newsdesk.toml").write_text("")
    monkeypatch.setenv("NEWSDESK_DATABASE_URL", "nosuchdb://x")
    code, out = newsdesk("rank")
    assert code == USAGE and "database URL" in out


def test_every_user_causable_error_shares_one_base():
    from newsdesk.cluster.embed import EmbeddingError
    from newsdesk.core.config import ConfigError
    from newsdesk.core.errors import EvalFileError
    from newsdesk.ingest.catalog import CatalogError
    from newsdesk.ingest.fetch import FetchBlocked, _Failure
    from newsdesk.ingest.transcripts import TranscriptError
    from newsdesk.llm.errors import BudgetExhausted, FatalError, LLMError, LLMUnavailable, TransientError
    from newsdesk.serve.queries import InputError
    from newsdesk.store import StoreError
    from newsdesk.write.digest import DigestFormatError
    from newsdesk.write.weekly import WeeklyError

    classes = [
        CatalogError,
        EmbeddingError,
        ConfigError,
        EvalFileError,
        FetchBlocked,
        _Failure,
        TranscriptError,
        BudgetExhausted,
        FatalError,
        LLMError,
        LLMUnavailable,
        TransientError,
        StoreError,
        InputError,
        DigestFormatError,
        WeeklyError,
    ]
    assert all(issubclass(c, NewsdeskError) for c in classes)
    assert {c.exit_code for c in classes} == {PARTIAL, USAGE}
    assert str(NewsdeskError("feed.xml: not a feed", "check the URL")) == "feed.xml: not a feed; check the URL"


# --- what is printed is never markup ------------------------------------------------------


def test_brackets_from_servers_and_files_are_printed_as_they_are(newsdesk, tmp_path, monkeypatch):
    # A link-local address in a feed URL: refused by the address guard, and the error names it.
    catalog(tmp_path, monkeypatch, inside="http://[fe80::1]/feed.xml")
    code, out = newsdesk("ingest", "--source", "inside")
    assert code == PARTIAL and "inside: http://[fe80::1]/feed.xml: refused" in out
    code, out = newsdesk("sources")
    assert code == OK and "http://[fe80::1]/feed.xml: refused" in out  # the health table's last error

    # A catalog whose mistake is explained with TOML's own brackets.
    (tmp_path / "mine.toml").write_text("source = 1\n")
    code, out = newsdesk("sources", "export", "out.opml")
    assert code == OK and "'source' must be an array of tables, written [[source]]" in out

    # A file name a user typed, in the one error line.
    code, out = newsdesk("episode", "[red]talk[/red].vtt")
    assert code == USAGE and "[red]talk[/red].vtt: no such transcript file" in out


def test_the_line_helper_styles_without_reading_markup():
    text = cli.line(("error:", "red"), "http://h/[/x] [fe80::1] [[source]] [bold]")
    assert text.plain == "error: http://h/[/x] [fe80::1] [[source]] [bold]"
    assert [(s.start, s.end, s.style) for s in text.spans] == [(0, 6, "red")]


def test_weekly_prints_the_report_it_stored_and_a_rerun_keeps_it(newsdesk, tmp_path, monkeypatch, fixtures):
    from fakes import CopyingBackend, FakeEndpoint, completion
    from test_weekly import HARVEST_WEEK, load_week

    load_week(open_store(f"sqlite:///{tmp_path / 'data' / 'newsdesk.db'}"), fixtures, limit=80)
    writer = CopyingBackend()

    def answer(request):
        schema = request["response_format"]["json_schema"]["schema"]
        return completion(writer.chat(request["messages"], max_tokens=0, temperature=0, schema=schema).text)

    fake = FakeEndpoint(default=answer)
    try:
        for key, value in {
            "WRITE_BY": "model",
            "LLM_BACKEND": "openai",
            "LLM_BASE_URL": fake.base_url,
            "LLM_MODEL": "fake-model",
        }.items():
            monkeypatch.setenv(f"NEWSDESK_{key}", value)
        code, out = newsdesk("weekly", "--week", HARVEST_WEEK)
        assert code == OK, out
        assert out.startswith(f"AI周报 {HARVEST_WEEK} | ") and "📊 本周概览" in out
        assert f"weekly {HARVEST_WEEK}: " in out and "sections" in out and "model calls" in out
        from newsdesk.editions.weekly import weekly_title

        assert f"\n{weekly_title(HARVEST_WEEK, '', 'en').strip(' |')}" in out  # the English edition printed too
        assert "printed zh " in out and ", en " in out
        code, again = newsdesk("weekly", "--week", HARVEST_WEEK)
        assert code == OK and again.startswith(f"AI周报 {HARVEST_WEEK} | ")
        assert "unchanged, stored report kept; 0 model calls" in again
    finally:
        fake.close()


def _smash(path, offset: int, size: int) -> bytes:
    """Overwrite `size` bytes of the file at `offset` with bytes no SQLite page holds; returns the file."""
    data = bytearray(path.read_bytes())
    data[offset : offset + size] = bytes((i * 151 + 7) % 256 for i in range(size))
    path.write_bytes(bytes(data))
    return bytes(data)


@pytest.mark.parametrize("damage", ["not a database", "a broken table page"])
def test_a_damaged_sqlite_store_is_one_line_and_exit_2_and_is_left_as_it_was(newsdesk, tmp_path, damage):
    """A store whose file is not SQLite, or whose items table's page is overwritten: each command
    says so in one line naming the file and what to do, exits 2 (README), and writes nothing to it."""
    from importlib import resources

    pack = str(resources.files("newsdesk") / "data" / "demo")
    code, out = newsdesk("run", "--from", pack, "--stage", "ingest")
    assert code == OK, out
    db = tmp_path / "data" / "newsdesk.db"
    engine = open_store(f"sqlite:///{db}")
    with engine.connect() as conn:
        conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")  # every page in the file, none in the WAL
        root = conn.exec_driver_sql("SELECT rootpage FROM sqlite_master WHERE name = 'items'").scalar()
        page = conn.exec_driver_sql("PRAGMA page_size").scalar()
    engine.dispose()
    # A broken table page: the schema reads fine, and the damage shows when a stage reads the items.
    before = _smash(db, 0 if damage == "not a database" else (root - 1) * page, page)
    for args in (["run", "--from", pack], ["sources"], ["cluster"]):
        code, out = newsdesk(*args)
        lines = out.strip().splitlines()
        assert code == USAGE and len(lines) == 1, out
        assert lines[0].startswith(f"error: database 'sqlite:///{db}' is damaged or not a SQLite file ("), out
        assert "restore it from a backup, or move it aside" in lines[0]
        assert db.read_bytes() == before  # nothing written to it: what it holds can still be recovered


def test_a_store_damaged_in_its_middle_pages_is_found_before_run_writes_anything(newsdesk, tmp_path):
    """Garbage over pages in the middle of a real store (item_vectors' leaves), its header and schema
    intact: `run` wrote the new feed items into it, met the damage in the cluster stage, exited 2
    saying "newsdesk changed nothing in it" and left the cluster stage's row `running`. Now
    quick_check at open finds the damage before the first write: one line, exit 2, the file as it was."""
    import re
    import sqlite3
    from importlib import resources

    pack = resources.files("newsdesk") / "data" / "demo"
    code, out = newsdesk("run", "--from", str(pack), "--stage", "ingest", "--stage", "cluster")
    assert code == OK, out
    later = tmp_path / "later"  # the pack's stories again under new links: new items for every source
    later.mkdir()
    for feed in (pack / "feeds").iterdir():
        text = re.sub(r"(<(?:link|guid|id)[^>]*>)([^<]+)", r"\1\2?later", feed.read_text("utf-8"))
        (later / feed.name).write_text(text, "utf-8")
    db = tmp_path / "data" / "newsdesk.db"
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # every page in the file, none in the WAL
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        size = conn.execute("PRAGMA page_size").fetchone()[0]
        vectors = [  # item_vectors' leaves in the middle half of the file: the cluster stage reads them
            n
            for (n,) in conn.execute("SELECT pageno FROM dbstat WHERE name = 'item_vectors' AND pagetype = 'leaf'")
            if pages / 4 < n < pages * 3 / 4
        ]
    assert len(vectors) >= 5, (vectors, pages)
    before = db.read_bytes()
    data = bytearray(before)
    for page in vectors:
        data[(page - 1) * size : page * size] = bytes((i * 151 + page) % 256 for i in range(size))
    db.write_bytes(bytes(data))
    before = bytes(data)
    wal = db.with_name(db.name + "-wal")
    for args in (["run", "--from", str(later)], ["ingest", "--from", str(later)], ["sources"]):
        code, out = newsdesk(*args)
        # No item, fetch or stage row written into it: the file as it was, and nothing in its WAL.
        assert db.read_bytes() == before and (not wal.exists() or wal.stat().st_size == 0), (args, out)
        lines = out.strip().splitlines()
        assert code == USAGE and len(lines) == 1, out
        assert lines[0].startswith(f"error: database 'sqlite:///{db}' is damaged or not a SQLite file ("), out
        assert "quick_check" in lines[0] and "newsdesk changed nothing in it" in lines[0], out


def test_a_model_endpoint_answering_200_with_a_page_is_one_line_and_keeps_what_is_stored(
    newsdesk, tmp_path, monkeypatch
):
    """An endpoint that answers every call with HTTP 200 and a body that is not JSON: `write` says so
    in one line naming the endpoint and what it answered, exits 2 (an endpoint that cannot be used),
    and keeps every stored analysis; `run` goes on past the stages that needed the model."""
    from importlib import resources

    from fakes import FakeEndpoint

    from newsdesk.store.schema import analyses

    pack = str(resources.files("newsdesk") / "data" / "demo")
    code, out = newsdesk("run", "--from", pack)
    assert code == OK, out
    engine = open_store(f"sqlite:///{tmp_path / 'data' / 'newsdesk.db'}")
    with engine.connect() as conn:
        before = conn.execute(select(analyses).order_by(analyses.c.id)).all()
    assert before
    fake = FakeEndpoint()
    fake.steps.extend([("garbage", b'{"choices": [ <html>502 Bad Gateway</html>')] * 200)
    try:
        for key, value in {
            "WRITE_BY": "model",
            "LLM_BACKEND": "openai",
            "LLM_BASE_URL": fake.base_url,
            "LLM_MODEL": "m",
        }.items():
            monkeypatch.setenv(f"NEWSDESK_{key}", value)
        code, out = newsdesk("write")
        errors = [line for line in out.splitlines() if line.startswith("error:")]
        assert code == USAGE and "JSONDecodeError" not in out, out
        assert errors == [
            f"error: model endpoint {fake.base_url}: answered HTTP 200 with a body that is not JSON "
            "('{\"choices\": [ <html>502 Bad Gateway</html>'); set llm.base_url to the root of an "
            "OpenAI-compatible API (most end in /v1)"
        ], out
        code, out = newsdesk("run", "--from", pack)
        assert code == PARTIAL and "JSONDecodeError" not in out, out
        assert "problem: write: " in out and "a body that is not JSON" in out
        assert "publish " in out and "search " in out  # the stages after it ran
    finally:
        fake.close()
    with engine.connect() as conn:
        assert conn.execute(select(analyses).order_by(analyses.c.id)).all() == before
    engine.dispose()


@pytest.mark.parametrize("endpoint", ["refuses connections", "answers 500"])
def test_a_model_endpoint_that_does_not_answer_leaves_readers_extractive_cards(
    newsdesk, tmp_path, monkeypatch, endpoint
):
    """`[write] by = "model"` with a mistyped base_url published "No analysis yet." on every event page,
    worse than offline, and the run's summary counted the refused tries as model calls. Now the
    extractive writer writes for readers, the summary line and the status page say so, and only
    calls the model answered are counted."""
    from importlib import resources

    from fakes import FakeEndpoint
    from fastapi.testclient import TestClient
    from loopback import free_port

    from newsdesk.core.config import Settings
    from newsdesk.core.labels import LABELS
    from newsdesk.serve.app import create_app
    from newsdesk.store.schema import analyses
    from newsdesk.write.extractive.card import EXTRACTIVE

    fake = None
    if endpoint == "answers 500":
        fake = FakeEndpoint()
        fake.steps.extend([("status", 500)] * 1000)
        base_url = fake.base_url
    else:
        base_url = f"http://127.0.0.1:{free_port()}/v1"
    for key, value in {
        "WRITE_BY": "model",
        "LLM_BACKEND": "openai",
        "LLM_BASE_URL": base_url,
        "LLM_MODEL": "m",
        "LLM_RETRIES": "0",
        "SITE_DIR": str(tmp_path / "site"),
    }.items():
        monkeypatch.setenv(f"NEWSDESK_{key}", value)
    try:
        code, out = newsdesk("run", "--from", str(resources.files("newsdesk") / "data" / "demo"))
    finally:
        if fake:
            fake.close()
    assert code == PARTIAL, out
    [summary] = [line for line in out.splitlines() if line.startswith("run ")]
    assert (
        ", 0 model calls (" in summary
        and " failed); the model endpoint did not answer, so the extractive writer" in summary
    ), summary
    assert "problem: write: model endpoint" in out and "the extractive writer (no model) wrote in its place" in out
    pages = list((tmp_path / "site").rglob("*.html"))
    empty = {LABELS["no_analysis"]["zh"], LABELS["no_analysis"]["en"]}
    assert pages and not [p for p in pages if any(e in p.read_text("utf-8") for e in empty)]
    engine = open_store(f"sqlite:///{tmp_path / 'data' / 'newsdesk.db'}")
    with engine.connect() as conn:
        models = set(conn.execute(select(analyses.c.model)).scalars())
    assert models == {EXTRACTIVE}
    with TestClient(create_app(engine, Settings())) as client:
        status = client.get("/status?ui=en").text
    row = status[status.index('id="stage-write"') : status.index('id="stage-daily"')]
    assert "the extractive writer (no model) wrote in its place" in row and "analyses_extractive_fallback" in row
    engine.dispose()


def test_each_newsdesk_cluster_is_a_run_of_its_own_budget(newsdesk, tmp_path, monkeypatch):
    """llm.budget_tokens is a run's: a `newsdesk cluster` whose arbiter spent it leaves the next
    `newsdesk cluster` its own (the command once ran every arbiter under one run id, "cluster", so a
    budget spent once stayed spent)."""
    import functools
    import json

    from fakes import FakeEndpoint, completion
    from test_cluster import ITEMS, _store

    from newsdesk.cluster.events import ClusterConfig
    from newsdesk.store.schema import llm_usage

    # Every placement borderline, one ruling a run: the arbiter is asked once by each command.
    monkeypatch.setattr(
        "newsdesk.cluster.stage.ClusterConfig", functools.partial(ClusterConfig, arbiter_band=1.0, arbiter_budget=1)
    )
    fake = FakeEndpoint(lambda req: completion(json.dumps({"same_event": True, "reason": "the same launch"})))
    for key, value in {
        "LLM_BASE_URL": fake.base_url,
        "LLM_MODEL": "m",
        "LLM_ARBITRATE_MERGES": "true",
        "LLM_BUDGET_TOKENS": "50",
    }.items():  # one ruling (120 tokens) spends it
        monkeypatch.setenv(f"NEWSDESK_{key}", value)
    engine = open_store(f"sqlite:///{tmp_path / 'data' / 'newsdesk.db'}")
    try:
        _store(engine, ITEMS[:2])
        assert newsdesk("cluster")[0] == OK
        _store(engine, ITEMS[:3])
        assert newsdesk("cluster")[0] == OK
    finally:
        fake.close()
    with engine.connect() as conn:
        runs = conn.execute(select(llm_usage.c.run_id).where(llm_usage.c.error.is_(None))).scalars().all()
    assert len(fake.requests) == 2 and len(set(runs)) == 2


# --- the demo's way to the web app ---------------------------------------------------------


def test_the_demo_ends_with_the_one_command_that_serves_it(newsdesk, tmp_path):
    """The demo's last line is a command; run as printed (in the same folder, with no other
    NEWSDESK_* settings), it serves the demo's store, not an empty one."""
    import os
    import shlex
    import subprocess
    import sys
    import time

    import httpx
    from loopback import free_port

    code, out = newsdesk("demo", "--out", "demo-output")
    assert code == OK, out
    command = shlex.split(out.strip().splitlines()[-1])
    settings = dict(word.split("=", 1) for word in command if "=" in word)
    assert command[-2:] == ["newsdesk", "serve"] and settings["NEWSDESK_DATA_DIR"] == "demo-output", out
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEWSDESK_")} | settings
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "newsdesk", "serve", "--port", str(port), "--workers", "1"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                home = httpx.get(f"http://127.0.0.1:{port}/", timeout=30)
                break
            except httpx.ConnectError:
                assert proc.poll() is None and time.monotonic() < deadline, proc.stdout.read()
                time.sleep(0.2)
        event = re.search(r'href="(/events/\d+)"', home.text)
        assert event, home.text[:2000]  # the demo's day, with its events
        assert httpx.get(f"http://127.0.0.1:{port}{event.group(1)}", timeout=30).status_code == 200
    finally:
        proc.terminate()
        proc.communicate(timeout=60)


# --- no network: one line that says so ---------------------------------------------------------


def test_sources_that_cannot_be_reached_are_one_line_by_cause_and_each_behind_verbose(newsdesk, tmp_path, monkeypatch):
    """Offline, every source fails with "cannot resolve host": `run` and `ingest` say so in one line
    (how many, why, the likely reason); `-v` gives each source's own line. `.invalid` never resolves."""
    import tomllib

    from newsdesk.ingest.catalog import packaged_catalog_path

    packaged = tomllib.loads(packaged_catalog_path().read_text("utf-8"))["source"]
    off = "".join(f'[[source]]\nid = "{s["id"]}"\nenabled = false\n\n' for s in packaged)  # no real network here
    ours = [f"gone-{i}" for i in range(5)]
    mine = "".join(
        f'[[source]]\nid = "{sid}"\nname = "{sid}"\nurl = "http://{sid}.nonexistent.invalid/feed"\n\n' for sid in ours
    )
    (tmp_path / "mine.toml").write_text(off + mine)
    monkeypatch.setenv("NEWSDESK_SOURCES_FILE", str(tmp_path / "mine.toml"))

    code, out = newsdesk("run", "--stage", "ingest")
    problems = [line for line in out.splitlines() if line.startswith("problem:")]
    assert code == PARTIAL and problems == [
        "problem: ingest: 5 of 5 sources failed: cannot resolve host (no network?) (`-v` lists each source)"
    ], out
    code, out = newsdesk("run", "--stage", "ingest", "-v")
    problems = [line for line in out.splitlines() if line.startswith("problem:")]
    assert code == PARTIAL and len(problems) == 5, out
    assert all("cannot resolve host gone-" in line for line in problems), out
    code, out = newsdesk("ingest")
    assert code == PARTIAL and "problem: 5 of 5 sources failed: cannot resolve host (no network?)" in out, out
    assert out.count("cannot resolve host") == 1
    code, out = newsdesk("ingest", "--verbose")
    assert code == PARTIAL and out.count("cannot resolve host gone-") == 5, out


def test_failure_causes_group_what_differs_only_in_host_or_url():
    from newsdesk.ingest.failures import cause, summary

    errors = [
        "http://a.example/feed: cannot resolve host a.example (Name or service not known); check the URL or the network",
        "https://b.example:8443/x: HTTP 404 Not Found; the feed moved or is gone; fix the source URL",
        "https://c.example/x: server error HTTP 503 Service Unavailable; the site is failing, try later (after 3 tries)",
        "https://d.example/x: HTTP 404 Not Found; the feed moved or is gone; fix the source URL",
        "not a feed (no RSS or Atom root); check the URL",
    ]
    assert [cause(e) for e in errors] == ["cannot resolve host", "HTTP 404", "HTTP 503", "HTTP 404", "not a feed"]
    assert summary(errors, 10) == "5 of 10 sources failed: 2 HTTP 404, 1 cannot resolve host, 1 HTTP 503, 1 not a feed"


# --- --every takes a unit ----------------------------------------------------------------------


@pytest.mark.parametrize("command", [["run"], ["serve"], ["beat"]])
def test_every_refuses_a_bare_number_and_less_than_a_minute_in_one_line(newsdesk, command):
    """`--every 5` once ran a pass every 5 seconds for someone who meant minutes."""
    from loopback import free_port

    command = command + ["--port", str(free_port())] * (command == ["serve"])  # were it to serve, not on 8000
    for value, said in (
        ("5", "error: --every = '5' has no unit; write it with one, like 30m, 6h, 1d or 90s"),
        ("30s", "error: --every = '30s' is shorter than 1m ([schedule] shortest_every); write 1m or longer"),
    ):
        code, out = newsdesk(*command, "--every", value)
        assert code == USAGE and out.strip().splitlines() == [said + ", like 30m or 6h" * (value == "30s")], out


def test_every_in_the_settings_file_takes_a_unit_too(newsdesk, tmp_path):
    (tmp_path / "newsdesk.toml").write_text('[schedule]\nevery = "45"\n')
    code, out = newsdesk("run", "--stage", "rank")
    assert code == USAGE and "[schedule] every = '45' has no unit" in out, out


# --- one source at a time -----------------------------------------------------------------------


def _stored_source(tmp_path, sid):
    from newsdesk.store.schema import sources

    engine = open_store(f"sqlite:///{tmp_path / 'data' / 'newsdesk.db'}")
    with engine.connect() as conn:
        row = conn.execute(select(sources).where(sources.c.id == sid)).first()
    engine.dispose()
    return row


def test_sources_add_remove_disable_enable_through_the_command_line(newsdesk, tmp_path, monkeypatch, server):
    """`sources add` writes the user's catalog file (where `sources import` writes) and the store;
    the next ingest fetches it; disable / enable switch it; remove takes it out, its items kept."""
    import tomllib

    monkeypatch.setenv("NEWSDESK_FETCH_ALLOW_PRIVATE", "1")
    user_file = tmp_path / "data" / "sources.toml"
    user_file.parent.mkdir()
    user_file.write_text('# my sources\n[[source]]\nid = "openai-news"\nenabled = false  # too loud\n')
    code, out = newsdesk("sources", "add", "my-feed", f"{server}/good.xml", "--kind", "atom", "--language", "zh")
    assert code == OK and f"added my-feed ({server}/good.xml) to {user_file}" in out, out
    text = user_file.read_text()
    assert text.startswith('# my sources\n[[source]]\nid = "openai-news"\nenabled = false  # too loud\n')
    entry = tomllib.loads(text)["source"][1]
    assert (entry["id"], entry["url"], entry["kind"], entry["language"]) == (
        "my-feed",
        f"{server}/good.xml",
        "atom",
        "zh",
    )
    assert _stored_source(tmp_path, "my-feed").enabled and _stored_source(tmp_path, "my-feed").owner is None
    code, out = newsdesk("sources")
    assert "my-feed" in out
    # A company's second channel names its owner: its reports and the first channel's are one voice.
    code, out = newsdesk(
        "sources", "add", "openai-status", "https://status.openai.com/feed.rss", "--category", "company",
        "--owner", "OpenAI",
    )  # fmt: skip
    assert code == OK and tomllib.loads(user_file.read_text())["source"][2]["owner"] == "OpenAI", out
    assert _stored_source(tmp_path, "openai-status").owner == "OpenAI"
    code, out = newsdesk("sources", "add", "blank-owner", "https://example.com/b.xml", "--owner", " ")
    assert code != OK and "field 'owner'" in out and "blank-owner" not in user_file.read_text(), out
    newsdesk("sources", "remove", "openai-status")

    code, out = newsdesk("sources", "disable", "my-feed")
    assert code == OK and not _stored_source(tmp_path, "my-feed").enabled, out
    code, out = newsdesk("ingest", "--source", "my-feed")
    assert "skipped" in out and stored(tmp_path) == 0, out  # switched off: not fetched
    code, out = newsdesk("sources", "enable", "my-feed")
    assert code == OK and _stored_source(tmp_path, "my-feed").enabled, out
    code, out = newsdesk("ingest", "--source", "my-feed")
    assert code == OK and stored(tmp_path) == 2, out

    code, out = newsdesk("sources", "remove", "my-feed")
    assert code == OK and "its 2 stored items stay" in out, out
    assert "my-feed" not in user_file.read_text() and "# my sources" in user_file.read_text()
    assert not _stored_source(tmp_path, "my-feed").enabled and stored(tmp_path) == 2  # nothing stored is lost
    code, out = newsdesk("sources", "add", "empty-one", "https://example.com/feed.xml")
    assert code == OK, out
    code, out = newsdesk("sources", "remove", "empty-one")
    assert code == OK and "removed 'empty-one' from the store" in out and _stored_source(tmp_path, "empty-one") is None


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (
            ["add", "openai-news", "https://example.com/x.xml"],
            "a source named 'openai-news' already exists (in newsdesk's own catalog",
        ),
        (
            ["add", "mine", "example.com/feed"],
            "source 'mine' field 'url': must be an http(s) URL: no scheme; write it as https://…",
        ),
        (
            ["add", "mine", "https://example.com/x.xml", "--kind", "blog"],
            "source 'mine' field 'kind': 'blog' is not one of rss, atom",
        ),
        (
            ["add", "My Feed", "https://example.com/x.xml"],
            "source name 'My Feed' is not a slug; write it like 'openai-blog'",
        ),
        (
            ["remove", "openai-news"],
            "'openai-news' is in newsdesk's own catalog and cannot be removed; `newsdesk sources disable openai-news`",
        ),
        (["remove", "no-such"], "no source named 'no-such'; `newsdesk sources` lists them"),
        (["disable", "no-such"], "no source named 'no-such'; `newsdesk sources` lists them"),
    ],
)
def test_sources_add_and_remove_refuse_in_one_line_and_change_nothing(newsdesk, tmp_path, args, said):
    code, out = newsdesk("sources", "add", "mine-first", "https://example.com/first.xml")
    assert code == OK, out
    before = (tmp_path / "data" / "sources.toml").read_text()
    code, out = newsdesk("sources", *args)
    assert code == USAGE and len(out.strip().splitlines()) == 1 and said in out, out
    assert (tmp_path / "data" / "sources.toml").read_text() == before
    code, out = newsdesk("sources", "add", "again", "https://example.com/first.xml")
    assert code == USAGE and "https://example.com/first.xml is already the source 'mine-first'; add it once" in out


def test_version_is_the_installed_package_s(newsdesk):
    from importlib.metadata import version

    code, out = newsdesk("--version")
    assert code == OK and out.strip() == f"newsdesk {version('newsdesk')}", out


def test_daily_and_weekly_on_an_empty_store_both_refuse_with_one_line(newsdesk, tmp_path):
    """`daily` built an empty edition for readers on an empty store while `weekly` refused: both
    refuse now, with the same line and exit 2, and store nothing."""
    from newsdesk.store.schema import editions

    for command in ("daily", "weekly"):
        code, out = newsdesk(command)
        assert code == USAGE, out
        assert out.strip().splitlines() == [
            "error: no events in the store yet; run `newsdesk ingest` (or `newsdesk run`) first"
        ], out
    engine = open_store(f"sqlite:///{tmp_path / 'data' / 'newsdesk.db'}")
    with engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(editions)).scalar() == 0
    engine.dispose()


@pytest.mark.parametrize(
    "line",
    [
        "Alice: Hello and welcome.",
        "Alice: Anthropic released Claude 3.7 Sonnet today, a hybrid reasoning model that thinks before it answers.",
        "Alice: Anthropic released Claude 3.7 Sonnet today. It can think for longer before it answers hard questions.",
    ],
)
def test_an_episode_of_one_line_is_one_clear_error_and_no_numpy_warnings(newsdesk, tmp_path, line):
    """A one-line transcript spilled five numpy RuntimeWarnings (the mean and spread of no gaps) and
    printed a digest whose summary was empty; now it is one line naming the file's problem, exit 2."""
    import warnings

    vtt = tmp_path / "one.vtt"
    vtt.write_text(f"WEBVTT\n\n00:00:00.000 --> 00:00:05.000\n{line}\n", "utf-8")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        code, out = newsdesk("episode", str(vtt))
    assert [str(w.message) for w in caught] == []
    assert code == USAGE, out
    [said] = out.strip().splitlines()
    assert said.startswith("error: one: transcript too short to digest (1 line, ") and said.endswith(
        "give the episode's whole transcript"
    ), out
