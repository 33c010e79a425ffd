"""The web app's read cache (serve/cache.py) over a real SQLite store, through a loopback server:
a page's second read runs no page query; a new edition, event or vote shows without a restart;
the operator's page (the clusterer's reasons) never comes out of, or goes into, the shared cache."""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from loopback import serve_app
from sqlalchemy import event, insert

from newsdesk.core.config import Settings
from newsdesk.core.model import Item, Source
from newsdesk.editions.daily import build_daily
from newsdesk.serve.app import create_app
from newsdesk.serve.cache import CHECK_EVERY
from newsdesk.store.items import sync_sources, upsert_items
from newsdesk.store.schema import analyses, event_members, events, items

TOKEN = "cache-test-token"
WHEN = datetime(2026, 4, 23, 2, 0, tzinfo=UTC)  # 10:00 in Asia/Shanghai
DAY = "2026-04-23"


def add_event(engine, event_id: int, title: str, headline: str) -> None:
    """An event of one item with a clean analysis, as ingest, the clusterer and the writer store them;
    then the day's edition, rebuilt by the real daily stage."""
    with engine.begin() as conn:
        upsert_items(
            conn,
            [
                Item(
                    source_id="outlet",
                    guid=f"g{event_id}",
                    url=f"https://example.com/{event_id}",
                    title=title,
                    language="en",
                    published_at=WHEN + timedelta(minutes=event_id),
                )
            ],
            now=WHEN + timedelta(hours=1),
        )
        item_id = conn.execute(
            items.select().with_only_columns(items.c.id).where(items.c.guid == f"g{event_id}")
        ).scalar()
        at = datetime.now(UTC)
        conn.execute(
            insert(events).values(
                id=event_id,
                title=title,
                first_published_at=WHEN,
                last_published_at=WHEN,
                updated_at=at,
                score=float(event_id),
                importance=float(event_id),
                tab="p1",
                category="model",
                item_count=1,
                lead_item_id=item_id,
                languages=["en"],
            )
        )
        conn.execute(
            insert(event_members).values(
                item_id=item_id,
                event_id=event_id,
                role="lead",
                joined_at=at,
                reason=f"cosine 0.{event_id}7 to the en centroid",
            )
        )
        conn.execute(
            insert(analyses).values(
                event_id=event_id,
                language="en",
                headline=headline,
                body=f"{headline}. Body.",
                status="clean",
                flags=[],
                material_key=str(event_id),
                created_at=at,
            )
        )
    build_daily(engine, Settings(), DAY)


@pytest.fixture
def server(sqlite_engine):
    with sqlite_engine.begin() as conn:
        sync_sources(conn, [Source(id="outlet", name="Outlet", url="https://outlet.example.com/feed")])
    add_event(sqlite_engine, 1, "First model launch", "First launch headline")
    with (
        serve_app(create_app(sqlite_engine, Settings(web_token=TOKEN))) as base,
        httpx.Client(base_url=base, timeout=30) as client,
    ):
        yield sqlite_engine, client


def statements(engine):
    """A list that grows by one for each SQL statement the engine runs (the server runs in this process)."""
    seen: list[str] = []
    event.listen(engine, "before_cursor_execute", lambda *args: seen.append(args[2]))
    return seen


def shows(client: httpx.Client, path: str, text: str) -> bool:
    """Whether `path` shows `text` within the cache's check interval and a margin for a loaded machine."""
    deadline = time.monotonic() + CHECK_EVERY + 10
    while time.monotonic() < deadline:
        if text in client.get(path).text:
            return True
        time.sleep(0.2)
    return False


def test_a_second_read_runs_no_page_query_and_a_new_edition_shows(server):
    engine, client = server
    seen = statements(engine)
    assert "First launch headline" in client.get(f"/?day={DAY}").text
    assert seen == []  # the day's feed page was rendered at the start (warm_days), before any reader
    assert "First launch headline" in client.get(f"/daily/{DAY}?lang=en").text
    first = len(seen)
    seen.clear()
    client.get(f"/?day={DAY}")
    client.get(f"/daily/{DAY}?lang=en")
    # The rendered pages come from memory: no statement at all (the look at an SQLite store's
    # version, PRAGMA data_version, goes through the cache's own connection, not the engine). The
    # first reads were few: the edition and what it names.
    assert first >= 1 and seen == [], (first, seen)

    add_event(engine, 2, "Second model launch", "Second launch headline")  # a new daily edition is stored
    assert shows(client, f"/daily/{DAY}?lang=en", "Second launch headline")
    assert shows(client, f"/?day={DAY}", "Second launch headline")
    assert shows(client, "/events/2", "Second launch headline")


def test_the_operator_page_is_read_live_and_never_shared(server):
    engine, client = server
    assert "cosine 0.17" not in client.get("/events/1").text  # a reader's page, now cached

    csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/login").text).group(1)
    assert client.post("/login", data={"token": TOKEN, "name": "op", "csrf": csrf}).status_code in (200, 303)
    assert "cosine 0.17" in client.get("/events/1").text  # the operator's: not the cached reader's page

    with httpx.Client(base_url=str(client.base_url), timeout=30) as reader:  # a reader after the operator
        assert "cosine 0.17" not in reader.get("/events/1").text


def test_a_readers_page_sets_no_cookie_and_comes_back_the_same(server):
    engine, client = server
    with httpx.Client(base_url=str(client.base_url), timeout=30) as reader:
        first = reader.get("/events/1")
        again = reader.get("/events/1")
        english = reader.get("/events/1?ui=en")
    assert first.status_code == again.status_code == 200
    # No session for a reader who fills in no form: nothing personal in the page, so one copy serves all.
    assert "set-cookie" not in first.headers and "set-cookie" not in again.headers
    assert first.content == again.content and first.headers["vary"] == again.headers["vary"] == "Cookie"
    assert english.content != first.content and 'lang="en"' in english.text  # the language is part of the key
    csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/login").text)
    assert csrf and csrf.group(1) not in first.text  # the login form does make one, and it stays out


def test_the_page_cache_is_bounded_in_bytes_and_sees_another_connections_commit(sqlite_engine, monkeypatch):
    from newsdesk.serve import cache as web_cache

    monkeypatch.setattr(web_cache, "MAX_PAGE_BYTES", 250)
    reads = web_cache.ReadCache(sqlite_engine, check_every=0)
    for n in range(3):
        reads.get(("page", n), lambda n=n: bytes([n]) * 100)
    assert [reads.get(("page", n), lambda: b"again") for n in range(3)] == [
        b"again",
        bytes([1]) * 100,
        bytes([2]) * 100,
    ]
    assert reads.page(("page", 2)) is None  # check_every 0: a look is always due, so the loop never answers

    before = reads.version()
    with sqlite_engine.begin() as conn:  # a commit through another connection: the run's, the next process's
        sync_sources(conn, [Source(id="another", name="Another", url="https://another.example.com/feed")])
    assert reads.version() != before


def test_an_in_memory_store_is_versioned_by_its_tables():
    from newsdesk.serve.cache import ReadCache
    from newsdesk.store import open_store

    engine = open_store("sqlite://")
    reads = ReadCache(engine)
    before = reads.version()
    with engine.begin() as conn:
        sync_sources(conn, [Source(id="outlet", name="Outlet", url="https://outlet.example.com/feed")])
    assert reads.version() != before and before[0] != "sqlite"
    engine.dispose()


def test_a_page_kept_for_every_reader_cannot_carry_a_csrf_token():
    from starlette.requests import Request

    from newsdesk.serve.pages import LazyCsrf

    request = Request({"type": "http", "method": "GET", "path": "/", "headers": [], "session": {}})
    assert len(str(LazyCsrf(request))) > 20 and "csrf" in request.session  # a personal page makes one
    with pytest.raises(RuntimeError, match="CSRF"):
        str(LazyCsrf(request, shared=True))


def test_a_new_version_is_served_only_once_warmed_and_prefilled(sqlite_engine):
    """When the store moves, the old answers stand while warm() runs in a thread of its own; then the
    cache starts afresh and prefill() fills it, before a reader asks."""
    import threading

    from newsdesk.serve.cache import ReadCache

    gate, prefilled = threading.Event(), []
    gate.set()
    reads = ReadCache(
        sqlite_engine,
        check_every=0,
        warm=gate.wait,
        prefill=lambda: prefilled.append(reads.get(("page", "/"), lambda: b"front page, new version")),
    )
    reads.start()
    assert prefilled == [b"front page, new version"] and reads.page(("page", "/")) is None  # check_every 0
    reads.get(("page", "/"), lambda: b"never computed")  # kept from the prefill
    assert reads.get(("feed",), lambda: "old") == "old"

    gate.clear()  # the next warm-up takes its time
    with sqlite_engine.begin() as conn:
        sync_sources(conn, [Source(id="another", name="Another", url="https://another.example.com/feed")])
    assert reads.get(("feed",), lambda: "new") == "old"  # the store moved: warming, the old answer stands
    assert reads._warming is not None
    gate.set()
    reads._warming.join(10)
    assert reads.get(("feed",), lambda: "new") == "new"
    assert len(prefilled) == 2


def test_the_server_starts_warm_its_front_page_rendered_and_the_segmenter_loaded(tmp_path):
    """In a process of its own (the segmenter is loaded once per process): after the start, before any
    search, the Chinese segmenter's dictionary is loaded, and the front page is answered from memory."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    from test_web_app import seed_store

    from newsdesk.search.index import SearchIndex
    from newsdesk.store import open_store

    url = f"sqlite:///{tmp_path / 'warm.db'}"
    engine = open_store(url)
    seed_store(engine)
    SearchIndex(engine).refresh()  # indexed already: the start segments no document
    engine.dispose()
    script = f"""
import sys
from fastapi.testclient import TestClient
from sqlalchemy import event
from newsdesk.core.config import Settings
from newsdesk.serve.app import create_app
from newsdesk.store import open_store

engine = open_store({url!r})
with TestClient(create_app(engine, Settings())) as client:
    loaded = "rjieba" in sys.modules or "jieba" in sys.modules
    seen = []
    event.listen(engine, "before_cursor_execute", lambda *args: seen.append(args[2]))
    html = client.get("/").text
    print(loaded, "全部 · 2026-04-23" in html, len(seen))
"""
    src = Path(__file__).resolve().parents[1] / "src"
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(src)},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[-3:] == ["True", "True", "0"], done.stdout


def _moved(reads, before, seconds: float = 10.0) -> bool:
    """Whether the version moves from `before` within `seconds` (a notification is handed over on the
    look after it arrives, microseconds to milliseconds after the commit)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if reads.version() != before:
            return True
        time.sleep(0.02)
    return False


def test_postgresql_hears_each_commit_and_counts_no_rows(pg_url):
    """On PostgreSQL the version is what a listening connection heard from the store's triggers: a
    commit moves it (a page's table, the search index's), an open or rolled-back write does not,
    and a look runs no statement on the store's own connections (it counted nine tables before)."""
    from newsdesk.search.index import SearchIndex
    from newsdesk.serve.cache import ReadCache
    from newsdesk.store import open_store

    engine = open_store(pg_url)
    reads = ReadCache(engine)
    statements = []
    event.listen(engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
    try:
        first = reads.version()
        assert first[0] == "listen" and reads.version() == first and not statements
        with engine.connect() as conn:  # written, not committed: no change yet
            sync_sources(conn, [Source(id="outlet", name="Outlet", url="https://outlet.example.com/feed")])
            assert not _moved(reads, first, 0.5)
            conn.rollback()
        assert not _moved(reads, first, 0.5)
        with engine.begin() as conn:
            sync_sources(conn, [Source(id="outlet", name="Outlet", url="https://outlet.example.com/feed")])
        assert _moved(reads, first)
        second = reads.version()
        index = SearchIndex(engine)
        index.ensure()
        with engine.begin() as conn:  # the index's own table, made at run time, is heard too
            conn.exec_driver_sql("INSERT INTO search_docs (kind, ref_id, stamp, body) VALUES ('item', 1, 's', 'b')")
        assert _moved(reads, second)
        third = reads.version()
        reads._listener._conn.close()  # a broken listening connection: the next look opens another
        assert reads.version()[:2] == ("listen", third[1] + 1)  # a new number: whatever it missed, drops once
    finally:
        reads._listener.close()
        engine.dispose()


def test_one_feed_page_is_kept_for_each_query_that_asks_for_it_and_names_each_its_own_address(server):
    """ "/?day=D" (typed), "/?day=D&tab=all" (as the links name it) and the same in another order are one
    page kept once; each answer's language and login links name the address it was asked by."""
    from urllib.parse import quote_plus

    engine, client = server
    forms = [f"/?day={DAY}", f"/?day={DAY}&tab=all", f"/?tab=all&page=1&day={DAY}", f"/?day={DAY}&ui=zh"]
    seen = statements(engine)
    bodies = [client.get(form).text for form in forms]
    assert seen == []  # rendered once, at the start
    for form, body in zip(forms, bodies, strict=True):
        assert f"next={quote_plus(form)}" in body
        assert body.replace(quote_plus(form), "HERE") == bodies[0].replace(quote_plus(forms[0]), "HERE")
    other = client.get(f"/?day={DAY}&from=mail").text  # another parameter: kept under its own query
    assert other.replace(quote_plus(f"/?day={DAY}&from=mail"), "HERE") == bodies[0].replace(
        quote_plus(forms[0]), "HERE"
    )


def test_feed_params_only_for_queries_the_route_reads_alike():
    from newsdesk.serve.pages import feed_params

    assert feed_params("day=2026-04-23") == ("2026-04-23", "all", 1)
    assert feed_params("tab=p1&day=2026-04-23&page=02&ui=en") == ("2026-04-23", "p1", 2)
    assert feed_params("") == (None, "all", 1)
    assert feed_params("day=") == ("", "all", 1)
    for query in ("day=a&day=b", "page=x", "page=%C2%B2", "page=1234567", "day=2026-04-23&from=mail"):
        assert feed_params(query) is None, query


def test_the_server_processes_of_one_start_take_readers_together(tmp_path, monkeypatch):
    """Each process, warm, marks itself and waits for the others of its start (serve_app's folder);
    alone, or once every one has marked itself, it goes on at once."""
    from newsdesk.serve import app as web_app

    monkeypatch.delenv(web_app.START_GROUP, raising=False)
    assert web_app.start_together(0.0)  # one process: nobody to wait for
    monkeypatch.setenv(web_app.START_GROUP, f"{tmp_path}:2")
    started = time.monotonic()
    assert not web_app.start_together(0.3) and time.monotonic() - started >= 0.3  # the other is still warming
    (tmp_path / "another-process").touch()
    assert web_app.start_together(5.0)


def test_a_look_at_the_start_lets_the_first_readers_pages_come_from_memory(sqlite_engine):
    """A server about to take readers looks at the store's version: its kept pages are then answered
    from memory at once, not sent the long way to look first (as every first reader was)."""
    from newsdesk.serve.cache import ReadCache

    reads = ReadCache(sqlite_engine, check_every=60)
    reads.start()
    reads.get(("page", "/"), lambda: b"front page")
    reads._checked = float("-inf")  # the warm-up took longer than check_every
    assert reads.page(("page", "/")) is None
    reads.look()
    assert reads.page(("page", "/")) == b"front page"
