"""The `tasks` table: each unit of work's place in the queue, its lease and its last outcome.

The broker delivers at least once (a message is acknowledged only when its task ends, and a
dead worker's messages go to another), so one unit can arrive twice, or while another worker
still runs it. The store decides who works:

- `mark_queued` before a message is sent: a unit already waiting in the queue is not sent
  again (a burst of fetches asks for one placement, not two hundred);
- `claim` when a worker starts it: a lease with an expiry, renewed by a heartbeat while the
  worker lives (`Heartbeat`); a lease whose owner died on this host is taken over at once,
  one on another host when it runs out (store/leases.py). A second delivery of a unit that
  is running finds the lease held and comes back later;
- `finish` records the outcome: done, retrying (with its error), failed (it kept failing:
  recorded with its error and no longer retried, so it never blocks the queue) or waiting
  (the run's model budget is spent; the next pass asks again).
"""

from __future__ import annotations

import contextlib
import threading
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import and_, case, func, or_, select, true, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Engine

from newsdesk.store.leases import owner_is_dead
from newsdesk.store.schema import tasks

# A lease outlives its worker by at most LEASE; the worker renews it every HEARTBEAT seconds.
LEASE = timedelta(minutes=2)
HEARTBEAT = 30.0
# A unit marked queued longer than this is sent again: its message may have been lost with a
# broker that keeps nothing on disk. A second message is harmless (the claim sorts it out).
STALE_QUEUED = timedelta(minutes=30)
CHUNK = 500  # keys per statement, well under either database's parameter limit


def _now() -> datetime:
    return datetime.now(UTC)


def mark_queued(
    engine: Engine, wanted: list[tuple[str, str, dict]], run_id: str | None, *, force: bool = False
) -> set[str]:
    """Note that these units (key, stage, args) are wanted; returns the keys whose message must be
    sent: no message for them is waiting already, and they did not already fail for good in this
    run (the next run asks again). `force`: the caller sends one whatever the rows say."""
    now = _now()
    waiting = and_(tasks.c.queued.is_(True), tasks.c.queued_at > now - STALE_QUEUED)
    gave_up = and_(tasks.c.state == "failed", tasks.c.run_id.is_(None) if run_id is None else tasks.c.run_id == run_id)
    free = true() if force else and_(~waiting, ~func.coalesce(gave_up, False))
    values = {
        "queued": True,
        "queued_at": now,
        "run_id": run_id,
        "attempts": case((tasks.c.state == "failed", 0), else_=tasks.c.attempts),
    }  # a new run, new tries
    send: set[str] = set()
    by_key = {key: (stage, args) for key, stage, args in wanted}
    keys = list(by_key)
    with engine.begin() as conn:
        insert_new = (postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert)(tasks)
        for i in range(0, len(keys), CHUNK):  # one statement per chunk: a pass asks for hundreds of units
            chunk = keys[i : i + CHUNK]
            updated = set(
                conn.execute(
                    update(tasks).where(tasks.c.key.in_(chunk), free).values(**values).returning(tasks.c.key)
                ).scalars()
            )
            send |= updated
            rest = [k for k in chunk if k not in updated]
            known = set(conn.execute(select(tasks.c.key).where(tasks.c.key.in_(rest))).scalars()) if rest else set()
            fresh = [
                {
                    "key": k,
                    "stage": by_key[k][0],
                    "args": by_key[k][1],
                    "run_id": run_id,
                    "queued": True,
                    "queued_at": now,
                    "attempts": 0,
                }
                for k in rest
                if k not in known
            ]
            if fresh:  # a row another sender inserted a moment ago is theirs to send
                send |= set(
                    conn.execute(
                        insert_new.values(fresh).on_conflict_do_nothing(index_elements=["key"]).returning(tasks.c.key)
                    ).scalars()
                )
    return send


@dataclass
class Claim:
    key: str
    owner: str
    attempts: int  # this try included
    failed_with: str | None = None  # the error of the last try that ended with one, when it is being retried
    # The unit had already failed for good with this error when this claim took it: the claim comes
    # from a late copy of its message (one sent back while a try ran), not from a try that died.
    failed_for_good: str | None = None


def claim(engine: Engine, key: str, stage: str, args: dict, owner: str) -> Claim | None:
    """Take the unit's lease; None while another live worker holds it."""
    now = _now()
    values = {
        "owner": owner,
        "lease_until": now + LEASE,
        "queued": False,
        "started_at": now,
        "attempts": tasks.c.attempts + 1,
    }

    def take(conn, free) -> Claim | None:
        got = conn.execute(
            update(tasks)
            .where(tasks.c.key == key, free)
            .values(**values)
            .returning(tasks.c.attempts, tasks.c.state, tasks.c.error)
        ).first()
        if got is None:
            return None
        return Claim(
            key,
            owner,
            got.attempts,
            got.error if got.state == "retrying" else None,
            got.error if got.state == "failed" else None,
        )

    with engine.begin() as conn:
        taken = take(conn, or_(tasks.c.owner.is_(None), tasks.c.lease_until < now))
        if taken is not None:
            return taken
        row = conn.execute(select(tasks.c.owner).where(tasks.c.key == key)).first()
        if row is None:  # sent without mark_queued (by hand, or an older newsdesk): its row starts now
            ins = (postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert)(tasks)
            conn.execute(
                ins.values(key=key, stage=stage, args=args, queued=False, attempts=0).on_conflict_do_nothing(
                    index_elements=["key"]
                )
            )
            return take(conn, tasks.c.owner.is_(None))
        if owner_is_dead(row.owner):  # its holder was killed: no need to wait out the lease
            return take(conn, tasks.c.owner == row.owner)
    return None


def give_up(engine: Engine, claimed: Claim) -> str:
    """Record as failed a unit claimed once more after its last try ended without an outcome (its
    worker died or was stopped), and return the error recorded. A failure an earlier try ended with
    stays the unit's error (a poisoned event's refusal, not the kill that came after it), and this
    claim, which runs nothing, is not counted as a try. A unit that had already failed for good (a
    late copy of its message claimed it) keeps its record: its last try did end, with that failure."""
    tries = claimed.attempts - 1
    died = "the worker died or was stopped"
    if claimed.failed_for_good:  # its last try ended with this failure: the record stands as it was
        finish(engine, claimed, "failed", claimed.failed_for_good, tries=tries)
        return claimed.failed_for_good
    if claimed.failed_with:
        error = f"{claimed.failed_with} (gave up after {tries} tries; the last ended without an outcome: {died})"
    else:
        error = f"gave up after {tries} tries that ended without an outcome ({died} each time)"
    finish(engine, claimed, "failed", error[:2000], tries=tries)
    return error


def renew(engine: Engine, key: str, owner: str) -> None:
    with engine.begin() as conn:
        conn.execute(
            update(tasks).where(and_(tasks.c.key == key, tasks.c.owner == owner)).values(lease_until=_now() + LEASE)
        )


def finish(
    engine: Engine,
    claimed: Claim,
    state: str,
    error: str | None = None,
    *,
    requeue: bool = False,
    tries: int | None = None,
) -> None:
    """Release the lease with the outcome. `requeue`: a message to try again is being sent; `tries`:
    the tries to record, where this claim was none (give_up)."""
    values: dict[str, object] = {
        "owner": None,
        "lease_until": None,
        "state": state,
        "error": error,
        "finished_at": _now(),
    }
    if state in ("done", "waiting"):  # waiting: the budget, not the unit, stopped it
        values["attempts"] = 0
    elif tries is not None:
        values["attempts"] = tries
    if requeue:
        values |= {"queued": True, "queued_at": _now()}
    with engine.begin() as conn:
        conn.execute(
            update(tasks).where(and_(tasks.c.key == claimed.key, tasks.c.owner == claimed.owner)).values(**values)
        )


class Heartbeat:
    """Renews a claim every HEARTBEAT seconds while the unit runs (a thread; stops with the block)."""

    def __init__(self, engine: Engine, claimed: Claim, every: float | None = None):
        self.engine, self.claimed = engine, claimed
        self.every = HEARTBEAT if every is None else every
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, daemon=True, name=f"heartbeat {claimed.key}")

    def _beat(self) -> None:
        while not self._stop.wait(self.every):
            with contextlib.suppress(Exception):  # a missed beat only shortens the lease; the next one tries again
                renew(self.engine, self.claimed.key, self.claimed.owner)

    def __enter__(self) -> Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def board(conn: Connection) -> list[dict]:
    """Per stage: units queued, running, failed and done (the web app's status page)."""
    now = _now()
    running = and_(tasks.c.owner.is_not(None), tasks.c.lease_until >= now)
    rows = conn.execute(
        select(
            tasks.c.stage,
            func.sum(case((and_(tasks.c.queued.is_(True), ~running), 1), else_=0)).label("queued"),
            func.sum(case((running, 1), else_=0)).label("running"),
            func.sum(case((tasks.c.state == "failed", 1), else_=0)).label("failed"),
            func.sum(case((tasks.c.state == "done", 1), else_=0)).label("done"),
        ).group_by(tasks.c.stage)
    ).all()
    return [
        {
            "stage": r.stage,
            "queued": int(r.queued or 0),
            "running": int(r.running or 0),
            "failed": int(r.failed or 0),
            "done": int(r.done or 0),
        }
        for r in rows
    ]


def listed(conn: Connection, which: str, limit: int = 50) -> list[dict]:
    """The units `which` ("queued", "running" or "failed"), newest first, each with its error."""
    now = _now()
    running = and_(tasks.c.owner.is_not(None), tasks.c.lease_until >= now)
    where = {
        "queued": and_(tasks.c.queued.is_(True), ~running),
        "running": running,
        "failed": tasks.c.state == "failed",
    }[which]
    order = {"queued": tasks.c.queued_at, "running": tasks.c.started_at, "failed": tasks.c.finished_at}[which]
    rows = conn.execute(select(tasks).where(where).order_by(order.desc()).limit(limit)).mappings().all()
    return [dict(r) for r in rows]


def unmark_queued(engine: Engine, key: str) -> None:
    """The message was not sent after all (the broker refused it)."""
    with engine.begin() as conn:
        conn.execute(update(tasks).where(tasks.c.key == key).values(queued=False))
