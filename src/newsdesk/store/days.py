"""Days in the newsroom's timezone, and which events a day holds.

An event belongs to the local date of its first report (`first_published_at`), as on
Techmeme: GPT-5.4, launched on 03-05, is 03-05's news however long the coverage runs. On a
later day it shows again only if it grew that day, that is when an outlet that had not covered
it yet reported it (a copy or a second piece from an outlet already counted is no growth); that
card is an update, with the day's new reports first. A feed's back catalogue is not news: an
event whose every report was already old when its source's feed listed it (`back_catalogue`) has
no day. Both the published daily edition and the
web app's feed take a day's events from `day_events`, so they list the same events in the same
order.
"""

from __future__ import annotations

from bisect import bisect_left
from datetime import UTC, date, datetime, time, timedelta
from itertools import groupby
from types import SimpleNamespace
from zoneinfo import ZoneInfo

from sqlalchemy import case, func, select
from sqlalchemy.engine import Connection

from newsdesk.core.errors import NewsdeskError
from newsdesk.store.schema import event_members, events, items


class NoEvents(NewsdeskError):
    """An edition asked of a store with no events: `daily` built an empty edition for readers while
    `weekly` refused; both refuse now, with this one line (exit 2: a person must ingest first)."""

    def __init__(self):
        super().__init__("no events in the store yet", "run `newsdesk ingest` (or `newsdesk run`) first")


# An update ranks below the day's own news of the same importance: it is yesterday's event, grown.
UPDATE_WEIGHT = 0.5
# Reports that can make an event grow: a syndicated or duplicate copy adds no outlet of its own.
GROWING_ROLES = ("lead", "member")
# A feed lists its back catalogue too (Paul Graham's essays from 1994 on, Anthropic's posts of
# 2023): an item published this long before the newest item its source had when newsdesk first saw
# it was old when it arrived. Long enough for a harvest backfilled months at once.
BACK_CATALOGUE = timedelta(days=180)


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


def growth_days(
    conn: Connection, tz: str | ZoneInfo, event_ids: list[int] | None = None
) -> dict[int, dict[date, list[int]]]:
    """{event_id: {later local day: the item ids of that day's new outlets}} for every event that
    grew after its first day (only `event_ids`, when given). The first day is that of the
    earliest member, as `events.first_published_at` has it."""
    query = (
        select(event_members.c.event_id, event_members.c.role, items.c.id, items.c.source_id, items.c.published_at)
        .join(items, items.c.id == event_members.c.item_id)
        .order_by(event_members.c.event_id, items.c.published_at, items.c.id)
    )
    if event_ids is not None:
        if not event_ids:
            return {}
        query = query.where(event_members.c.event_id.in_(event_ids))
    else:  # an event with one member never grows; most events have one
        query = query.where(event_members.c.event_id.in_(select(events.c.id).where(events.c.item_count > 1)))
    by_event: dict[int, list] = {}
    for r in conn.execute(query):
        by_event.setdefault(r.event_id, []).append(r)
    out: dict[int, dict[date, list[int]]] = {}
    for event_id, rows in by_event.items():
        by_day = groupby(rows, key=lambda r: local_time(r.published_at, tz).date())
        _, first = next(by_day)
        seen = {r.source_id for r in first}
        grown: dict[date, list[int]] = {}
        for day, reports in by_day:
            reports = list(reports)
            new = [r.id for r in reports if r.role in GROWING_ROLES and r.source_id not in seen]
            if new:
                grown[day] = new
            seen |= {r.source_id for r in reports}
        if grown:
            out[event_id] = grown
    return out


def back_catalogue(conn: Connection, between: tuple[datetime, datetime] | None = None) -> set[int]:
    """The events that are a feed's back catalogue, not news: every report was published more than
    BACK_CATALOGUE before the newest item its source had when newsdesk first saw the report. They
    stay stored, searchable and on their own pages, but no day lists them. between: only events
    first reported in [start, end) (none first reported after the store's newest item, less the
    window, can be old: a recent day costs one query)."""
    newest_item = conn.execute(select(func.max(items.c.published_at)).where(items.c.dated_by != "first_seen")).scalar()
    if newest_item is None:
        return set()
    candidates = select(events.c.id).where(events.c.first_published_at < newest_item - BACK_CATALOGUE)
    if between is not None:
        if between[0] >= newest_item - BACK_CATALOGUE:
            return set()
        candidates = candidates.where(
            events.c.first_published_at >= between[0], events.c.first_published_at < between[1]
        )
    # The newest item its source had when each item was first seen (its own run's items included),
    # of those the source dated: an undated item stamped with the time it was seen says nothing of
    # how old its feed's other items were (a harvest backfilled months later).
    dated_only = case((items.c.dated_by != "first_seen", items.c.published_at))
    newest = func.max(dated_only).over(partition_by=items.c.source_id, order_by=items.c.first_seen_at)
    dated = select(items.c.id, items.c.published_at, newest.label("newest")).subquery()
    rows = conn.execute(
        select(event_members.c.event_id, dated.c.published_at, dated.c.newest)
        .join(dated, dated.c.id == event_members.c.item_id)
        .where(event_members.c.event_id.in_(candidates))
    )
    old: dict[int, bool] = {}
    for r in rows:
        is_old = r.newest is not None and r.published_at < r.newest - BACK_CATALOGUE
        old[r.event_id] = old.get(r.event_id, True) and is_old
    return {e for e, is_old in old.items() if is_old}


def event_dates(conn: Connection, tz: str | ZoneInfo) -> list[date]:
    """Every local date that has an event on it (a first report or an update), oldest first."""
    archive = back_catalogue(conn)
    firsts = {
        local_time(r.first_published_at, tz).date()
        for r in conn.execute(select(events.c.id, events.c.first_published_at))
        if r.id not in archive
    }
    grown = {day for days in growth_days(conn, tz).values() for day in days}
    return sorted(firsts | grown)


def event_days(conn: Connection, event_id: int, tz: str | ZoneInfo) -> list[date]:
    """The days one event shows on: its first day, then the days it grew."""
    first = conn.execute(select(events.c.first_published_at).where(events.c.id == event_id)).scalar()
    if first is None:
        return []
    return sorted({local_time(first, tz).date(), *growth_days(conn, tz, [event_id]).get(event_id, {})})


def latest_day(conn: Connection, tz: str | ZoneInfo) -> date | None:
    dates = event_dates(conn, tz)
    return dates[-1] if dates else None


def neighbour_days(
    conn: Connection, day: date, tz: str | ZoneInfo, dates: list[date] | None = None
) -> tuple[date | None, date | None]:
    """The nearest earlier and later days that have events (empty days are skipped); `dates`: event_dates, if known."""
    dates = event_dates(conn, tz) if dates is None else dates
    i = bisect_left(dates, day)
    after = i + 1 if i < len(dates) and dates[i] == day else i
    return (dates[i - 1] if i > 0 else None, dates[after] if after < len(dates) else None)


def day_events(conn: Connection, day: date, tz: str | ZoneInfo) -> list[SimpleNamespace]:
    """The events of one local day, in the order every edition of that day shows them.

    Each is an event row's columns plus `update` (it began on an earlier day and grew today)
    and `day_items` (for an update, the ids of today's new reports; otherwise empty). An update
    is never the day's featured news: its tab is at most p1.
    """
    start, end = local_day_bounds(day, tz)
    archive = back_catalogue(conn, between=(start, end))
    fresh = [
        r
        for r in conn.execute(
            select(events).where(events.c.first_published_at >= start, events.c.first_published_at < end)
        )
        if r.id not in archive
    ]
    earlier = (
        conn.execute(
            select(event_members.c.event_id)
            .distinct()
            .join(items, items.c.id == event_members.c.item_id)
            .join(events, events.c.id == event_members.c.event_id)
            .where(
                items.c.published_at >= start,
                items.c.published_at < end,
                events.c.first_published_at < start,
                event_members.c.role.in_(GROWING_ROLES),
            )
        )
        .scalars()
        .all()
    )
    grown = {e: days[day] for e, days in growth_days(conn, tz, list(earlier)).items() if day in days}
    updates = conn.execute(select(events).where(events.c.id.in_(grown))).all() if grown else []
    out = [SimpleNamespace(**r._mapping, update=False, day_items=[]) for r in fresh]
    out += [
        SimpleNamespace(
            **{**r._mapping, "tab": "p1" if r.tab == "featured" else r.tab}, update=True, day_items=grown[r.id]
        )
        for r in updates
    ]
    # Most important first; the live score (importance x recency) and then age break ties.
    return sorted(out, key=lambda e: (-e.importance * (UPDATE_WEIGHT if e.update else 1.0), -e.score, e.id))
