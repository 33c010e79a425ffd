"""The store is the catalog ingest reads; leases end with their worker; nothing is skipped silently."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta

import pytest
from fakes import FaultyFeeds, quick_fetch_settings
from fastapi.testclient import TestClient
from sqlalchemy import select, update

from newsdesk.core.config import Settings
from newsdesk.core.model import Source
from newsdesk.ingest import run as ingest
from newsdesk.serve.app import create_app
from newsdesk.store.schema import items, sources

TOKEN = "t0ken"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def server():
    s = FaultyFeeds()
    yield s
    s.httpd.shutdown()


def _run(engine, catalog, **kw) -> dict[str, ingest.SourceOutcome]:
    return {o.source_id: o for o in ingest.ingest(engine, quick_fetch_settings(), catalog=catalog, **kw).outcomes}


def test_sources_switched_and_added_in_the_web_app_drive_ingest(engine, server):
    catalog = [Source(id="good", name="Good", url=server.url("/good.xml"))]
    assert _run(engine, catalog)["good"].new == 3
    with TestClient(create_app(engine, Settings(web_token=TOKEN))) as web:
        assert web.patch("/api/sources/good", json={"enabled": False}, headers=AUTH).status_code == 200
        added = {"id": "added", "name": "Added", "url": server.url("/flaky.xml")}
        assert web.post("/api/sources", json=added, headers=AUTH).status_code == 201

    # The catalog file still says enabled: the web app's switch holds; the added source is fetched.
    out = _run(engine, catalog)
    assert "good" not in out and server.calls["/good.xml"] == 1
    assert out["added"].status == "ok" and out["added"].new == 2
    assert list(_run(engine, catalog, only=["added"])) == ["added"]
    # Asked for by id, a disabled source is reported, not silently left out.
    skipped = _run(engine, catalog, only=["good"])["good"]
    assert skipped.status == "skipped" and "disabled" in skipped.error and server.calls["/good.xml"] == 1
    with pytest.raises(ingest.IngestError, match="unknown source id.*nope"):
        _run(engine, catalog, only=["nope"])

    # When the file itself changes its word, the file wins again.
    _run(engine, [Source(id="good", name="Good", url=server.url("/good.xml"), enabled=False)], only=["added"])
    assert _run(engine, catalog)["good"].status in ("ok", "not_modified")
    assert server.calls["/good.xml"] == 2


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_a_dead_workers_lease_is_taken_over_and_a_live_ones_is_reported(engine, server):
    catalog = [Source(id="good", name="Good", url=server.url("/good.xml"))]
    _run(engine, catalog)
    now = datetime.now(UTC)
    # kill -9 left a lease behind that runs for minutes: its owner is gone, so it is taken at once.
    with engine.begin() as conn:
        conn.execute(
            update(sources).values(
                etag=None,
                body_hash=None,  # so the fetch parses and stores (the same body is otherwise not_modified)
                lease_owner=f"{socket.gethostname()}:{_dead_pid()}:dead00",
                lease_until=now + timedelta(minutes=5),
            )
        )
    assert _run(engine, catalog)["good"].status == "ok"
    # A worker on another machine is alive as far as we can tell: its source is skipped, and said so.
    assert ingest.claim(engine, "good", "elsewhere:4242:live00", now)
    out = _run(engine, catalog)["good"]
    assert out.status == "skipped" and "elsewhere:4242:live00" in out.error and "lease" in out.error


def test_the_heartbeat_keeps_a_working_lease_alive_and_a_silent_one_expires(engine, server, monkeypatch):
    monkeypatch.setattr(ingest, "HEARTBEAT", 0.2)
    monkeypatch.setattr(ingest, "LEASE", timedelta(seconds=1))
    seen: list[datetime] = []
    done = threading.Event()

    def watch():
        while not done.is_set():
            with engine.connect() as conn:
                until = conn.execute(select(sources.c.lease_until).where(sources.c.id == "stall")).scalar()
            if until is not None:
                seen.append(until)
            time.sleep(0.1)

    catalog = [Source(id="stall", name="Stall", url=server.url("/stall.xml"))]
    with engine.begin() as conn:
        from newsdesk.store.items import sync_sources

        sync_sources(conn, catalog)
    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        settings = quick_fetch_settings()
        settings.fetch.read_timeout = settings.fetch.total_timeout = 10.0
        out = asyncio.run(ingest.ingest_all(engine, settings, catalog))
    finally:
        done.set()
        watcher.join()
    assert out[0].status == "ok"  # the server took 3 s, three times the lease
    assert len(set(seen)) >= 3 and max(seen) - min(seen) >= timedelta(seconds=1)
    # A holder that stops renewing loses the lease when it runs out.
    past = datetime.now(UTC) - timedelta(seconds=5)
    assert ingest.claim(engine, "stall", "elsewhere:1:silent", past)
    assert ingest.claim(engine, "stall", "me:2:alive", datetime.now(UTC))


def test_replay_file_names_that_collide_or_give_no_id_are_errors(engine, tmp_path, fixtures):
    feed = next((fixtures / "feeds/ai-blogs/2026-07-04").glob("*.xml")).read_bytes()
    for name in ("Upper.xml", "upper.rss", "___.xml", "中文.xml", "fine.xml"):
        (tmp_path / name).write_bytes(feed)
    (tmp_path / "pages.json").write_text("{not json", encoding="utf-8")
    out = _run(engine, [], source=tmp_path)
    assert out["fine"].status == "ok" and out["fine"].new > 0
    assert out["upper"].status == "error" and "Upper.xml" in out["upper"].error and "upper.rss" in out["upper"].error
    for name in ("___.xml", "中文.xml"):
        assert out[name].status == "error" and "gives no source id" in out[name].error
    assert out["pages.json"].status == "error" and "not readable JSON" in out["pages.json"].error
    with engine.connect() as conn:
        ids = {r[0] for r in conn.execute(select(sources.c.id))}
        assert "" not in ids and "upper" not in ids
        assert {r[0] for r in conn.execute(select(items.c.source_id).distinct())} == {"fine"}


def test_one_feed_file_is_replayed_as_a_feed_and_flat_pages_json_is_not_a_feed(sqlite_engine, tmp_path, fixtures):
    snap = fixtures / "feeds/ai-blogs/2026-07-04"
    one = next(snap.glob("*.xml"))
    out = _run(sqlite_engine, [], source=one)
    sid = ingest.source_id_for_file(one)
    assert list(out) == [sid] and out[sid].status == "ok" and out[sid].new > 0
    (tmp_path / "a-feed.xml").write_bytes(one.read_bytes())
    (tmp_path / "pages.json").write_text('{"https://example.com/a": "a.html"}', encoding="utf-8")
    assert list(_run(sqlite_engine, [], source=tmp_path)) == ["a-feed"]
    (tmp_path / "notes.txt").write_text("hello", encoding="utf-8")
    with pytest.raises(ingest.IngestError, match="not a feed"):
        _run(sqlite_engine, [], source=tmp_path / "notes.txt")


def test_cli_reports_skipped_sources(tmp_path, monkeypatch, server):
    from typer.testing import CliRunner

    from newsdesk import cli
    from newsdesk.store import open_store

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NEWSDESK_DATA_DIR", str(tmp_path / "data"))
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "sources.toml").write_text(
        f'[[source]]\nid = "mine"\nname = "Mine"\nurl = "{server.url("/good.xml")}"\n', encoding="utf-8"
    )
    monkeypatch.setenv("NEWSDESK_FETCH_ALLOW_PRIVATE", "1")
    eng = open_store(f"sqlite:///{tmp_path / 'data' / 'newsdesk.db'}")
    with eng.begin() as conn:
        from newsdesk.store.items import sync_sources

        sync_sources(conn, [Source(id="mine", name="Mine", url=server.url("/good.xml"))])
    assert ingest.claim(eng, "mine", "elsewhere:7:live00", datetime.now(UTC))
    monkeypatch.setattr(cli, "_state", {})
    result = CliRunner().invoke(cli.app, ["ingest", "--source", "mine"])
    out = " ".join(result.output.split())
    assert "1 skipped" in out and "mine" in out and "elsewhere:7:live00" in out, out
