"""The weekly report as an edition: its form (title line, the five properties, 📊 overview,
sections, 📌 briefs) and its stored row. The writers, write/weekly.py with a model and
write/extractive/ without, write the parts (write.weekly.WeeklyParts); this renders and stores them.

    weekly_editions(engine, settings, writers, "2025-W09")    # every language, as [write] by says
    build_weekly(engine, settings, llm, "2025-W09")           # the model's report, stored as written
    build_extractive_weekly(engine, settings, "2025-W09")     # the extractive one: "clean" | "flagged" | "unchanged"
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING

from sqlalchemy.engine import Engine

from newsdesk.core.labels import Labels
from newsdesk.llm.chat import ChatModel
from newsdesk.store.days import local_day_bounds, local_time
from newsdesk.store.edition_rows import store_edition
from newsdesk.write.weekly import LANGUAGE, WeeklyParts, WeeklyStats

if TYPE_CHECKING:
    from newsdesk.write.writers import Writers


def weekly_title(week: str, site_name: str, language: str = LANGUAGE) -> str:
    return Labels(language).weekly_title.format(week=week, site=site_name)


def published_at(week: str, now: datetime, tz: str) -> datetime:
    """The report's date: when it is built while its week runs (live), else its week's last minute,
    never a build time after the week (a February week rebuilt in December is still February's)."""
    monday = date.fromisocalendar(int(week[:4]), int(week.split("W")[1]), 1)
    _, end = local_day_bounds(monday + timedelta(days=6), tz)
    return min(now, end - timedelta(minutes=1))


def properties(week: str, summary: str, status: str, now: datetime, tz: str) -> dict:
    return {
        "type": "Post",
        "status": "Published" if status == "clean" else "Flagged",
        "date": local_time(published_at(week, now, tz), tz).strftime("%b %d, %Y %H:%M"),
        "slug": f"ai-weekly-{week}",
        "summary": summary,
    }


def render_weekly(
    title: str,
    props: dict,
    overview: list[str],
    sections: list[str],
    briefs: list[str],
    language: str = LANGUAGE,
    folded: list[str] | None = None,
) -> str:
    """The report's form: title line, property block, overview, sections, briefs, and in English the
    events told only in Chinese ("Reported in Chinese (N)"); blank-line separated."""
    t = Labels(language)
    blocks = [title]
    for key in ("type", "status", "date", "slug", "summary"):
        blocks += [key, props[key]]
    # A heading over nothing is never printed: a week without briefs ends on its last theme.
    blocks += ([t.weekly_overview, *overview] if overview else []) + sections
    blocks += [t.weekly_briefs, *briefs] if briefs else []
    blocks += [t.reported_in_zh.format(n=len(folded)), *folded] if folded else []
    return "\n\n".join(blocks) + "\n"


def store_weekly(engine: Engine, settings, *editions: WeeklyParts) -> None:
    """Each weekly edition from its written parts: rendered, and stored with its `meta` (the parts as
    data) after its week and properties."""
    for parts in editions:
        now = parts.now or datetime.now(UTC)
        props = properties(parts.week, parts.summary, parts.status, now, settings.timezone)
        title = weekly_title(parts.week, settings.site_name, parts.language)
        with engine.begin() as conn:
            store_edition(
                conn,
                kind="weekly",
                key=parts.week,
                language=parts.language,
                title=title,
                body=render_weekly(
                    title, props, parts.overview, parts.sections, parts.briefs, parts.language, parts.folded
                ),
                status=parts.status,
                material_key=parts.material_key,
                now=now,
                meta={"week": parts.week, "properties": props, **parts.meta},
            )


def weekly_editions(engine: Engine, settings, writers: Writers, week: str | None = None, **caps) -> WeeklyStats:
    """The weekly report of `week` in every edition language, by whoever writes (write/writers.py), stored."""
    stats = writers.weekly(engine, settings, week, **caps)
    store_weekly(engine, settings, *stats.editions)
    return stats


def build_weekly(engine: Engine, settings, llm: ChatModel, week: str | None = None, **options) -> WeeklyStats:
    """The model-written Chinese report of `week`, stored as written: flagged parts and all (the writers'
    seam, write/writers.py, replaces those with their extracts). `options`: write_weekly's now and caps."""
    from newsdesk.write.weekly import write_weekly

    stats = write_weekly(engine, settings, llm, week, **options)
    store_weekly(engine, settings, *stats.editions)
    return stats


def build_extractive_weekly(engine: Engine, settings, week: str | None = None, **options) -> str:
    """The extractive report of `week` (write/extractive/checked.py), stored unless its material is
    unchanged. `options`: language, now and the caps. Returns its status, or "unchanged"."""
    from newsdesk.write.extractive.checked import checked_weekly

    parts = checked_weekly(engine, settings, week, **options)
    if parts is None:
        return "unchanged"
    store_weekly(engine, settings, parts)
    return parts.status
