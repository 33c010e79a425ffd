"""The ingest stage end to end: replay, loopback network, kill and resume, source health."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import feedparser
import pytest
from fakes import FaultyFeeds, feed_xml, quick_fetch_settings
from loopback import Replies, serve_http
from sqlalchemy import func, select

from newsdesk.core.config import Settings
from newsdesk.core.model import Source
from newsdesk.ingest import parse
from newsdesk.ingest import run as ingest
from newsdesk.ingest.catalog import stored_sources
from newsdesk.ingest.health import source_health
from newsdesk.ingest.normalize import canonical_url
from newsdesk.store import open_store
from newsdesk.store.schema import fetches, items

SNAPSHOTS = ["2026-07-04", "2026-08-22"]  # the ai-blogs snapshots tests/fixtures/feeds keeps, seven weeks apart


def _replay(engine, directory: Path) -> list[ingest.SourceOutcome]:
    with engine.connect() as conn:
        known = {s.id: s for s in stored_sources(conn)}
    found, feeds, problems = ingest.replay_sources(directory, known)
    assert problems == []
    getter = ingest.DirectoryGetter(directory, feeds, ingest.read_pages(directory)[0])
    return asyncio.run(ingest.ingest_all(engine, Settings(), found, getter=getter))


def _expected_pairs(directory: Path) -> set[tuple[str, str]]:
    """(source, guid) as the feeds define them: the entry id, else its link."""
    pairs = set()
    for path in directory.glob("*.xml"):
        for e in feedparser.parse(path.read_bytes()).entries:
            key = (e.get("id") or "").strip() or e.get("link")
            pairs.add((ingest.source_id_for_file(path), key))
    return pairs


def _count(engine, table=items) -> int:
    with engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(table)).scalar()


def test_replaying_snapshots_in_date_order_stores_each_distinct_item_once(engine, fixtures):
    root = fixtures / "feeds/ai-blogs"
    expected: set[tuple[str, str]] = set()
    for snap in SNAPSHOTS:
        outcomes = _replay(engine, root / snap)
        # A file the same as the last snapshot's is not parsed again (its digest is stored)
        assert all(o.status in ("ok", "not_modified") for o in outcomes), [o.error for o in outcomes if o.error]
        expected |= _expected_pairs(root / snap)
    assert _count(engine) == len(expected)
    with engine.connect() as conn:
        stored = {(r.source_id, r.guid) for r in conn.execute(select(items.c.source_id, items.c.guid))}
    # guids without an id of their own are canonical URLs: compare on that form.
    assert {(s, g if not g.startswith("http") else canonical_url(g)) for s, g in expected} == {
        (s, g if not g.startswith("http") else canonical_url(g)) for s, g in stored
    }
    for snap in (SNAPSHOTS[0], SNAPSHOTS[-1]):
        again = _replay(engine, root / snap)
        assert sum(o.new for o in again) == 0
    assert _count(engine) == len(expected)


@pytest.fixture
def server():
    s = FaultyFeeds()
    yield s
    s.httpd.shutdown()


def test_failing_sources_do_not_stop_the_others(engine, server):
    names = ["good", "flaky", "limited", "broken", "gb2312", "huge", "loop", "stall"]
    catalog = [Source(id=n, name=n, url=server.url(f"/{n}.xml"), language="en") for n in names]
    out = {o.source_id: o for o in asyncio.run(ingest.ingest_all(engine, quick_fetch_settings(), catalog))}
    assert out["good"].new == 3 and out["good"].status == "ok"
    assert out["flaky"].new == 2  # 500 then 200: retried
    assert out["limited"].new == 1 and any("429" in w for w in out["limited"].warnings)
    # Malformed XML is not an outage: the fetch is ok, nothing half-parsed is stored, and a warning names it.
    assert out["broken"].status == "ok" and out["broken"].new == 0 and out["broken"].error is None
    assert any(w.startswith("not well-formed XML at line 2") for w in out["broken"].warnings), out["broken"].warnings
    assert out["gb2312"].new == 2
    for bad in ("huge", "loop", "stall"):
        assert out[bad].status == "error" and out[bad].error and "\n" not in out[bad].error
    with engine.connect() as conn:
        titles = [r[0] for r in conn.execute(select(items.c.title).where(items.c.source_id == "gb2312"))]
        assert "第0条：大模型发布" in titles
        rows = conn.execute(select(fetches.c.source_id, fetches.c.error, fetches.c.warnings)).all()
    assert {r.source_id for r in rows} == set(names)  # every attempt has its fetch row
    assert [r.error for r in rows if r.source_id == "huge"][0]

    # Second run: the ETag comes back as If-None-Match, the 304 is counted, nothing is lost.
    before = _count(engine)
    again = {o.source_id: o for o in asyncio.run(ingest.ingest_all(engine, quick_fetch_settings(), catalog[:1]))}
    assert again["good"].status == "not_modified"
    assert _count(engine) == before
    with engine.connect() as conn:
        assert conn.execute(select(func.count()).where(fetches.c.not_modified.is_(True))).scalar() == 1


def test_a_server_ignoring_validators_resending_the_same_body_is_not_parsed_again(sqlite_engine, monkeypatch):
    """No ETag, no Last-Modified, 200 every time: the body's digest stands in for a 304; a changed
    body is parsed and stored as before."""
    body = {"xml": b""}

    class Plain(Replies):
        def do_GET(self):
            self.reply(200, body["xml"], {"Content-Type": "application/rss+xml"})

    httpd = serve_http(Plain)
    port = httpd.server_address[1]
    body["xml"] = feed_xml(port, "plain", 3)
    catalog = [Source(id="plain", name="plain", url=f"http://127.0.0.1:{port}/feed.xml", language="en")]
    parsed = []
    real_parse = parse.parse_feed  # ingest imports it when a body needs parsing
    monkeypatch.setattr(parse, "parse_feed", lambda *a, **kw: parsed.append(1) or real_parse(*a, **kw))
    try:
        first = asyncio.run(ingest.ingest_all(sqlite_engine, quick_fetch_settings(), catalog))
        again = asyncio.run(ingest.ingest_all(sqlite_engine, quick_fetch_settings(), catalog))
        body["xml"] = feed_xml(port, "plain", 4)
        changed = asyncio.run(ingest.ingest_all(sqlite_engine, quick_fetch_settings(), catalog))
    finally:
        httpd.shutdown()
    assert (first[0].status, first[0].new) == ("ok", 3)
    assert again[0].status == "not_modified" and again[0].seen == 0
    assert (changed[0].status, changed[0].new) == ("ok", 1)
    assert len(parsed) == 2  # the first and the changed body; the repeat was not parsed
    with sqlite_engine.connect() as conn:
        flags = conn.execute(select(fetches.c.not_modified).order_by(fetches.c.id)).scalars().all()
    assert flags == [False, True, False]  # the repeat's fetch row says it changed nothing


def test_private_addresses_are_refused_unless_allowed(sqlite_engine, server):
    catalog = [Source(id="inside", name="inside", url=server.url("/good.xml"))]
    out = asyncio.run(ingest.ingest_all(sqlite_engine, quick_fetch_settings(allow_private=False), catalog))
    assert out[0].status == "error" and "allow_private" in out[0].error
    assert server.calls == {}  # refused before any request was sent
    assert _count(sqlite_engine) == 0


def test_a_held_lease_keeps_a_second_worker_off_the_source(sqlite_engine, server):
    catalog = [Source(id="good", name="good", url=server.url("/good.xml"))]
    asyncio.run(ingest.ingest_all(sqlite_engine, quick_fetch_settings(), catalog))
    assert ingest.claim(sqlite_engine, "good", "worker-a", datetime.now(UTC))
    out = asyncio.run(ingest.ingest_all(sqlite_engine, quick_fetch_settings(), catalog))
    assert out[0].status == "skipped"
    ingest.release(sqlite_engine, "good", "worker-a")


def test_sigkill_midway_then_rerun_loses_and_duplicates_nothing(tmp_path):
    """Kill `newsdesk ingest` with SIGKILL midway, re-run, compare with a clean run.

    Midway by construction, not by racing the run: of 12 loopback sources, 8 answer at once and 4
    hold their answer until the kill. The run is killed once it has stored the 8 and asked for
    the 4, so it dies holding the leases of sources it has not stored."""
    quick, held = [f"kill-{n:02}" for n in range(8)], [f"kill-{n:02}" for n in range(8, 12)]
    release, asked = threading.Event(), set()

    class Handler(Replies):
        def do_GET(self):
            name = self.path.strip("/").removesuffix(".xml")
            asked.add(name)
            if name in held:
                release.wait(60)
            with contextlib.suppress(OSError):  # the killed run is gone
                self.reply(200, feed_xml(self.server.server_address[1], name, 30))

    httpd = serve_http(Handler)
    catalog = tmp_path / "sources.toml"
    catalog.write_text(
        "".join(
            f'[[source]]\nid = "{n}"\nname = "{n}"\nurl = "http://127.0.0.1:{httpd.server_address[1]}/{n}.xml"\n'
            f"fulltext = false\n"
            for n in quick + held
        ),
        encoding="utf-8",
    )
    env = {
        **os.environ,
        "NEWSDESK_CONFIG": "",
        "NEWSDESK_DATA_DIR": str(tmp_path / "killed"),
        "NEWSDESK_SOURCES_FILE": str(catalog),
        "NEWSDESK_FETCH_ALLOW_PRIVATE": "1",
        "NEWSDESK_FETCH_PER_HOST_DELAY": "0",
        "NEWSDESK_FETCH_PER_HOST_CONCURRENCY": "12",
        "NEWSDESK_FETCH_READ_TIMEOUT": "120",
        "NEWSDESK_FETCH_TOTAL_TIMEOUT": "120",
    }
    cmd = [sys.executable, "-m", "newsdesk", "ingest"] + [arg for n in quick + held for arg in ("--source", n)]
    try:
        proc = subprocess.Popen(
            cmd, env=env, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
        db = tmp_path / "killed" / "newsdesk.db"
        deadline = time.monotonic() + 120  # a few seconds on an idle machine
        while not (db.exists() and set(held) <= asked):
            assert proc.poll() is None and time.monotonic() < deadline, (
                proc.stderr.read() if proc.poll() else "too slow"
            )
            time.sleep(0.05)
        watcher = open_store(f"sqlite:///{db}", migrate_schema=False)
        while _count(watcher, fetches) < len(quick):
            assert proc.poll() is None and time.monotonic() < deadline, (
                proc.stderr.read() if proc.poll() else "too slow"
            )
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        assert proc.wait() == -signal.SIGKILL
        with watcher.connect() as conn:  # died with the 8 stored and the 4 not
            stored = set(conn.execute(select(items.c.source_id).distinct()).scalars())
        watcher.dispose()
        assert stored == set(quick)
        release.set()
        partial = _count(open_store(f"sqlite:///{db}"))
        eng = open_store(f"sqlite:///{db}")
        # The killed worker's leases are still running, but its process is gone: the re-run takes
        # them over at once and skips nothing.
        rerun = subprocess.run(cmd, env=env, cwd=tmp_path, check=True, capture_output=True, text=True)
        assert " 0 skipped" in rerun.stdout and " 0 failed" in rerun.stdout, rerun.stdout + rerun.stderr
        clean_env = {**env, "NEWSDESK_DATA_DIR": str(tmp_path / "clean")}
        subprocess.run(cmd, env=clean_env, cwd=tmp_path, check=True, capture_output=True)
        clean = open_store(f"sqlite:///{tmp_path / 'clean' / 'newsdesk.db'}")
    finally:
        release.set()
        httpd.shutdown()

    def pairs(e):
        with e.connect() as conn:
            return sorted(conn.execute(select(items.c.source_id, items.c.guid, items.c.content_hash)).all())

    assert partial == 8 * 30 and _count(clean) == 12 * 30
    assert pairs(eng) == pairs(clean)


def test_health_reports_failures_staleness_and_recent_items(sqlite_engine, server):
    catalog = [
        Source(id="good", name="good", url=server.url("/good.xml")),
        Source(id="loop", name="loop", url=server.url("/loop.xml")),
    ]
    for _ in range(2):
        asyncio.run(ingest.ingest_all(sqlite_engine, quick_fetch_settings(), catalog))
    with sqlite_engine.connect() as conn:
        health = {h.source_id: h for h in source_health(conn)}
    assert health["good"].last_success and health["good"].consecutive_failures == 0
    assert health["good"].items_7d == 3
    assert health["loop"].consecutive_failures == 2 and health["loop"].last_success is None
    assert "redirect" in health["loop"].last_error.lower()
    # All three items were published on one day long ago: too few gaps for an interval, so not judged.
    assert health["good"].stale is False
