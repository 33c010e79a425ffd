"""The Celery app: one task, `newsdesk.unit`, that runs any unit of work (run/units.py).

    newsdesk worker [--queues fetch,write] [--concurrency 4]   # as many as you like, on any machine
    newsdesk beat [--every 30m]                                # one: starts a pass now and every 30 minutes

Delivery is at least once: a message is acknowledged when its unit ends (acks_late), a
worker process that dies hands its message back (reject_on_worker_lost), and a whole
worker that dies has its messages redelivered by the broker (RabbitMQ at once, Redis after
`workers.visibility_timeout`). The store makes that safe (run/claims.py): a unit's lease
lets one worker run it at a time, and every unit is idempotent. A unit that raises is tried
again after `workers.retry_delay` (doubled each time), `workers.max_attempts` times in all,
then recorded as failed with its error; the queue moves on. A failed unit is asked for again
by the next pass, not by this one.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import uuid
from collections import OrderedDict
from datetime import UTC, datetime
from pathlib import Path

from celery import Celery
from kombu import Exchange, Queue, pools

from newsdesk.core.config import Settings, load_settings
from newsdesk.core.errors import NewsdeskError, error_line
from newsdesk.run import claims
from newsdesk.run.units import BudgetSpent, Context, Unit, edition_units, run
from newsdesk.run.units import queues as all_queues
from newsdesk.store.leases import owner_id

log = logging.getLogger("newsdesk.workers")

app = Celery("newsdesk", set_as_current=False)
TASK = "newsdesk.unit"


class WorkerError(NewsdeskError):
    """The task queue cannot start: the broker is unreachable or a setting is wrong."""


def queue_name(settings: Settings, queue: str) -> str:
    return f"{settings.workers.queue_prefix}.{queue}"


def configure(settings: Settings) -> Celery:
    """Point the app at the broker and queues the settings name (once per process)."""
    w = settings.workers
    # A process configured before (tests, a reloaded settings file) keeps a connection pool and
    # queue declarations made for the old broker; publishing through them would send every unit
    # there. Drop them so both are rebuilt from the new settings; kombu's own producer pools too, which
    # it keys by broker URL: back on a broker used before, it would hand out the closed pool of then.
    if app._pool is not None:
        app._pool.force_close_all()
    app._pool = None
    pools.reset()
    app.__dict__.pop("amqp", None)
    app.conf.update(
        broker_url=w.broker_url,
        broker_connection_retry_on_startup=True,
        broker_transport_options={"visibility_timeout": w.visibility_timeout},
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,  # a worker holds only what it runs: the rest stays free for others
        task_ignore_result=True,  # outcomes live in the store (`tasks`), not in a result backend
        task_queues=[
            Queue(name, Exchange(name), routing_key=name) for name in (queue_name(settings, q) for q in all_queues())
        ],
        task_default_queue=queue_name(settings, "cluster"),
        worker_enable_remote_control=False,  # no broadcast queues: newsrooms that share a broker stay apart
        worker_send_task_events=False,
        timezone="UTC",
    )
    _runtime["settings"] = settings
    return app


# --- a worker process's store and models ------------------------------------------------------

_runtime: dict = {}
_lock = threading.RLock()


def _settings() -> Settings:
    if "settings" not in _runtime:
        _runtime["settings"] = load_settings()
    return _runtime["settings"]


def _engine():
    """One engine per process (a prefork child makes its own after the fork)."""
    from newsdesk.store import open_store

    with _lock:
        if _runtime.get("engine_pid") != os.getpid():
            _runtime["engine"] = open_store(_settings().database)
            _runtime["engine_pid"] = os.getpid()
        return _runtime["engine"]


def _llm(run_id: str | None):
    """The model for a run, opened on first use and kept for the run's next units (8 runs kept)."""
    from newsdesk.llm.client import LazyLLM

    with _lock:
        runs: OrderedDict = _runtime.setdefault("llms", OrderedDict())
        key = run_id or ""
        if key not in runs:
            runs[key] = LazyLLM(_settings(), _engine(), run_id=run_id)
            while len(runs) > 8:
                runs.popitem(last=False)
        runs.move_to_end(key)
        return runs[key]


def _embedder():
    """One embedding model per process: loading USE costs seconds, a placement often less."""
    from newsdesk.cluster.embed import make_embedder

    with _lock:
        if _runtime.get("embedder_pid") != os.getpid():
            _runtime["embedder"] = make_embedder(_settings())
            _runtime["embedder_pid"] = os.getpid()
        return _runtime["embedder"]


# --- sending and running units ----------------------------------------------------------------


def send(engine, settings: Settings, units: list[Unit], run_id: str | None) -> int:
    """Queue these units, except those a message already waits for; returns how many were sent."""
    todo = claims.mark_queued(engine, [(u.key, u.stage, u.args) for u in units], run_id)
    sent = 0
    for unit in units:
        if unit.key not in todo:
            continue
        todo.discard(unit.key)  # a unit listed twice is sent once
        try:
            _publish(settings, unit, run_id, settings.workers.settle if unit.settles else None)
        except Exception:
            claims.unmark_queued(engine, unit.key)  # not sent: the next one asking must send it
            raise
        sent += 1
    return sent


def _publish(settings: Settings, unit: Unit, run_id: str | None, countdown: float | None) -> None:
    app.send_task(
        TASK, args=[unit.kind, unit.args, run_id], queue=queue_name(settings, unit.queue), countdown=countdown or None
    )


def start_pass(engine, settings: Settings, sources: list[str] | None = None) -> str:
    """A pass: a fetch for every enabled source (or these), every edition kind but the daily; the rest
    follows from what they store. Returns the pass's run id (its model budget)."""
    from newsdesk.ingest.catalog import load_catalog, stored_sources
    from newsdesk.store.items import sync_sources

    run_id = datetime.now(UTC).strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:6]
    if sources is None:
        catalog, errors = load_catalog(settings)
        for problem in errors:
            log.warning("catalog: %s", problem)
        with engine.begin() as conn:
            sync_sources(conn, catalog)
            sources = [s.id for s in stored_sources(conn) if s.enabled and s.polled]
    send(
        engine,
        settings,
        [Unit("fetch", {"source": sid}) for sid in sources]
        # every edition kind but the daily (the weekly, the episodes, …) from what the store holds now
        # (rebuilt only when it changed), and a placement for items stored by `newsdesk ingest` or the web app
        + edition_units()
        + [Unit("cluster")],
        run_id,
    )
    return run_id


def execute(unit: Unit, run_id: str | None) -> str:
    """Claim, run and record one unit; send its follow-ups. Returns the state it ended in."""
    settings, engine = _settings(), _engine()
    w = settings.workers
    claimed = claims.claim(engine, unit.key, unit.stage, unit.args, owner_id())
    if claimed is None:  # another live worker runs it: this message is a second delivery or a newer ask
        # This message may be the only record of a newer ask (the holder may have read the store
        # before it), so it is never dropped: it comes back once the holder is likely done.
        holder_done_in = min(claims.LEASE.total_seconds(), max(w.settle, 1.0))
        claims.mark_queued(engine, [(unit.key, unit.stage, unit.args)], run_id, force=True)
        _publish(settings, unit, run_id, holder_done_in)
        return "busy"
    if claimed.attempts > w.max_attempts:  # its last try died with its worker (a poison that kills, or a kill)
        claims.give_up(engine, claimed)
        return "failed"
    ctx = Context(engine, settings, _llm(run_id), run_id, _embedder)
    try:
        with claims.Heartbeat(engine, claimed):
            follow = run(ctx, unit)
        send(engine, settings, follow, run_id)  # before the lease ends: a worker that dies here runs it again
    except BudgetSpent as exc:
        claims.finish(engine, claimed, "waiting", str(exc)[:2000])
        return "waiting"
    except Exception as exc:  # any failure is recorded on the unit; the queue goes on
        error = error_line(exc)[:2000]
        if claimed.attempts >= w.max_attempts:
            log.error("%s failed %d times, recorded and not retried: %s", unit.key, claimed.attempts, error)
            claims.finish(engine, claimed, "failed", error)
            return "failed"
        delay = w.retry_delay * 2 ** (claimed.attempts - 1)
        log.warning(
            "%s failed (try %d of %d), again in %.0f s: %s", unit.key, claimed.attempts, w.max_attempts, delay, error
        )
        claims.finish(engine, claimed, "retrying", error, requeue=True)
        _publish(settings, unit, run_id, delay)
        return "retrying"
    claims.finish(engine, claimed, "done")
    return "done"


@app.task(name=TASK, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def unit_task(kind: str, args: dict, run_id: str | None = None) -> str:
    return execute(Unit(kind, args), run_id)


@app.task(name="newsdesk.pass", acks_late=True, ignore_result=True)
def pass_task() -> str:
    """What the beat sends: start a pass."""
    return start_pass(_engine(), _settings())


# --- the commands -----------------------------------------------------------------------------


def check_broker(settings: Settings) -> None:
    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=5)
    except Exception as exc:  # kombu raises many kinds; all mean the same to the operator
        raise WorkerError(
            f"broker {settings.workers.broker_url} is not reachable ({type(exc).__name__}: {exc}); "
            "start Redis / RabbitMQ or set workers.broker_url (NEWSDESK_WORKERS_BROKER_URL)"
        ) from None


def _warm_up() -> None:
    """Open the store (and migrate it) and import what the units run before taking the first message:
    a worker that says it is ready is ready, and the first units do not pay seconds of imports."""
    import newsdesk.cluster.stage  # noqa: F401 (imported for the import's cost, here rather than in a unit)
    import newsdesk.editions.daily  # noqa: F401
    import newsdesk.ingest.run  # noqa: F401
    import newsdesk.llm.openai_backend  # noqa: F401
    from newsdesk.write.analysis import system_prompt

    _engine()
    for language in ("zh", "en"):
        system_prompt(language, _settings())  # reads and renders the policy and prompt templates once


def run_worker(settings: Settings, *, queues: list[str], concurrency: int, pool: str, loglevel: str = "INFO") -> None:
    unknown = sorted(set(queues) - set(known := all_queues()))
    if unknown:
        raise WorkerError(f"unknown queue(s) {', '.join(unknown)}; use some of {', '.join(known)}")
    configure(settings)
    check_broker(settings)
    _warm_up()
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per feed and model call is noise here
    app.worker_main(
        [
            "worker",
            f"--queues={','.join(queue_name(settings, q) for q in queues)}",
            f"--concurrency={concurrency}",
            f"--pool={pool}",
            f"--loglevel={loglevel}",
            f"--hostname=newsdesk-{os.getpid()}@{socket.gethostname()}",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
        ]
    )


def run_beat(settings: Settings, *, seconds: float, loglevel: str = "INFO") -> None:
    from celery.apps.beat import Beat

    configure(settings)
    check_broker(settings)
    app.conf.beat_schedule = {
        "pass": {"task": "newsdesk.pass", "schedule": seconds, "options": {"queue": queue_name(settings, "cluster")}}
    }
    start_pass(_engine(), settings)  # one now; the schedule's first comes after `every`
    schedule = Path(settings.data_dir) / "beat-schedule"
    schedule.parent.mkdir(parents=True, exist_ok=True)
    Beat(app=app, schedule=str(schedule), loglevel=loglevel).run()
