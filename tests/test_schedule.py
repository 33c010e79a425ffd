"""The newsroom always on: each source's own polling interval (from real feeds on a loopback
server), and `newsdesk run --every` in a subprocess: passes go on past a failing stage, and
SIGTERM stops it cleanly between stages."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path

import httpx
import pytest
from loopback import Replies, free_port, serve_http
from sqlalchemy import func, select

from newsdesk.core.config import ConfigError, Settings, load_settings, parse_duration
from newsdesk.core.model import Source
from newsdesk.ingest import run as ingest
from newsdesk.ingest.catalog import packaged_catalog_path
from newsdesk.ingest.poll import due_sources, plan
from newsdesk.store import open_store
from newsdesk.store.schema import sources, stage_runs, stages

ROOT = Path(__file__).resolve().parents[1]
T0 = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def rss(port: int, name: str, *, gaps_h: list[float] = (), head: str = "") -> bytes:
    """An RSS feed with one item per gap (hours before the previous one) plus one, and `head` in the channel."""
    times, t = [T0], T0
    for gap in gaps_h:
        t -= timedelta(hours=gap)
        times.append(t)
    entries = "".join(
        f"<item><title>{name} story {i}</title><link>http://127.0.0.1:{port}/{name}/{i}</link>"
        f"<guid>{name}-{i}</guid><pubDate>{format_datetime(when)}</pubDate></item>"
        for i, when in enumerate(times)
    )
    return (
        f'<?xml version="1.0" encoding="utf-8"?><rss version="2.0" '
        f'xmlns:sy="http://purl.org/rss/1.0/modules/syndication/"><channel><title>{name}</title>{head}'
        f"{entries}</channel></rss>"
    ).encode()


class Feeds:
    """A loopback HTTP server with feeds that state their rhythm in each way a feed can, or fail."""

    def __init__(self):
        self.down = True  # /down.xml answers 500 until a test brings it up
        outer = self

        class Handler(Replies):
            def do_GET(self):
                port, path = outer.port, self.path
                feeds = {
                    "/ttl.xml": lambda: rss(port, "ttl", gaps_h=[1, 1], head="<ttl>45</ttl>"),
                    "/sy.xml": lambda: rss(
                        port,
                        "sy",
                        head="<sy:updatePeriod>hourly</sy:updatePeriod><sy:updateFrequency>2</sy:updateFrequency>",
                    ),
                    "/rhythm.xml": lambda: rss(port, "rhythm", gaps_h=[3, 3, 3, 2, 4]),
                    "/chatty.xml": lambda: rss(port, "chatty", head="<ttl>1</ttl>"),
                    "/daily.xml": lambda: rss(port, "daily", head="<sy:updatePeriod>daily</sy:updatePeriod>"),
                    "/quiet.xml": lambda: rss(port, "quiet"),
                }
                if path == "/ttl.xml" and self.headers.get("If-None-Match") == '"t1"':
                    return self.reply(304, b"")
                if path in feeds:
                    return self.reply(200, feeds[path](), {"ETag": '"t1"'} if path == "/ttl.xml" else {})
                if path == "/down.xml" and not outer.down:
                    return self.reply(200, rss(port, "down"))
                self.reply(500 if path == "/down.xml" else 404, b"no")

        self.httpd = serve_http(Handler)
        self.port = self.httpd.server_address[1]

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"


@pytest.fixture
def feeds():
    server = Feeds()
    yield server
    server.httpd.shutdown()


def _settings() -> Settings:
    s = Settings()
    s.fetch.allow_private, s.fetch.retries, s.fetch.per_host_delay = True, 0, 0.0
    s.schedule.every, s.schedule.poll_min, s.schedule.poll_max = "30m", "10m", "6h"
    return s


def _polls(engine) -> dict[str, tuple]:
    with engine.connect() as conn:
        return {
            r.id: (r.poll_every, r.poll_basis, r.poll_failures, r.next_poll_at)
            for r in conn.execute(
                select(
                    sources.c.id,
                    sources.c.poll_every,
                    sources.c.poll_basis,
                    sources.c.poll_failures,
                    sources.c.next_poll_at,
                )
            )
        }


def test_each_source_is_polled_at_the_interval_its_feed_states_or_its_rhythm_within_bounds(engine, feeds):
    names = ["ttl", "sy", "rhythm", "chatty", "daily", "quiet"]
    catalog = [Source(id=n, name=n, url=feeds.url(f"/{n}.xml")) for n in names]
    before = datetime.now(UTC)
    out = {o.source_id: o for o in asyncio.run(ingest.ingest_all(engine, _settings(), catalog))}
    assert {o.status for o in out.values()} == {"ok"}
    polls = _polls(engine)
    every = {n: polls[n][0] for n in names}
    assert every == {
        "ttl": 45 * 60,
        "sy": 30 * 60,
        "rhythm": 3 * 3600,
        "chatty": 10 * 60,
        "daily": 6 * 3600,
        "quiet": 30 * 60,
    }
    assert "ttl 45 min" in polls["ttl"][1]
    assert "sy:updatePeriod hourly / sy:updateFrequency 2" in polls["sy"][1]
    assert "median gap of its last 6 items" in polls["rhythm"][1]
    assert polls["chatty"][1].endswith("raised to poll_min 10m") and polls["daily"][1].endswith(
        "lowered to poll_max 6h"
    )
    assert "no stated interval or rhythm yet" in polls["quiet"][1]
    for n in names:
        assert before + timedelta(seconds=every[n]) <= polls[n][3] <= datetime.now(UTC) + timedelta(seconds=every[n])

    # A 304 Not Modified says nothing new: the interval the feed stated last time stands.
    again = asyncio.run(ingest.ingest_all(engine, _settings(), catalog[:1]))
    assert again[0].status == "not_modified" and _polls(engine)["ttl"][0] == 45 * 60

    with engine.connect() as conn:
        assert due_sources(conn, datetime.now(UTC)) == []
        soon = due_sources(conn, datetime.now(UTC) + timedelta(minutes=31))
        assert soon[0] == "chatty" and sorted(soon) == ["chatty", "quiet", "sy"]  # soonest first
        assert set(due_sources(conn, datetime.now(UTC) + timedelta(hours=7))) == set(names)


def test_a_failing_source_backs_off_doubling_up_to_the_max_and_recovers(engine, feeds):
    catalog = [Source(id="down", name="down", url=feeds.url("/down.xml"))]
    seen = []
    for _ in range(5):
        out = asyncio.run(ingest.ingest_all(engine, _settings(), catalog))
        assert out[0].status == "error"
        every, basis, failures, _ = _polls(engine)["down"]
        seen.append((failures, every))
    assert seen == [(1, 3600), (2, 7200), (3, 14400), (4, 21600), (5, 21600)]  # 30m × 2^n, capped at 6h
    assert basis.startswith("backing off after 5 failed fetches in a row: 30m × 2^5, capped at poll_max 6h")
    feeds.down = False
    assert asyncio.run(ingest.ingest_all(engine, _settings(), catalog))[0].status == "ok"
    every, basis, failures, _ = _polls(engine)["down"]
    assert (failures, every) == (0, 1800) and "backing off" not in basis


def test_interval_settings_are_durations_with_min_not_above_max(tmp_path):
    assert [parse_duration(v) for v in ("90s", "10m", "6h", "1d", "45")] == [90, 600, 21600, 86400, 45]
    bad = tmp_path / "newsdesk.toml"
    bad.write_text('[schedule]\npoll_min = "2h"\npoll_max = "1h"\n')
    with pytest.raises(ConfigError, match="poll_min = '2h' is longer than poll_max = '1h'"):
        load_settings(bad, env={})
    with pytest.raises(ConfigError, match="not a duration; write it like 90s, 30m, 6h or 1d"):
        load_settings(None, env={"NEWSDESK_SCHEDULE_EVERY": "soon"})
    s = Settings()
    assert plan(None, None, 0, s.schedule) == (1800, "no stated interval or rhythm yet: every 30m ([schedule] every)")


# --- the loop, in a subprocess --------------------------------------------------------------


def _finished(engine, stage: str) -> list:
    with engine.connect() as conn:
        return conn.execute(
            select(stage_runs).where(stage_runs.c.stage == stage, stage_runs.c.finished_at.is_not(None))
        ).all()


def _newsroom(tmp_path: Path, feeds: Feeds) -> tuple[dict, Path]:
    """A settings file whose only sources are the loopback ones (every packaged source switched off
    in the user catalog) and whose publish stage fails every pass (site_dir is a file)."""
    packaged = [
        line.split('"')[1]
        for line in packaged_catalog_path().read_text("utf-8").splitlines()
        if line.strip().startswith("id =")
    ]
    catalog = tmp_path / "sources.toml"
    catalog.write_text(
        "".join(f'[[source]]\nid = "{sid}"\nenabled = false\n\n' for sid in packaged)
        + "".join(
            f'[[source]]\nid = "loop-{n}"\nname = "{n}"\nurl = "{feeds.url(f"/{n}.xml")}"\n\n'
            for n in ("rhythm", "down")
        )
    )
    # A file where the site folder's parent should be: settings accept the path (it is not itself a
    # file), and the publish stage fails every pass when it makes the folder.
    (tmp_path / "site").write_text("a file where a folder should be")
    blocker = tmp_path / "site" / "www"
    config = tmp_path / "newsdesk.toml"
    config.write_text(
        f'data_dir = "{tmp_path / "data"}"\nsite_dir = "{blocker}"\nsources_file = "{catalog}"\n'
        "[fetch]\nallow_private = true\nretries = 0\nper_host_delay = 0.0\n"
        '[write]\nby = "extractive"\n'
        '[schedule]\npoll_min = "1s"\npoll_max = "4s"\nshortest_every = "1s"\n'  # passes every 2s, not 1m
    )
    return {**os.environ, "PYTHONPATH": str(ROOT / "src"), "NEWSDESK_CONFIG": str(config)}, blocker


def _until_passes(proc: subprocess.Popen, tmp_path: Path, passes: int):
    """Wait until the last stage has run `passes` times; returns the test's own engine on the store."""
    engine = None
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.5)
        if engine is None and (tmp_path / "data" / "newsdesk.db").exists():
            engine = open_store(f"sqlite:///{tmp_path / 'data' / 'newsdesk.db'}")
        if engine is not None and len(_finished(engine, "push")) >= passes:
            return engine
    proc.kill()
    raise AssertionError(f"{passes} passes did not finish in time:\n{proc.communicate()[0]}")


def test_run_every_keeps_passing_past_a_failing_stage_and_stops_cleanly_on_sigterm(tmp_path, feeds):
    env, blocker = _newsroom(tmp_path, feeds)
    proc = subprocess.Popen(
        [sys.executable, "-m", "newsdesk", "run", "--every", "2s"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        engine = _until_passes(proc, tmp_path, 2)
        proc.send_signal(signal.SIGTERM)
        output, _ = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, output
    assert "SIGTERM: stopping after the stage now running" in output and "stopped cleanly after" in output

    publish = _finished(engine, "publish")
    assert len(publish) >= 2 and {r.status for r in publish} == {"failed"}
    assert all(r.error.startswith(f"cannot write the site to {str(blocker)!r}") for r in publish)
    for name in ("cluster", "rank", "write", "daily", "search", "push"):
        assert len(_finished(engine, name)) >= 2, name  # the stages after the failing one still ran, each pass
        assert "failed" not in {r.status for r in _finished(engine, name)}, name
    with engine.connect() as conn:
        assert conn.execute(select(func.count()).where(stage_runs.c.status == "running")).scalar() == 0
        assert conn.execute(select(func.count()).where(stages.c.lease_owner.is_not(None))).scalar() == 0
        down = conn.execute(select(sources).where(sources.c.id == "loop-down")).one()
        good = conn.execute(select(sources).where(sources.c.id == "loop-rhythm")).one()
    assert down.poll_failures >= 1 and down.poll_basis.startswith("backing off")
    assert good.poll_failures == 0 and good.poll_every == 4  # its 3-hour rhythm, lowered to poll_max
    assert "publish" in output and "failed" in output
    engine.dispose()


def test_serve_every_runs_the_loop_beside_the_web_app_and_stops_cleanly(tmp_path, feeds):
    env, _ = _newsroom(tmp_path, feeds)
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "newsdesk", "serve", "--port", str(port), "--every", "2s"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        engine = _until_passes(proc, tmp_path, 1)
        # The loop schedules the next pass just after the last stage's run is recorded: poll for it.
        # The web app may still be warming its pages then (it takes readers once warm, up to 10 s,
        # and waits for its other processes): a refused connection is a server not yet listening.
        deadline = time.monotonic() + 60
        while True:
            try:
                status = httpx.get(f"http://127.0.0.1:{port}/api/status", timeout=30).json()
            except httpx.ConnectError:
                assert time.monotonic() < deadline and proc.poll() is None, "the web app never listened"
                time.sleep(0.2)
                continue
            cluster = next(st for st in status["stages"] if st["stage"] == "cluster")
            if cluster["next_due_at"] is not None or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        page = httpx.get(f"http://127.0.0.1:{port}/status", timeout=30).text
        proc.send_signal(signal.SIGTERM)
        output, _ = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, output
    stages = {st["stage"]: st for st in status["stages"]}
    assert stages["publish"]["last"]["status"] == "failed" and stages["push"]["last"]["status"] == "ok"
    assert stages["cluster"]["next_due_at"] is not None  # the loop in this process scheduled the next pass
    assert 'id="stage-publish"' in page and "cannot write the site to" in page
    assert "schedule: publish failed" in output and "schedule: pass 1:" in output
    with engine.connect() as conn:
        assert conn.execute(select(func.count()).where(stage_runs.c.status == "running")).scalar() == 0
    engine.dispose()


# --- the terminal's bars --------------------------------------------------------------------


def test_a_stage_bar_shows_the_time_left_at_the_stage_s_own_pace():
    from rich.progress import Progress

    from newsdesk.cli import Eta

    clock = [100.0]
    progress = Progress(Eta(), get_time=lambda: clock[0])
    task = progress.add_task("write", total=None)
    assert Eta().render(progress.tasks[0]).plain == "ETA -:--:--"  # no total known yet
    progress.update(task, total=10, completed=0)
    clock[0] += 60
    progress.update(task, completed=2)  # one analysis every 30 s: Rich's 30-second window sees too little
    assert Eta().render(progress.tasks[0]).plain == "ETA 0:04:00"
    clock[0] += 3600
    progress.update(task, completed=3)
    assert Eta().render(progress.tasks[0]).plain == "ETA 2:22:20"  # 3660 s / 3 × 7


def test_the_stages_that_know_their_totals_report_them(tmp_path, sqlite_engine):
    from importlib import resources

    from newsdesk.run.pipeline import Watcher, run_pipeline

    seen: dict[str, list] = {}

    class Totals(Watcher):
        def progress(self, name, done, total):
            seen.setdefault(name, []).append((done, total))

    pack = Path(str(resources.files("newsdesk") / "data" / "demo"))
    run_pipeline(
        sqlite_engine, Settings(data_dir=str(tmp_path)), stages=["ingest", "cluster"], source=pack, watcher=Totals()
    )
    for name in ("ingest", "cluster"):
        done, total = seen[name][-1]
        assert total and done == total and all(t == total for _, t in seen[name]), name
