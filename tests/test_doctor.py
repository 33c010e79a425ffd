"""`newsdesk doctor`: all clear on a healthy store, fast; on each fault, one line naming it and the fix,
and exit 1. Every fault is made for real: garbage over a real store's pages, an older revision
stamped, a stage row of a process that has ended, fetch rows of a source failing for days, a
loopback port nobody listens on, a loopback server answering 500."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from importlib import resources

import pytest
from loopback import Replies, free_port, serve_http
from sqlalchemy import func, insert, select, update
from typer.testing import CliRunner

from newsdesk import cli
from newsdesk.core.config import Settings
from newsdesk.core.errors import OK, PARTIAL
from newsdesk.run.doctor import diagnose
from newsdesk.store import open_store
from newsdesk.store.schema import fetches, sources, stage_runs

PACK = str(resources.files("newsdesk") / "data" / "demo")


@pytest.fixture
def newsdesk(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "newsdesk.toml").write_text("")
    monkeypatch.setenv("NEWSDESK_CONFIG", str(tmp_path / "newsdesk.toml"))
    monkeypatch.setenv("NEWSDESK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("NEWSDESK_SITE_DIR", str(tmp_path / "site"))
    monkeypatch.setattr(cli.console, "width", 400)

    def invoke(*args: str) -> tuple[int, str]:
        monkeypatch.setattr(cli, "_state", {})
        result = CliRunner().invoke(cli.app, list(args))
        assert "Traceback" not in result.output, result.output
        return result.exit_code, result.output

    return invoke


@pytest.fixture
def store(newsdesk, tmp_path):
    """A healthy store: the demo pack replayed through ingest and cluster."""
    code, out = newsdesk("run", "--from", PACK, "--stage", "ingest", "--stage", "cluster")
    assert code == OK, out
    engine = open_store(f"sqlite:///{tmp_path / 'data' / 'newsdesk.db'}")
    yield engine, Settings(data_dir=str(tmp_path / "data"), site_dir=str(tmp_path / "site"))
    engine.dispose()


def faults(engine, settings, **kw) -> dict[str, str]:
    return {c.name: c.line for c in diagnose(settings, engine, **kw) if not c.ok}


def test_a_healthy_store_is_all_clear_in_under_five_seconds(newsdesk, store):
    started = time.perf_counter()
    code, out = newsdesk("doctor")
    took = time.perf_counter() - started
    assert code == OK, out
    lines = out.strip().splitlines()
    assert [ln.split(":")[0].split()[-1] for ln in lines[:-1]] == ["store", "schema", "stages", "sources", "disk"]
    assert all(ln.startswith("ok ") for ln in lines[:-1]) and lines[-1].startswith("all clear (5 checks in ")
    assert took < 5, took


def test_a_damaged_store_is_one_line_and_the_store_checks_wait_for_it(newsdesk, store, tmp_path):
    engine, settings = store
    with engine.connect() as conn:
        conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        pages = conn.exec_driver_sql("PRAGMA page_count").scalar()
        size = conn.exec_driver_sql("PRAGMA page_size").scalar()
    engine.dispose()
    db = tmp_path / "data" / "newsdesk.db"
    data = bytearray(db.read_bytes())
    middle = (pages // 2) * size
    data[middle : middle + 3 * size] = bytes((i * 151 + 7) % 256 for i in range(3 * size))
    db.write_bytes(bytes(data))
    code, out = newsdesk("doctor")
    assert code == PARTIAL, out
    [store_line] = [ln for ln in out.splitlines() if ln.startswith("FAULT store:")]
    assert "is damaged" in store_line or "cannot be read" in store_line, out
    assert "restore the file from a backup" in store_line
    assert out.count("not checked: the store above cannot be read") == 3
    assert db.read_bytes() == bytes(data)  # doctor writes nothing
    assert out.strip().splitlines()[-1].startswith("4 fault(s): store, schema, stages, sources (")


def test_a_store_behind_or_ahead_of_this_newsdesk_is_named(store):
    engine, settings = store
    with engine.begin() as conn:
        conn.exec_driver_sql("UPDATE alembic_version SET version_num = '0013'")
    from newsdesk.store.migrate import head

    assert faults(engine, settings) == {
        "schema": f"revision 0013, behind this newsdesk's {head()}; run `newsdesk migrate`"
    }
    with engine.begin() as conn:
        conn.exec_driver_sql("UPDATE alembic_version SET version_num = '0099'")
    assert "upgraded by a newer newsdesk: install that version" in faults(engine, settings)["schema"]


def test_a_stage_row_left_running_by_a_process_that_is_gone(store):
    engine, settings = store
    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    owner = f"{socket.gethostname()}:{int(ended.stdout)}:abc123"
    started = datetime.now(UTC) - timedelta(minutes=5)
    with engine.begin() as conn:
        conn.execute(insert(stage_runs).values(stage="cluster", status="running", owner=owner, started_at=started))
    line = faults(engine, settings)["stages"]
    assert line.startswith("1 stage row left running by a process that is gone") and owner in line, line
    assert "the next `newsdesk run` marks the dead ones interrupted" in line


def test_sources_failing_for_days_and_sources_fetched_fine_with_nothing_new(store):
    engine, settings = store
    now = datetime.now(UTC)
    with engine.begin() as conn:
        for sid in ("x-bridge-down", "x-bridge-stuck"):
            conn.execute(
                insert(sources).values(id=sid, name=sid, url=f"http://127.0.0.1:1/{sid}", kind="rss", language="en")
            )
        for days in (3, 2, 1, 0):  # every fetch for three days failed
            conn.execute(
                insert(fetches).values(
                    source_id="x-bridge-down", started_at=now - timedelta(days=days), error="HTTP 503 from the bridge"
                )
            )
        conn.execute(
            insert(fetches).values(source_id="x-bridge-stuck", started_at=now - timedelta(days=6), items_new=4)
        )
        for days in (5, 3, 1):  # fetched fine since, and never anything new
            conn.execute(insert(fetches).values(source_id="x-bridge-stuck", started_at=now - timedelta(days=days)))
    line = faults(engine, settings)["sources"]
    assert line.startswith("1 failing for over 2 days: x-bridge-down (4 failures: HTTP 503 from the bridge)"), line
    assert "1 stale (fetched fine, nothing new for days): x-bridge-stuck;" in line, line
    with engine.begin() as conn:  # switched off, neither is a fault
        conn.execute(update(sources).where(sources.c.id.like("x-bridge-%")).values(enabled=False))
    assert faults(engine, settings) == {}


def test_too_little_disk_for_the_site(store):
    engine, settings = store
    line = faults(engine, settings, min_free=1 << 60)["disk"]
    assert "GiB free" in line and "free space there or set site_dir to a roomier disk" in line


@pytest.mark.parametrize("answer", ["nobody listens", 500, 200])
def test_the_model_endpoint_is_asked_when_a_run_would_call_it(store, answer):
    engine, settings = store
    settings.write.by = "model"
    settings.llm.model = "m"
    httpd = None
    if answer == "nobody listens":
        settings.llm.base_url = f"http://127.0.0.1:{free_port()}/v1"
    else:

        class Endpoint(Replies):
            def do_GET(self):
                self.reply(answer, b'{"data": [{"id": "m"}]}', {"Content-Type": "application/json"})

        httpd = serve_http(Endpoint)
        settings.llm.base_url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    try:
        found = faults(engine, settings)
    finally:
        if httpd:
            httpd.shutdown()
    if answer == 200:
        assert found == {}
    elif answer == 500:
        assert found == {
            "model": f"model endpoint {settings.llm.base_url} answers HTTP 500; the server is failing: check its log"
        }
    else:
        assert found["model"].startswith(f"model endpoint {settings.llm.base_url} did not answer (")
        assert "check llm.base_url and that the server is up" in found["model"]


def test_old_fetch_rows_are_forgotten_and_what_the_doctor_reads_stays(engine):
    """An always-on loop polling 300 sources hourly adds 2.6 million fetch rows a year. The loop forgets
    rows older than 90 days, but each source's first fetch, its last with something new, its last good
    one and the failures since: the doctor's answer is the same after (on SQLite and PostgreSQL)."""
    from newsdesk.store.items import prune_fetches

    now = datetime.now(UTC)
    settings = Settings(data_dir="unused", site_dir="unused")
    with engine.begin() as conn:
        for sid in ("x-down", "x-stuck", "x-fine"):
            conn.execute(
                insert(sources).values(id=sid, name=sid, url=f"http://127.0.0.1:1/{sid}", kind="rss", language="en")
            )
        rows = {
            # good for a year, then failing for 120 days
            "x-down": [(days, None, 1) for days in range(400, 120, -10)] + [(days, "HTTP 503", 0) for days in range(120, -1, -5)],
            # something new 200 days ago, fetched fine since with nothing new
            "x-stuck": [(200, None, 3)] + [(days, None, 0) for days in range(190, -1, -10)],
            # fetched weekly, something new every fortnight
            "x-fine": [(days, None, 2 if days % 14 == 0 else 0) for days in range(294, -1, -7)],
        }  # fmt: skip
        for sid, fetched in rows.items():
            for days, error, new in fetched:
                conn.execute(
                    insert(fetches).values(
                        source_id=sid, started_at=now - timedelta(days=days), error=error, items_new=new
                    )
                )
    before = sorted((c.name, c.line) for c in diagnose(settings, engine, now=now, min_free=0) if c.name == "sources")
    with engine.connect() as conn:
        total = conn.execute(select(func.count()).select_from(fetches)).scalar_one()
    forgotten = prune_fetches(engine, now=now)
    with engine.connect() as conn:
        left = conn.execute(
            select(fetches.c.source_id, fetches.c.started_at, fetches.c.error, fetches.c.items_new)
        ).all()
    assert forgotten == total - len(left) > 0
    age = {r: now - r.started_at.replace(tzinfo=r.started_at.tzinfo or UTC) for r in left}
    # Each source's landmarks, and nothing else older than 90 days.
    assert sorted((r.source_id, age[r].days) for r in left if age[r] > timedelta(days=90)) == sorted([
        *[("x-down", days) for days in range(120, 90, -5)],  # its failures since (the doctor counts them)
        ("x-down", 130),  # its last good fetch, and its last with something new
        ("x-down", 400),  # its first
        ("x-fine", 294),  # its first (its last good and last new: today)
        ("x-stuck", 200),  # its first, and its last with something new
    ])  # fmt: skip
    assert len([r for r in left if age[r] <= timedelta(days=90)]) == 19 + 10 + 13  # the window, whole (days 90…0)
    assert before == sorted(
        (c.name, c.line) for c in diagnose(settings, engine, now=now, min_free=0) if c.name == "sources"
    )
    assert "x-down" in before[0][1] and "x-stuck" in before[0][1]
    assert prune_fetches(engine, now=now) == 0  # nothing more to forget
