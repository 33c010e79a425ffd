from datetime import UTC, datetime, timedelta

from sqlalchemy import func, select

from newsdesk.model import Item, Source
from newsdesk.store import open_store
from newsdesk.store.items import record_fetch, sync_sources, upsert_item
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
