"""The command line's contract with a scheduler and a terminal.

Exit codes: 0 all well, 1 some sources or parts failed (the rest is stored), 2 a usage or
settings error. Text from feeds, files and servers is printed as it is: `[…]` in it is
never read as Rich markup.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from sqlalchemy import func, select
from typer.testing import CliRunner

from newsdesk import cli
from newsdesk.errors import OK, PARTIAL, USAGE, NewsdeskError
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
    from newsdesk.catalog import CatalogError
    from newsdesk.cluster.embed import EmbeddingError
    from newsdesk.config import ConfigError
    from newsdesk.errors import EvalFileError
    from newsdesk.ingest.fetch import FetchBlocked, _Failure
    from newsdesk.ingest.transcripts import TranscriptError
    from newsdesk.llm.errors import BudgetExhausted, FatalError, LLMError, LLMUnavailable, TransientError
    from newsdesk.read.queries import InputError
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
