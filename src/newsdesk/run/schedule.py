"""The newsroom on one machine, always on: `newsdesk run --every 30m` and `newsdesk serve --every 30m`.

No broker: one loop in one process.
- Sources are polled each at its own interval (ingest/poll.py): whenever some are due, an ingest
  run fetches just those.
- The later stages (cluster → … → push) run as one pass every `every`, in pipeline order. A pass
  that overruns its interval is followed by the next one at once, never by two at once; and each
  stage holds its lease (store/stage_runs.py), so a `newsdesk run` or a second scheduler on the
  same store never runs the same stage alongside it.
- A stage that fails is recorded (stage_runs) and said; the other stages run, and the failed one
  is tried again on the next pass.
- `stop` (set by Ctrl-C / SIGTERM) ends the loop between stages: the stage running finishes and
  stores its work; nothing is cut mid-stage.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from sqlalchemy.engine import Engine

from newsdesk.core.config import Settings
from newsdesk.core.errors import error_line
from newsdesk.ingest.catalog import load_catalog
from newsdesk.ingest.poll import due_sources, next_poll, short
from newsdesk.llm.chat import ChatModel
from newsdesk.run.pipeline import STAGE_NAMES, Limits, RunReport, Watcher, run_pipeline
from newsdesk.store.items import prune_fetches, sync_sources
from newsdesk.store.stage_runs import mark_interrupted, prune_runs, set_next_due

LATER = [name for name in STAGE_NAMES if name != "ingest"]  # one pass of these every `every`
TICK = 60.0  # the loop looks for due sources at least this often (a source added in the web app is due at once)


def _now() -> datetime:
    return datetime.now(UTC)


@dataclass
class Scheduler:
    engine: Engine
    settings: Settings
    every: float  # seconds between passes of the later stages
    stop: threading.Event
    watcher: Watcher | None = None
    say: Callable[[str], None] = lambda line: None  # one line per pass and per problem
    limits: Limits = Limits()
    llm: ChatModel | None = None  # a test's scripted model; None = the configured one
    passes: int = 0  # passes of the later stages done
    _catalog_errors: list[str] = field(default_factory=list, init=False)
    _next_pass: datetime = field(default_factory=_now, init=False)
    _fetches_pruned: datetime | None = field(default=None, init=False)

    def run(self) -> None:
        """Loop until `stop` is set."""
        gone = mark_interrupted(self.engine)
        if gone:
            self.say(f"{gone} stage run(s) left running by a process that ended are marked interrupted")
        self._next_pass = _now()
        while not self.stop.is_set():
            try:
                self._tick()
            except Exception as exc:  # a store that hiccups (locked, restarting) must not end an always-on newsroom
                self.say(f"the loop met {error_line(exc)}; trying again in {short(TICK)}")
                self.stop.wait(TICK)

    def _tick(self) -> None:
        self._poll_due_sources()
        if self.stop.is_set():
            return
        if _now() >= self._next_pass:
            started = _now()
            set_next_due(self.engine, LATER, None)
            self._pass()
            # The next pass starts `every` after this one started; an overrun pass is followed at once.
            self._next_pass = max(started + timedelta(seconds=self.every), _now())
            set_next_due(self.engine, LATER, self._next_pass)
            prune_runs(self.engine)
            # Once a day: its look at every source's landmarks reads the whole fetch table (0.45 s at a
            # year of hourly polls of 300 sources); the first, after months, takes longer (13 s there).
            if self._fetches_pruned is None or _now() - self._fetches_pruned > timedelta(days=1):
                prune_fetches(self.engine)
                self._fetches_pruned = _now()
        self._wait_until(self._next_pass)

    def _poll_due_sources(self) -> None:
        # The catalog files are read each time: a source added to them is polled without a restart.
        catalog, errors = load_catalog(self.settings)
        with self.engine.begin() as conn:
            sync_sources(conn, catalog)
            due = due_sources(conn, _now())
        if errors != self._catalog_errors:  # said once, not every minute
            for problem in errors:
                self.say(f"catalog: {problem}")
            self._catalog_errors = errors
        if not due:
            return
        report = self._run(["ingest"], sources=due)
        self._said(report, f"polled {len(due)} due source{'s' if len(due) > 1 else ''}")

    def _pass(self) -> None:
        self.passes += 1
        report = self._run(LATER)
        self._said(report, f"pass {self.passes}")

    def _run(self, stages: list[str], sources: list[str] | None = None) -> RunReport:
        return run_pipeline(
            self.engine,
            self.settings,
            stages=stages,
            sources=sources,
            limits=self.limits,
            llm=self.llm,
            watcher=self.watcher,
            should_stop=self.stop.is_set,
        )

    def _said(self, report: RunReport, what: str) -> None:
        failed = [name for name, status in report.status.items() if status == "failed"]
        ran = len(report.status)
        state = f"{ran} stage{'s' if ran != 1 else ''} in {report.total_seconds:.1f}s"
        if self.stop.is_set() and report.status:
            state += f", stopped after {list(report.status)[-1]}"
        self.say(f"{what}: {state}" + (f"; failed: {', '.join(failed)} (tried again next pass)" if failed else ""))
        for problem in report.in_short:  # each failing source's line is in the status page
            self.say(f"  problem: {problem}")

    def _wait_until(self, next_pass: datetime) -> None:
        with self.engine.connect() as conn:
            poll = next_poll(conn)
        set_next_due(self.engine, ["ingest"], poll)
        now = _now()
        # A poll time already past belongs to a source just tried and skipped (another worker holds
        # its lease): look again after a TICK rather than at once.
        wake = min(next_pass, poll if poll and poll > now else next_pass, now + timedelta(seconds=TICK))
        seconds = max(0.0, (wake - _now()).total_seconds())
        if seconds >= 1:
            self.say(
                f"next pass at {next_pass:%H:%M:%S} UTC"
                + (f", next source poll at {poll:%H:%M:%S} UTC" if poll else "")
                + f"; sleeping {short(seconds)}"
            )
        self.stop.wait(seconds)


def run_every(engine: Engine, settings: Settings, every: float, stop: threading.Event, **kw) -> Scheduler:
    """Run the scheduler until `stop` is set; returns it (passes done)."""
    scheduler = Scheduler(engine, settings, every, stop, **kw)
    scheduler.run()
    return scheduler
