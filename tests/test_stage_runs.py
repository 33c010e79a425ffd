"""Stage runs in the store: every run of a stage leaves a row saying what it did or why it failed,
one pass of a stage runs at a time across processes, and a run whose process died is marked."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta

from conftest import PACK
from sqlalchemy import select, update

from newsdesk.core.config import Settings
from newsdesk.run.pipeline import STAGE_NAMES, run_pipeline
from newsdesk.store import open_store
from newsdesk.store.leases import owner_id
from newsdesk.store.schema import stage_runs, stages
from newsdesk.store.stage_runs import (
    claim_stage,
    mark_interrupted,
    prune_runs,
    release_stage,
    run_finished,
    run_queued,
    run_started,
    set_next_due,
    stage_status,
)


def test_each_stage_run_is_recorded_with_what_it_did_or_why_it_failed(tmp_path, store_url):
    blocker = tmp_path / "site"
    blocker.write_text("a file where the site folder should be")
    s = Settings(data_dir=str(tmp_path), site_dir=str(blocker), database_url=store_url)
    engine = open_store(s.database)
    report = run_pipeline(engine, s, stages=["ingest", "publish", "search"], source=PACK)
    assert report.status == {"ingest": "ok", "publish": "failed", "search": "ok"}
    with engine.connect() as conn:
        rows = {r.stage: r for r in conn.execute(select(stage_runs))}
        status = {st["stage"]: st for st in stage_status(conn, STAGE_NAMES)}
    assert set(rows) == {"ingest", "publish", "search"}
    assert rows["ingest"].facts["items_new"] == report.facts["items_new"] > 0
    assert rows["ingest"].seconds >= 0 and rows["ingest"].finished_at >= rows["ingest"].started_at
    assert rows["publish"].error.startswith(f"cannot write the site to {str(blocker)!r}")
    assert rows["search"].facts["search_indexed"] >= report.facts["items_new"]
    assert all(r.run_id == report.run_id for r in rows.values())
    assert status["publish"]["last"]["status"] == "failed" and status["publish"]["failed_24h"] == 1
    assert status["search"]["last_problem"] is None and status["write"]["last"] is None
    engine.dispose()


def test_a_stage_another_live_process_runs_is_skipped_and_said(tmp_path, store_url):
    s = Settings(data_dir=str(tmp_path), database_url=store_url)
    engine = open_store(s.database)
    other = owner_id()  # this process is alive, so its lease holds
    assert claim_stage(engine, "search", other)
    report = run_pipeline(engine, s, stages=["rank", "search"])
    assert report.status == {"rank": "ok", "search": "busy"}
    assert report.problems == [p for p in report.problems if p.startswith("search: not run: ")] != []
    assert other in report.problems[0]
    release_stage(engine, "search", other)
    assert run_pipeline(engine, s, stages=["search"]).status == {"search": "ok"}
    engine.dispose()


def test_a_dead_processs_lease_and_running_row_are_taken_over(tmp_path, store_url):
    engine = open_store(store_url)
    dead = subprocess.run(
        [sys.executable, "-c", "from newsdesk.store.leases import owner_id; print(owner_id())"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert claim_stage(engine, "cluster", dead)
    row = run_started(engine, "cluster", run_id="r1", owner=dead)
    assert claim_stage(engine, "cluster", owner_id())  # its process is gone: no waiting out the lease
    assert mark_interrupted(engine) == 1
    with engine.connect() as conn:
        got = conn.execute(select(stage_runs).where(stage_runs.c.id == row)).one()
    assert got.status == "interrupted" and got.error and got.finished_at


def test_queued_units_and_next_due_show_in_the_status(store_url):
    engine = open_store(store_url)
    queued = [run_queued(engine, "write", unit=f"event {n} zh") for n in range(3)]
    started = run_started(engine, "write", run_id="t1", owner=owner_id(), row_id=queued[0])
    assert run_finished(engine, started, facts={"analyses_written": 1}, problems=["event 1: flagged"]) == "problems"
    due = datetime(2030, 1, 1, tzinfo=UTC)
    set_next_due(engine, ["write", "daily"], due)
    with engine.connect() as conn:
        status = {st["stage"]: st for st in stage_status(conn, ["write", "daily"])}
        assert conn.execute(select(stages.c.next_due_at).where(stages.c.name == "daily")).scalar() == due
    assert status["write"]["queued"] == 2 and status["write"]["last"]["unit"] == "event 0 zh"
    assert status["write"]["last"]["error"] == "event 1: flagged" and status["write"]["next_due_at"] == due
    engine.dispose()


def test_finished_runs_older_than_the_keep_window_are_pruned(store_url):
    engine = open_store(store_url)
    old, new = (run_started(engine, "rank", run_id=r, owner=owner_id()) for r in ("old", "new"))
    for row in (old, new):
        run_finished(engine, row)
    running = run_started(engine, "rank", run_id="now", owner=owner_id())
    with engine.begin() as conn:
        conn.execute(
            update(stage_runs)
            .where(stage_runs.c.id.in_([old, running]))
            .values(finished_at=datetime.now(UTC) - timedelta(days=31))
        )
    assert prune_runs(engine) == 1  # the running row stays whatever its times say
    with engine.connect() as conn:
        assert set(conn.execute(select(stage_runs.c.run_id)).scalars()) == {"new", "now"}
    engine.dispose()


def test_a_stage_killed_by_sigkill_is_marked_interrupted_by_the_next_plain_run(tmp_path, store_url, monkeypatch):
    """`newsdesk run` killed with SIGKILL while ingest waits on a feed that never answers: the next
    plain `newsdesk run` (no --every) marks the dead run interrupted, so /status stops saying
    ingest is running."""
    import os
    import signal
    import threading
    import time

    from loopback import Replies, serve_http
    from typer.testing import CliRunner

    from newsdesk import cli

    asked = threading.Event()

    class Stalls(Replies):
        def do_GET(self):
            asked.set()
            time.sleep(30)  # past the kill: the stage is mid-fetch when it dies

    httpd = serve_http(Stalls)
    (tmp_path / "mine.toml").write_text(
        f'[[source]]\nid = "slow"\nname = "slow"\n'
        f'url = "http://127.0.0.1:{httpd.server_address[1]}/feed.xml"\nkind = "rss"\n'
    )
    env = os.environ | {
        "NEWSDESK_CONFIG": str(tmp_path / "none.toml"),
        "NEWSDESK_DATABASE_URL": store_url,
        "NEWSDESK_DATA_DIR": str(tmp_path),
        "NEWSDESK_SOURCES_FILE": str(tmp_path / "mine.toml"),
        "NEWSDESK_FETCH_ALLOW_PRIVATE": "1",
        "NEWSDESK_FETCH_RETRIES": "1",
    }
    (tmp_path / "none.toml").write_text("")
    run = subprocess.Popen(
        [sys.executable, "-m", "newsdesk", "run", "--stage", "ingest"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert asked.wait(60), "the run never asked for the feed"
    finally:
        os.kill(run.pid, signal.SIGKILL)
        run.wait()
        httpd.shutdown()
    engine = open_store(store_url)
    with engine.connect() as conn:
        assert stage_status(conn, ["ingest"])[0]["running"]["owner"].split(":")[1] == str(run.pid)

    for k, v in env.items():
        if k.startswith("NEWSDESK_"):
            monkeypatch.setenv(k, v)
    monkeypatch.setattr(cli, "_state", {})
    result = CliRunner().invoke(cli.app, ["run", "--stage", "rank"])
    assert result.exit_code == 0, result.output
    with engine.connect() as conn:
        ingest = stage_status(conn, ["ingest"])[0]
    assert ingest["running"] is None and ingest["running_count"] == 0
    assert ingest["last"]["status"] == "interrupted" and ingest["failed_24h"] == 1
    engine.dispose()


def test_a_dropped_postgresql_connection_is_one_line_of_the_drivers_words(tmp_path, pg_url, caplog):
    """PostgreSQL ends the connection under a stage (pg_terminate_backend, as a restart or a proxy
    does): what the run reports and the store keeps is the driver's message in one line, never the
    statement and its parameters (those are in the debug log), and the run goes on."""
    import logging

    from sqlalchemy import create_engine, event, text

    from newsdesk.store.schema import fetches

    s = Settings(data_dir=str(tmp_path), database_url=pg_url)
    engine = open_store(s.database)
    admin = create_engine(pg_url)
    dropped = []

    def drop_the_first_insert_of_items(conn, cursor, statement, parameters, context, executemany):
        if not dropped and statement.startswith("INSERT INTO items"):
            dropped.append(conn.connection.dbapi_connection.info.backend_pid)
            with admin.begin() as other:
                other.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": dropped[0]})

    event.listen(engine, "before_cursor_execute", drop_the_first_insert_of_items)
    with caplog.at_level(logging.DEBUG, logger="newsdesk"):
        report = run_pipeline(engine, s, stages=["ingest", "rank"], source=PACK)
    assert dropped and report.status["rank"] == "ok"  # the next stage gets a fresh connection
    with engine.connect() as conn:
        said = [
            *report.problems,
            *conn.execute(select(stage_runs.c.error).where(stage_runs.c.error.is_not(None))).scalars(),
            *conn.execute(select(fetches.c.error).where(fetches.c.error.is_not(None))).scalars(),
        ]
    dropped_lines = [line for line in said if "terminating connection due to administrator command" in line]
    assert dropped_lines, said
    for line in dropped_lines:
        assert "\n" not in line and "[SQL" not in line and "INSERT" not in line and "parameters" not in line, line
        assert "the connection to the database was lost; check that the database at database_url is up" in line
    assert any("INSERT INTO items" in r.getMessage() for r in caplog.records)  # the statement: in the debug log
    admin.dispose()
    engine.dispose()
