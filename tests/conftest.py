"""Shared fixtures: real stores (SQLite file and PostgreSQL) and the real data the tests read.

A test that needs a service this machine lacks (PostgreSQL, Chromium) is skipped, and the run
ends by saying what it could not test. NEWSDESK_REQUIRE_ALL=1 (set by .ci/run) turns those
skips into failures, so CI always runs everything.

PostgreSQL: NEWSDESK_TEST_PG names the server (default 127.0.0.1:5432, database `test`). When
it is not set and that server does not answer, but PostgreSQL's programs are installed
(initdb, pg_ctl), the suite starts a throwaway cluster in a temporary folder for the session
and removes it at the end; NEWSDESK_TEST_PG=throwaway asks for one outright.
"""

from __future__ import annotations

import functools
import glob
import os
import shutil
import subprocess
import tempfile
import uuid
from importlib import resources
from pathlib import Path

import pytest
from loopback import free_port
from sqlalchemy import create_engine, text
from sqlalchemy.exc import OperationalError

from newsdesk.store import open_store

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"  # real feeds, news, transcripts, audio (README.md in each folder)
EVAL = ROOT / "eval"  # labelled eval sets (clusters, faithfulness, editorial)
PG_DEFAULT = "postgresql+psycopg://root@127.0.0.1:5432/test"
PG_CHOICE = os.environ.get("NEWSDESK_TEST_PG", "")  # a URL, "throwaway", or empty (the default, else a throwaway)
REQUIRE_ALL = os.environ.get("NEWSDESK_REQUIRE_ALL", "") not in ("", "0")
PACK = Path(str(resources.files("newsdesk") / "data" / "demo"))  # the bundled demo pack (`newsdesk demo`)
DEMO_TOKEN = "mcp-test-token"  # the operator token of the `demo` fixture's settings
CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = ROOT / "test-artifacts"  # screenshots the browser tests leave for a person to look at
_missing: dict[str, str] = {}  # service -> why, for the summary at the end
_notes: list[str] = []  # what the run used instead, for the summary


def require(service: str, problem: str | None) -> None:
    """Skip (or with NEWSDESK_REQUIRE_ALL=1, fail) the test when `problem` says a service is missing."""
    if problem is None:
        return
    if REQUIRE_ALL:
        pytest.fail(f"{service}: {problem} (NEWSDESK_REQUIRE_ALL=1 makes this a failure)", pytrace=False)
    _missing[service] = problem
    pytest.skip(f"{service}: {problem}")


def _unreachable(url: str) -> str | None:
    try:
        engine = create_engine(url, connect_args={"connect_timeout": 3})
        with engine.connect():
            pass
        engine.dispose()
    except (OperationalError, ImportError) as exc:
        first = str(getattr(exc, "orig", exc)).strip().splitlines()[0]
        return f"not reachable at {url} ({first})"
    return None


def postgres_programs() -> Path | None:
    """The folder holding initdb and pg_ctl: on PATH, else Debian's /usr/lib/postgresql/N/bin."""
    found = shutil.which("initdb"), shutil.which("pg_ctl")
    if all(found) and Path(found[0]).resolve().parent == Path(found[1]).resolve().parent:
        return Path(found[0]).resolve().parent
    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda f: int(f.split("/")[-2]), reverse=True):
        if (Path(folder) / "initdb").is_file() and (Path(folder) / "pg_ctl").is_file():
            return Path(folder)
    return None


class ThrowawayPostgres:
    """A PostgreSQL cluster of its own in a temporary folder, on a free loopback port, trust auth.

    PostgreSQL refuses to run as root, so under root it runs as the `postgres` user (or `nobody`)."""

    def __init__(self, programs: Path):
        self.programs = programs
        self.folder = Path(tempfile.mkdtemp(prefix="newsdesk-pg-"))
        self.data = self.folder / "data"
        self.user: dict = {}
        if os.geteuid() == 0:
            import pwd

            name = next(n for n in ("postgres", "nobody") if _has_user(n))
            entry = pwd.getpwnam(name)
            self.user = {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": []}
            os.chown(self.folder, entry.pw_uid, entry.pw_gid)
        self.port = free_port()

    def _run(self, *args: str) -> None:
        done = subprocess.run(
            [str(self.programs / args[0]), *args[1:]],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=self.folder,
            **self.user,
        )
        if done.returncode != 0:
            raise RuntimeError(f"{args[0]} failed: {(done.stderr or done.stdout).strip()[-500:]}")

    def start(self) -> str:
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "root", "-E", "UTF8", "--locale=C", "--no-sync")
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run(
            "pg_ctl", "-D", str(self.data), "-l", str(self.folder / "log"), "-o", options, "-w", "-t", "60", "start"
        )
        url = f"postgresql+psycopg://root@127.0.0.1:{self.port}/postgres"
        admin = create_engine(url, isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(text("CREATE DATABASE test"))
        admin.dispose()
        return url.rsplit("/", 1)[0] + "/test"

    def stop(self) -> None:
        if (self.data / "postmaster.pid").exists():
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.folder, ignore_errors=True)


def _has_user(name: str) -> bool:
    import pwd

    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


_throwaway: list[ThrowawayPostgres] = []


@functools.cache
def postgres() -> tuple[str | None, str | None]:
    """(URL, None) of the PostgreSQL the tests use, or (None, why there is none)."""
    if PG_CHOICE and PG_CHOICE != "throwaway":
        problem = _unreachable(PG_CHOICE)
        return (None, f"{problem}; start it or unset NEWSDESK_TEST_PG") if problem else (PG_CHOICE, None)
    problem = None if PG_CHOICE == "throwaway" else _unreachable(PG_DEFAULT)
    if PG_CHOICE != "throwaway" and problem is None:
        return PG_DEFAULT, None
    programs = postgres_programs()
    if programs is None:
        why = problem or "NEWSDESK_TEST_PG=throwaway"
        return (
            None,
            f"{why}, and no initdb / pg_ctl to start a throwaway cluster; start PostgreSQL or set NEWSDESK_TEST_PG",
        )
    cluster = ThrowawayPostgres(programs)
    try:
        url = cluster.start()
    except (RuntimeError, OSError, subprocess.TimeoutExpired, OperationalError) as exc:
        cluster.stop()
        return None, f"{problem or 'asked for a throwaway cluster'}; starting one with {programs}/initdb failed ({exc})"
    _throwaway.append(cluster)
    _notes.append(
        f"PostgreSQL: a throwaway cluster ({programs}) on 127.0.0.1:{cluster.port}, removed at the end"
        + (f", since nothing answered at {PG_DEFAULT}" if problem else "")
    )
    return url, None


def pytest_sessionfinish(session, exitstatus) -> None:
    while _throwaway:
        _throwaway.pop().stop()


def pytest_terminal_summary(terminalreporter) -> None:
    for note in _notes:
        terminalreporter.write_line(note)
    if _missing:
        terminalreporter.section("not tested on this machine")
        for service, why in sorted(_missing.items()):
            terminalreporter.write_line(f"{service}: {why}")
        terminalreporter.write_line(
            "those tests were skipped; NEWSDESK_REQUIRE_ALL=1 (as .ci/run sets) makes them fail"
        )


@pytest.fixture(scope="session")
def fixtures() -> Path:
    """tests/fixtures: the real data files the tests read, each folder's origin and licence in its README."""
    return FIXTURES


@pytest.fixture(scope="session")
def eval_sets() -> Path:
    """eval/: the labelled sets the evaluators read."""
    return EVAL


@pytest.fixture
def sqlite_url(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'newsdesk.db'}"


@pytest.fixture
def pg_url():
    """A private PostgreSQL schema per test, so tests (and parallel runs) never collide."""
    url, problem = postgres()
    require("PostgreSQL", problem)
    schema = "t_" + uuid.uuid4().hex[:12]
    admin = create_engine(url)
    with admin.begin() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    yield f"{url}?options=-csearch_path%3D{schema}"
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


# --- fixtures more than one test module uses ---------------------------------------------------


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """The demo pack run through every stage, a scripted writer standing in for the model."""
    from fakes import StageFake

    from newsdesk.core.config import Settings
    from newsdesk.run.pipeline import DEMO_LIMITS, run_pipeline

    data = tmp_path_factory.mktemp("demo")
    s = Settings(data_dir=str(data), site_dir=str(data / "site"), web_token=DEMO_TOKEN)
    engine = open_store(s.database)
    report = run_pipeline(engine, s, limits=DEMO_LIMITS, source=PACK, llm=StageFake(engine))
    assert report.problems == []
    yield s, engine
    engine.dispose()


@pytest.fixture(scope="module")
def demo_briefs(tmp_path_factory):
    """The demo pack ingested, clustered and ranked: (settings, engine, event briefs by importance)."""
    from datetime import UTC, datetime

    from sqlalchemy import select

    from newsdesk.cluster import cluster_new_items, event_brief
    from newsdesk.core.config import Settings
    from newsdesk.ingest.run import ingest
    from newsdesk.rank.score import rank_events
    from newsdesk.store.schema import events

    s = Settings(data_dir=str(tmp_path_factory.mktemp("demo")))
    engine = open_store(s.database)
    ingest(engine, s, PACK / "feeds")
    cluster_new_items(engine, s)
    rank_events(engine, s, now=datetime(2025, 3, 3, tzinfo=UTC))
    with engine.begin() as conn:
        ids = [r.id for r in conn.execute(select(events.c.id).order_by(events.c.importance.desc()))]
        briefs = [event_brief(conn, i) for i in ids]
    return s, engine, briefs


@pytest.fixture
def page():
    require(
        "Chromium",
        None
        if Path(CHROMIUM).exists()
        else f"{CHROMIUM} missing; install Debian's chromium (apt-get install -y chromium), as .ci/run does",
    )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        context = browser.new_context(viewport={"width": 1200, "height": 900}, locale="zh-CN")
        # Nothing may leave loopback: a request elsewhere fails the test instead of reaching the network.
        outside: list[str] = []

        def guard(route):
            url = route.request.url
            if url.startswith("http://127.0.0.1:") or url.startswith("data:") or url.startswith("about:"):
                route.continue_()
            else:
                outside.append(url)
                route.abort()

        context.route("**/*", guard)
        pg = context.new_page()
        pg.set_default_timeout(15000)
        yield pg
        context.close()
        browser.close()
        assert outside == [], f"the pages asked for off-machine resources: {outside}"


@pytest.fixture
def memo_kind():
    """A throwaway edition kind (tests/memo_kind.py) registered as its files would register it, and taken out again."""
    import memo_kind as memo

    try:
        yield memo.register()
    finally:
        memo.unregister()
