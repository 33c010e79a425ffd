"""The newsroom as Celery workers over the real Redis and PostgreSQL: 3 worker processes, 200 loopback
sources, a loopback model endpoint, one worker killed with SIGKILL in the middle of its work."""

from __future__ import annotations

import functools
import os
import signal
import time
from collections import Counter
from pathlib import Path

import pytest
from cluster_rig import Cluster, FeedServer, ModelServer, compose_environment, harvest, wait_until
from conftest import require
from sqlalchemy import func, select

from newsdesk.cluster import event_brief
from newsdesk.core.model import Source
from newsdesk.store import open_store
from newsdesk.store.items import sync_sources
from newsdesk.store.schema import (
    analyses,
    editions,
    event_members,
    events,
    fetches,
    items,
    llm_usage,
    tasks,
)
from newsdesk.write.analysis import analysis_key, due, stored_analysis, system_prompt

BROKER = os.environ.get("NEWSDESK_TEST_REDIS", "redis://127.0.0.1:6379/0")
SOURCES = 200
CONCURRENCY = 4  # units at once in each worker (threads)


@functools.cache
def _redis_problem() -> str | None:
    import redis

    try:
        redis.Redis.from_url(BROKER, socket_connect_timeout=3).ping()
    except (redis.RedisError, OSError) as exc:
        return f"not reachable at {BROKER} ({exc}); start it or set NEWSDESK_TEST_REDIS"
    return None


@pytest.fixture
def broker() -> str:
    require("Redis", _redis_problem())
    return BROKER


def _settled(engine) -> bool:
    """Nothing queued, nothing running."""
    with engine.connect() as conn:
        busy = conn.execute(
            select(func.count()).select_from(tasks).where(tasks.c.queued.is_(True) | tasks.c.owner.is_not(None))
        ).scalar()
        started = conn.execute(select(func.count()).select_from(tasks)).scalar()
    return started > 0 and busy == 0


def _board(engine) -> str:
    from newsdesk.run.claims import board

    with engine.connect() as conn:
        stages = board(conn)
    return "still busy: " + "; ".join(
        f"{b['stage']}: {b['queued']} queued, {b['running']} running, {b['done']} done, {b['failed']} failed"
        for b in stages
    )


def _running_on(engine, pid: int, kind: str) -> bool:
    with engine.connect() as conn:
        owners = conn.execute(
            select(tasks.c.owner).where(tasks.c.owner.is_not(None), tasks.c.key.like(f"{kind}:%"))
        ).scalars()
        return any(o.split(":")[1] == str(pid) for o in owners)


def test_three_workers_one_killed_every_source_fetched_every_event_analysed_once(
    tmp_path: Path, pg_url, broker, fixtures
):
    rows = harvest(fixtures, SOURCES)
    poisoned = rows[17]["title"]  # the model refuses this one's material every time
    feeds, model = FeedServer(rows), ModelServer(delay=0.1, poison=poisoned)
    cluster = Cluster(tmp_path, pg_url, model.base_url, broker=broker)
    settings = cluster.settings()
    engine = open_store(settings.database)
    ids = [f"src-{n:03d}" for n in range(SOURCES)]
    with engine.begin() as conn:
        sync_sources(conn, [Source(sid, f"Source {n}", feeds.url(n), language="zh") for n, sid in enumerate(ids)])
    try:
        # The first worker takes every queue but `cluster`: it is the one killed, and the other two
        # share the placing (one at a time), so no more than two processes load the embedding model.
        workers = [cluster.start_worker(concurrency=CONCURRENCY, queues="fetch,write,editions,publish")]
        workers += [cluster.start_worker(concurrency=CONCURRENCY) for _ in range(2)]
        from newsdesk.run.workers import configure, start_pass

        configure(settings)
        started = time.monotonic()
        start_pass(engine, settings, ids)
        # Kill the first worker while it writes analyses, once the writing is well under way.
        victim = workers[0]
        assert wait_until(
            lambda: len(model.requests) >= 20 and _running_on(engine, victim.pid, "analysis"), 360, 0.05
        ), cluster.logs()
        victim.send_signal(signal.SIGKILL)
        victim.wait()
        assert wait_until(lambda: _settled(engine) and time.monotonic() - started > 5, 420, 1.0), _board(engine)
        took = time.monotonic() - started
    finally:
        cluster.stop()
        feeds.close()
        model.close()

    with engine.connect() as conn:
        # Every source fetched, once its feed answered; every item stored and placed in an event.
        fetched = conn.execute(
            select(fetches.c.source_id).where(fetches.c.error.is_(None), fetches.c.items_seen == 1)
        ).scalars()
        assert set(fetched) == set(ids)
        assert set(feeds.hits) == set(range(SOURCES))
        assert conn.execute(select(func.count()).select_from(items)).scalar() == SOURCES
        unplaced = select(func.count()).select_from(
            items.outerjoin(event_members, event_members.c.item_id == items.c.id)
        )
        assert conn.execute(unplaced.where(event_members.c.item_id.is_(None))).scalar() == 0
        # Every event analysed exactly once per language, with the analysis of its current material;
        # the poisoned event has none and its units are recorded as failed with the model's refusal.
        event_ids = conn.execute(select(events.c.id)).scalars().all()
        briefs = {e: event_brief(conn, e) for e in event_ids}
        bad = {e for e, b in briefs.items() if any(m["title"] == poisoned for m in b["members"])}
        stored = conn.execute(select(analyses.c.event_id, analyses.c.language, analyses.c.material_key)).all()
        assert (
            Counter((r.event_id, r.language) for r in stored).most_common(1)[0][1] == 1
        )  # the unique constraint holds
        assert {(r.event_id, r.language) for r in stored} == {
            (e, lang) for e in event_ids if e not in bad for lang in ("zh", "en")
        }
        for r in stored:  # none is due again: written with these instructions, at the event's size
            key = analysis_key(r.language, system_prompt(r.language, settings), "loopback")
            assert due(stored_analysis(engine, r.event_id, r.language), key, briefs[r.event_id]) is None
        failed = conn.execute(
            select(tasks.c.key, tasks.c.error, tasks.c.attempts).where(tasks.c.state == "failed")
        ).all()
        assert len(bad) == 1 and {f.key for f in failed} == {
            f"analysis:{e}:{lang}" for e in bad for lang in ("zh", "en")
        }
        assert all("poisoned material" in f.error and f.attempts == settings.workers.max_attempts for f in failed), [
            (f.key, f.error, f.attempts) for f in failed
        ]
        assert (
            conn.execute(
                select(func.count()).select_from(tasks).where(tasks.c.state != "done", tasks.c.state != "failed")
            ).scalar()
            == 0
        )
        # The usage ledger repeats no call, beyond those in flight when the worker died (at most its
        # concurrency): a unit run again finds the reply it paid for in the response cache.
        calls = conn.execute(
            select(func.count())
            .select_from(llm_usage)
            .where(llm_usage.c.cache_hit.is_(False), llm_usage.c.error.is_(None))
        ).scalar()
        answered = model.answered()
        repeats = len(answered) - len(set(answered))
        assert repeats <= CONCURRENCY, f"{repeats} model calls repeated"
        assert 0 <= len(answered) - calls <= CONCURRENCY  # answered, never recorded: only the killed worker's
        # At least one call per analysis (each passed its check); more where an event grew after its
        # first analysis (a new member from a later fetch): new material, a new prompt, no repeat.
        assert len(set(answered)) >= 2 * (len(event_ids) - len(bad))
        # And the editions were built and published from it.
        days = conn.execute(select(func.count()).select_from(editions).where(editions.c.kind == "daily")).scalar()
        assert days >= 2
    assert (Path(settings.site_dir) / "index.html").exists()
    print(
        f"\n{SOURCES} sources, {len(event_ids)} events, {len(answered)} model calls, {took:.0f} s with 3 workers (one killed)"
    )


def test_compose_file_starts_real_commands_with_settings_newsdesk_accepts(tmp_path, monkeypatch):
    """compose.yaml cannot run here (no Docker images), so check what it would run: each service's
    command parses as a newsdesk command, and its environment loads as settings."""
    import yaml
    from typer.main import get_command

    from newsdesk.cli import app
    from newsdesk.core.config import load_settings

    compose = yaml.safe_load((Path(__file__).resolve().parents[1] / "compose.yaml").read_text(encoding="utf-8"))
    services = compose["services"]
    assert {"postgres", "redis", "worker", "beat", "web"} <= set(services)
    assert services["worker"]["deploy"]["replicas"] >= 2
    cli = get_command(app)
    monkeypatch.chdir(tmp_path)
    for name in ("worker", "beat", "web"):
        service = services[name]
        command = cli.commands[service["command"][0]]
        command.make_context(service["command"][0], list(service["command"][1:]))  # options parse
        settings = load_settings(env=compose_environment())
        assert settings.database.startswith("postgresql://") and "@postgres:" in settings.database
        assert settings.workers.broker_url == "redis://redis:6379/0"
        assert settings.write.by == "extractive" and settings.llm.backend == "openai"


def test_beat_starts_a_pass_at_once_for_every_enabled_source(tmp_path: Path, pg_url, broker):
    """`newsdesk beat` queues a fetch per enabled catalog source, the weekly, the episodes and a placement
    (no worker runs here: the messages wait on the broker and are dropped with the test's queues)."""
    import subprocess
    import sys

    from newsdesk.ingest.catalog import load_catalog

    cluster = Cluster(tmp_path, pg_url, "http://127.0.0.1:9/v1", broker=broker)
    settings = cluster.settings()
    enabled = {s.id for s in load_catalog(settings)[0] if s.enabled}
    log = open(tmp_path / "beat.log", "w")
    beat = subprocess.Popen(
        [sys.executable, "-m", "newsdesk", "beat", "--every", "1h"],
        env=cluster.env,
        cwd=tmp_path,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    engine = open_store(settings.database)
    try:

        def queued() -> set[str]:
            with engine.connect() as conn:
                return set(conn.execute(select(tasks.c.key).where(tasks.c.queued.is_(True))).scalars())

        want = {f"fetch:{sid}" for sid in enabled} | {"stage:weekly", "stage:episode", "cluster"}
        assert wait_until(lambda: queued() == want, 120, 0.5), (tmp_path / "beat.log").read_text()
        assert beat.poll() is None  # it keeps running: the next pass in an hour
    finally:
        beat.terminate()
        beat.wait(timeout=30)
        log.close()
        cluster.purge()


RABBITMQ = os.environ.get("NEWSDESK_TEST_RABBITMQ", "amqp://guest:guest@127.0.0.1:5672//")


@functools.cache
def _rabbitmq_problem() -> str | None:
    from kombu import Connection

    try:
        with Connection(RABBITMQ, connect_timeout=3) as conn:
            conn.ensure_connection(max_retries=1)
    except Exception as exc:  # kombu raises many kinds; any means "not here"
        return f"not reachable at {RABBITMQ} ({exc}); start it or set NEWSDESK_TEST_RABBITMQ"
    return None


def test_rabbitmq_as_the_broker_carries_the_same_work(tmp_path: Path, pg_url, fixtures):
    require("RabbitMQ", _rabbitmq_problem())
    rows = harvest(fixtures, 5)
    feeds, model = FeedServer(rows), ModelServer()
    cluster = Cluster(tmp_path, pg_url, model.base_url, broker=RABBITMQ, languages=("zh",))
    settings = cluster.settings()
    engine = open_store(settings.database)
    ids = [f"src-{n}" for n in range(len(rows))]
    with engine.begin() as conn:
        sync_sources(conn, [Source(sid, f"Source {n}", feeds.url(n), language="zh") for n, sid in enumerate(ids)])
    try:
        cluster.start_worker(concurrency=2)
        from newsdesk.run.workers import configure, start_pass

        configure(settings)
        start_pass(engine, settings, ids)
        assert wait_until(lambda: _settled(engine), 240, 1.0), _board(engine)
    finally:
        cluster.stop()
        feeds.close()
        model.close()
    with engine.connect() as conn:
        assert set(conn.execute(select(fetches.c.source_id).where(fetches.c.error.is_(None))).scalars()) == set(ids)
        n_events = conn.execute(select(func.count()).select_from(events)).scalar()
        assert conn.execute(select(func.count()).select_from(analyses)).scalar() == n_events > 0
        assert conn.execute(select(func.count()).select_from(tasks).where(tasks.c.state != "done")).scalar() == 0


def test_on_compose_defaults_the_workers_publish_extractive_cards_a_weekly_and_an_episode_digest(
    tmp_path: Path, pg_url, broker, fixtures
):
    """`docker compose up` with nothing set: no model is configured and the workers write everything
    extractive. (Once, each worker's write and episode unit asked for a model, was retried and recorded
    failed: the workers' stage runs never learnt that nothing was to be written by a model.)"""
    from importlib import resources

    from newsdesk.core.model import Item
    from newsdesk.ingest.transcripts import parse_transcript
    from newsdesk.store.items import upsert_items

    rows = harvest(fixtures, 6)
    feeds = FeedServer(rows)
    cluster = Cluster(
        tmp_path,
        pg_url,
        "http://127.0.0.1:9/v1",
        broker=broker,
        env={
            k: v
            for k, v in compose_environment().items()
            if k
            not in ("NEWSDESK_DATABASE_URL", "NEWSDESK_WORKERS_BROKER_URL", "NEWSDESK_DATA_DIR", "NEWSDESK_SITE_DIR")
        },
    )
    settings = cluster.settings()
    assert settings.write.by == "extractive" and not settings.llm.base_url
    engine = open_store(settings.database)
    ids = [f"src-{n}" for n in range(len(rows))]
    vtt = resources.files("newsdesk") / "data" / "demo" / "transcripts" / "newsdesk-week-in-review.vtt"
    _, turns = parse_transcript(vtt.read_text(encoding="utf-8"), name="week.vtt")
    with engine.begin() as conn:
        sync_sources(
            conn,
            [Source(sid, f"Source {n}", feeds.url(n), language="zh") for n, sid in enumerate(ids)]
            + [Source("pod", "A podcast", "http://127.0.0.1:9/pod.xml", language="en", enabled=False)],
        )
        upsert_items(
            conn,
            [
                Item(
                    "pod",
                    "ep-1",
                    "http://127.0.0.1:9/ep-1",
                    "The week in review",
                    language="en",
                    extra={"episode": 1},
                    transcript=turns,
                    transcript_format="vtt",
                )
            ],
        )
    try:
        cluster.start_worker(concurrency=2)
        from newsdesk.run.workers import configure, start_pass

        configure(settings)
        start_pass(engine, settings, ids)
        assert wait_until(lambda: _settled(engine), 240, 1.0), _board(engine)
        start_pass(engine, settings, ids)  # the next pass (as beat's): the weekly of the events the first one stored
        assert wait_until(lambda: _settled(engine) and _weekly(engine), 240, 1.0), _board(engine)
        assert wait_until(lambda: _settled(engine), 120, 1.0), _board(engine)
    finally:
        cluster.stop()
        feeds.close()
    with engine.connect() as conn:
        failed = conn.execute(select(tasks.c.key, tasks.c.error).where(tasks.c.state == "failed")).all()
        assert failed == [], cluster.logs()
        event_ids = set(conn.execute(select(events.c.id)).scalars())
        cards = conn.execute(select(analyses.c.event_id, analyses.c.language, analyses.c.model)).all()
        shown = conn.execute(
            select(editions.c.kind, editions.c.language, editions.c.meta, editions.c.status).where(
                editions.c.kind != "daily"
            )
        ).all()
        assert conn.execute(select(func.count()).select_from(llm_usage)).scalar() == 0
    assert {(c.event_id, c.language) for c in cards} == {(e, lang) for e in event_ids for lang in ("zh", "en")}
    assert {c.model for c in cards} == {"extractive"}
    assert sorted((e.kind, e.language) for e in shown) == [
        ("episode", "en"),
        ("episode", "zh"),
        ("weekly", "en"),
        ("weekly", "zh"),
    ]
    assert all(e.meta.get("extractive") for e in shown)
    assert (Path(settings.site_dir) / "index.html").exists()


def _weekly(engine) -> bool:
    with engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(editions).where(editions.c.kind == "weekly")).scalar() > 0


def test_a_new_edition_kind_is_sent_by_each_pass_and_built_on_a_real_worker(tmp_path: Path, pg_url, broker, memo_kind):
    """A kind added by docs/adding-an-output.md alone (tests/memo_kind.py) has its queue, is in the
    list each pass (beat) sends, and a `newsdesk worker` builds and publishes it. (Once, the workers
    spelled the kinds: its unit had no queue (KeyError) and no pass sent it.)"""
    from newsdesk.run.units import Unit
    from newsdesk.run.workers import configure, start_pass
    from newsdesk.store.edition_rows import store_edition

    assert Unit("stage", {"name": memo_kind.name}).queue == "editions"
    cluster = Cluster(tmp_path, pg_url, "http://127.0.0.1:9/v1", broker=broker, env={"NEWSDESK_WRITE_BY": "extractive"})
    settings = cluster.settings()
    engine = open_store(settings.database)
    with engine.begin() as conn:
        for language in ("zh", "en"):
            store_edition(
                conn,
                kind="daily",
                key="2026-03-12",
                language=language,
                title="日报 2026-03-12",
                body="# 日报 2026-03-12\n",
                meta={"cards": [], "tabs": [{"id": "all", "label": "全部", "events": []}]},  # as test_outputs' sample
                status="clean",
                material_key="daily-2026-03-12",
            )
    try:
        cluster.start_worker(concurrency=2, queues="cluster,write,editions,publish", preload="memo_kind")
        configure(settings)
        start_pass(engine, settings, [])  # no sources: what a pass sends besides the fetches
        assert wait_until(lambda: _settled(engine), 240, 1.0), _board(engine) + cluster.logs()
    finally:
        cluster.stop()
    with engine.connect() as conn:
        done = dict(conn.execute(select(tasks.c.key, tasks.c.state)).all())
        memos = conn.execute(select(editions.c.language, editions.c.title).where(editions.c.kind == "memo")).all()
    with engine.connect() as conn:
        failed = conn.execute(select(tasks.c.key, tasks.c.error).where(tasks.c.state != "done")).all()
    assert done.get("stage:memo") == "done" and failed == [], failed
    assert sorted(memos) == [("en", "日报 2026-03-12 · memo"), ("zh", "日报 2026-03-12 · memo")]
    assert (Path(settings.site_dir) / "zh" / "memos" / "2026-03-12.html").exists()  # its publish followed
