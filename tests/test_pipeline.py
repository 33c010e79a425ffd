"""`newsdesk run` on the demo pack: every stage produces its output; a re-run does nothing."""

from __future__ import annotations

from pathlib import Path

from conftest import PACK
from fakes import StageFake
from sqlalchemy import func, select

from newsdesk.core.config import Settings
from newsdesk.publish.markdown import split_front_matter
from newsdesk.run.pipeline import DEMO_LIMITS, run_pipeline
from newsdesk.search.index import SearchIndex
from newsdesk.store import open_store
from newsdesk.store.schema import analyses, checks, editions, events, items


def test_run_builds_every_edition_then_a_rerun_does_nothing(tmp_path):
    s = Settings(data_dir=str(tmp_path), site_dir=str(tmp_path / "site"))
    engine = open_store(s.database)
    fake = StageFake(engine)

    first = run_pipeline(engine, s, limits=DEMO_LIMITS, source=PACK, llm=fake)
    assert first.problems == []
    assert first.facts["items_new"] >= 40 and first.facts["items_clustered"] == first.facts["items_new"]
    with engine.connect() as conn:
        kinds = dict(conn.execute(select(editions.c.kind, func.count()).group_by(editions.c.kind)).all())
        assert kinds["daily"] >= 2 and kinds["weekly"] == 2 and kinds["episode"] == 2  # zh + en
        written = conn.execute(select(func.count(func.distinct(analyses.c.event_id)))).scalar()
        assert written == DEMO_LIMITS.analyses  # the cap: the most important events only
        weekly = conn.execute(select(editions.c.meta).where(editions.c.kind == "weekly")).scalar()
        # The week's leads that share a theme with nothing else are gathered into one section of leads.
        assert 1 <= len(weekly["sections"]) <= DEMO_LIMITS.weekly_sections
        assert sum(len(sec["events"]) for sec in weekly["sections"]) >= 3
        assert all(len(sec["events"]) <= DEMO_LIMITS.weekly_items for sec in weekly["sections"])
        assert 1 <= len(weekly["briefs"]) <= DEMO_LIMITS.weekly_briefs
        assert conn.execute(select(func.count()).select_from(checks)).scalar() >= 3
        assert (
            conn.execute(select(func.count()).select_from(events)).scalar()
            < conn.execute(select(func.count()).select_from(items)).scalar()
        )  # coverage of one happening was merged
        stamps = conn.execute(select(editions.c.id, editions.c.updated_at)).all()
    assert {"analysis", "weekly", "episode", "translation"} <= set(fake.calls)
    index = Path(first.facts["site_dir"]) / "index.html"
    assert index.exists()
    digests = sorted(Path(first.facts["site_dir"]).glob("*/episodes/*.md"))
    assert len(digests) == 2
    for path in digests:  # the demo episode aired Sun, 02 Mar 2025 14:00 UTC: dated that day, not the build's
        assert split_front_matter(path.read_text("utf-8"))[0]["date"].startswith("2025-03-02"), path
    assert first.facts["search_indexed"] > first.facts["items_new"]  # items and events, searchable at once
    assert SearchIndex(engine).search("Claude")

    calls = len(fake.calls)
    second = run_pipeline(engine, s, limits=DEMO_LIMITS, source=PACK, llm=fake)
    assert second.problems == []
    assert fake.calls[calls:] == []  # no model call
    # A re-read keeps what was fetched for an item (full text, paywall finding, transcript).
    assert second.facts["items_new"] == 0 and second.facts["items_updated"] == 0
    assert second.facts["items_clustered"] == 0
    assert first.facts["episodes"] == 1 and second.facts["episodes"] == 0  # the digest read back, not written
    assert second.facts["site_files_written"] == 0
    assert second.facts["search_indexed"] == 0
    with engine.connect() as conn:
        assert conn.execute(select(editions.c.id, editions.c.updated_at)).all() == stamps


def test_stages_run_by_name_and_a_failing_one_is_one_problem_while_the_next_still_run(tmp_path):
    blocker = tmp_path / "site"
    blocker.write_text("a file where the site folder should be")
    s = Settings(data_dir=str(tmp_path), site_dir=str(blocker))
    engine = open_store(s.database)
    report = run_pipeline(engine, s, stages=["ingest", "publish", "search"], source=PACK)
    assert list(report.seconds) == ["ingest", "publish", "search"]
    assert len(report.problems) == 1
    assert report.problems[0].startswith(f"publish: cannot write the site to {str(blocker)!r}")
    assert report.problems[0].endswith("check site_dir and its permissions")
    assert "site_dir" not in report.facts and report.facts["search_indexed"] >= report.facts["items_new"] > 0
    assert report.model_calls == 0


def test_a_store_damaged_while_a_run_goes_says_what_the_run_wrote_and_leaves_no_stage_running(tmp_path):
    """The store passes its check at open and is damaged while the run goes (a disk fault, another
    program): the stage that meets the damage stops the run with one line saying what the run had
    stored, and its stage row is marked failed, not left `running` (it said "changed nothing")."""
    import sqlite3

    import pytest

    from newsdesk.run.pipeline import Watcher
    from newsdesk.store import StoreError

    s = Settings(data_dir=str(tmp_path), site_dir=str(tmp_path / "site"))
    engine = open_store(s.database)
    db = tmp_path / "newsdesk.db"

    class Damage(Watcher):
        def finished(self, name, seconds, result):
            if name != "ingest":
                return
            with engine.connect() as conn:  # every page in the file, then garbage over the events table's
                conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
                root = conn.exec_driver_sql("SELECT rootpage FROM sqlite_master WHERE name = 'events'").scalar()
                size = conn.exec_driver_sql("PRAGMA page_size").scalar()
            engine.dispose()  # no connection keeps the page in its cache: the next stage reads the file
            data = bytearray(db.read_bytes())
            data[(root - 1) * size : root * size] = bytes((i * 151 + 7) % 256 for i in range(size))
            db.write_bytes(bytes(data))

    with pytest.raises(StoreError) as raised:
        run_pipeline(engine, s, source=PACK, watcher=Damage())
    said = str(raised.value)
    assert "is damaged" in said and "changed nothing" not in said, said
    assert "while the cluster stage ran, after this run's ingest stored" in said and "items_new=4" in said, said
    assert "the cluster stage's row is marked failed" in said, said
    engine.dispose()
    with sqlite3.connect(db) as conn:  # read as any SQLite client would; the stage_runs pages are intact
        rows = dict(conn.execute("SELECT stage, status FROM stage_runs").fetchall())
    assert rows == {"ingest": "ok", "cluster": "failed"}
