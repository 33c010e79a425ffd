"""Schema migrations: a store made before Alembic upgrades with every row kept; fresh stores
match schema.py; processes that start at once on a new store take turns."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import MetaData, create_engine, func, insert, inspect, select

from newsdesk.core.model import Item
from newsdesk.rank.score import rank_events
from newsdesk.store import open_store
from newsdesk.store.items import record_fetch, upsert_item
from newsdesk.store.migrate import current, head
from newsdesk.store.schema import editions, events, items, metadata

ROOT = Path(__file__).resolve().parents[1]
LEGACY = Path(__file__).with_name("store_before_alembic")
T = datetime(2026, 11, 30, 9, 15, 2, 123456, tzinfo=UTC)
# Columns a later revision renamed: (table, old name) -> new name. Their values must be kept.
RENAMED = {
    ("events", "tier"): "tab",
    ("events", "first_seen_at"): "first_published_at",
    ("events", "last_seen_at"): "last_published_at",
    ("items", "material"): "material_level",
    ("checks", "subject"): "output",
    ("llm_usage", "stage"): "output",
}


def _legacy_store(url: str, *, without: str = "") -> None:
    """A store as main made it before Alembic (frozen DDL), with rows in every table."""
    eng = create_engine(url)
    ddl = (LEGACY / f"{eng.dialect.name}.sql").read_text("utf-8")
    if without:
        ddl = "\n".join(line for line in ddl.splitlines() if not line.strip().startswith(without + " "))
    with eng.begin() as conn:
        for stmt in ddl.split(";\n"):
            if stmt.strip():
                conn.exec_driver_sql(stmt)
        t = MetaData()
        t.reflect(conn)

        def add(table_name: str, /, **values):
            table = t.tables[table_name]
            values = {k: v for k, v in values.items() if k in table.c}  # a store made before a column existed
            return conn.execute(insert(table).values(**values).returning(*table.primary_key)).scalar()

        src = dict(
            name="OpenAI News",
            kind="rss",
            language="en",
            tier=1,
            weight=1.0,
            category="lab",
            fulltext=True,
            enabled=True,
            origin="catalog",
        )
        add("sources", id="openai-blog", url="https://openai.com/news/rss.xml", etag='"e1"', **src)
        add(
            "sources",
            id="jiqizhixin",
            url="https://rsshub.app/jiqizhixin",
            lease_owner="host:1:ab",
            lease_until=T,
            **{**src, "name": "机器之心", "language": "zh", "tier": 2, "enabled": False, "origin": "user"},
        )
        add(
            "fetches",
            source_id="openai-blog",
            started_at=T,
            duration_ms=812,
            url="https://openai.com/news/rss.xml",
            http_status=200,
            etag='"e1"',
            not_modified=False,
            items_seen=2,
            items_new=2,
            items_updated=0,
            warnings=["one entry had no date"],
            error=None,
        )
        item = dict(
            language="en",
            published_at=T,
            first_seen_at=T,
            updated_at=T,
            material="full",
            authors=["A. Writer"],
            categories=["release"],
            engagement={"points": 312},
            extra={"arxiv": "2501.00001"},
        )
        a = add(
            "items",
            source_id="openai-blog",
            guid="g-a",
            url="https://openai.com/index/a",
            title="GPT-5.5 is out",
            summary="s",
            body="long body",
            content_hash="a" * 64,
            **item,
        )
        b = add(
            "items",
            source_id="jiqizhixin",
            guid="g-b",
            url="https://jiqizhixin.com/b",
            title="GPT-5.5 发布",
            summary="摘要",
            body=None,
            content_hash="b" * 64,
            **{**item, "language": "zh", "material": "summary"},
        )
        add(
            "transcripts",
            item_id=a,
            format="vtt",
            source_url="https://x/a.vtt",
            turns=[{"speaker": "Host", "start": 0.0, "end": 2.5, "text": "你好"}],
            stored_at=T,
        )
        add("item_vectors", item_id=a, model="use-m3", dim=2, vector=b"\x00\x00\x80?\x00\x00\x00@")
        ev = add(
            "events",
            title="GPT-5.5 is out",
            lead_item_id=a,
            first_seen_at=T,
            last_seen_at=T,
            item_count=2,
            outlets=2,
            independent_outlets=2,
            languages=["en", "zh"],
            category="lab",
            anchors=["GPT-5.5"],
            importance=4.5,
            score=1.25,
            score_parts={"importance": 4.5, "recency": 0.28},
            tier="featured",
            updated_at=T,
        )
        add(
            "event_members",
            item_id=a,
            event_id=ev,
            role="lead",
            origin_item_id=None,
            similarity=None,
            reason="opened",
            joined_at=T,
        )
        add(
            "event_members",
            item_id=b,
            event_id=ev,
            role="member",
            origin_item_id=None,
            similarity=0.71,
            reason="anchor GPT-5.5",
            joined_at=T,
        )
        add(
            "llm_cache",
            key="c" * 64,
            model="qwen",
            request={"messages": [{"role": "user", "content": "q"}]},
            response={"text": "答"},
            created_at=T,
        )
        add(
            "llm_usage",
            at=T,
            run_id="r1",
            stage="analysis",
            backend="embedded",
            model="qwen",
            prompt_tokens=900,
            completion_tokens=120,
            cached_tokens=800,
            latency_ms=4000,
            cost_usd=0.0,
            cache_hit=False,
            error=None,
        )
        add(
            "llm_usage",
            at=T,
            run_id="r1",
            stage="translate",
            backend="embedded",
            model="qwen",
            prompt_tokens=500,
            completion_tokens=400,
            cached_tokens=0,
            latency_ms=3000,
            cost_usd=0.0,
            cache_hit=False,
            error=None,
        )
        an = add(
            "analyses",
            event_id=ev,
            language="zh",
            headline="标题",
            body="正文",
            status="flagged",
            flags=[{"part": "body", "finding": "number 7 not in material"}],
            attempts=2,
            model="qwen",
            material_key="m" * 64,
            created_at=T,
        )
        add(
            "checks",
            subject="analysis",
            subject_id=str(an),
            attempt=2,
            passed=False,
            findings=[{"part": "body", "finding": "number 7 not in material"}],
            at=T,
        )
        add(
            "editions",
            kind="daily",
            key="2026-11-30",
            language="zh",
            title="全部 · 2026-11-30",
            body="# 今日",
            meta={"events": [ev]},
            status="clean",
            material_key="k" * 64,
            updated_at=T,
        )
        add(
            "editions",
            kind="daily",
            key="2026-11-29",
            language="zh",
            title="全部 · 2026-11-29",
            body="# 昨日",
            meta={"date": "2026-11-29", "cards": [LEGACY_CARD]},
            status="clean",
            material_key="l" * 64,
            updated_at=T,
        )
        add("feedback", event_id=ev, kind="star", note="", user="operator", at=T)
    eng.dispose()


LEGACY_CARD = {
    "event_id": 1,
    "tier": "featured",
    "first_seen_at": "2026-11-29 08:00",
    "last_seen_at": "2026-11-29 09:00",
    "members": [{"item_id": 1, "material": "full", "role": "lead"}],
}


def _rows(url: str, columns: dict[str, list[str]] | None = None) -> dict[str, list[tuple]]:
    """Every row of every table, as the database holds it (reflected types, no app decoding);
    with `columns`, only those columns of each table."""
    eng = create_engine(url)
    with eng.connect() as conn:
        t = MetaData()
        t.reflect(conn)
        out = {
            name: [
                tuple(r)
                for r in conn.execute(
                    select(*([table.c[c] for c in columns[name]] if columns and name in columns else table.c)).order_by(
                        *table.primary_key
                    )
                )
            ]
            for name, table in t.tables.items()
            if name not in ("schema_migrations", "alembic_version")
        }
    eng.dispose()
    return out


def _columns(url: str) -> dict[str, list[str]]:
    eng = create_engine(url)
    with eng.connect() as conn:
        t = MetaData()
        t.reflect(conn)
    eng.dispose()
    return {name: [c.name for c in table.c] for name, table in t.tables.items()}


def _schema_differences(engine) -> list:
    with engine.connect() as conn:
        ctx = MigrationContext.configure(conn, opts={"compare_type": True, "compare_server_default": True})
        return compare_metadata(ctx, metadata)


def test_a_store_made_before_alembic_upgrades_with_every_row_kept(store_url):
    _legacy_store(store_url)
    before = _rows(store_url)
    legacy = _columns(store_url)  # later revisions add columns; the rows already there must be intact
    # Every table of revision 0001 (later revisions add tables the legacy store never had).
    assert set(before) < set(metadata.tables) and all(before.values()), "the legacy store has rows in every table"

    eng = open_store(store_url)
    try:
        after = _rows(store_url, {name: [RENAMED.get((name, c), c) for c in cols] for name, cols in legacy.items()})
        # The translation's usage rows take its one stage name; every other value is kept.
        before["llm_usage"] = [tuple("translation" if v == "translate" else v for v in r) for r in before["llm_usage"]]
        # The daily cards stored in editions.meta take the new names (checked below); every value is kept.
        for rows in (before["editions"], after["editions"]):
            rows[:] = [r for r in rows if "2026-11-29" not in r]
        assert {name: rows for name, rows in after.items() if name in before} == before
        with eng.connect() as conn:
            meta = conn.execute(select(editions.c.meta).where(editions.c.key == "2026-11-29")).scalar()
        assert meta == {
            "date": "2026-11-29",
            "cards": [
                {
                    "event_id": 1,
                    "tab": "featured",
                    "first_published_at": "2026-11-29 08:00",
                    "last_published_at": "2026-11-29 09:00",
                    "members": [{"item_id": 1, "material_level": "full", "role": "lead"}],
                }
            ],
        }
        assert not any(rows for name, rows in after.items() if name not in before)
        with eng.connect() as conn:
            tables = inspect(conn).get_table_names()
            assert "schema_migrations" not in tables
            assert current(conn) == head()
        assert _schema_differences(eng) == []
        # The upgraded store takes the stages' writes: sequences continue past the old rows.
        with eng.begin() as conn:
            assert (
                upsert_item(
                    conn,
                    Item(source_id="openai-blog", guid="g-new", url="https://openai.com/c", title="new", summary="s"),
                )
                == "new"
            )
            record_fetch(conn, "openai-blog", http_status=304, not_modified=True)
        assert rank_events(eng) == 1
        with eng.connect() as conn:
            assert conn.execute(select(func.count()).select_from(items)).scalar() == 3
    finally:
        eng.dispose()
    eng = open_store(store_url)  # a second open finds nothing to do
    eng.dispose()


def test_a_store_made_before_events_had_importance_gets_it_from_score_parts(store_url):
    _legacy_store(store_url, without="importance")
    eng = open_store(store_url)
    try:
        with eng.connect() as conn:
            assert conn.execute(select(events.c.importance)).scalar() == 4.5
        differences = [(d[0][0], d[0][2], d[0][3]) if isinstance(d, list) else d for d in _schema_differences(eng)]
        # SQLite cannot drop a column's default in place; that default 0 is the only difference.
        assert differences == ([("modify_default", "events", "importance")] if eng.dialect.name == "sqlite" else [])
    finally:
        eng.dispose()


def test_a_new_store_is_built_by_the_revisions_and_matches_schema_py(store_url):
    """The guard for every later change: schema.py and the revisions must agree."""
    eng = open_store(store_url)
    try:
        assert _schema_differences(eng) == []
    finally:
        eng.dispose()


_OPEN_AT = """
import sys, time
from newsdesk.store import open_store
start, url = float(sys.argv[1]), sys.argv[2]
time.sleep(max(0.0, start - time.time()))
open_store(url).dispose()
"""


def test_processes_started_at_once_on_a_new_store_take_turns(store_url):
    start = time.time() + 3  # every process imported and waiting by then
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _OPEN_AT, str(start), store_url],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for _ in range(4)
    ]
    outputs = [p.communicate(timeout=120)[0] for p in procs]
    assert [p.returncode for p in procs] == [0] * 4, outputs
    eng = open_store(store_url)
    try:
        with eng.connect() as conn:
            assert current(conn) == head()
        assert _schema_differences(eng) == []
    finally:
        eng.dispose()


def test_migrate_command_upgrades_a_store_made_before_alembic(tmp_path):
    _legacy_store(f"sqlite:///{tmp_path / 'newsdesk.db'}")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "NEWSDESK_CONFIG": "", "NEWSDESK_DATA_DIR": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-m", "newsdesk", "migrate"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert f"revision {head()}" in out.stdout


def test_the_output_columns_are_renamed_with_every_row_kept(store_url):
    """Revision 0013: checks.subject, failed_drafts.kind and llm_usage.stage become `output`; a store at
    0012 with rows in all three upgrades with their values, and a failed draft of the same part and
    material still lands on its one row (the unique constraint follows the column)."""
    from alembic import command

    from newsdesk.store.migrate import config
    from newsdesk.store.schema import checks, failed_drafts, llm_usage
    from newsdesk.write.failed import Draft, stand_in

    eng = create_engine(store_url)
    with eng.connect() as conn:
        command.upgrade(config(conn), "0012")
        conn.commit()
        conn.exec_driver_sql(
            "INSERT INTO checks (subject, subject_id, attempt, passed, findings, at) "
            "VALUES ('weekly', '2026-W10', 1, false, '[]', '2026-03-08 10:00:00+00:00')"
        )
        conn.exec_driver_sql(
            "INSERT INTO failed_drafts (kind, subject_id, language, title, text, findings, model, material_key,"
            " created_at) VALUES ('analysis', '12:zh', 'zh', 't', 'draft', '[]', 'm', 'k1', '2026-03-08 10:00:00+00:00')"
        )
        conn.exec_driver_sql(
            "INSERT INTO llm_usage (at, run_id, stage, backend, model, prompt_tokens, completion_tokens,"
            " cached_tokens, latency_ms, cost_usd, cache_hit) VALUES"
            " ('2026-03-08 10:00:00+00:00', 'r1', 'translation', 'openai', 'm', 10, 5, 0, 100, 0.0, false)"
        )
        conn.commit()
    eng.dispose()

    eng = open_store(store_url)
    try:
        with eng.connect() as conn:
            assert current(conn) == head()
            assert conn.execute(select(checks.c.output, checks.c.subject_id)).all() == [("weekly", "2026-W10")]
            assert conn.execute(select(llm_usage.c.output, llm_usage.c.run_id)).all() == [("translation", "r1")]
        assert _schema_differences(eng) == []
        again = Draft("analysis", "12:zh", "zh", "t", "draft, again", [], "m", "k1")
        assert stand_in(eng, again, lambda: "stand-in") == "stand-in"
        with eng.connect() as conn:
            rows = conn.execute(select(failed_drafts.c.output, failed_drafts.c.subject_id, failed_drafts.c.text)).all()
        assert rows == [("analysis", "12:zh", "draft, again")]
    finally:
        eng.dispose()


def test_a_lock_sqlite_will_not_wait_for_is_tried_again(tmp_path, monkeypatch):
    """SQLite answers "database is locked" at once, busy_timeout or not, where waiting could deadlock:
    a CI run saw one of four processes opening a new store together fail so. open_store tries again
    while such a lock lasts (LOCKED_WAIT_SECONDS), then gives the one line it gives for a store it
    cannot use; any other error is not retried."""
    import sqlite3

    import pytest
    from sqlalchemy.exc import OperationalError

    import newsdesk.store as store
    from newsdesk.core.errors import NewsdeskError

    real = store.migrate
    calls = []

    def busy_once(engine):
        calls.append(1)
        if len(calls) == 1:
            raise OperationalError("BEGIN IMMEDIATE", {}, sqlite3.OperationalError("database is locked"))
        return real(engine)

    monkeypatch.setattr(store, "migrate", busy_once)
    url = f"sqlite:///{tmp_path / 'a' / 'newsdesk.db'}"
    eng = open_store(url)
    with eng.connect() as conn:
        assert current(conn) == head() and len(calls) == 2
    eng.dispose()

    def always_locked(engine):
        raise OperationalError("BEGIN IMMEDIATE", {}, sqlite3.OperationalError("database is locked"))

    monkeypatch.setattr(store, "migrate", always_locked)
    monkeypatch.setattr(store, "LOCKED_WAIT_SECONDS", 0.5)
    with pytest.raises(NewsdeskError, match="database is locked; check database_url"):
        open_store(f"sqlite:///{tmp_path / 'b' / 'newsdesk.db'}")

    def full(engine):
        raise OperationalError("INSERT", {}, sqlite3.OperationalError("database or disk is full"))

    monkeypatch.setattr(store, "migrate", full)
    started = time.monotonic()
    with pytest.raises(NewsdeskError, match="disk is full"):
        open_store(f"sqlite:///{tmp_path / 'c' / 'newsdesk.db'}")
    assert time.monotonic() - started < 0.5  # not retried
