import asyncio
import json
import os
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.exc import DataError

from newsdesk.core.config import Settings
from newsdesk.core.model import Item, Source
from newsdesk.ingest import run as ingest
from newsdesk.store import open_store
from newsdesk.store.items import BATCH, record_fetch, sync_sources, upsert_item, upsert_items
from newsdesk.store.schema import fetches, items, sources

SRC = Source(id="openai-blog", name="OpenAI Blog", url="https://openai.com/news/rss.xml", tier=1)


def _item(**kw) -> Item:
    base = dict(source_id="openai-blog", guid="g1", url="https://openai.com/index/a", title="A", summary="s")
    base.update(kw)
    return Item(**base)


def test_upsert_is_idempotent_and_keyed_by_source_guid(engine):
    with engine.begin() as conn:
        sync_sources(conn, [SRC])
        assert upsert_item(conn, _item()) == "new"
        assert upsert_item(conn, _item()) == "unchanged"
        assert upsert_item(conn, _item(summary="changed")) == "updated"
        assert conn.execute(select(func.count()).select_from(items)).scalar() == 1


def test_upsert_items_answers_for_each_item_in_order_across_batches(engine):
    with engine.begin() as conn:
        sync_sources(conn, [SRC])
        assert upsert_items(conn, [_item(guid=f"g{i}", title=f"T{i}") for i in range(BATCH + 5)]) == ["new"] * (
            BATCH + 5
        )
        again = [
            _item(guid="g0", title="T0"),
            _item(guid="g1", title="edited"),
            _item(guid="g1", title="edited twice"),
            _item(guid="fresh"),
        ]
        # An entry listed twice in one feed is stored once, as its last copy.
        assert upsert_items(conn, again) == ["unchanged", "unchanged", "updated", "new"]
        assert conn.execute(select(items.c.title).where(items.c.guid == "g1")).scalar() == "edited twice"
        assert conn.execute(select(func.count()).select_from(items)).scalar() == BATCH + 6


def test_entries_with_their_own_guids_stay_apart_even_with_one_url(engine):
    with engine.begin() as conn:
        sync_sources(conn, [SRC])
        upsert_item(conn, _item(guid="v1.2", title="Release 1.2"))
        assert upsert_item(conn, _item(guid="v1.3", title="Release 1.3")) == "new"
        assert conn.execute(select(func.count()).select_from(items)).scalar() == 2


def test_times_come_back_utc_aware(engine):
    t = datetime(2026, 3, 9, 8, 0, tzinfo=UTC) + timedelta(hours=8)
    with engine.begin() as conn:
        sync_sources(conn, [SRC])
        upsert_item(conn, _item(published_at=t))
        got = conn.execute(select(items.c.published_at)).scalar_one()
    assert got == t and got.tzinfo is not None


def test_fetch_rows_and_source_sync_keep_state(engine):
    with engine.begin() as conn:
        sync_sources(conn, [SRC])
        record_fetch(conn, "openai-blog", http_status=200, etag='"abc"', warnings=["w1"])
        conn.execute(sources.update().values(etag='"abc"'))
        sync_sources(conn, [Source(**{**SRC.__dict__, "name": "OpenAI News"})])
        row = conn.execute(select(sources)).one()
        assert row.name == "OpenAI News" and row.etag == '"abc"'
        f = conn.execute(select(fetches)).one()
        assert f.warnings == ["w1"] and f.http_status == 200


def test_migrations_run_once(store_url):
    open_store(store_url).dispose()
    eng = open_store(store_url)  # second open applies nothing and keeps data
    from newsdesk.store.migrate import migrate

    assert migrate(eng) == []
    eng.dispose()


def test_catalog_sync_keeps_an_operator_disable_but_honours_a_catalog_disable(engine):
    with engine.begin() as conn:
        sync_sources(conn, [SRC])
        conn.execute(sources.update().values(enabled=False))  # disabled in the web app
        sync_sources(conn, [SRC])
        assert conn.execute(select(sources.c.enabled)).scalar() is False
        conn.execute(sources.update().values(enabled=True))
        sync_sources(conn, [Source(**{**SRC.__dict__, "enabled": False})])
        assert conn.execute(select(sources.c.enabled)).scalar() is False


def test_text_a_database_refuses_is_cleaned_before_it_is_stored(engine):
    """NUL (PostgreSQL refuses it) and lone surrogates (neither database encodes them)."""
    dirty = _item(
        title="GPT\x00-5.5", summary="a\x00b\ud800c", body="body\x00", authors=["A\x00"], extra={"k\x00": ["v\udfff"]}
    )
    with engine.begin() as conn:
        sync_sources(conn, [Source(**{**SRC.__dict__, "name": "OpenAI\x00 Blog"})])
        assert upsert_item(conn, dirty) == "new"
        record_fetch(conn, "openai-blog", error="bad\x00 byte", warnings=["w\x00"])
        row = conn.execute(select(items)).one()
        assert (row.title, row.summary, row.body) == ("GPT-5.5", "ab\ufffdc", "body")
        assert row.authors == ["A"] and row.extra == {"k": ["v\ufffd"]}
        assert conn.execute(select(sources.c.name)).scalar() == "OpenAI Blog"
        f = conn.execute(select(fetches)).one()
        assert (f.error, f.warnings) == ("bad byte", ["w"])
        assert upsert_item(conn, dirty) == "unchanged"  # the next run's copy of the same entry


def test_a_huge_error_is_stored_as_one_bounded_line(engine):
    """The 2.7 MB fetches.error (a database error quoting a 65,535-row statement, one row a line)."""
    from newsdesk.store.schema import ERROR_CHARS, deliveries, subscriptions

    head = "DataError: invalid byte sequence; store the feed again after the fix"
    huge = head + "\n[SQL: INSERT INTO items ...]\n" + "\n".join(f"  ({i}, 'title {i}', NULL)" for i in range(65_535))
    assert len(huge) > 1_500_000
    with engine.begin() as conn:
        sync_sources(conn, [SRC])
        record_fetch(conn, "openai-blog", error=huge)
        record_fetch(conn, "openai-blog", error="short\n  and\ttidy ")
        stored = [r.error for r in conn.execute(select(fetches).order_by(fetches.c.id))]
    assert len(stored[0]) == ERROR_CHARS and "\n" not in stored[0]
    assert stored[0].startswith(head + " [SQL: INSERT INTO items ...] (0, 'title 0', NULL)")
    assert stored[0].endswith(f"… ({len(' '.join(huge.split())) - ERROR_CHARS:,} more characters cut)")
    assert stored[1] == "short and tidy"  # under the cap: only the whitespace folded
    capped = type(fetches.c.error.type)  # push errors are capped the same way
    assert type(deliveries.c.error.type) is capped and type(subscriptions.c.last_error.type) is capped


def _replay_json_feed(engine, tmp_path, entries: list[dict]):
    feeds = tmp_path / "feeds"
    feeds.mkdir()
    doc = {
        "version": "https://jsonfeed.org/version/1.1",
        "title": "Big",
        "home_page_url": "https://big.example/",
        "items": entries,
    }
    (feeds / "big.json").write_text(json.dumps(doc), "utf-8")
    found, urls, _problems = ingest.replay_sources(feeds, {})
    return asyncio.run(ingest.ingest_all(engine, Settings(), found, getter=ingest.DirectoryGetter(feeds, urls)))


def _entry(i: int, title: str = "") -> dict:
    return {
        "id": f"e{i}",
        "url": f"https://big.example/{i}",
        "title": title or f"Entry {i}",
        "content_text": f"Summary {i}",
        "date_published": "2026-11-30T08:00:00Z",
    }


def test_one_nul_in_a_feed_loses_nothing_of_the_source(engine, tmp_path):
    out = _replay_json_feed(
        engine, tmp_path, [_entry(1, "Bad\x00 title"), _entry(2), {**_entry(3), "content_text": "s\x00"}]
    )
    assert (out[0].status, out[0].new) == ("ok", 3), out[0].error
    with engine.connect() as conn:
        assert conn.execute(select(items.c.title).where(items.c.guid == "e1")).scalar() == "Bad title"


def test_a_guid_with_a_nul_is_stored_once_and_found_again(engine):
    # PostgreSQL looks a batch's guids up as one array, which bypasses the column's cleaning: a NUL in a
    # guid once failed the whole batch there (Hypothesis found it in test_fuzz_dates).
    entry = Item(source_id="s", guid="g\x00", url="https://s.example/1", title="T", summary="s")
    with engine.begin() as conn:
        sync_sources(conn, [Source(id="s", name="s", url="https://s.example/")])
        assert upsert_items(conn, [entry]) == ["new"]
        assert upsert_items(conn, [entry]) == ["unchanged"]
        assert conn.execute(select(items.c.guid)).scalars().all() == ["g"]


@pytest.mark.slow  # a minute or two on 2 busy cores
def test_a_feed_of_70000_entries_is_stored_whole(engine, tmp_path):
    """More values than PostgreSQL (65,535) or SQLite (32,766) binds in one statement."""
    out = _replay_json_feed(engine, tmp_path, [_entry(i) for i in range(70_000)])
    assert (out[0].status, out[0].new) == ("ok", 70_000), out[0].error
    with engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(items)).scalar() == 70_000


_WRITER = """
import sys, time
from newsdesk.core.model import Item, Source
from newsdesk.store import open_store
from newsdesk.store.items import sync_sources, upsert_items
engine, end, n = open_store(sys.argv[1]), time.time() + float(sys.argv[2]), 0
with engine.begin() as conn:
    sync_sources(conn, [Source(id="w", name="w", url="https://w.example/")])
while time.time() < end:  # an ingest: one transaction of a few hundred items after another
    with engine.begin() as conn:
        upsert_items(conn, [Item(source_id="w", guid=f"{n}-{i}", url=f"https://w.example/{n}/{i}", title=f"T {n} {i}",
                                 summary="s " * 200) for i in range(300)])
    n += 1
print(n)
"""


def test_readers_and_short_writers_wait_for_a_long_writer_instead_of_failing(sqlite_url):
    """The web app reads (and the search index writes) while an ingest writes to the same file."""
    engine = open_store(sqlite_url)
    with engine.connect() as conn:  # every connection: WAL, and a busy timeout
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 30000
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    writer = subprocess.Popen(
        [sys.executable, "-c", _WRITER, sqlite_url, "8"], env=env, stdout=subprocess.PIPE, text=True
    )
    errors, done = [], []

    def read(write: bool) -> None:
        end = time.time() + 8
        while time.time() < end:
            try:
                with engine.begin() as conn:
                    n = conn.execute(select(func.count()).select_from(items)).scalar()
                    if write and n:  # read everything first, then write: as the search index does
                        record_fetch(conn, "w", items_seen=n)
                done.append(write)
            except Exception as exc:  # noqa: BLE001 - counted and shown below
                errors.append(str(exc).splitlines()[0])

    threads = [threading.Thread(target=read, args=(k % 2 == 1,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    transactions = int(writer.communicate(timeout=60)[0])
    engine.dispose()
    assert errors == [], errors[:3]
    assert transactions > 3 and done.count(True) > 3 and done.count(False) > 3


def test_an_entry_listed_again_without_its_date_keeps_the_date_it_was_listed_with(engine):
    # The harvest lists some items twice, the later copy with an empty pub_date: stored as the last
    # copy, but dated by the copy that has a date, not by when it was seen (a week later, in a replay).
    day = datetime(2026, 2, 8, tzinfo=UTC)
    with engine.begin() as conn:
        sync_sources(conn, [SRC])
        assert upsert_items(conn, [_item(published_at=day, dated_by="day"), _item(title="again")]) == [
            "unchanged",
            "new",
        ]
        row = conn.execute(select(items.c.title, items.c.published_at, items.c.dated_by)).one()
    assert (row.title, row.published_at, row.dated_by) == ("again", day, "day")


def test_every_column_of_a_new_item_comes_back_as_it_was_given(engine):
    # PostgreSQL takes new items as one array a column: each value must come back as a row's did.
    zone = timezone(timedelta(hours=8))
    odd = _item(
        guid='{a,b} "q" \\',
        url=None,
        title="标题 🎉 NULL",
        summary='{"not": json}',
        body=None,
        language="zh",
        published_at=datetime(2026, 3, 1, 12, 0, 0, 123456, tzinfo=zone),
        dated_by="day",
        material_level="full",
        authors=["Ada", "李"],
        categories=[],
        engagement={"points": 3, "ratio": 0.1, "none": None, "nested": [1, {"k": "v"}]},
        extra={"sep": "\u2028", "big": 1e300, "yes": True},
    )
    plain = _item(guid="plain", body="b", published_at=datetime(2026, 3, 1, tzinfo=UTC), engagement={}, extra={})
    now = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)
    with engine.begin() as conn:
        sync_sources(conn, [SRC])
        assert upsert_items(conn, [odd, plain], now) == ["new", "new"]
        rows = {r.guid: r for r in conn.execute(select(items))}
    for given in (odd, plain):
        row = rows[given.guid]
        for name in ("url", "title", "summary", "body", "language", "dated_by", "material_level", "content_hash"):
            assert getattr(row, name) == getattr(given, name), name
        for name in ("authors", "categories", "engagement", "extra"):
            assert getattr(row, name) == getattr(given, name), name
        assert row.published_at == given.published_at and row.published_at.tzinfo is not None
        assert (row.first_seen_at, row.updated_at) == (now, now)


def test_new_items_go_to_postgresql_as_one_array_a_column(pg_url):
    """Not one placeholder a value: psycopg parsed each batch's ~13,500-placeholder statement anew
    (20 s of the 70,000-entry feed's 30)."""
    from sqlalchemy import event

    engine = open_store(pg_url)
    inserts = []

    def listen(conn, cursor, statement, parameters, context, executemany):
        if statement.startswith("INSERT INTO items"):
            inserts.append(parameters)

    event.listen(engine, "before_cursor_execute", listen)
    try:
        with engine.begin() as conn:
            sync_sources(conn, [SRC])
            assert upsert_items(conn, [_item(guid=f"g{i}") for i in range(BATCH + 1)]) == ["new"] * (BATCH + 1)
    finally:
        engine.dispose()
    assert len(inserts) == 2  # one statement a batch
    assert all(len(p) < 20 for p in inserts), [len(p) for p in inserts]


def test_a_batch_of_guids_is_looked_up_in_the_index_not_among_every_row_of_its_source(pg_url):
    """The look-up runs while a big feed's rows are uncommitted (statistics say the table is empty):
    a join to the guids hashed every stored row of the source, each batch (39 ms at 60,000 rows)."""
    from sqlalchemy import text

    from newsdesk.store.items import stored_items

    engine = open_store(pg_url)
    fetched = text(
        "SELECT coalesce(idx_tup_fetch, 0) + coalesce(seq_tup_read, 0) FROM pg_stat_xact_user_tables WHERE relname = 'items'"
    )
    try:
        with engine.begin() as conn:
            sync_sources(conn, [SRC])
            upsert_items(conn, [_item(guid=f"g{i}") for i in range(4 * BATCH)])
            before = conn.execute(fetched).scalar()
            assert len(stored_items(conn, SRC.id, [f"g{i}" for i in range(BATCH)])) == BATCH
            read = conn.execute(fetched).scalar() - before
    finally:
        engine.dispose()
    assert read <= BATCH, read


def test_a_value_too_long_for_its_column_is_refused_not_cut(engine):
    # PostgreSQL's cast of the new items' array to varchar(8)[] once cut a 9-letter language to 8.
    with engine.begin() as conn:
        sync_sources(conn, [SRC])
    too_long = [_item(guid="a"), _item(guid="b", language="toolongly")]
    if engine.dialect.name == "sqlite":  # SQLite keeps a string whole whatever its declared length
        with engine.begin() as conn:
            upsert_items(conn, too_long)
            assert conn.execute(select(items.c.language).where(items.c.guid == "b")).scalar() == "toolongly"
        return
    with pytest.raises(DataError, match="too long"), engine.begin() as conn:
        upsert_items(conn, too_long)
