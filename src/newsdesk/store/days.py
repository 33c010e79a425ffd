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

Which events each day lists is kept in `news_days` (one row per day and event, for one timezone),
rebuilt by `keep_days` when the store moved since (the cluster unit calls it after ranking; the web
server when it starts and when the store changes): `event_dates` and `day_events` read it while it
matches the store (its signature: count and newest stamp of events, members and items), so neither
the list of days nor an old day's page scans every event and member item. While it does not match
(between a run's clustering and its days kept), both work the days out from the events, as
`keep_days` does. Like the search index's tables, it is derived and rebuilt at will: no migration.
"""

from __future__ import annotations

from bisect import bisect_left
from datetime import UTC, date, datetime, time, timedelta
from itertools import groupby
from types import SimpleNamespace
from zoneinfo import ZoneInfo

from sqlalchemy import (
    Boolean,
    Column,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    case,
    delete,
    func,
    insert,
    inspect,
    select,
)
from sqlalchemy.engine import Connection, Engine

from newsdesk.core.errors import NewsdeskError
from newsdesk.store.schema import event_members, events, items


class NoEvents(NewsdeskError):
    """An edition asked of a store with no events: `daily` built an empty edition for readers while
    `weekly` refused; both refuse now, with this one line (exit 2: a person must ingest first)."""

    def __init__(self):
        super().__init__("no events in the store yet", "run `newsdesk ingest` (or `newsdesk run`) first")


# An update ranks below the day's own news of the same importance: it is yesterday's event, grown.
# Its importance is the lesser of the event's and that of the day's new reports on their own
# (UPDATES): a changelog line joining last week's launch is a changelog line.
UPDATE_WEIGHT = 0.5
# The part of an event's "why it ranks" (events.score_parts, rank/score.py) holding, for each later
# day it grew, the importance of that day's new reports as if they were an event of their own:
# {ISO day: importance}. Not a term of the event's importance (the other parts sum to it).
UPDATES = "updates"
# Reports that can make an event grow: a syndicated or duplicate copy adds no outlet of its own.
GROWING_ROLES = ("lead", "member")
# A feed lists its back catalogue too (Paul Graham's essays from 1994 on, Anthropic's posts of
# 2023): an item published this long before the newest item its source had when newsdesk first saw
# it was old when it arrived. Long enough for a harvest backfilled months at once.
BACK_CATALOGUE = timedelta(days=180)


# Not the store's schema (the migrations never see it): derived rows any process can rebuild.
_kept = MetaData()
news_days = Table(
    "news_days",
    _kept,
    Column("tz", String(64), primary_key=True),
    Column("day", String(10), primary_key=True),  # ISO date, local to tz
    Column("event_id", Integer, primary_key=True),
    Column("is_update", Boolean, nullable=False),
)
news_days_state = Table(
    "news_days_state", _kept, Column("tz", String(64), primary_key=True), Column("signature", Text, nullable=False)
)
_PG_LOCK = 4244  # two processes keeping the days at once (the search index holds 4243)


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


def _rank_key(e: SimpleNamespace, day: date) -> tuple:
    """Most important first; the live score (importance x recency) and then age break ties. An
    update ranks by the lesser of its event's importance and its new reports' (UPDATES)."""
    importance = e.importance or 0.0
    if e.update:
        grown = ((e.score_parts or {}).get(UPDATES) or {}).get(day.isoformat())
        importance = UPDATE_WEIGHT * min(importance, grown if isinstance(grown, (int, float)) else importance)
    return (-importance, -e.score, e.id)


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
    """Every local date that has an event on it (a first report or an update), oldest first: as
    kept in news_days, or worked out from the events while that is behind the store."""
    if _kept_signature(conn, tz) == store_signature(conn):
        days = conn.execute(select(news_days.c.day).distinct().where(news_days.c.tz == str(tz))).scalars()
        return sorted(date.fromisoformat(d) for d in days)
    return sorted({day for day, _, _ in _scan(conn, tz)})


def store_signature(conn: Connection) -> str:
    """What the kept days were worked out from: events' count and newest change (the clusterer stamps
    an event whenever its members or their roles change), members' count, items' count and newest
    date. One aggregate a statement, each answered from an index: a count and a max in one statement
    read every row of items (40-80 ms on 50k); apart, under a millisecond each."""
    parts = [
        conn.execute(query).scalar()
        for query in (
            select(func.count()).select_from(events),
            select(func.max(events.c.updated_at)),
            select(func.count()).select_from(event_members),
            select(func.count()).select_from(items),
            select(func.max(items.c.published_at)),
        )
    ]
    return "|".join("" if p is None else (p.isoformat() if hasattr(p, "isoformat") else str(p)) for p in parts)


def _kept_signature(conn: Connection, tz: str | ZoneInfo) -> str | None:
    if not inspect(conn).has_table(news_days_state.name):
        return None
    return conn.execute(select(news_days_state.c.signature).where(news_days_state.c.tz == str(tz))).scalar()


def _scan(conn: Connection, tz: str | ZoneInfo) -> list[tuple[date, int, bool]]:
    """(day, event, is_update) for every day of every event, as day_events would list them: each
    event on the day of its first report unless it is back catalogue, and as an update on each
    later day it grew."""
    archive = back_catalogue(conn)
    first_day = {
        r.id: local_time(r.first_published_at, tz).date()
        for r in conn.execute(select(events.c.id, events.c.first_published_at))
    }
    out = [(day, e, False) for e, day in first_day.items() if e not in archive]
    for e, days in growth_days(conn, tz).items():
        out += [(day, e, True) for day in days if e in first_day and first_day[e] < day]
    return out


def keep_days(engine: Engine, tz: str | ZoneInfo) -> list[date]:
    """Rebuild news_days for tz when the store moved since it was kept; returns the days with news.
    The work is read on one connection and written in one short transaction (SQLite's write lock is
    held for the rows only); a store that moved meanwhile is seen as moved on the next call."""
    with engine.connect() as conn:
        exists = inspect(conn).has_table(news_days_state.name)
        signature = store_signature(conn)
        if exists and _kept_signature(conn, tz) == signature:
            return event_dates(conn, tz)
        rows = _scan(conn, tz)
    with engine.begin() as conn:
        if engine.dialect.name == "postgresql":
            conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({_PG_LOCK})")
        if not exists:
            _kept.create_all(conn, checkfirst=True)
        conn.execute(delete(news_days).where(news_days.c.tz == str(tz)))
        if rows:
            conn.execute(
                insert(news_days),
                [{"tz": str(tz), "day": d.isoformat(), "event_id": e, "is_update": u} for d, e, u in rows],
            )
        conn.execute(delete(news_days_state).where(news_days_state.c.tz == str(tz)))
        conn.execute(insert(news_days_state).values(tz=str(tz), signature=signature))
    return sorted({day for day, _, _ in rows})


def event_days(conn: Connection, event_id: int, tz: str | ZoneInfo) -> list[date]:
    """The days one event shows on: its first day, then the days it grew."""
    first = conn.execute(select(events.c.first_published_at).where(events.c.id == event_id)).scalar()
    if first is None:
        return []
    return sorted({local_time(first, tz).date(), *growth_days(conn, tz, [event_id]).get(event_id, {})})


# How many days back the front page looks for one with news before it settles for the newest day.
NEWS_LOOKBACK = 14


def latest_day(conn: Connection, tz: str | ZoneInfo, dates: list[date] | None = None) -> date | None:
    """The day a reader meets first: the newest day with news on it, not one whose every event is
    off-topic (shown under 其他 / Other: a feed's undated changelog line first seen today); the newest
    day of all when none of the last NEWS_LOOKBACK days has news. `dates`: event_dates, if known."""
    dates = event_dates(conn, tz) if dates is None else dates
    for day in reversed(dates[-NEWS_LOOKBACK:]):
        if has_news(day_events(conn, day, tz)):
            return day
    return dates[-1] if dates else None


def has_news(day: list[SimpleNamespace]) -> bool:
    """Whether a day's events (day_events) hold news: one that is not off-topic (rank/score.py)."""
    return any(not (e.score_parts or {}).get("off_topic") for e in day)


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
    is never the day's featured news: its tab is at most p1. Read from news_days while it matches
    the store; worked out from the events otherwise.
    """
    if _kept_signature(conn, tz) == store_signature(conn):
        kept = dict(
            conn.execute(
                select(news_days.c.event_id, news_days.c.is_update).where(
                    news_days.c.tz == str(tz), news_days.c.day == day.isoformat()
                )
            ).all()
        )
        rows = conn.execute(select(events).where(events.c.id.in_(list(kept)))).all() if kept else []
        fresh = [r for r in rows if not kept[r.id]]
        found = growth_days(conn, tz, [e for e, is_update in kept.items() if is_update])
        grown = {e: days[day] for e, days in found.items() if day in days}
        updates = [r for r in rows if r.id in grown]
    else:
        fresh, updates, grown = _live_day(conn, day, tz)
    out = [SimpleNamespace(**r._mapping, update=False, day_items=[]) for r in fresh]
    out += [
        SimpleNamespace(
            **{**r._mapping, "tab": "p1" if r.tab == "featured" else r.tab}, update=True, day_items=grown[r.id]
        )
        for r in updates
    ]
    return sorted(out, key=lambda e: _rank_key(e, day))


def _live_day(conn: Connection, day: date, tz: str | ZoneInfo) -> tuple[list, list, dict[int, list[int]]]:
    """A day's first reports, its updates and their new reports' ids, from the events themselves."""
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
    updates = list(conn.execute(select(events).where(events.c.id.in_(grown)))) if grown else []
    return fresh, updates, grown
