"""Property tests over the dates and fields feeds carry (Hypothesis generates them): a date no
calendar holds is no date; a stored item is never dated after it was first seen plus FUTURE_SKEW;
any feed's entries store on SQLite and PostgreSQL, once each; and every day a daily edition is
built for is a real day of the store, never one after its newest item."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from xml.sax.saxutils import escape

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import delete, insert, select
from test_fuzz_parsers import feed_text

from newsdesk.core.config import Settings
from newsdesk.core.model import DATED_BY, Source
from newsdesk.editions.daily import build_dailies
from newsdesk.ingest.normalize import to_utc
from newsdesk.ingest.parse import parse_feed
from newsdesk.store import open_store
from newsdesk.store.days import local_time
from newsdesk.store.items import FUTURE_SKEW, sync_sources, upsert_items
from newsdesk.store.schema import editions, event_members, events, items, storable

NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)  # when every generated item is first seen
SRC = Source(id="fuzz", name="Fuzz", url="https://example.com/feed")
FUZZ = settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")

# Real instants from 1990 to 2200 (so some are far in the future), in any real zone (±14 h).
instants = st.datetimes(
    min_value=datetime(1990, 1, 1),
    max_value=datetime(2200, 1, 1),
    timezones=st.integers(-14 * 60, 14 * 60).map(lambda m: timezone(timedelta(minutes=m))),
).map(lambda moment: moment.replace(microsecond=0))


def _written(moment: datetime, form: str) -> str:
    """A real instant as feeds write it."""
    if form == "iso":
        return moment.isoformat(timespec="seconds")
    offset = moment.utcoffset() or timedelta()
    sign, minutes = ("-" if offset < timedelta() else "+"), abs(int(offset.total_seconds())) // 60
    return (
        f"{moment:%a}, {moment.day:02d} {MONTHS[moment.month - 1]} {moment.year} "
        f"{moment:%H:%M:%S} {sign}{minutes // 60:02d}{minutes % 60:02d}"
    )


# Dates with a field no calendar or clock holds: month 13+, day 32+ (or 30 February), hour 25+,
# minute 60+, a zone beyond 14 hours (-9999).
impossible = st.one_of(
    st.builds(
        lambda y, m, d: f"{y}-{m:02d}-{d:02d}T10:00:00Z",
        st.integers(2000, 2100),
        st.integers(13, 99),
        st.integers(1, 28),
    ),
    st.builds(lambda y, m, d: f"{y}-{m:02d}-{d:02d}", st.integers(2000, 2100), st.integers(1, 12), st.integers(32, 99)),
    st.builds(lambda y: f"{y}-02-30T08:00:00Z", st.integers(2000, 2100)),
    st.builds(lambda h, mi: f"2026-03-01T{h:02d}:{mi:02d}:00Z", st.integers(25, 99), st.integers(0, 99)),
    st.builds(lambda h, mi: f"2026-03-01T10:{mi:02d}:00+{h:02d}:00", st.integers(0, 14), st.integers(60, 99)),
    st.builds(
        lambda z: f"Sun, 01 Mar 2026 10:00:00 {z}", st.sampled_from(["-9999", "+9999", "-1500", "+2400", "+0561"])
    ),
    st.builds(lambda d: f"Mon, {d:02d} Feb 2026 10:00:00 GMT", st.integers(30, 99)),
)
real = st.builds(_written, instants, st.sampled_from(["iso", "rfc822"]))
any_date = st.one_of(
    real,
    impossible,
    st.none(),
    st.text(max_size=30),
    st.sampled_from(["2026-03-01", "1709251200", "2099-12-31", "tomorrow"]),
)


@FUZZ
@given(impossible)
def test_a_date_no_calendar_holds_is_no_date(written):
    assert to_utc(written) is None, written


@FUZZ
@given(instants, st.sampled_from(["iso", "rfc822"]))
def test_a_real_date_is_read_as_the_instant_it_names(moment, form):
    assert to_utc(_written(moment, form)) == moment.astimezone(UTC)


def _rss(dates: list[str | None]) -> bytes:
    entries = "".join(
        f"<item><title>Story {n}</title><link>https://example.com/{n}</link><guid>g{n}</guid>"
        + (f"<pubDate>{escape(d)}</pubDate>" if d is not None else "")
        + "</item>"
        for n, d in enumerate(dates)
    )
    return f'<?xml version="1.0"?><rss version="2.0"><channel><title>f</title>{entries}</channel></rss>'.encode()


def _json_feed(dates: list[str | None]) -> bytes:
    return json.dumps(
        {
            "version": "https://jsonfeed.org/version/1.1",
            "title": "f",
            "items": [
                {
                    "id": f"g{n}",
                    "url": f"https://example.com/{n}",
                    "title": f"Story {n}",
                    **({"date_published": d} if d else {}),
                }
                for n, d in enumerate(dates)
            ],
        }
    ).encode()


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    engine = open_store(f"sqlite:///{tmp_path_factory.mktemp('fuzzdates') / 'newsdesk.db'}")
    with engine.begin() as conn:
        sync_sources(conn, [SRC])
    yield engine
    engine.dispose()


def _fresh(conn) -> None:
    for table in (editions, event_members, events, items):
        conn.execute(delete(table))


@FUZZ
@given(st.lists(any_date, min_size=1, max_size=8), st.sampled_from([_rss, _json_feed]))
def test_no_stored_item_is_dated_after_it_was_first_seen(store, dates, feed):
    parsed = parse_feed(feed(dates), SRC, fetched_at=NOW)
    with store.begin() as conn:
        _fresh(conn)
        upsert_items(conn, parsed.items, NOW)
        rows = conn.execute(select(items.c.published_at, items.c.first_seen_at, items.c.dated_by)).all()
    assert len(rows) == len(dates)
    for published, first_seen, dated_by in rows:
        assert first_seen == NOW and published <= first_seen + FUTURE_SKEW and dated_by in DATED_BY
        if dated_by == "first_seen":
            assert published == first_seen


@FUZZ
@given(
    st.lists(any_date, min_size=1, max_size=8),
    st.sampled_from(["Asia/Shanghai", "UTC", "Pacific/Kiritimati", "Pacific/Pago_Pago"]),
)
def test_every_daily_edition_is_a_real_day_of_the_store(store, dates, tz):
    """One event per stored item, as the clusterer opens for items with nothing in common."""
    parsed = parse_feed(_rss(dates), SRC, fetched_at=NOW)
    with store.begin() as conn:
        _fresh(conn)
        upsert_items(conn, parsed.items, NOW)
        for item_id, title, published in conn.execute(select(items.c.id, items.c.title, items.c.published_at)).all():
            event = conn.execute(
                insert(events)
                .values(
                    title=title,
                    lead_item_id=item_id,
                    first_published_at=published,
                    last_published_at=published,
                    item_count=1,
                    outlets=1,
                    independent_outlets=1,
                    languages=["en"],
                    anchors=[],
                    score_parts={},
                    updated_at=NOW,
                )
                .returning(events.c.id)
            ).scalar_one()
            conn.execute(
                insert(event_members).values(
                    item_id=item_id, event_id=event, role="lead", reason="opened", joined_at=NOW
                )
            )
        days = {local_time(p, tz).date().isoformat() for p in conn.execute(select(items.c.published_at)).scalars()}
    build_dailies(store, Settings(timezone=tz, languages=["en"]))
    with store.connect() as conn:
        built = set(conn.execute(select(editions.c.key).where(editions.c.kind == "daily")).scalars())
    assert built and built <= days
    assert max(built) <= local_time(NOW + FUTURE_SKEW, tz).date().isoformat()


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.fixed_dictionaries(
            {},
            optional={
                "title": feed_text,
                "link": feed_text,
                "guid": feed_text,
                "description": feed_text,
                "pubDate": any_date,
            },
        ),
        max_size=6,
    )
)
def test_any_feed_entries_store_once_each_on_both_databases(engine, entries):
    def tag(name, value):
        return f"<{name}>{escape(value)}</{name}>" if value is not None else ""

    body = "".join("<item>" + "".join(tag(k, v) for k, v in e.items()) + "</item>" for e in entries)
    doc = f"<?xml version='1.0'?><rss version='2.0'><channel><title>t</title>{body}</channel></rss>"
    parsed = parse_feed(doc.encode("utf-8", "surrogatepass"), SRC, fetched_at=NOW)
    with engine.begin() as conn:
        sync_sources(conn, [SRC])
        _fresh(conn)
        upsert_items(conn, parsed.items, NOW)
        again = upsert_items(conn, parsed.items, NOW)
        rows = conn.execute(select(items.c.guid, items.c.published_at)).all()
    assert set(again) <= {"unchanged"}
    assert sorted(r.guid for r in rows) == sorted({storable(i.guid) for i in parsed.items})  # NUL is never stored
    assert all(r.published_at <= NOW + FUTURE_SKEW for r in rows)
