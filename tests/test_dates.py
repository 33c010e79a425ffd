"""Dates a source gives are believed only within a window around the time the item was first
seen: one from the future (2099, a -9999 zone) takes its first-seen time and says so on its row,
an impossible one (month 13, hour 99) is no date, and no future day or week is ever published."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from alembic import command
from loopback import Replies, serve_http
from sqlalchemy import create_engine, select, text

from newsdesk.core.config import LLMSettings, Settings
from newsdesk.core.model import Source
from newsdesk.ingest import run as ingest
from newsdesk.run.pipeline import run_pipeline
from newsdesk.store import open_store
from newsdesk.store.items import FUTURE_SKEW
from newsdesk.store.migrate import config, migrate
from newsdesk.store.schema import editions, fetches, items

YESTERDAY = datetime.now(UTC).replace(microsecond=0) - timedelta(days=1)
RFC822 = "%a, %d %b %Y %H:%M:%S"


def _rss(port: int) -> bytes:
    entries = [
        ("yesterday", YESTERDAY.strftime(RFC822) + " GMT"),
        ("far-future", "Fri, 31 Dec 2099 12:00:00 GMT"),
        ("bad-zone", YESTERDAY.strftime(RFC822) + " -9999"),  # 99 h 99 min behind UTC: four days ahead
        ("no-date", None),
        ("day-only", YESTERDAY.date().isoformat()),
    ]
    body = "".join(
        f"<item><title>Nimbus model release {slug}</title><link>http://127.0.0.1:{port}/a/{slug}</link>"
        f"<description>Nimbus 4 is out with a {slug} note</description>"
        + (f"<pubDate>{when}</pubDate>" if when else "")
        + "</item>"
        for slug, when in entries
    )
    return f'<?xml version="1.0"?><rss version="2.0"><channel><title>dates</title>{body}</channel></rss>'.encode()


def _json_feed(port: int) -> bytes:
    return json.dumps(
        {
            "version": "https://jsonfeed.org/version/1.1",
            "title": "json dates",
            "items": [
                {
                    "id": "impossible",
                    "url": f"http://127.0.0.1:{port}/j/impossible",
                    "title": "Impossible date",
                    "content_text": "An item dated month 13, day 45",
                    "date_published": "2026-13-45T99:99:99Z",
                },
            ],
        }
    ).encode()


@pytest.fixture
def feeds():
    class Handler(Replies):
        def do_GET(self):
            port = self.server.server_address[1]
            if self.path == "/dates.xml":
                return self.reply(200, _rss(port), {"Content-Type": "application/rss+xml"})
            if self.path == "/dates.json":
                return self.reply(200, _json_feed(port), {"Content-Type": "application/feed+json"})
            self.reply(404, b"no")

    httpd = serve_http(Handler)
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


def _settings(tmp_path: Path) -> Settings:
    s = Settings(data_dir=str(tmp_path), site_dir=str(tmp_path / "site"), llm=LLMSettings(backend="extractive"))
    s.fetch.allow_private, s.fetch.retries, s.fetch.total_timeout = True, 0, 10.0
    return s


def _ingest(engine, settings, base: str) -> None:
    catalog = [
        Source(id="dates", name="dates", url=f"{base}/dates.xml"),
        Source(id="json-dates", name="json dates", url=f"{base}/dates.json", kind="jsonfeed"),
    ]
    outcomes = asyncio.run(ingest.ingest_all(engine, settings, catalog))
    assert [o.status for o in outcomes] == ["ok", "ok"], [o.error for o in outcomes]


def _stored(engine) -> dict[str, tuple]:
    with engine.connect() as conn:
        rows = conn.execute(select(items.c.url, items.c.published_at, items.c.first_seen_at, items.c.dated_by)).all()
    return {r.url.rsplit("/", 1)[1]: (r.published_at, r.first_seen_at, r.dated_by) for r in rows}


def test_dates_from_the_future_or_impossible_take_the_first_seen_time_and_say_so(sqlite_engine, feeds, tmp_path):
    _ingest(sqlite_engine, _settings(tmp_path), feeds)
    stored = _stored(sqlite_engine)
    assert stored["yesterday"] == (YESTERDAY, stored["yesterday"][1], "source")
    assert stored["day-only"][0] == datetime.combine(YESTERDAY.date(), datetime.min.time(), UTC)
    assert stored["day-only"][2] == "day"
    for slug in ("far-future", "bad-zone", "no-date", "impossible"):
        published, first_seen, dated_by = stored[slug]
        assert (published, dated_by) == (first_seen, "first_seen"), slug
    assert all(p <= f + FUTURE_SKEW for p, f, _ in stored.values())
    with sqlite_engine.connect() as conn:
        warned = " ".join(w for ws in conn.execute(select(fetches.c.warnings)).scalars() for w in ws)
    assert (
        "'Nimbus model release far-future': dated 2099-12-31 12:00 UTC, after it was fetched; first-seen time used"
        in warned
    )
    assert f"date {YESTERDAY.strftime(RFC822) + ' -9999'!r} not understood; first-seen time used" in warned
    assert "date '2026-13-45T99:99:99Z' not understood" in warned


def test_no_future_day_or_week_is_published(feeds, tmp_path):
    engine = open_store(f"sqlite:///{tmp_path / 'newsdesk.db'}")
    settings = _settings(tmp_path)
    try:
        _ingest(engine, settings, feeds)
        run_pipeline(engine, settings, stages=["cluster", "rank", "daily", "weekly", "publish"])
        with engine.connect() as conn:
            keys = {tuple(r) for r in conn.execute(select(editions.c.kind, editions.c.key))}
    finally:
        engine.dispose()
    today = datetime.now(UTC) + timedelta(days=1)  # the newsroom's zone may be ahead of UTC
    assert {k for kind, k in keys if kind == "daily"} and all(
        k <= today.date().isoformat() for kind, k in keys if kind == "daily"
    )
    year, week, _ = today.isocalendar()
    assert all(k <= f"{year}-W{week:02d}" for kind, k in keys if kind == "weekly"), keys
    site = tmp_path / "site"
    assert not list(site.rglob("2099*")) and "2099" not in (site / "zh" / "daily.xml").read_text("utf-8")


def test_upgrading_moves_stored_future_dates_to_first_seen_and_drops_future_editions(tmp_path):
    """A store filled before the clamp: its 2099 item and the 2099 editions built from it."""
    url = f"sqlite:///{tmp_path / 'old.db'}"
    old = create_engine(url)
    with old.begin() as conn:  # the store as revision 0010 left it
        command.upgrade(config(conn), "0010")
    seen = "2026-11-30 09:00:00.000000"
    with old.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO sources (id, name, url, kind, language, tier, weight, category, fulltext, enabled, origin)"
                " VALUES ('s', 's', 'https://s.example/feed', 'rss', 'en', 2, 1.0, 'media', 0, 1, 'catalog')"
            )
        )
        for n, published in enumerate(("2099-12-31 00:00:00.000000", "2026-11-29 10:00:00.000000", seen), 1):
            conn.execute(
                text(
                    "INSERT INTO items (id, source_id, guid, title, summary, language, published_at, first_seen_at,"
                    " updated_at, material_level, content_hash, authors, categories, engagement, extra)"
                    " VALUES (:n, 's', :g, 't', '', 'en', :p, :f, :f, 'title', 'h', '[]', '[]', '{}', '{}')"
                ),
                {"n": n, "g": f"g{n}", "p": published, "f": seen},
            )
        conn.execute(
            text(
                "INSERT INTO events (id, title, lead_item_id, first_published_at, last_published_at, item_count,"
                " outlets, independent_outlets, languages, anchors, importance, score, score_parts, tab, updated_at)"
                " VALUES (1, 't', 1, '2026-11-29 10:00:00.000000', '2099-12-31 00:00:00.000000', 2, 1, 1, '[]', '[]',"
                " 1, 1, '{}', 'all', :f)"
            ),
            {"f": seen},
        )
        for item_id in (1, 2):
            conn.execute(
                text(
                    "INSERT INTO event_members (item_id, event_id, role, reason, joined_at)"
                    " VALUES (:i, 1, 'member', 'r', :f)"
                ),
                {"i": item_id, "f": seen},
            )
        for kind, key in (
            ("daily", "2099-12-31"),
            ("weekly", "2099-W53"),
            ("daily", "2026-11-29"),
            ("weekly", "2026-W48"),
        ):
            conn.execute(
                text(
                    "INSERT INTO editions (kind, key, language, title, body, meta, status, material_key, updated_at)"
                    " VALUES (:k, :key, 'zh', 't', 'b', '{}', 'clean', 'm', :f)"
                ),
                {"k": kind, "key": key, "f": seen},
            )
    assert "0011" in migrate(old)
    with old.connect() as conn:
        rows = conn.execute(text("SELECT id, published_at, dated_by FROM items ORDER BY id")).all()
        span = conn.execute(text("SELECT first_published_at, last_published_at FROM events")).one()
        kept = {tuple(r) for r in conn.execute(text("SELECT kind, key FROM editions"))}
    old.dispose()
    assert [(r.id, r.published_at[:19], r.dated_by) for r in rows] == [
        (1, seen[:19], "first_seen"),
        (2, "2026-11-29 10:00:00", "source"),
        (3, seen[:19], "first_seen"),
    ]
    assert [s[:19] for s in span] == ["2026-11-29 10:00:00", seen[:19]]
    assert kept == {("daily", "2026-11-29"), ("weekly", "2026-W48")}
