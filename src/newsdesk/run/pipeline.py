"""The pipeline as a list of named stages: `newsdesk run` calls them in order, a worker calls one by name.

    ingest → cluster → stories → rank → write → daily → weekly → episode → publish → search → push

    run_pipeline(engine, settings)                       # every stage, in order
    run_pipeline(engine, settings, stages=["cluster"])   # one stage, as a task-queue worker would

Each stage finds its work in the store (items in no event, events whose material
changed, days and weeks whose events changed), so a second run with no new input does
no work and makes no model call. A stage that fails records why (a problem) and the run
goes on with the others; what they store is kept.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import and_, func, select
from sqlalchemy.engine import Engine

from newsdesk.core.config import Settings
from newsdesk.core.errors import NewsdeskError, error_line
from newsdesk.llm.chat import ChatModel
from newsdesk.llm.client import LazyLLM
from newsdesk.publish.outputs import KINDS, EditionKind
from newsdesk.store import damaged, unusable_store
from newsdesk.store.leases import owner_id
from newsdesk.store.schema import editions, llm_usage
from newsdesk.store.stage_runs import run_finished, run_started, stage_holder, stage_lease
from newsdesk.write.writers import ModelWriters, Writers, writers


@dataclass(frozen=True)
class Limits:
    """Caps on one run's model work. None = the product's defaults: every event, full weeklies.

    The demo uses small ones: the embedded 0.5B model writes ~16 tokens/s on 2 cores.
    """

    analyses: int | None = None  # the N most important events get full analyses; the rest list their sources
    weekly_sections: int | None = None  # themes in the weekly (at least 3)
    weekly_items: int | None = None  # events written up per theme
    weekly_briefs: int | None = None  # events in 本周简讯

    def weekly(self) -> dict:
        caps = {
            "max_sections": self.weekly_sections,
            "per_section": self.weekly_items,
            "max_briefs": self.weekly_briefs,
        }
        return {k: v for k, v in caps.items() if v is not None}


DEMO_LIMITS = Limits(analyses=1, weekly_sections=3, weekly_items=3, weekly_briefs=6)


# --- stages -----------------------------------------------------------------------------


@dataclass
class RunContext:
    """What a stage may use. Everything else it needs, it finds in the store."""

    engine: Engine
    settings: Settings
    llm: ChatModel  # LazyLLM, or a test's scripted model
    run_id: str
    limits: Limits = Limits()
    source: Path | None = None  # ingest: replay a directory or import a .jsonl file instead of fetching
    sources: list[str] | None = None  # ingest: only these source ids (the scheduler passes the due ones); None = all
    writers: Writers | None = None  # who writes; None = as [write] by says (write.writers.writers)
    progress: Callable[[int, int | None], None] = lambda done, total: None  # (done, total) of this stage's units
    note: Callable[[str], None] = lambda line: None  # what this stage is doing now

    def __post_init__(self):
        # Chosen here, once, so no caller (the CLI, a worker, the scheduler) can leave it unset.
        if self.writers is None:
            self.writers = writers(self.settings, self.llm)


@dataclass
class StageResult:
    facts: dict[str, object] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)  # one line each; the stage's other work is stored
    # The problems as a terminal shows them without -v (None: as they are): a hundred failing
    # sources are one line by cause there, and each its own line in the stage's record.
    in_short: list[str] | None = None


@dataclass(frozen=True)
class Stage:
    name: str
    run: Callable[[RunContext], StageResult]
    # The broker queue that carries its units on the Celery workers (run/units.py): a worker started
    # with --queues takes only those, e.g. machines near the model endpoint take `write`.
    queue: str


def ingest_stage(ctx: RunContext) -> StageResult:
    from newsdesk.ingest import failures
    from newsdesk.ingest.run import ingest

    if ctx.sources is not None and not ctx.sources:
        return StageResult({"sources_fetched": 0})
    report = ingest(ctx.engine, ctx.settings, ctx.source, ctx.sources, progress=ctx.progress)
    failed = [(o.source_id, o.error or "") for o in report.failed]
    catalog = [f"catalog: {line}" for line in report.catalog_errors]
    # What a user imports or replays and was not stored is named item by item.
    refused = [f"not imported: {line}" for line in (report.refused if ctx.source is not None else [])]
    return StageResult(
        facts={
            "sources_fetched": len(report.outcomes) - len(report.skipped),
            "items_new": report.new,
            "items_updated": report.updated,
            "sources_failed": len(report.failed),
        },
        problems=catalog + [f"{source_id}: {error}" for source_id, error in failed] + refused,
        in_short=catalog + failures.lines(failed, len(report.outcomes) - len(report.skipped)) + refused,
    )


def cluster_stage(ctx: RunContext) -> StageResult:
    from newsdesk.cluster import cluster_new_items

    arbiter = None
    if ctx.settings.llm.arbitrate_merges:
        from newsdesk.cluster.arbiter import llm_arbiter

        arbiter = llm_arbiter(ctx.llm)
    stats = cluster_new_items(ctx.engine, ctx.settings, arbiter=arbiter, progress=ctx.progress)
    return StageResult({"items_clustered": stats.items})


def stories_stage(ctx: RunContext) -> StageResult:
    from newsdesk.stories.threads import link_stories

    stats = link_stories(ctx.engine, ctx.settings)
    return StageResult({"events_followed_up": stats.linked})


def rank_stage(ctx: RunContext) -> StageResult:
    from newsdesk.rank.score import rank_events

    rank_events(ctx.engine, ctx.settings)
    return StageResult()


def write_stage(ctx: RunContext) -> StageResult:
    stats = ctx.writers.cards(
        ctx.engine, ctx.settings, limit=ctx.limits.analyses, progress=ctx.note, counted=ctx.progress
    )
    result = StageResult({"analyses_written": stats.written, "analyses_flagged": stats.flagged})
    if stats.translated:
        result.facts["analyses_translated"] = stats.translated
    result.problems += stats.errors
    if stats.unavailable:  # the status page and the run's summary say the readers got extractive cards
        result.facts["analyses_extractive_fallback"] = stats.fallback
        result.problems.append(f"{stats.stopped}; {_STOOD_IN} {stats.fallback} event cards without one")
    elif stats.stopped:
        result.problems.append(stats.stopped)
    return result


_STOOD_IN = "the extractive writer (no model) wrote in its place:"


def edition_stage(kind: EditionKind) -> Callable[[RunContext], StageResult]:
    """The stage of one kind of edition: its build (editions/build.py), with this run's writers and caps."""

    def run(ctx: RunContext) -> StageResult:
        assert ctx.writers is not None  # chosen in __post_init__
        before = len(getattr(ctx.writers, "stood_in", []))
        result = StageResult(
            kind.build(ctx.engine, ctx.settings, ctx.writers, caps=ctx.limits.weekly(), progress=ctx.progress)
        )
        stood_in = getattr(ctx.writers, "stood_in", [])[before:]
        if stood_in:  # the model's endpoint could not answer: said on the status page, as the write stage does
            result.problems.append(f"{getattr(ctx.writers, 'unavailable', '')}; {_STOOD_IN} {', '.join(stood_in)}")
        return result

    return run


def publish_stage(ctx: RunContext) -> StageResult:
    from newsdesk.publish.site import publish_site

    stats = publish_site(ctx.engine, ctx.settings)
    return StageResult({"site_dir": stats.site_dir, "site_files_written": stats.written}, problems=stats.warnings)


def search_stage(ctx: RunContext) -> StageResult:
    from newsdesk.search.index import SearchIndex

    # What this run stored is searchable in the web app at once, not after a server restart.
    return StageResult({"search_indexed": SearchIndex(ctx.engine).refresh()})


def push_stage(ctx: RunContext) -> StageResult:
    from newsdesk.push.send import push_due

    report = push_due(ctx.engine, ctx.settings, say=ctx.note)
    result = StageResult({"pushed": report.sent, "push_failed": report.failed})
    result.problems += report.problems
    return result


def kind_stage(kind: EditionKind) -> Stage:
    """An edition kind's stage, on the queue of the model's machines when it has written parts."""
    return Stage(kind.name, edition_stage(kind), "write" if kind.written else "editions")


STAGES = [
    Stage("ingest", ingest_stage, "fetch"),
    Stage("cluster", cluster_stage, "cluster"),
    Stage("stories", stories_stage, "cluster"),
    Stage("rank", rank_stage, "cluster"),
    Stage("write", write_stage, "write"),
    *(kind_stage(kind) for kind in KINDS),
    Stage("publish", publish_stage, "publish"),
    Stage("search", search_stage, "publish"),
    Stage("push", push_stage, "publish"),
]
STAGE_NAMES = [s.name for s in STAGES]


def stage(name: str) -> Stage:
    for s in STAGES:
        if s.name == name:
            return s
    raise NewsdeskError(f"no stage named {name!r}", f"use one of {', '.join(STAGE_NAMES)}")


# --- a run ------------------------------------------------------------------------------


@dataclass
class RunReport:
    run_id: str
    seconds: dict[str, float] = field(default_factory=dict)
    facts: dict[str, object] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    in_short: list[str] = field(default_factory=list)  # the problems as printed without -v (StageResult.in_short)
    model_calls: int = 0  # calls the model answered (a cached answer is no call)
    model_failed: int = 0  # calls that returned no answer (refused, unreachable, an error status)
    # The endpoint's error when it could not answer and the extractive writer wrote in its place.
    model_unavailable: str | None = None
    status: dict[str, str] = field(
        default_factory=dict
    )  # stage -> ok | problems | failed | busy (another process ran it)

    @property
    def total_seconds(self) -> float:
        return sum(self.seconds.values())


class Watcher:
    """What a runner shows while stages run (the CLI draws it with Rich); by default nothing."""

    def started(self, name: str) -> None: ...

    def progress(self, name: str, done: int, total: int | None) -> None: ...

    def note(self, name: str, line: str) -> None: ...

    def finished(self, name: str, seconds: float, result: StageResult | None) -> None: ...


def run_pipeline(
    engine: Engine,
    settings: Settings,
    *,
    stages: list[str] | None = None,
    limits: Limits = Limits(),
    source: Path | None = None,
    sources: list[str] | None = None,
    llm: ChatModel | None = None,
    watcher: Watcher | None = None,
    should_stop: Callable[[], bool] = lambda: False,
) -> RunReport:
    """Run the named stages (default: all, in order) once each. `source` replays a directory or
    imports a .jsonl file in the ingest stage; `sources` limits ingest to those source ids; `llm`
    replaces the configured model (tests pass a scripted one), so a run given one writes with it
    whatever [write] by says; `should_stop` is asked before each stage (the scheduler stops
    between stages when told to).

    Each stage runs under its lease (one pass of a stage at a time, across every process sharing
    the store: a stage another process is running is skipped and said) and leaves a stage_runs row."""
    report = RunReport(run_id=uuid.uuid4().hex[:12])
    watcher = watcher or Watcher()
    lazy = LazyLLM(settings, engine, run_id=report.run_id)
    chosen = ModelWriters(llm) if llm is not None else writers(settings, lazy)
    owner = owner_id()
    for st in [stage(name) for name in stages] if stages is not None else STAGES:
        if should_stop():
            break
        ctx = RunContext(
            engine,
            settings,
            llm or lazy,
            report.run_id,
            limits,
            source,
            sources,
            chosen,
            progress=lambda done, total, name=st.name: watcher.progress(name, done, total),
            note=lambda line, name=st.name: watcher.note(name, line),
        )
        with stage_lease(engine, st.name, owner) as held:
            if not held:
                report.status[st.name] = "busy"
                report.problems.append(
                    f"{st.name}: not run: {stage_holder(engine, st.name)} is running it; it runs again on the next pass"
                )
                report.in_short.append(report.problems[-1])
                continue
            watcher.started(st.name)
            result, error = _run_stage(st, ctx, owner, report)
        if result is not None:
            report.facts.update(result.facts)
            report.problems += [f"{st.name}: {line}" for line in result.problems]
            short = result.problems if result.in_short is None else result.in_short
            report.in_short += [f"{st.name}: {line}" for line in short]
        elif error:
            report.problems.append(f"{st.name}: {error}")
            report.in_short.append(report.problems[-1])
        watcher.finished(st.name, report.seconds[st.name], result)
    if lazy.opened:
        report.model_calls, report.model_failed = _model_calls(engine, report.run_id)
    report.model_unavailable = getattr(chosen, "unavailable", None)
    return report


def _run_stage(st: Stage, ctx: RunContext, owner: str, report: RunReport) -> tuple[StageResult | None, str | None]:
    """One stage, recorded in stage_runs: (its result, None) or (None, the error line when it raised)."""
    row = run_started(ctx.engine, st.name, run_id=report.run_id, owner=owner)
    started = time.perf_counter()
    result, error = None, None
    try:
        result = st.run(ctx)
    except Exception as exc:  # one stage failing must not lose what the others do
        if damaged(exc):  # but no stage can use a damaged store: stop, saying what this run wrote into it
            raise _damaged_mid_run(exc, st, ctx, row, report) from None
        error = error_line(exc)
    report.seconds[st.name] = round(time.perf_counter() - started, 3)
    report.status[st.name] = run_finished(
        ctx.engine,
        row,
        facts=result.facts if result else None,
        problems=result.problems if result else None,
        error=error,
    )
    return result, error


def _damaged_mid_run(exc: Exception, st: Stage, ctx: RunContext, row: int, report: RunReport) -> Exception:
    """The store turned out damaged while a stage ran (it passed quick_check when opened, or was
    damaged since): the stage's row is marked failed where the store still takes that write, never
    left `running`, and the one line says what this run had stored, which is in the file now."""
    said = error_line(exc)
    try:
        run_finished(ctx.engine, row, error=f"the store is damaged: {said}")
        marked = f"the {st.name} stage's row is marked failed"
    except Exception:  # the damage refuses that write too: `newsdesk doctor` names the row left running
        marked = f"the {st.name} stage's row could not be marked failed"
    done = [name for name, status in report.status.items() if status != "busy"]
    stored = ", ".join(f"{k}={v}" for k, v in report.facts.items() if k != "site_dir") or "nothing"
    before = f"after this run's {', '.join(done)} stored {stored}" if done else "as this run's first stage"
    return unusable_store(
        exc,
        str(ctx.engine.url),
        found_while=f"while the {st.name} stage ran, {before} (the {st.name} stage keeps what it committed); {marked}",
    )


def _model_calls(engine: Engine, run_id: str) -> tuple[int, int]:
    """(calls the model answered, calls that returned no answer) in this run; cache hits are neither.
    A mistyped base_url made 18 refused connections, which the run's summary counted as model calls."""
    with engine.connect() as conn:
        rows = dict(
            conn.execute(
                select(llm_usage.c.error.is_(None), func.count())
                .where(and_(llm_usage.c.run_id == run_id, llm_usage.c.cache_hit.is_(False)))
                .group_by(llm_usage.c.error.is_(None))
            ).all()
        )
    return rows.get(True, 0), rows.get(False, 0)


def edition_counts(engine: Engine) -> dict[str, int]:
    with engine.connect() as conn:
        return dict(conn.execute(select(editions.c.kind, func.count()).group_by(editions.c.kind)).all())


@dataclass
class PublishedParts:
    extractive: list[str] = field(default_factory=list)  # one line per kind of part chosen by code
    written: list[str] = field(default_factory=list)  # one line per kind of part a model wrote
    failed_drafts: int = 0  # written drafts kept for the operator, their extractive version published


def published_parts(engine: Engine) -> PublishedParts:
    """What the store publishes, by who made it: the run's closing lines say which parts were extractive."""
    from newsdesk.store.schema import analyses, failed_drafts
    from newsdesk.write.extractive.card import EXTRACTIVE

    out = PublishedParts()
    with engine.connect() as conn:
        cards = conn.execute(
            select(analyses.c.model == EXTRACTIVE, analyses.c.language, func.count())
            .where(analyses.c.status == "clean")
            .group_by(analyses.c.model == EXTRACTIVE, analyses.c.language)
        ).all()
        shown = conn.execute(
            select(editions.c.kind, editions.c.key, editions.c.language, editions.c.meta)
            .where(editions.c.kind != "daily", editions.c.status == "clean")
            .order_by(editions.c.kind, editions.c.key, editions.c.language)
        ).all()
        out.failed_drafts = conn.execute(select(func.count()).select_from(failed_drafts)).scalar()
    for chosen, language, n in cards:
        (out.extractive if chosen else out.written).append(f"{n} event cards ({language})")
    for e in shown:
        meta = e.meta or {}
        name = f"{e.kind} {e.key} ({e.language})"
        if meta.get("extractive"):
            out.extractive.append(name + (", in place of a draft that failed" if meta.get("replaces_failed") else ""))
        elif meta.get("extractive_parts"):
            out.written.append(name)
            out.extractive.append(f"{name}: {', '.join(meta['extractive_parts'])}, in place of drafts that failed")
        else:
            out.written.append(name)
    return out
