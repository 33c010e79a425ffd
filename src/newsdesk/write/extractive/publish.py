"""The offline newsroom in the store: extractive cards, episode digests and weekly reports,
checked and stored in the rows the model-written ones use, so the site, feeds and web app
show them with no second template.

    publish_cards(engine, settings)                               # analyses rows, model "extractive"
    publish_episode(engine, turns, title="…", number="110")       # an EpisodeResult
    publish_weekly(engine, settings, "2025-W09")                  # "clean" | "flagged" | "unchanged"

Each is keyed on its material: an unchanged event, transcript or week is not rebuilt. What
the checker finds is recorded in `checks` and makes the output flagged, as for a written one;
an edition's meta["extractive"] and an analysis's model "extractive" say it was chosen, not written.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import desc, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Engine

from newsdesk.editions.episode import (
    EpisodeResult,
    episode_slug,
    reuse,
    save_edition,
    stored_edition,
)
from newsdesk.editions.store import material_key, stored_material_key
from newsdesk.editions.weekly import LANGUAGE, store_weekly
from newsdesk.model import Turn
from newsdesk.store.schema import analyses, events
from newsdesk.write import weekly as model_weekly
from newsdesk.write.check import check_output
from newsdesk.write.extractive.card import extractive_card
from newsdesk.write.extractive.episode import (
    DigestOptions,
    Embed,
    extractive_digest,
    prepare,
    transcript_material,
)
from newsdesk.write.extractive.weekly import extractive_weekly, load_week
from newsdesk.write.kit import checker_errors, record_check

EXTRACTIVE_FORMAT = 1  # bump when what the extractive writers choose changes: stored editions are rebuilt
MODEL = "extractive"  # the analyses' model column: chosen from the material by code


def publish_cards(engine: Engine, settings, *, limit: int | None = None) -> int:
    """Each event's extractive card, in every configured language, stored as its analysis
    (the N most important events with `limit`). Returns how many were stored."""
    from newsdesk.cluster import event_brief

    languages = ["zh"] + (["en"] if "en" in settings.languages else [])
    with engine.connect() as conn:
        ids = [r.id for r in conn.execute(select(events.c.id).order_by(desc(events.c.importance), events.c.id).limit(limit))]
        current = {(r.event_id, r.language): r.material_key for r in conn.execute(
            select(analyses.c.event_id, analyses.c.language, analyses.c.material_key).where(analyses.c.event_id.in_(ids)))}
    stored = 0
    for event_id in ids:
        with engine.connect() as conn:
            brief = event_brief(conn, event_id)
        if not brief.get("members"):
            continue
        for language in languages:
            key = material_key("extractive-card", EXTRACTIVE_FORMAT, _fingerprint([brief]), language)
            if current.get((event_id, language)) == key:
                continue
            card = extractive_card(brief, language)
            row = card.analysis()
            result = check_output(row["headline"] + "\n\n" + row["body"], card.material(brief["members"]),
                                  materials=[m["material_level"] for m in brief["members"] if m["role"] != "duplicate"],
                                  language=language)
            record_check(engine, "analysis", f"{event_id}:{language}", 1, result.errors)
            values = {"headline": row["headline"], "body": row["body"], "status": "clean" if result.passed else "flagged",
                      "flags": [f.as_dict() for f in result.findings], "attempts": 1, "model": MODEL,
                      "material_key": key, "created_at": datetime.now(UTC)}
            with engine.begin() as conn:  # an upsert: two workers on one event leave one row
                ins = (postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert)(analyses)
                conn.execute(ins.values(event_id=event_id, language=language, **values).on_conflict_do_update(
                    index_elements=["event_id", "language"], set_=values))
            stored += 1
    return stored


def publish_episode(engine: Engine, turns: list[Turn], *, title: str, number: str | int | None = None,
                    language: str = "zh", embed: Embed | None = None,
                    options: DigestOptions | None = None) -> EpisodeResult:
    """The extractive digest of an episode, checked against its transcript and stored."""
    options = options or DigestOptions()
    number = str(number) if number not in (None, "") else None
    key = episode_slug(title, number)
    mkey = material_key("extractive-episode", EXTRACTIVE_FORMAT, [[t.speaker, t.text, t.start] for t in turns],
                        title, number, language, repr(options))
    row = stored_edition(engine, key, language)
    if row and row["material_key"] == mkey:
        return reuse(row, language)
    transcript = prepare(turns, embed)
    digest = extractive_digest(transcript, title=title, number=number, language=language, options=options)
    errors = checker_errors(digest.prose(), transcript_material(transcript), language)
    record_check(engine, "episode", key, 1, errors)
    findings = [f.detail for f in errors]
    result = EpisodeResult(key, language, digest.render(), digest, "flagged" if findings else "clean", findings, mkey)
    save_edition(engine, result, {
        "number": number, "extractive": True, "summary_bullets": len(digest.summary),
        "sections": len(digest.sections), "bullets_per_section": [len(s.bullets) for s in digest.sections],
        "section_lines": [[s.first_line, s.last_line] for s in digest.sections], "turns": len(turns),
        "findings": findings,
    })
    return result


def _fingerprint(briefs: list[dict]) -> list:
    return [[b["event_id"], b.get("outlets"), b.get("independent_outlets"),
             [[m["item_id"], m.get("title"), m.get("summary"), m.get("body"), m.get("material_level"), m.get("role")]
              for m in b.get("members") or []]] for b in briefs]


def publish_weekly(engine: Engine, settings, week: str | None = None, *, now: datetime | None = None,
                   **caps) -> str:
    """The extractive weekly report of `week` (default: the newest), checked part by part and stored.
    `caps` are the weekly's max_sections / per_section / max_briefs. Returns its status."""
    with engine.begin() as conn:
        week = week or model_weekly.latest_week(conn, settings.timezone)
        if week is None:
            raise model_weekly.WeeklyError("the store has no events yet", "run `newsdesk ingest` and `newsdesk cluster` first")
        model_weekly.parse_week(week)
        briefs, vectors = load_week(conn, settings, week)
    if not briefs:
        raise model_weekly.WeeklyError(f"week {week} has no events in the store", "pick a week with items")
    language = LANGUAGE
    digest = material_key("extractive-weekly", EXTRACTIVE_FORMAT, week, settings.site_name, _fingerprint(briefs), caps)
    with engine.connect() as conn:
        if stored_material_key(conn, "weekly", week, language) == digest:
            return "unchanged"
    report = extractive_weekly(briefs, vectors, language=language, **caps)
    material = [f"{m.get('source_name') or ''}: {m.get('title') or ''}\n{m.get('summary') or ''}\n{m.get('body') or ''}"
                for b in briefs for m in b["members"]] + report.facts
    # Checked part by part, as the written report is: summary with overview, each theme, the briefs.
    parts = [report.summary + "\n\n" + "\n\n".join(report.overview), *(t.text for t in report.themes),
             "\n\n".join(b.line() for b in report.briefs)]
    errors = [f for part in parts for f in check_output(part, material, language=language).errors]
    passed = record_check(engine, "weekly", week, 1, errors)
    status = "clean" if passed else "flagged"
    store_weekly(engine, settings, week=week, summary=report.summary, overview=report.overview,
                 sections=[t.text for t in report.themes], briefs=[b.line() for b in report.briefs],
                 meta={**report.meta(), "flags": [f.as_dict() for f in errors]}, status=status, material_key=digest, now=now)
    return status
