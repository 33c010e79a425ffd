"""Per-source health: is each source still delivering, and if not, since when and why."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import desc, func, select
from sqlalchemy.engine import Connection

from newsdesk.core.model import REPLAYED_URL
from newsdesk.core.model import polled as is_polled
from newsdesk.store.schema import fetches, items, sources

STALE_FACTOR = 4  # "stale" = no new item for this many usual intervals
MIN_STALE = timedelta(days=2)


@dataclass
class Health:
    source_id: str
    name: str
    enabled: bool
    last_success: datetime | None
    last_error: str | None
    last_error_at: datetime | None
    items_7d: int
    consecutive_failures: int
    latest_item: datetime | None
    usual_interval: timedelta | None
    stale: bool
    polled: bool = True  # False: an imported outlet or a replayed file (model.polled): never fetched, never stale
    replayed: bool = False  # made by replaying a feed file (its url is the file): not polled


def usual_interval(times: list[datetime]) -> timedelta | None:
    """Median gap between consecutive items (needs a few items to mean anything)."""
    times = sorted(times)
    gaps = [(b - a).total_seconds() for a, b in zip(times, times[1:]) if b > a]
    if len(gaps) < 2:
        return None
    return timedelta(seconds=statistics.median(gaps))


def source_health(conn: Connection, now: datetime | None = None, recent: int = 20) -> list[Health]:
    now = now or datetime.now(UTC)
    counts = dict(
        conn.execute(
            select(items.c.source_id, func.count())
            .where(items.c.first_seen_at >= now - timedelta(days=7))
            .group_by(items.c.source_id)
        ).all()
    )
    out: list[Health] = []
    for src in conn.execute(
        select(sources.c.id, sources.c.name, sources.c.enabled, sources.c.kind, sources.c.url).order_by(sources.c.id)
    ):
        attempts = conn.execute(
            select(fetches.c.started_at, fetches.c.error)
            .where(fetches.c.source_id == src.id)
            .order_by(desc(fetches.c.started_at), desc(fetches.c.id))
            .limit(50)
        ).all()
        failures = 0
        for a in attempts:
            if a.error is None:
                break
            failures += 1
        last_success = next((a.started_at for a in attempts if a.error is None), None)
        last_err = next((a for a in attempts if a.error is not None), None)
        times = [
            r[0]
            for r in conn.execute(
                select(items.c.published_at)
                .where(items.c.source_id == src.id)
                .order_by(desc(items.c.published_at))
                .limit(recent)
            )
        ]
        interval = usual_interval(times)
        latest = max(times) if times else None
        polled = is_polled(src.kind, src.url)
        stale = bool(polled and latest and interval and now - latest > max(STALE_FACTOR * interval, MIN_STALE))
        out.append(
            Health(
                source_id=src.id,
                name=src.name,
                enabled=src.enabled,
                last_success=last_success,
                last_error=last_err.error if last_err else None,
                last_error_at=last_err.started_at if last_err else None,
                items_7d=counts.get(src.id, 0),
                consecutive_failures=failures,
                latest_item=latest,
                usual_interval=interval,
                stale=stale,
                polled=polled,
                replayed=src.url.startswith(REPLAYED_URL),
            )
        )
    return out
