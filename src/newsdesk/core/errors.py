"""The one base of every error a user or a remote server can cause, and the exit codes.

An error carries one line: the thing (file, setting, URL, source), what is wrong with it
and the fix. The CLI prints that line and exits with the error's `exit_code`, in one
place (cli.NewsdeskGroup), so a scheduler can tell the kinds of failure apart:

    0  all well
    1  some sources or parts failed; the rest was done and stored (try again later)
    2  a usage or settings error; nothing useful ran (a person must fix something)
"""

from __future__ import annotations

import logging

log = logging.getLogger("newsdesk")

OK = 0
PARTIAL = 1
USAGE = 2


class NewsdeskError(Exception):
    """One line naming the problem and the fix. `problem` and `fix` are kept apart for callers
    that show them apart; most raisers write both into `problem` as one sentence."""

    exit_code = USAGE

    def __init__(self, problem: str, fix: str = ""):
        super().__init__(f"{problem}; {fix}" if fix else problem)
        self.problem = problem
        self.fix = fix


class EvalFileError(NewsdeskError):
    """A labelled evaluation file is unusable; the message names the file, line or entry and field."""


def error_line(exc: BaseException) -> str:
    """An exception as the one line an operator sees and the store keeps (a stage's, a source's or a
    unit's error): a NewsdeskError's own line; a database error's driver message, never the
    statement and parameters SQLAlchemy appends to it (a dropped connection printed 711 characters
    of them), which go to the debug log (`newsdesk --debug`); anything else as its type and text."""
    from sqlalchemy.exc import DBAPIError

    if isinstance(exc, NewsdeskError):
        return " ".join(str(exc).split())
    if isinstance(exc, DBAPIError) and exc.orig is not None:
        log.debug("database error, with its statement: %s", exc, exc_info=exc)
        said = " ".join(str(exc.orig).split()) or type(exc.orig).__name__
        lost = exc.connection_invalidated or _lost_connection(said)
        fix = (
            (
                "the connection to the database was lost; check that the database at database_url is up, "
                "the next run retries"
            )
            if lost
            else "check the database at database_url"
        )
        return f"database error: {said}; {fix}"
    return " ".join(f"{type(exc).__name__}: {exc}".split())


def _lost_connection(said: str) -> bool:
    said = said.lower()
    return any(
        words in said
        for words in (
            "server closed the connection",
            "terminating connection",
            "connection is closed",
            "could not receive data",
        )
    )
