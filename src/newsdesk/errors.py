"""The one base of every error a user or a remote server can cause, and the exit codes.

An error carries one line: the thing (file, setting, URL, source), what is wrong with it
and the fix. The CLI prints that line and exits with the error's `exit_code`, in one
place (cli.NewsdeskGroup), so a scheduler can tell the kinds of failure apart:

    0  all well
    1  some sources or parts failed; the rest was done and stored (try again later)
    2  a usage or settings error; nothing useful ran (a person must fix something)
"""

from __future__ import annotations

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
