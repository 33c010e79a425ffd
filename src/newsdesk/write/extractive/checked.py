"""The offline newsroom's outputs checked against their material: extractive cards, stored as
analyses; episode digests and weekly reports, handed to editions/ (editions/episode.py,
editions/weekly.py) to store in the rows the model-written ones use, so the site, feeds and web app
show them with no second template.

    store_cards(engine, settings)                              # analyses rows, model "extractive"
    checked_episode(engine, turns, title="…", number="110")    # an EpisodeResult
    checked_weekly(engine, settings, "2025-W09")               # its WeeklyParts, or None: unchanged

Each is keyed on its material: an unchanged event, transcript or week is not rebuilt. What
the checker finds is recorded in `checks` and makes the output flagged, as for a written one;
an edition's meta["extractive"] and an analysis's model "extractive" say it was chosen, not written.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from datetime import UTC, datetime
from typing import NamedTuple

from sqlalchemy import desc, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Engine

from newsdesk.check.checker import check_output
from newsdesk.core.findings import Finding
from newsdesk.core.model import Turn
from newsdesk.store.days import NoEvents, growth_days, local_day_bounds, local_time
from newsdesk.store.edition_rows import material_key, stored_material_key
from newsdesk.store.schema import analyses, events
from newsdesk.write import weekly as model_weekly
from newsdesk.write.episode_result import (
    EpisodeResult,
    episode_slug,
    language_note,
    reuse,
    stored_edition,
)
from newsdesk.write.extractive.card import EXTRACTIVE as MODEL
from newsdesk.write.extractive.card import extractive_card, member_material, structured_summary
from newsdesk.write.extractive.english import english_card
from newsdesk.write.extractive.episode import (
    DigestOptions,
    Embed,
    extractive_digest,
    prepare,
    transcript_material,
)
from newsdesk.write.extractive.weekly import (
    Theme,
    extractive_summary,
    extractive_theme,
    extractive_weekly,
    item_brief,
    load_week,
)
from newsdesk.write.failed import Draft, stand_in
from newsdesk.write.kit import checker_errors, event_size, record_check
from newsdesk.write.weekly import LANGUAGE, WeeklyParts
from newsdesk.write.weekly_stories import stories_fingerprint, week_stories

log = logging.getLogger("newsdesk.weekly")
EXTRACTIVE_FORMAT = 31  # bump when what the extractive writers choose changes: stored editions are rebuilt


class Stored(NamedTuple):
    written: int  # cards stored this run
    flagged: int  # of them, those that failed their checks: never published (editions/cards.py reads clean ones)


def store_cards(engine: Engine, settings, *, limit: int | None = None, missing_only: bool = False) -> Stored:
    """Each event's extractive card, in every configured language, stored as its analysis
    (the N most important events with `limit`; with `missing_only`, only where the event has no
    analysis in that language: the model's stand-in when its endpoint cannot answer). Returns how
    many were stored, and how many of them failed their checks (the run's summary says so)."""
    from newsdesk.cluster import event_brief

    languages = ["zh"] + (["en"] if "en" in settings.languages else [])
    with engine.connect() as conn:
        ids = [
            r.id
            for r in conn.execute(select(events.c.id).order_by(desc(events.c.importance), events.c.id).limit(limit))
        ]
        current = {
            (r.event_id, r.language): r.material_key
            for r in conn.execute(
                select(analyses.c.event_id, analyses.c.language, analyses.c.material_key).where(
                    analyses.c.event_id.in_(ids)
                )
            )
        }
    written: list[tuple[int, str]] = []
    for event_id in ids:
        with engine.connect() as conn:
            brief = event_brief(conn, event_id)
            days = card_days(conn, brief, settings.timezone) if brief.get("members") else {}
        if brief.get("members"):
            written += [
                (event_id, language)
                for language in languages
                if not (missing_only and (event_id, language) in current)
                and store_card(engine, brief, language, stored_key=current.get((event_id, language)), days=days)
            ]
    flagged = 0
    with engine.connect() as conn:
        for chunk in (written[i : i + 500] for i in range(0, len(written), 500)):
            rows = conn.execute(
                select(analyses.c.event_id, analyses.c.language).where(
                    analyses.c.event_id.in_({e for e, _ in chunk}), analyses.c.status == "flagged"
                )
            )
            flagged += len({(r.event_id, r.language) for r in rows} & set(chunk))
    return Stored(len(written), flagged)


def card_days(conn, brief: dict, tz: str) -> dict:
    """extractive_card's `until` (the end of the event's first local day) and `growth` (each later day
    an outlet first reported it: store/days.py, as the daily editions list its updates)."""
    first = local_time(brief["first_published_at"], tz).date()
    growth = growth_days(conn, tz, [brief["event_id"]]).get(brief["event_id"], {})
    return {"until": local_day_bounds(first, tz)[1], "growth": {d.isoformat(): ids for d, ids in growth.items()}}


def store_card(engine: Engine, brief: dict, language: str, *, stored_key: str | None, days: dict | None = None) -> bool:
    """One event's extractive card in one language, stored as its analysis unless the stored one
    (`stored_key`) was chosen from the same material. `days`: card_days(). Returns whether it stored one."""
    days = days or {}
    key = material_key(
        "extractive-card",
        EXTRACTIVE_FORMAT,
        _fingerprint([brief]),
        language,
        str(days.get("until") or ""),
        days.get("growth") or {},
    )
    if stored_key == key:
        return False
    values = {**card_values(engine, brief, language, **days), "material_key": key, **event_size(brief)}
    with engine.begin() as conn:  # an upsert: two workers on one event leave one row
        ins = (postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert)(analyses)
        conn.execute(
            ins.values(event_id=brief["event_id"], language=language, **values).on_conflict_do_update(
                index_elements=["event_id", "language"], set_=values
            )
        )
    return True


def card_values(engine: Engine, brief: dict, language: str, *, attempt: int = 1, until=None, growth=None) -> dict:
    """The extractive card of one event as an analyses row's values (all but material_key),
    checked against the members' own text, the check recorded as the analysis's `attempt`;
    `until` and `growth` as extractive_card takes them."""
    # The English card is told from the English material alone (english.py); other languages as card.py chooses.
    if language == "en":
        card = english_card(brief, until=until, growth=growth)
    else:
        card = extractive_card(brief, language, until=until, growth=growth)
    row = card.analysis()
    result = check_output(
        row["headline"] + "\n\n" + row["body"],
        card.material(brief["members"]),
        levels=[m["material_level"] for m in brief["members"] if m["role"] != "duplicate"],
        language=language,
    )
    record_check(engine, "analysis", f"{brief['event_id']}:{language}", attempt, result.errors)
    return {
        "headline": row["headline"],
        "body": row["body"],
        "status": "clean" if result.passed else "flagged",
        "flags": [f.as_dict() for f in result.findings],
        "attempts": 1,
        "model": MODEL,
        "created_at": datetime.now(UTC),
        "translated_from": None,  # chosen anew: in the material's own language until translated again
    }


def checked_episode(
    engine: Engine,
    turns: list[Turn],
    *,
    title: str,
    number: str | int | None = None,
    language: str = "zh",
    embed: Embed | None = None,
    options: DigestOptions | None = None,
    key: str | None = None,
    stands_in_for: str | None = None,
) -> EpisodeResult:
    """The extractive digest of an episode, checked against its transcript, for editions/episode.py to store.

    `stands_in_for`: the material key of a written edition that failed its checks; the digest is
    stored under it, in that edition's place (`key`), so a re-run neither rewrites nor re-asks."""
    options = options or DigestOptions()
    number = str(number) if number not in (None, "") else None
    key = key or episode_slug(title, number)
    mkey = stands_in_for or material_key(
        "extractive-episode",
        EXTRACTIVE_FORMAT,
        [[t.speaker, t.text, t.start] for t in turns],
        title,
        number,
        language,
        repr(options),
    )
    row = stored_edition(engine, key, language)
    if row and row["material_key"] == mkey and (row.get("meta") or {}).get("extractive"):  # not the draft it replaces
        return reuse(row, language)
    transcript = prepare(turns, embed)
    digest = extractive_digest(transcript, title=title, number=number, language=language, options=options)
    digest.note = language_note(turns, language, quotes_as_spoken=True)  # its quotes are verbatim, untranslated
    errors = checker_errors(digest.prose(), transcript_material(transcript), language)
    record_check(engine, "episode", key, 1, errors)
    findings = [f.detail for f in errors]
    return EpisodeResult(
        key,
        language,
        digest.render(),
        digest,
        "flagged" if findings else "clean",
        findings,
        mkey,
        meta={
            "number": number,
            "extractive": True,
            "replaces_failed": stands_in_for is not None,
            "summary_bullets": len(digest.summary),
            "sections": len(digest.sections),
            "bullets_per_section": [len(s.bullets) for s in digest.sections],
            "section_lines": [[s.first_line, s.last_line] for s in digest.sections],
            "turns": len(turns),
            "findings": findings,
        },
    )


def _fingerprint(briefs: list[dict]) -> list:
    return [
        [
            b["event_id"],
            b.get("outlets"),
            b.get("independent_outlets"),
            [
                [
                    m["item_id"],
                    m.get("title"),
                    m.get("summary"),
                    structured_summary(m.get("extra")),
                    m.get("body"),
                    m.get("material_level"),
                    m.get("role"),
                ]
                for m in b.get("members") or []
            ],
        ]
        for b in briefs
    ]


def checked_weekly(
    engine: Engine, settings, week: str | None = None, *, language: str = LANGUAGE, now: datetime | None = None, **caps
) -> WeeklyParts | None:
    """The extractive weekly report of `week` (default: the newest) in `language`, checked part by part,
    as parts for editions/weekly.py to store; None when the stored one was chosen from the same material.
    `caps` are the weekly's max_sections / per_section / max_briefs."""
    with engine.begin() as conn:
        week = week or model_weekly.latest_week(conn, settings.timezone)
        if week is None:
            raise NoEvents()
        model_weekly.parse_week(week)
        briefs = load_week(conn, settings, week)
        stories = week_stories(conn, [b["event_id"] for b in briefs], language, settings.timezone)
    if not briefs:
        raise model_weekly.WeeklyError(f"week {week} has no events in the store", "pick a week with items")
    mkey = material_key(
        "extractive-weekly",
        EXTRACTIVE_FORMAT,
        model_weekly.WEEKLY_FORMAT,
        week,
        settings.site_name,
        _fingerprint(briefs),
        stories_fingerprint(stories),
        caps,
    )
    with engine.connect() as conn:
        if stored_material_key(conn, "weekly", week, language) == mkey:
            return None
    material = [member_material(m) for b in briefs for m in b["members"]]

    def check(text: str, facts: list[str]) -> list[Finding]:
        return check_output(text, material + facts, language=language).errors

    def dropped(part: str, text: str, errors: list[Finding]) -> None:
        """A part that failed its check is left out of the edition, never published: the operator
        finds it among the failed drafts (web app, /drafts) with its findings, and in the log."""
        log.warning("weekly %s (%s): %s left out: %s", week, language, part, "; ".join(f.detail for f in errors))
        left_out.append((part, errors))
        stand_in(
            engine,
            Draft("weekly", f"{week}:{language}:{part}", language, f"{week} {part}", text, errors, MODEL, mkey),
            lambda: None,
        )

    left_out: list[tuple[str, list[Finding]]] = []
    report = extractive_weekly(
        briefs, language=language, stories=stories, week=week, check=check, dropped=dropped, **caps
    )
    # What is published passed part by part; the parts left out are in `checks` for the operator.
    findings = [replace(f, part=part, severity="warn") for part, errors in left_out for f in errors]
    passed = record_check(engine, "weekly", week, 1, findings)
    return WeeklyParts(
        week=week,
        summary=report.summary,
        overview=report.overview,
        sections=[t.text for t in report.themes],
        briefs=[b.line() for b in report.briefs],
        folded=[f.line() for f in report.folded],
        meta={
            **report.meta(),
            "flags": [],
            "left_out": [{"part": p, "findings": [f.as_dict() for f in e]} for p, e in left_out],
        },
        status="clean" if passed else "flagged",
        material_key=mkey,
        now=now,
        language=language,
    )


PART_NAMES = {"summary": "摘要与概览", "section": "主题 {n}", "briefs": "简讯第 {n} 组"}  # the weekly is in Chinese


def _part_name(part: str) -> str:
    kind, _, n = part.partition(" ")
    return PART_NAMES.get(kind, part).format(n=n)


class _WeeklyStandIns:
    """What a written weekly's failed parts are replaced with, from its events' extractive cards."""

    def __init__(self, engine: Engine, row: dict, model: str | None, tz: str):
        from newsdesk.cluster import event_brief

        self.engine, self.row, self.model, self.meta = engine, row, model, dict(row["meta"])
        self.failed = {f["part"]: [Finding.load(x) for x in f["findings"]] for f in self.meta.get("flags") or []}
        for n, section in enumerate(self.meta["sections"], 1):
            if section.get("status", "clean") != "clean":
                self.failed.setdefault(f"section {n}", [Finding.load(x) for x in section.get("findings") or []])
        ids = {i for s in self.meta["sections"] for i in s["events"]} | {b["event_id"] for b in self.meta["briefs"]}
        with engine.connect() as conn:
            briefs = {i: event_brief(conn, i) for i in sorted(ids)}
            self.stories = week_stories(conn, sorted(ids), LANGUAGE, tz)
        self.briefs = {i: b for i, b in briefs.items() if b.get("members")}
        self.cards = {i: extractive_card(b, LANGUAGE) for i, b in self.briefs.items()}

    def stand_in(self, part: str, text: str, extractive):
        """The failed draft of one part kept for the operator; `extractive()` is what readers get instead."""
        return stand_in(
            self.engine,
            Draft(
                "weekly",
                f"{self.row['key']}:{part}",
                LANGUAGE,
                f"{self.row['key']} {part}",
                text,
                self.failed[part],
                self.model,
                self.row["material_key"],
            ),
            extractive,
        )

    def passes(self, text: str, event_ids, facts=()) -> bool:
        material = [member_material(m) for i in event_ids if i in self.briefs for m in self.briefs[i]["members"]]
        return check_output(text, material + list(facts), language=LANGUAGE).passed

    def sections(self) -> list[dict]:
        out = []
        for n, section in enumerate(self.meta["sections"], 1):
            if f"section {n}" not in self.failed:
                out.append(section)
                continue
            theme = self.stand_in(
                f"section {n}",
                section["text"],
                lambda events=section["events"], heading=section["heading"]: extractive_theme(
                    [i for i in events if i in self.cards],
                    self.cards,
                    self.briefs,
                    LANGUAGE,
                    heading=heading,
                    stories=self.stories,
                    week=self.row["key"],
                ),
            )
            if theme.events and self.passes(theme.prose, theme.events):  # else the theme is left out
                out.append(
                    {
                        "heading": theme.heading,
                        "status": "clean",
                        "findings": [],
                        "events": theme.events,
                        "text": theme.text,
                        "story_lines": theme.story_lines,
                        "extractive": True,
                        "replaces_failed": True,
                    }
                )
        return out

    def summary(self, sections: list[dict]) -> tuple[str, list[str]]:
        summary, overview = self.meta["summary"], self.meta["overview"]
        if "summary" not in self.failed:
            return summary, overview
        themes = [Theme(s["heading"], s["events"], []) for s in sections]
        return self.stand_in(
            "summary",
            "\n\n".join([summary, *overview]),
            lambda: extractive_summary(themes, self.briefs, self.cards, LANGUAGE)[:2],
        )

    def brief_items(self) -> list[dict]:
        out = []
        for part in dict.fromkeys(b.get("part", "") for b in self.meta["briefs"]):
            batch = [b for b in self.meta["briefs"] if b.get("part", "") == part]
            if part not in self.failed:
                out += batch
                continue
            text = "\n\n".join(f"{b['title']} — {b['source']} / {b['text']}" for b in batch)
            out += self.stand_in(part, text, lambda batch=batch, part=part: self.own_briefs(batch, part))
        return out

    def own_briefs(self, batch: list[dict], part: str) -> list[dict]:
        """Each brief of a failed batch from its item's own sentences; one that fails its check is left out."""
        out = []
        for b in batch:
            own = item_brief(self.briefs[b["event_id"]], LANGUAGE) if b["event_id"] in self.briefs else None
            if own and self.passes(own.line(), [b["event_id"]]):
                out.append(
                    {
                        "event_id": b["event_id"],
                        "title": own.title,
                        "source": own.source,
                        "text": own.text,
                        "part": part,
                        "extractive": True,
                    }
                )
        return out


def stand_in_weekly(
    engine: Engine, settings, written: WeeklyParts, *, model: str | None = None
) -> tuple[list[str], WeeklyParts]:
    """A written weekly's parts that failed their checks after their rewrite, replaced: each draft kept
    for the operator (failed_drafts) and the part's extractive version put in its place (a theme of
    the same events; the summary and overview from the themes; each brief from its item's own
    sentences); a stand-in that fails its own check is left out. The edition keeps its material key, so a
    re-run asks nothing. Returns the replaced parts' names (none: the report passed as written) and the
    parts to store."""
    if written.status == "clean":
        return [], written
    row = {"key": written.week, "meta": written.meta, "material_key": written.material_key}
    parts = _WeeklyStandIns(engine, row, model, settings.timezone)
    sections = parts.sections()
    summary, overview = parts.summary(sections)
    briefs = parts.brief_items()
    replaced = [_part_name(p) for p in parts.failed]
    kept = {k: v for k, v in parts.meta.items() if k not in ("week", "properties")}  # stored anew with the edition
    meta = {
        **kept,
        "summary": summary,
        "overview": overview,
        "sections": sections,
        "briefs": briefs,
        "flags": [],
        "extractive_parts": replaced,
    }
    return replaced, WeeklyParts(
        week=written.week,
        summary=summary,
        overview=overview,
        sections=[s["text"] for s in sections],
        briefs=[f"{b['title']} — {b['source']} / {b['text']}" for b in briefs],
        meta=meta,
        status="clean",
        material_key=written.material_key,
        now=written.now,
    )
