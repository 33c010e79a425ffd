"""Database access: one Engine per process, SQLite file by default, PostgreSQL by URL."""

from __future__ import annotations

import time
from pathlib import Path

from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine
from sqlalchemy.exc import ArgumentError, DatabaseError, OperationalError

from newsdesk.core.errors import NewsdeskError
from newsdesk.store.migrate import migrate
from newsdesk.store.schema import metadata  # noqa: F401  (re-exported for stages)


class StoreError(NewsdeskError):
    """The store cannot be opened; the message names the URL and the fix."""


def damaged(exc: BaseException) -> bool:
    """SQLite's words for a file that is not (or no longer) a database."""
    return isinstance(exc, DatabaseError) and any(
        words in str(exc.orig or exc) for words in ("file is not a database", "disk image is malformed")
    )


RECOVER = (
    "restore it from a backup, or move it aside (a new store starts empty; `sqlite3 FILE .recover` may save its rows)"
)


def unusable_store(exc: BaseException, url: str, *, found_while: str = "") -> StoreError:
    """The one line for a store that cannot be used: the driver's words and what to do. A damaged
    SQLite file found when it is opened is left exactly as it was, for the operator to recover or
    replace; one found later (`found_while`: what was running, and what it had stored) says that
    instead, since what was written before then is in it."""
    said = " ".join(str(getattr(exc, "orig", None) or exc).split())
    if damaged(exc):
        return damaged_store(url, said, found_while=found_while)
    return StoreError(f"cannot open database {url!r}: {said}; check database_url and that the database is up")


def damaged_store(url: str, said: str, *, found_while: str = "") -> StoreError:
    if found_while:
        return StoreError(f"database {url!r} is damaged ({said}); found {found_while}; stop newsdesk and {RECOVER}")
    return StoreError(
        f"database {url!r} is damaged or not a SQLite file ({said}); newsdesk changed nothing in it: {RECOVER}"
    )


# quick_check reads every page of the file and checks each b-tree's structure (it leaves out only
# integrity_check's index-against-table comparison): on a 398 MB store of 50,044 items, their vectors
# and events, it took 0.29-0.66 s on this project's 2-core machine, warm. A store damaged in its
# middle pages (header intact) opens and reads fine until a stage touches the page, and a run wrote
# thousands of items into one before a later stage met the damage; checked at open, nothing is
# written into it. `newsdesk doctor` runs the full integrity_check.
QUICK_CHECK_ERRORS = 5  # the first few problems name the damage; quick_check(N) stops after N


def check_store(engine: Engine) -> None:
    """Raise the damaged-store StoreError when SQLite's quick_check finds the file damaged."""
    if engine.dialect.name != "sqlite" or engine.url.database in (None, "", ":memory:"):
        return
    try:
        with engine.connect() as conn:
            found = [r[0] for r in conn.exec_driver_sql(f"PRAGMA quick_check({QUICK_CHECK_ERRORS})")]
    except DatabaseError as exc:  # too damaged to check: not a database, or a page it cannot read
        if locked(exc):
            raise  # another process's lock: open_store tries again
        if not damaged(exc):
            raise unusable_store(exc, str(engine.url)) from None
        said = " ".join(str(exc.orig or exc).split())
        raise damaged_store(str(engine.url), f"quick_check: {said}") from None
    if found != ["ok"]:
        raise damaged_store(str(engine.url), "quick_check: " + "; ".join(" ".join(f.split()) for f in found[:2]))


MMAP_BYTES = 1 << 30
# How long open_store keeps trying while SQLite answers "database is locked" at once: it does so,
# busy_timeout or not, where waiting could deadlock (a CI run saw one of four processes opening a
# new store at once fail so).
LOCKED_WAIT_SECONDS = 30.0


def locked(exc: BaseException) -> bool:
    """SQLite's "database is locked": another process's lock, not a fault of the store."""
    return isinstance(exc, OperationalError) and "database is locked" in str(getattr(exc, "orig", None) or exc)


def _sqlite_pragmas(dbapi_conn, _record) -> None:
    cur = dbapi_conn.cursor()
    # First: a connection that meets another's lock waits up to 30 s instead of failing,
    # and switching a new file to WAL below takes a lock too.
    cur.execute("PRAGMA busy_timeout=30000")
    # WAL lets the web app read while a run writes; a killed run loses at most its open transaction.
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA foreign_keys=ON")
    # Pages read through a memory map of the file, not copied by read() into each connection's own
    # page cache: the web app's many short reads on fresh pooled connections cost less CPU.
    cur.execute(f"PRAGMA mmap_size={MMAP_BYTES}")
    cur.close()


def open_store(url: str, *, migrate_schema: bool = True) -> Engine:
    """Open (and by default migrate) the store at `url`."""
    if url.startswith("postgres://"):
        url = "postgresql://" + url[len("postgres://") :]
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url[len("postgresql://") :]
    if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
        folder = Path(url[len("sqlite:///") :]).parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"cannot create the database folder {str(folder)!r} ({exc.strerror}); "
                "set data_dir or database_url to a writable place"
            ) from None
    try:
        # A pooled connection to an SQLite file cannot go stale: no ping (a statement) before each use.
        engine = create_engine(url, future=True, pool_pre_ping=not url.startswith("sqlite"))
    except (ArgumentError, ImportError) as exc:
        raise StoreError(
            f"database URL {url!r} is not usable ({exc}); use sqlite:///path or postgresql://host/db"
        ) from None
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    if migrate_schema:
        deadline = time.monotonic() + LOCKED_WAIT_SECONDS
        while True:
            try:
                _check_and_migrate(engine)
                break
            except OperationalError as exc:
                if not locked(exc) or time.monotonic() >= deadline:
                    raise unusable_store(exc, str(engine.url)) from None
                time.sleep(0.2)
    return engine


def _check_and_migrate(engine: Engine) -> None:
    check_store(engine)  # before the migration's first write
    try:
        migrate(engine)
    except DatabaseError as exc:  # the file is damaged or not SQLite, the server refuses or is gone
        if locked(exc):
            raise
        raise unusable_store(exc, str(engine.url)) from None
    except Exception as exc:
        # Alembic is imported here, not at the top: a store at the head never needs it (0.35 s).
        from alembic.util import CommandError

        if not isinstance(exc, CommandError):
            raise
        # a revision this version does not know: the store is newer
        raise StoreError(
            f"database {engine.url!r} cannot be migrated ({exc}); "
            "was it upgraded by a newer newsdesk? Install that version"
        ) from None
