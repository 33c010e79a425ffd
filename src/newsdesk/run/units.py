"""The units of work a worker runs, as plain functions over the store.

    fetch(source)            one source: fetch, parse, store its items        → cluster
    cluster                  place every new item (one clusterer at a time), rank
                             → each analysis due, each day's daily edition, stories, search
    analysis(event, lang)    one event's analysis in one language               → that day's daily
    daily(date)              one daily edition (every language)                 → publish, search
    stage(name)              one pass of a pipeline stage that works as a whole: each edition
                             kind but the daily (→ publish), write (→ publish), publish (→ push),
                             stories, search, push, rank

Each returns the units it makes due (its follow-ups); run/workers.py sends them. Which stages
there are, and so which `stage` units and queues, is the pipeline's list (run/pipeline.py), which
holds every kind in the edition-kind table (publish/outputs.py): none is spelled here. Every unit
is idempotent: it finds its work in the store and does nothing when that work is done, so a
second delivery of the same message costs a few queries and no model call (the analysis's
material key is unchanged, and a model reply already paid for is in the response cache).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from sqlalchemy import and_, exists, select
from sqlalchemy.engine import Engine

from newsdesk.core.config import Settings
from newsdesk.llm.chat import ChatModel
from newsdesk.llm.client import BudgetExhausted
from newsdesk.publish.outputs import EDITION_KINDS, KINDS
from newsdesk.run.pipeline import STAGE_NAMES, STAGES, RunContext
from newsdesk.run.pipeline import stage as pipeline_stage

# The stage each kind of unit is a part of (a fetch per source, an analysis per event and language,
# a daily per date); a `stage` unit is one pass of the stage it names. Its queue is that stage's.
_PART_OF = {"fetch": "ingest", "cluster": "cluster", "analysis": "write", "daily": "daily"}
# Stages whose units of their own do all their work: never a `stage` unit. (The write stage is both:
# its analyses are units, and a `stage` unit writes what is left whole.)
_NOT_STAGE_UNITS = ("ingest", "cluster", "daily")


def stage_units() -> list[str]:
    """The stages a `stage` unit runs whole: every stage in the pipeline's list but those above, so a
    kind added to the edition-kind table (publish/outputs.py) is one."""
    return [name for name in STAGE_NAMES if name not in _NOT_STAGE_UNITS]


def queues() -> list[str]:
    """Every queue a unit can be sent to, in the pipeline's order: fetch, cluster, write, editions, publish."""
    return list(dict.fromkeys(s.queue for s in STAGES))


def edition_units() -> list[Unit]:
    """The edition stages a pass starts, each building from what the store holds then (rebuilt only
    when it changed): every kind but the daily, which follows from the placing, a unit per day."""
    return [Unit("stage", {"name": kind.name}) for kind in KINDS if kind.name in stage_units()]


@dataclass(frozen=True)
class Unit:
    kind: str  # fetch | cluster | analysis | daily | stage
    args: dict = field(default_factory=dict)

    @property
    def key(self) -> str:
        """Its row in `tasks`: two messages for one key are one piece of work."""
        a = self.args
        return {
            "fetch": lambda: f"fetch:{a['source']}",
            "cluster": lambda: "cluster",
            "analysis": lambda: f"analysis:{a['event']}:{a['language']}",
            "daily": lambda: f"daily:{a['date']}",
            "stage": lambda: f"stage:{a['name']}",
        }[self.kind]()

    @property
    def stage(self) -> str:
        """The pipeline stage it is part of (the status page groups by it)."""
        return _PART_OF.get(self.kind) or self.args["name"]

    @property
    def queue(self) -> str:
        """Its stage's queue (run/pipeline.py's list), read when it is sent."""
        return pipeline_stage(self.stage).queue

    @property
    def settles(self) -> bool:
        """Editions and what follows them wait `workers.settle` seconds, so a burst of changes makes one build."""
        return self.kind == "daily" or (self.kind == "stage" and self.args["name"] in ("publish", "search", "push"))


class BudgetSpent(Exception):
    """The run's model budget is spent: the unit waits for the next pass (not a failure)."""


@dataclass
class Context:
    engine: Engine
    settings: Settings
    llm: ChatModel  # llm.LazyLLM for the unit's run: opened only when a unit asks the model something
    run_id: str | None = None
    embedder: Callable[[], Any] | None = None  # the process's embedding model (kept: loading it costs seconds)


def run(ctx: Context, unit: Unit) -> list[Unit]:
    """Do the unit; returns its follow-ups. Raises what failed (the worker records and retries it)."""
    work = {"fetch": fetch, "cluster": cluster, "analysis": analysis, "daily": daily, "stage": stage}[unit.kind]
    try:
        return work(ctx, **unit.args)
    except BudgetExhausted as exc:
        raise BudgetSpent(str(exc)) from None


# --- the units -----------------------------------------------------------------------------


_thread = threading.local()


def _fetcher(settings: Settings):
    """This worker thread's event loop and HTTP fetcher, kept between units: a new client per
    source costs more than fetching a small feed (TLS setup, connection pools)."""
    if getattr(_thread, "fetcher", None) is None:
        from newsdesk.ingest.fetch import Fetcher

        _thread.loop = asyncio.new_event_loop()
        _thread.fetcher = _thread.loop.run_until_complete(Fetcher(settings.fetch).__aenter__())
    return _thread.loop, _thread.fetcher


def fetch(ctx: Context, source: str) -> list[Unit]:
    from newsdesk.ingest.catalog import stored_sources
    from newsdesk.ingest.run import ingest_source
    from newsdesk.store.leases import owner_id

    with ctx.engine.connect() as conn:
        found = stored_sources(conn, [source])
    if not found or not found[0].enabled or not found[0].polled:
        return []  # removed or switched off since the pass began, or an imported outlet (no feed)
    loop, fetcher = _fetcher(ctx.settings)
    # A feed that fails is the source's failure, recorded on its fetch row (its health), not the
    # unit's; "skipped" means another live worker (a `newsdesk ingest`) is fetching it now.
    outcome = loop.run_until_complete(ingest_source(ctx.engine, found[0], fetcher, owner=owner_id()))
    return [Unit("cluster")] if outcome.new or outcome.updated else []


def cluster(ctx: Context) -> list[Unit]:
    from newsdesk.cluster import cluster_new_items
    from newsdesk.rank.score import rank_events
    from newsdesk.store.days import keep_days

    arbiter = None
    if ctx.settings.llm.arbitrate_merges:
        from newsdesk.cluster.arbiter import llm_arbiter

        arbiter = llm_arbiter(ctx.llm)
    # The clusterer holds the store's cluster lock (a PostgreSQL advisory lock) while it places
    # items; the `cluster` lease in `tasks` already keeps a second unit from starting beside it.
    cluster_new_items(ctx.engine, ctx.settings, embedder=ctx.embedder() if ctx.embedder else None, arbiter=arbiter)
    rank_events(ctx.engine, ctx.settings)
    # The days each event shows on, kept in news_days for the editions and the web app to read.
    days = keep_days(ctx.engine, ctx.settings.timezone)
    writes = [Unit("analysis", {"event": e, "language": lang}) for e, lang in due_analyses(ctx.engine, ctx.settings)]
    return (
        writes
        + [Unit("daily", {"date": d.isoformat()}) for d in days]
        + [Unit("stage", {"name": "stories"}), Unit("stage", {"name": "search"})]
    )


def due_analyses(engine: Engine, settings: Settings) -> list[tuple[int, str]]:
    """(event, language) pairs with no analysis, or one older than the event's last change, or one
    written at a size the event has since doubled or at another tab (model-written and extractive
    cards both record the size: write.kit.event_size).

    A cheap filter; the analysis unit then decides with write.analysis.due(), so an event
    refreshed without a change worth a rewrite costs no call. The size test matters beside the
    timestamps: an analysis unit can read an event just before a cluster unit commits a new
    member and store its analysis just after, later than the event's updated_at."""
    from newsdesk.store.schema import analyses, event_members, events

    out = []
    with engine.connect() as conn:
        for language in _languages(settings):
            current = exists().where(
                and_(
                    analyses.c.event_id == events.c.id,
                    analyses.c.language == language,
                    analyses.c.created_at >= events.c.updated_at,
                    analyses.c.reports.is_not(None),
                    events.c.item_count < 2 * analyses.c.reports,
                    analyses.c.tab == events.c.tab,
                )
            )
            has_members = exists().where(event_members.c.event_id == events.c.id)
            ids = conn.execute(select(events.c.id).where(~current, has_members).order_by(events.c.id)).scalars()
            out += [(e, language) for e in ids]
    return out


def analysis(ctx: Context, event: int, language: str) -> list[Unit]:
    from newsdesk.cluster import event_brief
    from newsdesk.store.days import event_days
    from newsdesk.write.writers import writers

    with ctx.engine.connect() as conn:
        brief = event_brief(conn, event)  # KeyError: no such event (a bad message); recorded as failed
    if not brief["members"]:
        return []
    writers(ctx.settings, ctx.llm).card(ctx.engine, ctx.settings, brief, language)  # when due, by whoever writes
    with ctx.engine.connect() as conn:
        days = event_days(conn, event, ctx.settings.timezone)
    return [Unit("daily", {"date": day.isoformat()}) for day in days]


def daily(ctx: Context, date: str) -> list[Unit]:
    from newsdesk.editions.daily import build_daily

    built = build_daily(ctx.engine, ctx.settings, _date(date)).built
    return [Unit("stage", {"name": "publish"}), Unit("stage", {"name": "search"})] if built else []


def stage(ctx: Context, name: str) -> list[Unit]:
    if name not in stage_units():
        raise ValueError(f"no stage unit named {name!r}; use one of {', '.join(stage_units())}")
    result = pipeline_stage(name).run(_stage_context(ctx))
    if name in ("write", "weekly") and any("budget" in p for p in result.problems):
        raise BudgetSpent("; ".join(result.problems))
    if result.problems:  # parts that failed inside the stage: the stage's own records keep them; say so here too
        raise RuntimeError("; ".join(result.problems)[:2000])
    if name == "publish":
        return [Unit("stage", {"name": "push"})]
    if name == "write" or name in EDITION_KINDS:  # what it stored is published
        return [Unit("stage", {"name": "publish"})]
    return []


# --- helpers ---------------------------------------------------------------------------------


def _languages(settings: Settings) -> list[str]:
    return ["zh"] + (["en"] if "en" in settings.languages else [])  # as the write stage does


def _date(value: str) -> date:
    return date.fromisoformat(value)


def _stage_context(ctx: Context) -> RunContext:
    return RunContext(ctx.engine, ctx.settings, ctx.llm, ctx.run_id or "")  # its writers as [write] by says
