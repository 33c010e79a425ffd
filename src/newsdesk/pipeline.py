"""`newsdesk run`: ingest → cluster → rank → write → editions → publish → search index, incrementally.

Each stage decides from the store what is new (items in no event, events whose material
changed, days and weeks whose events changed), so a second run with no new input does
no work and makes no model call. A stage that fails records why and the run goes on
with the stages that do not depend on it.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from sqlalchemy import select
from sqlalchemy.engine import Engine

from newsdesk.config import Settings
from newsdesk.store.schema import editions, items, transcripts


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
        caps = {"max_sections": self.weekly_sections, "per_section": self.weekly_items, "max_briefs": self.weekly_briefs}
        return {k: v for k, v in caps.items() if v is not None}


DEMO_LIMITS = Limits(analyses=1, weekly_sections=3, weekly_items=3, weekly_briefs=6)


@dataclass
class RunReport:
    run_id: str
    seconds: dict[str, float] = field(default_factory=dict)
    facts: dict[str, object] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    model_calls: int = 0

    @property
    def total_seconds(self) -> float:
        return sum(self.seconds.values())


class LazyLLM:
    """Opens the model only when a stage actually asks it something.

    Starting the embedded model costs seconds; a run with nothing to write must not pay it.
    """

    def __init__(self, settings: Settings, engine: Engine, run_id: str):
        self._args = (settings, engine)
        self._run_id = run_id
        self._llm = None

    @property
    def model(self) -> str:
        """Known without starting anything: writers key their outputs on it."""
        if self._llm is not None:
            return self._llm.model
        cfg = self._args[0].llm
        if cfg.backend == "embedded":
            from newsdesk.llm.embedded import MODEL_NAME

            return MODEL_NAME
        return cfg.model

    @property
    def concurrency(self) -> int:
        from newsdesk.llm.client import concurrency

        return self._llm.concurrency if self._llm is not None else concurrency(self._args[0].llm)

    def __getattr__(self, name):
        if self._llm is None:
            from newsdesk.llm.client import open_llm

            self._llm = open_llm(*self._args, run_id=self._run_id)
        return getattr(self._llm, name)

    @property
    def opened(self) -> bool:
        return self._llm is not None


def _episodes(engine: Engine) -> list[dict]:
    """Podcast items with a stored transcript."""
    with engine.connect() as conn:
        rows = conn.execute(
            select(items.c.id, items.c.title, items.c.extra, items.c.source_id, transcripts.c.turns)
            .join(transcripts, transcripts.c.item_id == items.c.id)
            .order_by(items.c.published_at)
        ).all()
    return [dict(r._mapping) for r in rows]


def run_pipeline(
    engine: Engine,
    settings: Settings,
    *,
    replay: Path | None = None,
    limits: Limits = Limits(),
    ingest: Callable[[], list] | None = None,
    say: Callable[[str], None] = lambda line: None,
    llm=None,
) -> RunReport:
    """Run every stage once. `ingest` does the ingest step (the CLI passes its own, with progress);
    `llm` replaces the configured model (tests pass a scripted one)."""
    from newsdesk.llm.client import BudgetExhausted, LLMError

    report = RunReport(run_id=uuid.uuid4().hex[:12])
    lazy = LazyLLM(settings, engine, report.run_id)
    llm = llm or lazy

    def stage(name: str, fn: Callable[[], object]):
        started = time.perf_counter()
        try:
            return fn()
        except (LLMError, BudgetExhausted) as exc:
            report.problems.append(f"{name}: {exc}")
        except Exception as exc:  # one stage failing must not lose what the others do
            report.problems.append(f"{name}: {type(exc).__name__}: {exc}")
        finally:
            report.seconds[name] = round(time.perf_counter() - started, 3)
            say(f"{name}: {report.seconds[name]:.1f}s")
        return None

    if ingest is not None:
        outcomes = stage("ingest", ingest) or []
        report.facts["items_new"] = sum(getattr(o, "new", 0) for o in outcomes)
        report.facts["items_updated"] = sum(getattr(o, "updated", 0) for o in outcomes)
        report.facts["sources_failed"] = sum(getattr(o, "status", "") == "error" for o in outcomes)

    from newsdesk.cluster import cluster_new_items
    from newsdesk.rank import rank_events

    arbiter = None
    if settings.llm.arbitrate_merges:
        from newsdesk.cluster.arbiter import llm_arbiter

        arbiter = llm_arbiter(llm)
    clustered = stage("cluster", lambda: cluster_new_items(engine, settings, arbiter=arbiter))
    if clustered is not None:
        report.facts["items_clustered"] = clustered.items
    stage("rank", lambda: rank_events(engine, settings))

    from newsdesk.write.analysis import write_analyses

    written = stage("write", lambda: write_analyses(engine, settings, llm, limit=limits.analyses))
    if written is not None:
        report.facts["analyses_written"] = written.written
        report.facts["analyses_flagged"] = written.flagged
        if written.stopped:
            report.problems.append(f"write: {written.stopped}")

    from newsdesk.editions.daily import build_dailies

    dailies = stage("daily", lambda: build_dailies(engine, settings)) or []
    report.facts["daily_built"] = sum(bool(d.built) for d in dailies)

    from newsdesk.write.weekly import WeeklyError, build_weekly, latest_week

    def weekly():
        with engine.connect() as conn:
            week = latest_week(conn, settings.timezone)
        if week is None:
            return None
        try:
            return build_weekly(engine, settings, llm, week, **limits.weekly())
        except WeeklyError as exc:
            report.problems.append(f"weekly: {exc}")
            return None

    stage("weekly", weekly)

    def episodes():
        from newsdesk.model import Turn
        from newsdesk.write.episode import write_episode
        from newsdesk.write.translate import translate_episode

        done = 0
        for ep in _episodes(engine):
            turns = [Turn(**t) for t in ep["turns"]]
            number = (ep["extra"] or {}).get("episode")
            zh = write_episode(engine, settings, llm, turns, title=ep["title"], number=number)
            if "en" in settings.languages:
                translate_episode(engine, settings, llm, zh, turns, original_title=ep["title"])
            done += 1
        return done

    report.facts["episodes"] = stage("episode", episodes)

    from newsdesk.publish.site import publish_site

    published = stage("publish", lambda: publish_site(engine, settings))
    if published is not None:
        report.facts["site_dir"] = published.site_dir
        report.facts["site_files_written"] = published.written

    def search_index():
        from newsdesk.search import SearchIndex

        # What this run stored is searchable in the web app at once, not after a server restart.
        return SearchIndex(engine).refresh()

    report.facts["search_indexed"] = stage("search", search_index)

    if lazy.opened:
        report.model_calls = _model_calls(engine, report.run_id)
    return report


def _model_calls(engine: Engine, run_id: str) -> int:
    from sqlalchemy import and_, func

    from newsdesk.store.schema import llm_usage

    with engine.connect() as conn:
        return conn.execute(
            select(func.count()).where(and_(llm_usage.c.run_id == run_id, llm_usage.c.cache_hit.is_(False)))
        ).scalar()


def edition_counts(engine: Engine) -> dict[str, int]:
    from sqlalchemy import func

    with engine.connect() as conn:
        return dict(conn.execute(select(editions.c.kind, func.count()).group_by(editions.c.kind)).all())
