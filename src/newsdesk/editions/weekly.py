"""The weekly report as an edition: its form (title line, the five properties, 📊 overview,
sections, 📌 briefs) and its stored row. The writers, write/weekly.py with a model and
write/extractive/ without, write the parts; `store_weekly` assembles and stores them.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy.engine import Engine

from newsdesk.editions.days import local_time
from newsdesk.editions.store import store_edition

LANGUAGE = "zh"  # the weekly report is written in Chinese


def weekly_title(week: str, site_name: str) -> str:
    return f"AI周报 {week} | {site_name}"


def properties(week: str, summary: str, status: str, now: datetime, tz: str) -> dict:
    return {
        "type": "Post",
        "status": "Published" if status == "clean" else "Flagged",
        "date": local_time(now, tz).strftime("%b %d, %Y %H:%M"),
        "slug": f"ai-weekly-{week}",
        "summary": summary,
    }


def render_weekly(title: str, props: dict, overview: list[str], sections: list[str], briefs: list[str]) -> str:
    """The report's form: title line, property block, overview, sections, briefs; blank-line separated."""
    blocks = [title]
    for key in ("type", "status", "date", "slug", "summary"):
        blocks += [key, props[key]]
    blocks += ["📊 本周概览", *overview, *sections, "📌 本周简讯", *briefs]
    return "\n\n".join(blocks) + "\n"


def store_weekly(engine: Engine, settings, *, week: str, summary: str, overview: list[str], sections: list[str],
                 briefs: list[str], meta: dict, status: str, material_key: str, now: datetime | None = None) -> None:
    """The weekly edition of `week` from its written parts: rendered, and stored with `meta`
    (the parts as data) after its week and properties."""
    now = now or datetime.now(UTC)
    props = properties(week, summary, status, now, settings.timezone)
    title = weekly_title(week, settings.site_name)
    with engine.begin() as conn:
        store_edition(
            conn, kind="weekly", key=week, language=LANGUAGE, title=title,
            body=render_weekly(title, props, overview, sections, briefs), status=status,
            material_key=material_key, now=now, meta={"week": week, "properties": props, **meta},
        )
