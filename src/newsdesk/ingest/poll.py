"""How often each source is polled when the newsroom runs by itself (`newsdesk run --every`).

A source's interval, in this order:
1. what its feed states: RSS <ttl> (minutes), else sy:updatePeriod / sy:updateFrequency
   ("hourly" and 2 = every 30 minutes);
2. else its observed rhythm: the median gap between its last 20 items' publication times;
3. else [schedule] every (the pass interval);
clamped to [schedule] poll_min .. poll_max. A fetch that fails doubles the wait for each failure
in a row (backoff), never past poll_max; the first good fetch ends the backoff.

After every fetch, ingest stores the source's next poll time, the interval and one line saying why
(sources.next_poll_at, poll_every, poll_basis): the status page and `due_sources` read them.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping
from datetime import datetime, timedelta

from sqlalchemy import and_, desc, func, or_, select, update
from sqlalchemy.engine import Connection

from newsdesk.core.config import ScheduleSettings, parse_duration
from newsdesk.store.items import polled_sources
from newsdesk.store.schema import items, sources

PERIODS = {"hourly": 3600, "daily": 86_400, "weekly": 604_800, "monthly": 2_592_000, "yearly": 31_536_000}
RHYTHM_ITEMS = 20  # the last N items' publication times give a source's rhythm
RHYTHM_MIN_GAPS = 2  # fewer gaps than this is no rhythm yet


def stated_every(feed: Mapping) -> tuple[int, str] | None:
    """(seconds, how the feed says it) from feedparser's feed fields: <ttl>, else sy:updatePeriod /
    sy:updateFrequency; None when it says nothing usable."""
    ttl = str(feed.get("ttl") or "").strip()
    if ttl.isdigit() and int(ttl) > 0:
        return int(ttl) * 60, f"ttl {ttl} min"
    period = str(feed.get("sy_updateperiod") or "").strip().lower()
    if period in PERIODS:
        freq = str(feed.get("sy_updatefrequency") or "1").strip()
        times = int(freq) if freq.isdigit() and int(freq) > 0 else 1
        return max(1, PERIODS[period] // times), f"sy:updatePeriod {period} / sy:updateFrequency {times}"
    return None


def rhythm(times: list[datetime]) -> tuple[int, int] | None:
    """(median gap in seconds, items it is from) between distinct publication times; None below 3 items."""
    times = sorted(set(times))
    gaps = [(b - a).total_seconds() for a, b in zip(times, times[1:])]
    if len(gaps) < RHYTHM_MIN_GAPS:
        return None
    return max(1, int(statistics.median(gaps))), len(times)


def short(seconds: float) -> str:
    """3600 → '1h', 5400 → '1h30m', 45 → '45s'."""
    seconds = int(round(seconds))
    d, rest = divmod(seconds, 86_400)
    h, rest = divmod(rest, 3600)
    m, s = divmod(rest, 60)
    return "".join(f"{n}{u}" for n, u in ((d, "d"), (h, "h"), (m, "m"), (s, "s")) if n) or "0s"


def plan(
    stated: tuple[int, str] | None, observed: tuple[int, int] | None, failures: int, settings: ScheduleSettings
) -> tuple[int, str]:
    """(seconds until the next poll, one line saying why)."""
    lo, hi = parse_duration(settings.poll_min), parse_duration(settings.poll_max)
    if stated:
        base, why = stated[0], f"the feed states {short(stated[0])} ({stated[1]})"
    elif observed:
        base, why = (
            observed[0],
            f"it publishes about every {short(observed[0])} (median gap of its last {observed[1]} items)",
        )
    else:
        base = parse_duration(settings.every)
        why = f"no stated interval or rhythm yet: every {short(base)} ([schedule] every)"
    every = min(max(base, lo), hi)
    if every > base:
        why += f", raised to poll_min {short(lo)}"
    elif every < base:
        why += f", lowered to poll_max {short(hi)}"
    if failures:
        doubled = every * 2 ** min(failures, 30)
        why = (
            f"backing off after {failures} failed fetch{'es' if failures > 1 else ''} in a row: "
            f"{short(every)} × 2^{failures}"
            + (f", capped at poll_max {short(hi)}" if doubled > hi else "")
            + f" (normally: {why})"
        )
        every = min(hi, doubled)
    return int(every), why


def schedule_next_poll(
    conn: Connection,
    source_id: str,
    status: str,
    stated: tuple[int, str] | None,
    settings: ScheduleSettings,
    now: datetime,
) -> None:
    """After a fetch with this outcome status (ok | not_modified | error), store when to poll next and why."""
    row = conn.execute(select(sources.c.feed_every, sources.c.poll_failures).where(sources.c.id == source_id)).first()
    if row is None:
        return
    failures = (row.poll_failures or 0) + 1 if status == "error" else 0
    if status == "ok":
        feed_every = stated[0] if stated else None
    else:  # a 304 or a failure says nothing new about the feed: keep what it last stated
        feed_every = row.feed_every
        stated = (feed_every, "as it last said") if feed_every else None
    times = list(
        conn.execute(
            select(items.c.published_at)
            .where(items.c.source_id == source_id)
            .order_by(desc(items.c.published_at))
            .limit(RHYTHM_ITEMS)
        ).scalars()
    )
    every, why = plan(stated, rhythm(times), failures, settings)
    conn.execute(
        update(sources)
        .where(sources.c.id == source_id)
        .values(
            next_poll_at=now + timedelta(seconds=every),
            poll_every=every,
            poll_basis=why,
            feed_every=feed_every,
            poll_failures=failures,
        )
    )


def _polled():
    """Enabled sources with a feed: an imported outlet or a replayed file (model.polled) is never due."""
    return and_(sources.c.enabled.is_(True), polled_sources())


def _enabled_due(now: datetime):
    return and_(_polled(), or_(sources.c.next_poll_at.is_(None), sources.c.next_poll_at <= now))


def due_sources(conn: Connection, now: datetime) -> list[str]:
    """Enabled sources whose next poll time has come (or that have none yet), soonest first."""
    return list(
        conn.execute(
            select(sources.c.id)
            .where(_enabled_due(now))
            .order_by(sources.c.next_poll_at.is_not(None), sources.c.next_poll_at, sources.c.id)
        ).scalars()
    )


def next_poll(conn: Connection) -> datetime | None:
    """The soonest next poll time of any enabled source (None: no enabled source has one)."""
    return conn.execute(select(func.min(sources.c.next_poll_at)).where(_polled())).scalar()
