"""Without PostgreSQL the suite skips what needs it and says so; NEWSDESK_REQUIRE_ALL=1 makes that a failure.
Where PostgreSQL's programs are installed, the suite can start a throwaway cluster of its own."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from conftest import postgres_programs, require

ROOT = Path(__file__).resolve().parents[1]


def _pytest(**env: str) -> subprocess.CompletedProcess:
    environ = {
        **os.environ,
        "PYTHONPATH": str(ROOT / "src"),
        "NEWSDESK_REQUIRE_ALL": "",
        "NEWSDESK_TEST_PG": "postgresql+psycopg://root@127.0.0.1:9/test",
        **env,
    }
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/test_store.py",
            "-k",
            "migrations_run_once",
        ],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_missing_postgresql_is_a_skip_with_a_reason_unless_everything_is_required():
    run = _pytest()
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 passed, 1 skipped" in run.stdout
    assert "not tested on this machine" in run.stdout and "PostgreSQL: not reachable" in run.stdout
    strict = _pytest(NEWSDESK_REQUIRE_ALL="1")
    assert strict.returncode == 1 and "NEWSDESK_REQUIRE_ALL=1 makes this a failure" in strict.stdout


def test_a_throwaway_cluster_serves_the_postgresql_tests_when_asked_for():
    """The path taken when 127.0.0.1:5432 does not answer, forced: initdb, pg_ctl start, the tests, removal."""
    require("PostgreSQL programs", None if postgres_programs() else "no initdb / pg_ctl installed")
    before = set(Path(tempfile.gettempdir()).glob("newsdesk-pg-*"))
    run = _pytest(NEWSDESK_TEST_PG="throwaway")
    assert run.returncode == 0 and "2 passed" in run.stdout, run.stdout + run.stderr  # on SQLite and PostgreSQL
    assert "PostgreSQL: a throwaway cluster" in run.stdout and "not tested" not in run.stdout
    assert set(Path(tempfile.gettempdir()).glob("newsdesk-pg-*")) == before  # stopped and removed at the end
