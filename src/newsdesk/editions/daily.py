"""The daily edition.

The daily edition of a date D holds the events whose newest member was published on D
(in settings.timezone), most important first, one card per event: headline, sources
with links and times, the analysis and whether it passed the checker. It is stored
once per language; the structured cards go in `meta` so the site and the feeds render
from the edition alone, and `material_key` (a hash of everything a card shows) lets an
unchanged day be skipped without touching its row.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy import select
from sqlalchemy.engine import Connection, Engine

from newsdesk.config import Settings
from newsdesk.editions.store import material_key, store_edition, stored_material_key
from newsdesk.store.schema import analyses, editions, event_members, events, items, sources

# Bump when the card layout changes so every stored day is rebuilt once.
DAILY_FORMAT = 1

LABELS = {
    "zh": {
        "all": "全部", "featured": "精选", "p1": "要闻", "sources": "来源", "analysis_missing": "分析尚未生成。",
        "clean": "已通过核查", "flagged": "未通过核查", "missing": "无分析",
        "outlets": "{n} 个来源（{m} 个独立）",
    },
    "en": {
        "all": "All", "featured": "Featured", "p1": "Top stories", "sources": "Sources",
        "analysis_missing": "No analysis yet.",
        "clean": "passed the checks", "flagged": "failed the checks", "missing": "no analysis",
        "outlets": "{n} sources ({m} independent)",
    },
}


def labels(language: str) -> dict:
    return LABELS.get(language, LABELS["en"])


# --- time -----------------------------------------------------------------------------


def local_day_bounds(day: date, tz: str) -> tuple[datetime, datetime]:
    """The UTC instants where `day` starts and ends in the newsroom's timezone."""
    zone = ZoneInfo(tz)
    start = datetime.combine(day, time.min, tzinfo=zone)
    return start.astimezone(UTC), (start + timedelta(days=1)).astimezone(UTC)


def local_time(moment: datetime, tz: str) -> datetime:
    return moment.astimezone(ZoneInfo(tz))


def event_dates(conn: Connection, tz: str) -> list[date]:
    """Every local date on which some event's newest member appeared, oldest first."""
    rows = conn.execute(select(events.c.last_seen_at)).scalars()
    return sorted({local_time(moment, tz).date() for moment in rows})


# --- the daily edition ----------------------------------------------------------------


@dataclass
class DailyStats:
    date: date
    events: int = 0
    built: list[str] = field(default_factory=list)  # languages written
    unchanged: list[str] = field(default_factory=list)  # languages skipped: same material


def _members(conn: Connection, event_ids: list[int], tz: str) -> dict[int, list[dict]]:
    rows = conn.execute(
        select(
            event_members.c.event_id,
            event_members.c.role,
            items.c.id,
            items.c.title,
            items.c.url,
            items.c.published_at,
            items.c.material,
            items.c.language,
            sources.c.name.label("source_name"),
        )
        .join(items, items.c.id == event_members.c.item_id)
        .join(sources, sources.c.id == items.c.source_id)
        .where(event_members.c.event_id.in_(event_ids))
        .order_by(event_members.c.event_id, items.c.published_at, items.c.id)
    ).all()
    out: dict[int, list[dict]] = {}
    for r in rows:
        if r.role == "duplicate":  # the same story twice from one source: one link is enough
            continue
        out.setdefault(r.event_id, []).append({
            "item_id": r.id,
            "source": r.source_name,
            "title": r.title,
            "url": r.url,
            "published_at": local_time(r.published_at, tz).strftime("%Y-%m-%d %H:%M"),
            "material": r.material,
            "language": r.language,
            "role": r.role,
        })
    for members in out.values():  # lead first, then by time
        members.sort(key=lambda m: m["role"] != "lead")
    return out


def _analyses(conn: Connection, event_ids: list[int]) -> dict[tuple[int, str], dict]:
    rows = conn.execute(
        select(analyses.c.event_id, analyses.c.language, analyses.c.headline, analyses.c.body,
               analyses.c.status, analyses.c.flags).where(analyses.c.event_id.in_(event_ids))
    ).all()
    return {
        (r.event_id, r.language): {"headline": r.headline, "body": r.body, "status": r.status,
                                   "flags": flag_lines(r.flags or [])}
        for r in rows
    }


def flag_lines(flags: list) -> list[str]:
    """The checker's findings as lines a reader can take in; warnings (recorded only) are left out."""
    lines = []
    for f in flags:
        if isinstance(f, dict):
            if f.get("severity") == "warn":
                continue
            f = f.get("detail") or f.get("finding") or f
        lines.append(str(f))
    return lines


def daily_cards(conn: Connection, settings: Settings, day: date, language: str) -> list[dict]:
    """The day's events as cards for one language, most important first."""
    start, end = local_day_bounds(day, settings.timezone)
    rows = conn.execute(
        select(events).where(events.c.last_seen_at >= start, events.c.last_seen_at < end)
        .order_by(events.c.importance.desc(), events.c.id)
    ).all()
    ids = [r.id for r in rows]
    if not ids:
        return []
    members = _members(conn, ids, settings.timezone)
    written = _analyses(conn, ids)
    cards = []
    for r in rows:
        analysis = written.get((r.id, language))
        cards.append({
            "event_id": r.id,
            "headline": (analysis or {}).get("headline") or r.title,
            "title": r.title,
            "importance": round(r.importance, 4),
            "tier": r.tier,
            "category": r.category or "",
            "outlets": r.outlets,
            "independent_outlets": r.independent_outlets,
            "first_seen_at": local_time(r.first_seen_at, settings.timezone).strftime("%Y-%m-%d %H:%M"),
            "last_seen_at": local_time(r.last_seen_at, settings.timezone).strftime("%Y-%m-%d %H:%M"),
            "sources": members.get(r.id, []),
            "analysis": analysis,
            "check": analysis["status"] if analysis else "missing",
        })
    return cards


def daily_tabs(cards: list[dict], language: str) -> list[dict]:
    """Tabs of the daily page: all, then tiers, then categories; empty tabs are left out."""
    lab = labels(language)
    tabs = [{"id": "all", "label": lab["all"], "events": [c["event_id"] for c in cards]}]
    for tier in ("featured", "p1"):
        chosen = [c["event_id"] for c in cards if c["tier"] == tier or (tier == "p1" and c["tier"] == "featured")]
        if chosen:
            tabs.append({"id": tier, "label": lab[tier], "events": chosen})
    for category in sorted({c["category"] for c in cards if c["category"]}):
        tabs.append({
            "id": "category-" + category,
            "label": category,
            "events": [c["event_id"] for c in cards if c["category"] == category],
        })
    return tabs


def render_card(card: dict, number: int, language: str) -> str:
    lab = labels(language)
    facts = [lab.get(card["tier"], "") if card["tier"] in ("featured", "p1") else "", card["category"],
             lab["outlets"].format(n=card["outlets"], m=card["independent_outlets"]), lab[card["check"]]]
    lines = [f"## {number}. {card['headline']}", "", " · ".join(f for f in facts if f), "", f"{lab['sources']}:"]
    for s in card["sources"]:
        link = f"[{s['title']}]({s['url']})" if s["url"] else s["title"]
        lines.append(f"- {link} — {s['source']} · {s['published_at']}")
    lines.append("")
    analysis = card["analysis"]
    if analysis is None:
        lines.append(lab["analysis_missing"])
    else:
        if analysis["status"] == "flagged":
            detail = "; ".join(str(f) for f in analysis["flags"]) or lab["flagged"]
            lines.append(f"> ⚠ {lab['flagged']}: {detail}")
            lines.append("")
        lines.append(analysis["body"].strip())
    return "\n".join(lines)


def render_daily(day: date, cards: list[dict], language: str, tab_label: str | None = None) -> str:
    title = f"{tab_label or labels(language)['all']} · {day.isoformat()}"
    parts = [f"# {title}"] + [render_card(card, n, language) for n, card in enumerate(cards, 1)]
    return "\n\n".join(parts) + "\n"


def build_daily(engine: Engine, settings: Settings, day: date | str | None = None) -> DailyStats:
    """Build (or keep, when nothing changed) the daily edition of `day` in every language."""
    with engine.begin() as conn:
        if day is None:
            dates = event_dates(conn, settings.timezone)
            day = dates[-1] if dates else datetime.now(ZoneInfo(settings.timezone)).date()
        elif isinstance(day, str):
            day = date.fromisoformat(day)
        stats = DailyStats(date=day)
        key = day.isoformat()
        for language in settings.languages:
            cards = daily_cards(conn, settings, day, language)
            stats.events = len(cards)
            digest = material_key("daily", DAILY_FORMAT, key, language, cards)
            if stored_material_key(conn, "daily", key, language) == digest:
                stats.unchanged.append(language)
                continue
            tabs = daily_tabs(cards, language)
            flagged = [c["event_id"] for c in cards if c["check"] == "flagged"]
            store_edition(
                conn,
                kind="daily",
                key=key,
                language=language,
                title=f"{labels(language)['all']} · {key}",
                body=render_daily(day, cards, language),
                meta={"date": key, "cards": cards, "tabs": tabs, "flagged_events": flagged},
                status="flagged" if flagged else "clean",
                material_key=digest,
            )
            stats.built.append(language)
    return stats


def build_dailies(engine: Engine, settings: Settings, days: list[date] | None = None) -> list[DailyStats]:
    """Every day that has events (or the given days); unchanged days cost a few queries."""
    if days is None:
        with engine.connect() as conn:
            stored = conn.execute(select(editions.c.key).where(editions.c.kind == "daily")).scalars()
            # Days already published are revisited too: an event that grew moves to a later day.
            days = sorted(set(event_dates(conn, settings.timezone)) | {date.fromisoformat(k) for k in stored})
    return [build_daily(engine, settings, d) for d in days]
