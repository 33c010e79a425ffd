"""The task queue's bookkeeping in the store (run/claims.py) and the run budget every worker shares,
on SQLite and PostgreSQL, without a broker."""

from __future__ import annotations

import subprocess
import sys

import pytest
from fakes import FakeEndpoint, completion
from sqlalchemy import select

from newsdesk.core.config import Settings
from newsdesk.llm import BudgetExhausted, open_llm
from newsdesk.run import claims
from newsdesk.store.leases import owner_id
from newsdesk.store.schema import tasks

UNIT = ("analysis:7:zh", "write", {"event": 7, "language": "zh"})


def row(engine, key=UNIT[0]):
    with engine.connect() as conn:
        return conn.execute(select(tasks).where(tasks.c.key == key)).mappings().first()


def test_a_unit_waiting_in_the_queue_is_sent_once(engine):
    assert claims.mark_queued(engine, [UNIT], "run-1") == {UNIT[0]}
    assert claims.mark_queued(engine, [UNIT], "run-1") == set()  # a message already waits
    many = [(f"fetch:s{n}", "ingest", {"source": f"s{n}"}) for n in range(1200)]  # more than one statement's worth
    assert len(claims.mark_queued(engine, many + [UNIT], "run-1")) == 1200
    assert claims.mark_queued(engine, many, "run-1") == set()


def test_one_worker_at_a_time_and_a_dead_ones_lease_is_taken_over(engine):
    claims.mark_queued(engine, [UNIT], "run-1")
    first = claims.claim(engine, *UNIT, owner_id())
    assert first is not None and first.attempts == 1
    assert not row(engine)["queued"]  # running now: a new ask sends a new message
    assert claims.claim(engine, *UNIT, owner_id()) is None  # a live holder (this process) keeps it
    assert claims.mark_queued(engine, [UNIT], "run-1") == {UNIT[0]}
    # A holder killed on this host: its lease is taken over at once, not after it runs out.
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    host = owner_id().rsplit(":", 2)[0]
    with engine.begin() as conn:
        conn.execute(tasks.update().where(tasks.c.key == UNIT[0]).values(owner=f"{host}:{dead.stdout.strip()}:x"))
    second = claims.claim(engine, *UNIT, owner_id())
    assert second is not None and second.attempts == 2
    claims.finish(engine, second, "done")
    assert (row(engine)["state"], row(engine)["attempts"], row(engine)["owner"]) == ("done", 0, None)


def _killed(engine, key=UNIT[0]):
    """The unit's holder, as if killed on this host: a process that has exited."""
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    host = owner_id().rsplit(":", 2)[0]
    with engine.begin() as conn:
        conn.execute(tasks.update().where(tasks.c.key == key).values(owner=f"{host}:{dead.stdout.strip()}:x"))


def test_a_unit_whose_last_try_died_keeps_the_failure_it_had_and_counts_its_tries(engine):
    claims.mark_queued(engine, [UNIT], "run-1")
    for attempt in (1, 2):  # two tries fail on the material
        got = claims.claim(engine, *UNIT, owner_id())
        assert got.attempts == attempt and got.failed_with == (None if attempt == 1 else "ValueError: poisoned")
        claims.finish(engine, got, "retrying", "ValueError: poisoned", requeue=True)
    claims.claim(engine, *UNIT, owner_id())  # the third dies with its worker: no outcome recorded
    _killed(engine)
    again = claims.claim(engine, *UNIT, owner_id())
    assert again.attempts == 4 and again.failed_with == "ValueError: poisoned"
    error = claims.give_up(engine, again)
    assert error.startswith("ValueError: poisoned (gave up after 3 tries;") and "without an outcome" in error
    assert (row(engine)["state"], row(engine)["attempts"], row(engine)["error"]) == ("failed", 3, error)
    # Killed every time: nothing failed, and the record says so.
    other = ("analysis:8:zh", "write", {"event": 8, "language": "zh"})
    claims.mark_queued(engine, [other], "run-1")
    for _ in (1, 2):
        claims.claim(engine, *other, owner_id())
        _killed(engine, other[0])
    last = claims.claim(engine, *other, owner_id())
    assert last.failed_with is None
    assert claims.give_up(engine, last) == (
        "gave up after 2 tries that ended without an outcome (the worker died or was stopped each time)"
    )
    assert row(engine, other[0])["attempts"] == 2


def test_a_late_copy_of_a_unit_that_failed_for_good_leaves_its_record_as_it_was(engine):
    """CI's three-workers test, once: the poisoned analysis failed its third try ("poisoned
    material", recorded failed), then a copy of its message sent back while that try ran (another
    worker found it busy) claimed it a fourth time, and giving up wrote "gave up after 3 tries that
    ended without an outcome" over the refusal: no try had died."""
    claims.mark_queued(engine, [UNIT], "run-1")
    for attempt in (1, 2, 3):
        got = claims.claim(engine, *UNIT, owner_id())
        if attempt == 3:  # a second delivery while the third try runs: sent back for later
            assert claims.claim(engine, *UNIT, owner_id()) is None
            claims.mark_queued(engine, [UNIT], "run-1", force=True)
        claims.finish(engine, got, "retrying" if attempt < 3 else "failed", "ValueError: poisoned", requeue=attempt < 3)
    late = claims.claim(engine, *UNIT, owner_id())  # the copy arrives after the unit failed for good
    assert late.attempts == 4 and late.failed_for_good == "ValueError: poisoned"
    assert claims.give_up(engine, late) == "ValueError: poisoned"
    assert (row(engine)["state"], row(engine)["attempts"], row(engine)["error"], row(engine)["owner"]) == (
        "failed",
        3,
        "ValueError: poisoned",
        None,
    )


def test_a_unit_that_failed_for_good_waits_for_the_next_run(engine):
    claims.mark_queued(engine, [UNIT], "run-1")
    for attempt in (1, 2, 3):
        got = claims.claim(engine, *UNIT, owner_id())
        assert got.attempts == attempt
        claims.finish(engine, got, "retrying" if attempt < 3 else "failed", "ValueError: always", requeue=attempt < 3)
    assert (row(engine)["state"], row(engine)["error"]) == ("failed", "ValueError: always")
    assert claims.mark_queued(engine, [UNIT], "run-1") == set()  # not again in the run that gave up on it
    with engine.connect() as conn:
        assert claims.listed(conn, "failed")[0]["key"] == UNIT[0]
        board = claims.board(conn)
    assert [b for b in board if b["stage"] == "write"] == [
        {"stage": "write", "queued": 0, "running": 0, "failed": 1, "done": 0}
    ]
    assert claims.mark_queued(engine, [UNIT], "run-2") == {UNIT[0]}  # the next run tries again, with fresh tries
    assert claims.claim(engine, *UNIT, owner_id()).attempts == 1


@pytest.fixture
def fake():
    f = FakeEndpoint(default=lambda req: completion("ok", prompt_tokens=900, completion_tokens=200))
    yield f
    f.close()


def test_every_process_of_a_run_draws_on_one_budget_in_the_store(engine, fake):
    s = Settings()
    s.llm.backend, s.llm.base_url, s.llm.model, s.llm.budget_tokens = "openai", fake.base_url, "fake-model", 1000
    one, other = open_llm(s, engine, run_id="pass-1"), open_llm(s, engine, run_id="pass-1")  # two workers
    one.chat([{"role": "user", "content": "a"}], output="analysis")  # 1,100 tokens: the budget is spent
    with pytest.raises(BudgetExhausted):
        other.chat([{"role": "user", "content": "b"}], output="analysis")
    open_llm(s, engine, run_id="pass-2").chat([{"role": "user", "content": "b"}], output="analysis")  # the next pass
    assert len(fake.requests) == 2


def test_the_status_page_lists_the_workers_units_per_stage(sqlite_engine):
    from fastapi.testclient import TestClient

    from newsdesk.serve.app import create_app

    claims.mark_queued(
        sqlite_engine,
        [
            ("fetch:openai-blog", "ingest", {"source": "openai-blog"}),
            ("daily:2026-04-23", "daily", {"date": "2026-04-23"}),
        ],
        "run-1",
    )
    running = claims.claim(sqlite_engine, *UNIT, owner_id())
    failed = claims.claim(sqlite_engine, "analysis:8:en", "write", {"event": 8, "language": "en"}, owner_id())
    claims.finish(sqlite_engine, failed, "failed", "LLMError: HTTP 400 poisoned material")
    with TestClient(create_app(sqlite_engine, Settings())) as client:
        html = client.get("/status?ui=en").text
        data = client.get("/api/status").json()
    assert [(u["stage"], u["queued"], u["running"], u["failed"]) for u in data["units"]["stages"]] == [
        ("ingest", 1, 0, 0),
        ("write", 0, 1, 1),
        ("daily", 1, 0, 0),
    ]  # pipeline order
    assert [u["key"] for u in data["units"]["running"]] == [UNIT[0]] and running.owner == data["units"]["running"][0][
        "owner"
    ]
    assert data["units"]["failed"][0]["error"] == "LLMError: HTTP 400 poisoned material"
    assert "Workers&#39; units of work" in html or "Workers' units of work" in html
    assert 'id="unit-analysis:8:en"' in html and "poisoned material" in html
    assert 'id="units-write"' in html
