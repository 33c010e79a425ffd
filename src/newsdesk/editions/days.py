"""Days in the newsroom's timezone, and which events a day holds.

An event belongs to the local date of its newest member (`last_published_at`). Both the
published daily edition and the web app's feed take a day's events from `day_events`,
so they list the same events in the same order.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy import func, select
from sqlalchemy.engine import Connection, Row

from newsdesk.store.schema import events

# Most important first; the live score (importance x recency) and then age break ties.
DAY_ORDER = (events.c.importance.desc(), events.c.score.desc(), events.c.id)


def zone(tz: str | ZoneInfo) -> ZoneInfo:
    return tz if isinstance(tz, ZoneInfo) else ZoneInfo(tz)


def local_day_bounds(day: date, tz: str | ZoneInfo) -> tuple[datetime, datetime]:
    """The UTC instants where `day` starts and ends in the newsroom's timezone."""
    start = datetime.combine(day, time.min, tzinfo=zone(tz))
    return start.astimezone(UTC), (start + timedelta(days=1)).astimezone(UTC)


def local_time(moment: datetime, tz: str | ZoneInfo) -> datetime:
    return moment.astimezone(zone(tz))


def minute(moment: datetime, tz: str | ZoneInfo) -> str:
    """A time as readers see it on a card: local, to the minute."""
    return local_time(moment, tz).strftime("%Y-%m-%d %H:%M")


def event_dates(conn: Connection, tz: str | ZoneInfo) -> list[date]:
    """Every local date on which some event's newest member appeared, oldest first."""
    rows = conn.execute(select(events.c.last_published_at)).scalars()
    return sorted({local_time(moment, tz).date() for moment in rows})


def latest_day(conn: Connection, tz: str | ZoneInfo) -> date | None:
    last = conn.execute(select(func.max(events.c.last_published_at))).scalar()
    return local_time(last, tz).date() if last else None


def neighbour_days(conn: Connection, day: date, tz: str | ZoneInfo) -> tuple[date | None, date | None]:
    """The nearest earlier and later days that have events (empty days are skipped)."""
    start, end = local_day_bounds(day, tz)
    before = conn.execute(select(func.max(events.c.last_published_at)).where(events.c.last_published_at < start)).scalar()
    after = conn.execute(select(func.min(events.c.last_published_at)).where(events.c.last_published_at >= end)).scalar()
    return (local_time(before, tz).date() if before else None, local_time(after, tz).date() if after else None)


def day_events(conn: Connection, day: date, tz: str | ZoneInfo) -> list[Row]:
    """The events of one local day, in the order every edition of that day shows them."""
    start, end = local_day_bounds(day, tz)
    query = select(events).where(events.c.last_published_at >= start, events.c.last_published_at < end)
    return conn.execute(query.order_by(*DAY_ORDER)).all()
