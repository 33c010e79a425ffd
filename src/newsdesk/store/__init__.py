"""Database access: one Engine per process, SQLite file by default, PostgreSQL by URL."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine
from sqlalchemy.exc import ArgumentError, DatabaseError

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


def unusable_store(exc: BaseException, url: str) -> StoreError:
    """The one line for a store that cannot be used: the driver's words and what to do. A damaged
    SQLite file is left exactly as it was, for the operator to recover or replace."""
    said = " ".join(str(getattr(exc, "orig", None) or exc).split())
    if damaged(exc):
        return StoreError(
            f"database {url!r} is damaged or not a SQLite file ({said}); newsdesk changed nothing in it: "
            "restore it from a backup, or move it aside (a new store starts empty; "
            "`sqlite3 FILE .recover` may save its rows)"
        )
    return StoreError(f"cannot open database {url!r}: {said}; check database_url and that the database is up")


def _sqlite_pragmas(dbapi_conn, _record) -> None:
    cur = dbapi_conn.cursor()
    # First: a connection that meets another's lock waits up to 30 s instead of failing,
    # and switching a new file to WAL below takes a lock too.
    cur.execute("PRAGMA busy_timeout=30000")
    # WAL lets the web app read while a run writes; a killed run loses at most its open transaction.
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA foreign_keys=ON")
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
        engine = create_engine(url, future=True, pool_pre_ping=True)
    except (ArgumentError, ImportError) as exc:
        raise StoreError(
            f"database URL {url!r} is not usable ({exc}); use sqlite:///path or postgresql://host/db"
        ) from None
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    if migrate_schema:
        try:
            migrate(engine)
        except DatabaseError as exc:  # the file is damaged or not SQLite, the server refuses or is gone
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
    return engine
