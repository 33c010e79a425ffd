"""Each kind of edition's build, as its stage runs it: what is due, handed to whoever writes.

    daily_stage(engine, settings, writers, caps={}, progress=…)    # every day with events (editions/daily.py)
    weekly_stage(engine, settings, writers, caps={…}, progress=…)  # the week of the newest event
    episode_stage(engine, settings, writers, caps={}, progress=…)  # every episode with a transcript

Each returns the facts its stage reports. `writers` (write/writers.py) says who writes; `caps` are
the run's limits on a weekly's size (pipeline.Limits.weekly()); a build with no use for them ignores
them. The registry of kinds (publish/outputs.py) names one of these for each kind.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sqlalchemy import select
from sqlalchemy.engine import Engine

from newsdesk.core.config import Settings
from newsdesk.core.model import Turn
from newsdesk.store.schema import items, transcripts

if TYPE_CHECKING:
    from newsdesk.write.writers import Writers

Progress = Callable[[int, int | None], None]
Build = Callable[..., dict[str, Any]]  # (engine, settings, writers, *, caps, progress) -> the stage's facts


def daily_stage(engine: Engine, settings: Settings, writers: Writers, *, caps: dict, progress: Progress) -> dict:
    from newsdesk.editions.daily import build_dailies

    days = build_dailies(engine, settings)
    quiet = sum(d.quiet for d in days)  # days whose every event is off-topic: no edition (editions/daily.py)
    return {"daily_built": sum(bool(d.built) for d in days)} | ({"days_without_news": quiet} if quiet else {})


def weekly_stage(engine: Engine, settings: Settings, writers: Writers, *, caps: dict, progress: Progress) -> dict:
    from newsdesk.editions.weekly import weekly_editions
    from newsdesk.write.weekly import latest_week

    with engine.connect() as conn:
        week = latest_week(conn, settings.timezone)
    if week is None:
        return {}
    stats = weekly_editions(engine, settings, writers, week, **caps)
    return {"weekly_parts_replaced": len(stats.replaced)} if stats.replaced else {}


def episodes(engine: Engine) -> list[dict]:
    """Podcast items with a stored transcript, oldest first."""
    with engine.connect() as conn:
        rows = conn.execute(
            select(
                items.c.id, items.c.title, items.c.extra, items.c.source_id, items.c.published_at, transcripts.c.turns
            )
            .join(transcripts, transcripts.c.item_id == items.c.id)
            .order_by(items.c.published_at)
        ).all()
    return [dict(r._mapping) for r in rows]


def episode_stage(engine: Engine, settings: Settings, writers: Writers, *, caps: dict, progress: Progress) -> dict:
    from newsdesk.editions.episode import episode_editions

    due = episodes(engine)
    written = 0
    for done, ep in enumerate(due, 1):
        results = episode_editions(
            engine,
            settings,
            writers,
            [Turn(**t) for t in ep["turns"]],
            title=ep["title"],
            number=(ep["extra"] or {}).get("episode"),
            aired=ep["published_at"],
        )
        written += any(not r.reused for r in results)
        progress(done, len(due))
    # Counts the episodes whose digest was written now: one read back unchanged is no work done.
    return {"episodes": written}
