"""Runs of the pipeline's stages, as the store records them: who runs what now, and what each run did.

Two tables (store/schema.py):
- `stages`: one row per stage name, holding a lease, so that one pass of a stage runs at a time
  across every process sharing the store (a scheduler, a one-off `newsdesk run`, workers); and
  when the scheduler means to run it next;
- `stage_runs`: one row per run of a stage, or of one unit of it (a source, an event in one
  language) when a worker runs pieces: status, start, end, seconds, facts (what it did, as
  counts), problems (one line each) and the error of a run that failed.

Statuses: queued (a worker has it on its queue) → running → ok | problems | failed; a running
row whose process died (kill -9, a crash) is marked interrupted by the next start of any stage
(run_started) and by the scheduler when it starts (mark_interrupted), so /status never shows a
dead run as running.
The web app's status page and /api/status read `stage_status`.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

from sqlalchemy import and_, delete, desc, func, insert, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Engine

from newsdesk.store.items import polled_sources
from newsdesk.store.leases import lease_holder, owner_is_dead, take_lease
from newsdesk.store.schema import sources, stage_runs, stages

# A stage's lease outlives its process by at most LEASE: a thread renews it every HEARTBEAT.
LEASE = timedelta(minutes=2)
HEARTBEAT = 30.0
ERROR_MAX = 2_000  # characters of an error line kept: a traceback's worth, never a page
FINISHED = ("ok", "problems", "failed", "interrupted")
KEEP = timedelta(days=30)  # finished runs older than this are pruned by the scheduler


def _now() -> datetime:
    return datetime.now(UTC)


# --- one pass of a stage at a time --------------------------------------------------------


def _ensure(conn: Connection, names: list[str]) -> None:
    """A `stages` row for each name (two processes may add one at once: the second adds nothing)."""
    dialect_insert = postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert
    for name in names:
        conn.execute(dialect_insert(stages).values(name=name).on_conflict_do_nothing(index_elements=["name"]))


def claim_stage(engine: Engine, name: str, owner: str) -> bool:
    """Take the stage's lease unless another live process holds it."""
    with engine.begin() as conn:
        _ensure(conn, [name])
        return take_lease(conn, stages, stages.c.name == name, owner, _now(), LEASE)


def release_stage(engine: Engine, name: str, owner: str) -> None:
    with engine.begin() as conn:
        conn.execute(
            update(stages)
            .where(and_(stages.c.name == name, stages.c.lease_owner == owner))
            .values(lease_owner=None, lease_until=None)
        )


def stage_holder(engine: Engine, name: str) -> str:
    """Who holds the stage's lease, in words (for the line that says a stage was not run)."""
    return lease_holder(engine, stages, stages.c.name == name) or "another process"


@contextmanager
def stage_lease(engine: Engine, name: str, owner: str) -> Iterator[bool]:
    """Hold the stage's lease for the block (True), renewed by a thread; False when another holds it."""
    if not claim_stage(engine, name, owner):
        yield False
        return
    stop = threading.Event()

    def renew() -> None:
        while not stop.wait(HEARTBEAT):
            with engine.begin() as conn:
                conn.execute(
                    update(stages)
                    .where(and_(stages.c.name == name, stages.c.lease_owner == owner))
                    .values(lease_until=_now() + LEASE)
                )

    heartbeat = threading.Thread(target=renew, name=f"lease-{name}", daemon=True)
    heartbeat.start()
    try:
        yield True
    finally:
        stop.set()
        heartbeat.join()
        release_stage(engine, name, owner)


def set_next_due(engine: Engine, names: list[str], when: datetime | None) -> None:
    """When the scheduler runs these stages next (shown on the status page); None = not scheduled."""
    with engine.begin() as conn:
        _ensure(conn, names)
        conn.execute(update(stages).where(stages.c.name.in_(names)).values(next_due_at=when))


# --- the record of each run ---------------------------------------------------------------


def run_started(
    engine: Engine, stage: str, *, run_id: str | None, owner: str, unit: str | None = None, row_id: int | None = None
) -> int:
    """Record that a stage (or a unit of it) started; returns the row's id. `row_id` starts a queued row."""
    values = dict(status="running", owner=owner, started_at=_now(), run_id=run_id)
    with engine.begin() as conn:
        _interrupt_dead(conn)  # every start looks, not only the scheduler's: a plain `run` after a kill -9 too
        if row_id is not None:
            conn.execute(update(stage_runs).where(stage_runs.c.id == row_id).values(**values))
            return row_id
        return conn.execute(
            insert(stage_runs)
            .values(stage=stage, unit=unit, facts={}, problems=[], **values)
            .returning(stage_runs.c.id)
        ).scalar_one()


def run_queued(engine: Engine, stage: str, *, unit: str | None = None, run_id: str | None = None) -> int:
    """Record a unit of a stage put on a queue (a worker starts it with run_started(row_id=…))."""
    with engine.begin() as conn:
        return conn.execute(
            insert(stage_runs)
            .values(stage=stage, unit=unit, run_id=run_id, status="queued", queued_at=_now(), facts={}, problems=[])
            .returning(stage_runs.c.id)
        ).scalar_one()


def run_finished(
    engine: Engine,
    row_id: int,
    *,
    facts: dict | None = None,
    problems: list[str] | None = None,
    error: str | None = None,
) -> str:
    """Record how a run ended: failed (`error`: it raised), problems (it stored its work but said
    what went wrong), or ok. Returns the status."""
    problems = list(problems or [])
    status = "failed" if error else "problems" if problems else "ok"
    now = _now()
    with engine.begin() as conn:
        started = conn.execute(select(stage_runs.c.started_at).where(stage_runs.c.id == row_id)).scalar()
        conn.execute(
            update(stage_runs)
            .where(stage_runs.c.id == row_id)
            .values(
                status=status,
                finished_at=now,
                seconds=round((now - started).total_seconds(), 3) if started else None,
                facts=_plain(facts or {}),
                problems=[p[:ERROR_MAX] for p in problems],
                error=(error or (problems[0] if problems else None) or "")[:ERROR_MAX] or None,
            )
        )
    return status


def _plain(facts: dict) -> dict:
    """Facts as JSON holds them: numbers and strings (a Path becomes its text)."""
    return {k: v if isinstance(v, (int, float, str, bool)) or v is None else str(v) for k, v in facts.items()}


def mark_interrupted(engine: Engine) -> int:
    """Running rows whose process on this host is gone: marked interrupted (they never finished)."""
    with engine.begin() as conn:
        return _interrupt_dead(conn)


def _interrupt_dead(conn: Connection) -> int:
    rows = conn.execute(select(stage_runs.c.id, stage_runs.c.owner).where(stage_runs.c.status == "running")).all()
    dead = [r.id for r in rows if owner_is_dead(r.owner)]
    if dead:
        conn.execute(
            update(stage_runs)
            .where(stage_runs.c.id.in_(dead), stage_runs.c.status == "running")
            .values(status="interrupted", finished_at=_now(), error="its process ended before the stage finished")
        )
    return len(dead)


def prune_runs(engine: Engine, keep: timedelta = KEEP) -> int:
    """Forget finished runs older than `keep` (an always-on loop adds a few hundred a day)."""
    with engine.begin() as conn:
        return conn.execute(
            delete(stage_runs).where(stage_runs.c.status.in_(FINISHED), stage_runs.c.finished_at < _now() - keep)
        ).rowcount


# --- what the status page shows -----------------------------------------------------------


def _row(r) -> dict | None:
    if r is None:
        return None
    return {
        k: r._mapping[k]
        for k in (
            "id",
            "stage",
            "unit",
            "run_id",
            "owner",
            "status",
            "queued_at",
            "started_at",
            "finished_at",
            "seconds",
            "facts",
            "problems",
            "error",
        )
    }


def stage_status(conn: Connection, names: list[str]) -> list[dict]:
    """Per stage, in `names` order: the last finished run, the last failed one, what runs now,
    how many units are queued, running and failed in the last day, and when it is next due."""
    leases = {r.name: r for r in conn.execute(select(stages))}
    day_ago = _now() - timedelta(days=1)
    counts: dict[tuple[str, str], int] = {
        (r.stage, r.status): r.n
        for r in conn.execute(
            select(stage_runs.c.stage, stage_runs.c.status, func.count().label("n"))
            .where(or_(stage_runs.c.status.in_(("queued", "running")), stage_runs.c.finished_at >= day_ago))
            .group_by(stage_runs.c.stage, stage_runs.c.status)
        )
    }
    out = []
    for name in names:
        of = stage_runs.c.stage == name
        # Newest by start: the (stage, started_at) index answers it without reading the stage's history.
        newest = (desc(stage_runs.c.started_at), desc(stage_runs.c.id))
        last = conn.execute(
            select(stage_runs).where(of, stage_runs.c.status.in_(FINISHED)).order_by(*newest).limit(1)
        ).first()
        failed = conn.execute(
            select(stage_runs)
            .where(of, stage_runs.c.status.in_(("failed", "problems", "interrupted")))
            .order_by(*newest)
            .limit(1)
        ).first()
        running = conn.execute(
            select(stage_runs)
            .where(of, stage_runs.c.status == "running")
            .order_by(desc(stage_runs.c.started_at))
            .limit(1)
        ).first()
        lease = leases.get(name)
        out.append(
            {
                "stage": name,
                "last": _row(last),
                "last_problem": _row(failed),
                "running": _row(running),
                "queued": counts.get((name, "queued"), 0),
                "running_count": counts.get((name, "running"), 0),
                "failed_24h": counts.get((name, "failed"), 0) + counts.get((name, "interrupted"), 0),
                "runs_24h": sum(n for (s, st), n in counts.items() if s == name and st in FINISHED),
                "next_due_at": lease.next_due_at if lease else None,
                "held_by": lease.lease_owner if lease and lease.lease_until and lease.lease_until > _now() else None,
            }
        )
    return out


def polling(conn: Connection) -> list[dict]:
    """Each enabled source's polling: next poll, interval and why, failures in a row (backoff first).
    An imported outlet or a replayed file is not polled (model.polled), so it has none."""
    rows = conn.execute(
        select(
            sources.c.id,
            sources.c.name,
            sources.c.next_poll_at,
            sources.c.poll_every,
            sources.c.poll_basis,
            sources.c.poll_failures,
        )
        .where(sources.c.enabled.is_(True), polled_sources())
        .order_by(
            desc(func.coalesce(sources.c.poll_failures, 0)),
            sources.c.next_poll_at.is_not(None),
            sources.c.next_poll_at,
            sources.c.id,
        )
    ).all()
    return [dict(r._mapping) | {"poll_failures": r.poll_failures or 0} for r in rows]
