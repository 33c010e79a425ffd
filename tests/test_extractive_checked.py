"""The offline editions stored: the extractive episode digest and weekly report land in the
edition rows the written ones use, checked, marked extractive, and are not rebuilt unchanged."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from sqlalchemy import func, select
from test_weekly import parse_report

from newsdesk.editions.episode import build_extractive_episode
from newsdesk.editions.weekly import build_extractive_weekly
from newsdesk.ingest.transcripts import parse_transcript
from newsdesk.store.schema import checks, editions
from newsdesk.write.digest import parse_digest
from newsdesk.write.extractive.segment import SegmentOptions

VTT = Path(str(resources.files("newsdesk") / "data" / "demo" / "transcripts" / "newsdesk-week-in-review.vtt"))


def _checks(engine, subject: str) -> int:
    with engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(checks).where(checks.c.output == subject)).scalar()


def test_an_extractive_episode_is_stored_as_the_episode_edition_once(sqlite_engine):
    _, turns = parse_transcript(VTT.read_text(encoding="utf-8"), name=VTT.name)
    first = build_extractive_episode(sqlite_engine, turns, title="The week in review", number=1)
    assert first.status == "clean", first.findings
    with sqlite_engine.connect() as conn:
        row = conn.execute(select(editions).where(editions.c.kind == "episode")).mappings().one()
    assert row["meta"]["extractive"] and row["language"] == "zh" and row["key"] == first.key
    digest = parse_digest(row["body"], "zh")
    assert 5 <= len(digest.summary) <= 9 and len(digest.sections) >= SegmentOptions().min_sections
    # The front matter's summary says what the episode covers (it was '' before).
    summary = row["meta"]["summary"]
    assert summary.startswith("本期谈到：") and digest.sections[0].topic in summary
    from newsdesk.publish.markdown import split_front_matter
    from newsdesk.publish.outputs import EDITION_KINDS

    fields, _ = split_front_matter(EDITION_KINDS["episode"].markdown(dict(row), "UTC"))
    assert fields["summary"] == summary
    assert _checks(sqlite_engine, "episode") == 1
    again = build_extractive_episode(sqlite_engine, turns, title="The week in review", number=1)
    assert again.reused and again.text == first.text and _checks(sqlite_engine, "episode") == 1


def test_an_extractive_weekly_is_stored_as_the_weekly_edition_once(demo_briefs):
    s, engine, _ = demo_briefs
    assert build_extractive_weekly(engine, s, "2025-W09") == "clean"
    with engine.connect() as conn:
        row = conn.execute(select(editions).where(editions.c.kind == "weekly")).mappings().one()
    assert row["key"] == "2025-W09" and row["meta"]["extractive"] and row["status"] == "clean"
    report = parse_report(row["body"])
    # The demo week's leads that share a theme with nothing are one section (its other section was
    # FlashMLA's Chinese and English reports, two events until the clusterer joined them); every part passed.
    assert len(report["sections"]) >= 1 and report["briefs"] and row["meta"]["left_out"] == []
    assert report["properties"]["status"] == "Published"
    assert build_extractive_weekly(engine, s, "2025-W09") == "unchanged"
    assert _checks(engine, "weekly") == 1


def test_an_extractive_run_publishes_every_form_with_no_model_and_a_rerun_does_nothing(tmp_path):
    from newsdesk.core.config import Settings, WriteSettings
    from newsdesk.run.pipeline import run_pipeline
    from newsdesk.store import open_store
    from newsdesk.store.schema import analyses

    pack = VTT.parents[1]
    s = Settings(data_dir=str(tmp_path), site_dir=str(tmp_path / "site"), write=WriteSettings(by="extractive"))
    engine = open_store(s.database)
    # No model is given: [write] by = "extractive": the model is never opened, so nothing asks it.
    first = run_pipeline(engine, s, source=pack)
    assert first.problems == [] and first.model_calls == 0
    with engine.connect() as conn:
        kinds = dict(conn.execute(select(editions.c.kind, func.count()).group_by(editions.c.kind)).all())
        assert kinds["daily"] >= 2 and kinds["weekly"] == 2 and kinds["episode"] == 2  # zh + en
        rows = conn.execute(select(analyses.c.model, analyses.c.status, analyses.c.language)).all()
        events = conn.execute(select(func.count(func.distinct(analyses.c.event_id)))).scalar()
        daily = (
            conn.execute(select(editions.c.meta).where(editions.c.kind == "daily", editions.c.language == "zh"))
            .scalars()
            .all()
        )
    assert events >= 10 and {r.model for r in rows} == {"extractive"} and {r.status for r in rows} == {"clean"}
    # The daily edition's cards carry the extractive cards as their analyses: no second template.
    assert all(card["analysis"] and card["check"] == "clean" for meta in daily for card in meta["cards"])
    assert first.facts["analyses_written"] == len(rows)
    second = run_pipeline(engine, s, source=pack)
    assert second.problems == [] and second.facts["analyses_written"] == 0
