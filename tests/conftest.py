"""Shared fixtures: real stores (SQLite file and PostgreSQL) and the shared data folder.

A test that needs a service this machine lacks (PostgreSQL, Chromium) is skipped, and the run
ends by saying what it could not test. NEWSDESK_REQUIRE_ALL=1 (set by .ci/run) turns those
skips into failures, so CI always runs everything.
"""

from __future__ import annotations

import functools
import os
import uuid
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import OperationalError

from newsdesk.store import open_store

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("NEWSDESK_SHARED", ROOT.parent / "shared"))
PG_URL = os.environ.get("NEWSDESK_TEST_PG", "postgresql+psycopg://root@127.0.0.1:5432/test")
REQUIRE_ALL = os.environ.get("NEWSDESK_REQUIRE_ALL", "") not in ("", "0")
_missing: dict[str, str] = {}  # service -> why, for the summary at the end


def require(service: str, problem: str | None) -> None:
    """Skip (or with NEWSDESK_REQUIRE_ALL=1, fail) the test when `problem` says a service is missing."""
    if problem is None:
        return
    if REQUIRE_ALL:
        pytest.fail(f"{service}: {problem} (NEWSDESK_REQUIRE_ALL=1 makes this a failure)", pytrace=False)
    _missing[service] = problem
    pytest.skip(f"{service}: {problem}")


@functools.cache
def _postgres_problem() -> str | None:
    try:
        engine = create_engine(PG_URL, connect_args={"connect_timeout": 3})
        with engine.connect():
            pass
        engine.dispose()
    except (OperationalError, ImportError) as exc:
        first = str(getattr(exc, "orig", exc)).strip().splitlines()[0]
        return f"not reachable at {PG_URL} ({first}); start it or set NEWSDESK_TEST_PG"
    return None


def pytest_terminal_summary(terminalreporter) -> None:
    if _missing:
        terminalreporter.section("not tested on this machine")
        for service, why in sorted(_missing.items()):
            terminalreporter.write_line(f"{service}: {why}")
        terminalreporter.write_line("those tests were skipped; NEWSDESK_REQUIRE_ALL=1 (as .ci/run sets) makes them fail")


@pytest.fixture(scope="session")
def shared() -> Path:
    assert SHARED.is_dir(), f"{SHARED} missing: tests read ../shared beside the project"
    return SHARED


@pytest.fixture
def sqlite_url(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'newsdesk.db'}"


@pytest.fixture
def pg_url():
    """A private PostgreSQL schema per test, so tests (and parallel runs) never collide."""
    require("PostgreSQL", _postgres_problem())
    schema = "t_" + uuid.uuid4().hex[:12]
    admin = create_engine(PG_URL)
    with admin.begin() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    yield f"{PG_URL}?options=-csearch_path%3D{schema}"
    with admin.begin() as conn:
        conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
    admin.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request, tmp_path) -> str:
    if request.param == "sqlite":
        return request.getfixturevalue("sqlite_url")
    return request.getfixturevalue("pg_url")


@pytest.fixture
def engine(store_url):
    eng = open_store(store_url)
    yield eng
    eng.dispose()


@pytest.fixture
def sqlite_engine(sqlite_url):
    eng = open_store(sqlite_url)
    yield eng
    eng.dispose()
