"""What the web pages and the JSON API read and write, as plain dicts.

Both the HTML pages and the API call these functions, so a page and its API route
always show the same data. Reading functions take a Connection; each writing function
is one small transaction on the tables the pipeline reads (sources, feedback).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

from sqlalchemy import bindparam, func, insert, select, update
from sqlalchemy.engine import Connection

from newsdesk.core.errors import NewsdeskError
from newsdesk.core.labels import Labels
from newsdesk.core.model import LANGUAGES, SOURCE_KINDS
from newsdesk.editions.cards import (
    HEADLINES,
    card_member,
    day_headlines,
    day_tabs,
    event_cards,
    readable_analyses,
)
from newsdesk.editions.feed_cards import card_html, stored_feed_cards
from newsdesk.ingest.health import source_health
from newsdesk.store.days import UPDATES, day_events
from newsdesk.store.edition_rows import public_meta
from newsdesk.store.schema import (
    MAX_ID,  # also the MCP server's and the JSON API's bound on the ids they take
    analyses,
    checks,
    editions,
    event_members,
    events,
    feedback,
    items,
    llm_usage,
    roundup_links,
    sources,
)
from newsdesk.text.html import plain_text
from newsdesk.write.failed import failed_drafts

PAGE_SIZE = 30
FEEDBACK_KINDS = ("up", "down", "star")


class InputError(NewsdeskError, ValueError):
    """A form or API field a user filled in is wrong; the message names it and the fix."""


# --- feed -------------------------------------------------------------------------------


def feed(
    conn: Connection, day: date, tab: str, tz: ZoneInfo, page: int = 1, lang: str = "zh", signature: str | None = None
) -> dict:
    """One page of one tab of a day: the daily edition's tabs, order and cards. With `signature` (the
    store's card inputs now, editions/feed_cards.py), the cards the daily-edition stage stored for the
    day, each with its HTML (`html`), while they match the store; else built live from the store."""
    stored = stored_feed_cards(conn, day.isoformat(), tz, lang, signature) if signature is not None else None
    rows = day_events(conn, day, tz) if stored is None else []
    listed = (
        stored if stored is not None else [{"event_id": r.id, "tab": r.tab, "category": r.category or ""} for r in rows]
    )
    tabs = day_tabs(listed, lang)
    current = next((t for t in tabs if t["id"] == tab), {"label": Labels(lang).get(tab), "events": []})
    chosen = current["events"]
    shown = set(chosen[(page - 1) * PAGE_SIZE : page * PAGE_SIZE])
    # The headline list opens the day's first page: its featured and p1 events, wherever they fall.
    ranked = (
        [c["event_id"] for c in listed if c["tab"] in ("featured", "p1")][:HEADLINES]
        if tab == "all" and page == 1
        else []
    )
    if stored is not None:
        built = [c for c in stored if c["event_id"] in shown or c["event_id"] in ranked]
    else:
        built = event_cards(conn, [r for r in rows if r.id in shown or r.id in ranked], lang, tz, any_language=True)
    cards = _with_feedback(conn, [c for c in built if c["event_id"] in shown])
    for card in cards:
        if "html" in card:
            card["html"] = card_html(card)
    return {
        "day": day.isoformat(),
        "tab": tab,
        "page": page,
        "pages": max(1, -(-len(chosen) // PAGE_SIZE)),
        "total": len(chosen),
        "label": current["label"],
        "tabs": tabs,
        "events": cards,
        "top": day_headlines(built),
    }


def _event_dict(row) -> dict:
    return {
        "id": row.id,
        "title": row.title,
        "score": row.score,
        "tab": row.tab,
        "category": row.category,
        "outlets": row.outlets,
        "independent_outlets": row.independent_outlets,
        "item_count": row.item_count,
        "languages": list(row.languages or []),
        "first_published_at": row.first_published_at,
        "last_published_at": row.last_published_at,
    }


# The event page's statements, built once: a cold event page is a first read of a random event, and
# building each statement again cost it more than SQLite's work on it (its query cache still keys each).
_EVENT_ROW = select(events).where(events.c.id == bindparam("event_id"))
_MEMBER_ROWS = (
    select(
        event_members.c.role,
        event_members.c.origin_item_id,
        event_members.c.reason,
        items.c.id,
        items.c.title,
        items.c.url,
        items.c.published_at,
        items.c.material_level,
        items.c.language,
        items.c.summary,
        items.c.source_id,
        items.c.dated_by,
        sources.c.name.label("outlet"),
    )
    .select_from(
        event_members.join(items, items.c.id == event_members.c.item_id).join(
            sources, sources.c.id == items.c.source_id
        )
    )
    .where(event_members.c.event_id == bindparam("event_id"))
    .order_by((event_members.c.role != "lead"), items.c.published_at, items.c.id)
)
_ROUNDUPS = (
    select(items.c.id, items.c.title, items.c.url, sources.c.name.label("outlet"), event_members.c.event_id)
    .select_from(
        roundup_links.join(items, items.c.id == roundup_links.c.item_id)
        .join(sources, sources.c.id == items.c.source_id)
        .join(event_members, event_members.c.item_id == items.c.id)
    )
    .where(roundup_links.c.event_id == bindparam("event_id"))
    .order_by(items.c.published_at, items.c.id)
)
_CHECKS = (
    select(checks)
    .where((checks.c.output == "analysis") & checks.c.subject_id.in_(bindparam("subjects", expanding=True)))
    .order_by(checks.c.at, checks.c.id)
)


def latest_writes(rows: Sequence) -> list:
    """The check runs of each analysis's last writing (from its last attempt 1 on, rows in time order):
    the ones of what the page shows. An analysis is written again as its event grows and when newsdesk's
    writers change, each time from attempt 1; its older runs checked text no longer published."""
    start = {r.subject_id: n for n, r in enumerate(rows) if r.attempt == 1}
    return [r for n, r in enumerate(rows) if n >= start.get(r.subject_id, 0)]


_FEEDBACK_LIST = (
    select(feedback)
    .where(feedback.c.event_id == bindparam("event_id"))
    .order_by(feedback.c.at.desc(), feedback.c.id.desc())
)


def _member_rows(conn: Connection, event_id: int) -> Sequence:
    """Every member item of an event, duplicates too: the lead first, then by time."""
    return conn.execute(_MEMBER_ROWS, {"event_id": event_id}).all()


def _member_details(rows: Sequence, tz: ZoneInfo) -> list[dict]:
    """Every member item of an event (_member_rows), with why it joined and whose copy it is."""
    outlets = {r.id: r.outlet for r in rows}
    return [
        {
            **card_member(r, tz),
            "origin_item_id": r.origin_item_id,
            "origin_outlet": outlets.get(r.origin_item_id),
            "reason": r.reason,
            "source_id": r.source_id,
        }
        for r in rows
    ]


def dated_by_day(conn: Connection, event_ids: list[int], moment) -> set[int]:
    """The events whose `moment` (events.c.first_published_at or last_published_at) is the date of
    items whose source gave only a date (dated_by "day"): shown as that date alone, never as the
    made-up time of day the date was stored at."""
    if not event_ids:
        return set()
    rows = conn.execute(
        select(event_members.c.event_id, items.c.dated_by)
        .join(items, items.c.id == event_members.c.item_id)
        .join(events, events.c.id == event_members.c.event_id)
        .where(event_members.c.event_id.in_(event_ids), items.c.published_at == moment)
    )
    kinds: dict[int, set[str]] = {}
    for r in rows:
        kinds.setdefault(r.event_id, set()).add(r.dated_by)
    return {e for e, found in kinds.items() if found == {"day"}}


def _roundups(conn: Connection, event_id: int) -> list[dict]:
    """The roundups that list this event: each points here instead of joining it."""
    rows = conn.execute(_ROUNDUPS, {"event_id": event_id}).all()
    return [
        {"item_id": r.id, "title": plain_text(r.title), "url": r.url, "outlet": r.outlet, "event_id": r.event_id}
        for r in rows
    ]


def _analyses(readable: list[dict]) -> dict[str, dict]:
    """The event's analyses a reader may see (readable_analyses: never a flagged one), each marked extractive or not."""
    keys = ("id", "language", "headline", "body", "status", "model", "created_at", "extractive", "replaces_failed")
    return {r["language"]: {**{k: r[k] for k in keys}, "flags": list(r["flags"] or [])} for r in readable}


def _day_only_moments(event, members: Sequence) -> set[str]:
    """Which of the event's first_published_at and last_published_at are the date of items whose
    source gave only a date (as dated_by_day tells each), from its member rows (_member_rows)."""
    kinds: dict[str, set[str]] = {}
    for r in members:
        for name in ("first_published_at", "last_published_at"):
            if r.published_at == getattr(event, name):
                kinds.setdefault(name, set()).add(r.dated_by)
    return {name for name, found in kinds.items() if found == {"day"}}


def failed_drafts_list(conn: Connection) -> list[dict]:
    """The operator's list of drafts that failed: each with its findings as lines."""
    return [{**d, "findings": [f.line() for f in d["findings"]]} for d in failed_drafts(conn)]


def _with_feedback(conn: Connection, cards: list[dict]) -> list[dict]:
    """Readers' votes on each card (the web app shows them; a published edition does not)."""
    counts: dict[int, dict[str, int]] = {}
    rows = conn.execute(
        select(feedback.c.event_id, feedback.c.kind, func.count())
        .where(feedback.c.event_id.in_([c["event_id"] for c in cards]))
        .group_by(feedback.c.event_id, feedback.c.kind)
    )
    for event_id, kind, n in rows:
        counts.setdefault(event_id, {})[kind] = n
    for card in cards:
        card["feedback"] = counts.get(card["event_id"], {})
    return cards


def event_detail(
    conn: Connection, event_id: int, tz: ZoneInfo, lang: str = "zh", *, operator: bool = False
) -> dict | None:
    """The event's card, and what explains it: every member, every analysis and check, why it ranks.
    The clusterer's reason for each member ("cosine 0.65 to the zh centroid…") only for the operator."""
    if not 1 <= event_id <= MAX_ID:
        return None
    row = conn.execute(_EVENT_ROW, {"event_id": event_id}).first()
    if row is None:
        return None
    readable = readable_analyses(conn, [event_id])  # the card's and the page's, read once
    members = _member_rows(conn, event_id)  # the card's (duplicates aside) and the page's, read once
    listed = {event_id: [card_member(m, tz) for m in members if m.role != "duplicate"]}
    detail = event_cards(conn, [row], lang, tz, any_language=True, readable=readable, members=listed)[0]
    # Its readers' notes, read once: the votes on the card are their counts (as _with_feedback counts them).
    notes = conn.execute(_FEEDBACK_LIST, {"event_id": event_id}).all()
    votes = Counter(f.kind for f in notes)
    detail["feedback"] = {kind: votes[kind] for kind in sorted(votes)}
    detail.update(
        score=row.score,
        item_count=row.item_count,
        languages=list(row.languages or []),
        anchors=list(row.anchors or []),
        lead_item_id=row.lead_item_id,
        members=[m if operator else {**m, "reason": None} for m in _member_details(members, tz)],
        analyses=_analyses(readable),
        roundups=_roundups(conn, event_id),
    )
    for name in _day_only_moments(row, members):
        detail[name] = detail[name][:10]  # the date alone: its source gave no time of day
    parts = dict(row.score_parts or {})
    # Each later day's new reports' own importance (store/days.py UPDATES): one row a day, after the sum's parts.
    grown = parts.pop(UPDATES, None) or {}
    detail["score_parts"] = sorted(
        ((str(k), v) for k, v in parts.items()),
        key=lambda kv: -kv[1] if isinstance(kv[1], (int, float)) else 0,
    ) + [(f"update {day}", value) for day, value in sorted(grown.items())]
    # The writer records each attempt's check as output 'analysis', subject_id '<event id>:<language>'.
    subjects = [f"{event_id}:{lang}" for lang in detail["analyses"]]
    # A failed attempt's findings quote its draft: they are the operator's (/drafts), never a reader's.
    detail["checks"] = [
        {
            "subject_id": c.subject_id,
            "language": c.subject_id.rpartition(":")[2],  # which analysis: an event has one a language
            "attempt": c.attempt,
            "passed": c.passed,
            "findings": list(c.findings or []) if c.passed else [],
            "at": c.at,
        }
        for c in latest_writes(conn.execute(_CHECKS, {"subjects": subjects}).all() if subjects else [])
    ]
    detail["feedback_list"] = [{"kind": f.kind, "note": f.note, "user": f.user, "at": f.at} for f in notes]
    return detail


def add_feedback(conn: Connection, event_id: int, kind: str, note: str, user: str) -> int:
    if kind not in FEEDBACK_KINDS:
        raise InputError(f"feedback kind {kind!r} is not one of {', '.join(FEEDBACK_KINDS)}")
    note = (note or "").strip()
    if len(note) > 2000:
        raise InputError("feedback note is longer than 2,000 characters; shorten it")
    if not 1 <= event_id <= MAX_ID or conn.execute(select(events.c.id).where(events.c.id == event_id)).first() is None:
        raise LookupError(f"event {event_id} does not exist")
    result = conn.execute(
        insert(feedback).values(
            event_id=event_id, kind=kind, note=note, user=(user or "operator")[:80], at=datetime.now(UTC)
        )
    )
    return result.inserted_primary_key[0]


# --- editions ---------------------------------------------------------------------------


def edition_keys(conn: Connection, kind: str) -> list[dict]:
    """Archive of one kind: each key with its languages and title, newest first."""
    rows = conn.execute(
        select(editions.c.key, editions.c.language, editions.c.title, editions.c.status, editions.c.updated_at)
        .where(editions.c.kind == kind, editions.c.status == "clean")  # a flagged edition is never shown
        .order_by(editions.c.key.desc(), editions.c.language)
    ).all()
    out: dict[str, dict] = {}
    for r in rows:
        entry = out.setdefault(r.key, {"key": r.key, "languages": [], "titles": {}, "updated_at": r.updated_at})
        entry["languages"].append(r.language)
        entry["titles"][r.language] = r.title
    # Episode slugs do not sort by date; newest update first reads right for every kind.
    return sorted(out.values(), key=lambda e: (e["updated_at"], e["key"]), reverse=True)


def edition(conn: Connection, kind: str, key: str, lang: str, *, operator: bool = False) -> dict | None:
    """A published edition; its writer's notes only for the operator."""
    rows = {
        r.language: r
        for r in conn.execute(
            select(editions).where(editions.c.kind == kind, editions.c.key == key, editions.c.status == "clean")
        )
    }  # a flagged one is never shown
    if not rows:
        return None
    row = rows.get(lang) or rows.get("zh") or next(iter(rows.values()))
    return {
        "kind": row.kind,
        "key": row.key,
        "language": row.language,
        "languages": sorted(rows),
        "title": row.title,
        "body": row.body,
        "meta": dict(row.meta or {}) if operator else public_meta(row.meta),
        "status": row.status,
        "updated_at": row.updated_at,
    }


# --- sources ----------------------------------------------------------------------------


def sources_table(conn: Connection) -> list[dict]:
    facts = {
        r.id: r
        for r in conn.execute(
            select(
                sources.c.id,
                sources.c.url,
                sources.c.kind,
                sources.c.language,
                sources.c.tier,
                sources.c.category,
                sources.c.origin,
            )
        )
    }
    out = []
    for h in source_health(conn):
        f = facts[h.source_id]
        out.append(
            {
                "id": h.source_id,
                "name": h.name,
                "enabled": h.enabled,
                "url": f.url,
                "kind": f.kind,
                "language": f.language,
                "tier": f.tier,
                "category": f.category,
                "origin": f.origin,
                "last_success": h.last_success,
                "last_error": h.last_error,
                "last_error_at": h.last_error_at,
                "items_7d": h.items_7d,
                "consecutive_failures": h.consecutive_failures,
                "latest_item": h.latest_item,
                "stale": h.stale,
                "polled": h.polled,
            }
        )
    return out


_SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{1,118}$")


def add_source(conn: Connection, fields: dict) -> str:
    """Insert a user-added source after checking every field; returns its id."""
    sid = str(fields.get("id", "")).strip()
    if not _SLUG.match(sid):
        raise InputError(f"source id {sid!r}: use 2-119 lowercase letters, digits and hyphens, e.g. 'openai-blog'")
    name = str(fields.get("name", "")).strip()
    if not name or len(name) > 300:
        raise InputError("source name: give a display name of 1-300 characters")
    url = str(fields.get("url", "")).strip()
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise InputError(f"source url {url!r}: give an http(s) URL of the feed")
    kind = str(fields.get("kind", "rss"))
    if kind not in SOURCE_KINDS:
        raise InputError(f"source kind {kind!r}: use one of {', '.join(SOURCE_KINDS)}")
    language = str(fields.get("language", "en"))
    if language not in LANGUAGES:
        raise InputError(f"source language {language!r}: use one of {', '.join(LANGUAGES)}")
    try:
        tier = int(fields.get("tier", 2))
    except (TypeError, ValueError):
        tier = 0
    if tier not in (1, 2, 3):
        raise InputError("source tier: use 1 (most authoritative), 2 or 3")
    category = str(fields.get("category", "media")).strip() or "media"
    if len(category) > 40:
        raise InputError("source category: use at most 40 characters")
    if conn.execute(select(sources.c.id).where(sources.c.id == sid)).first():
        raise InputError(f"source {sid!r} already exists; pick another id, or enable it in the table")
    conn.execute(
        insert(sources).values(
            id=sid,
            name=name,
            url=url,
            kind=kind,
            language=language,
            tier=tier,
            weight=1.0,
            category=category,
            fulltext=bool(fields.get("fulltext")),
            enabled=True,
            origin="user",
        )
    )
    return sid


def set_source_enabled(conn: Connection, source_id: str, enabled: bool) -> None:
    result = conn.execute(update(sources).where(sources.c.id == source_id).values(enabled=enabled))
    if result.rowcount == 0:
        raise LookupError(f"source {source_id!r} does not exist")


# --- usage ------------------------------------------------------------------------------


def _usage_bucket() -> dict:
    return {
        "calls": 0,
        "cache_hits": 0,
        "errors": 0,
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "cached_tokens": 0,
        "cost_usd": 0.0,
    }


def _finish(bucket: dict) -> dict:
    bucket["cached_share"] = bucket["cached_tokens"] / bucket["prompt_tokens"] if bucket["prompt_tokens"] else 0.0
    bucket["cost_usd"] = round(bucket["cost_usd"], 6)
    return bucket


def usage(conn: Connection, tz: ZoneInfo, days: int = 30, now: datetime | None = None) -> dict:
    """Model calls, tokens, cached-token share and cost per day (reader's time zone) and per output.

    A call answered from llm_cache is counted as a cache hit, not a model call: it cost nothing.
    """
    now = now or datetime.now(UTC)
    since = now - timedelta(days=days)
    per_day: dict[str, dict] = {}
    per_output: dict[str, dict] = {}
    per_day_output: dict[tuple[str, str], dict] = {}
    total = _usage_bucket()
    rows = conn.execute(
        select(
            llm_usage.c.at,
            llm_usage.c.output,
            llm_usage.c.prompt_tokens,
            llm_usage.c.completion_tokens,
            llm_usage.c.cached_tokens,
            llm_usage.c.cost_usd,
            llm_usage.c.cache_hit,
            llm_usage.c.error,
        ).where(llm_usage.c.at >= since)
    )
    for r in rows:
        day = r.at.astimezone(tz).date().isoformat()
        for bucket in (
            per_day.setdefault(day, _usage_bucket()),
            per_output.setdefault(r.output, _usage_bucket()),
            per_day_output.setdefault((day, r.output), _usage_bucket()),
            total,
        ):
            if r.cache_hit:
                bucket["cache_hits"] += 1
            else:
                bucket["calls"] += 1
            bucket["errors"] += 1 if r.error else 0
            bucket["prompt_tokens"] += r.prompt_tokens
            bucket["completion_tokens"] += r.completion_tokens
            bucket["cached_tokens"] += r.cached_tokens
            bucket["cost_usd"] += r.cost_usd
    return {
        "days": days,
        "since": since,
        "total": _finish(total),
        "per_day": [{"day": d, **_finish(b)} for d, b in sorted(per_day.items(), reverse=True)],
        "per_output": [
            {"output": s, **_finish(b)} for s, b in sorted(per_output.items(), key=lambda kv: -kv[1]["cost_usd"])
        ],
        "per_day_output": [
            {"day": d, "output": s, **_finish(b)}
            for (d, s), b in sorted(per_day_output.items(), key=lambda kv: (kv[0][0], kv[0][1]), reverse=True)
        ],
    }


# --- search results ---------------------------------------------------------------------


def search_results(conn: Connection, hits, lang: str) -> dict:
    event_ids = [h.ref_id for h in hits if h.kind == "event"]
    item_ids = [h.ref_id for h in hits if h.kind == "item"]
    found_events = {}
    if event_ids:
        rows = conn.execute(select(events).where(events.c.id.in_(event_ids))).all()
        headlines: dict[int, dict[str, dict]] = {}  # a result list shows headlines only: skip the bodies
        for a in conn.execute(
            select(analyses.c.event_id, analyses.c.language, analyses.c.headline).where(
                analyses.c.event_id.in_(event_ids), analyses.c.status == "clean"
            )  # a flagged one is never shown
        ):
            headlines.setdefault(a.event_id, {})[a.language] = {"language": a.language, "headline": a.headline}
        # A result is dated as its day page dates it: by its first report (store/days.py), not its latest.
        day_only = dated_by_day(conn, event_ids, events.c.first_published_at)
        for r in rows:
            e = _event_dict(r)
            e["first_dated_by"] = "day" if r.id in day_only else "source"
            by_language = headlines.get(r.id, {})  # the reader's language, else whichever exists
            e["analysis"] = by_language.get(lang) or next(iter(by_language.values()), None)
            found_events[r.id] = e
    found_items = {}
    if item_ids:
        rows = conn.execute(
            select(
                items.c.id,
                items.c.title,
                items.c.summary,
                items.c.url,
                items.c.published_at,
                items.c.language,
                items.c.material_level,
                items.c.source_id,
                items.c.dated_by,
                sources.c.name.label("outlet"),
                event_members.c.event_id,
            )
            .select_from(
                items.join(sources, sources.c.id == items.c.source_id).outerjoin(
                    event_members, event_members.c.item_id == items.c.id
                )
            )
            .where(items.c.id.in_(item_ids))
        ).all()
        for r in rows:
            found_items[r.id] = {
                "id": r.id,
                "title": r.title,
                "summary": r.summary,
                "url": r.url,
                "published_at": r.published_at,
                "dated_by": r.dated_by,  # "day": the source gave a date only, shown without a time
                "language": r.language,
                "material_level": r.material_level,
                "source_id": r.source_id,
                "outlet": r.outlet,
                "event_id": r.event_id,
            }
    return {
        "events": [found_events[i] for i in event_ids if i in found_events],
        "items": [found_items[i] for i in item_ids if i in found_items],
    }
