"""Rank events: importance from independent coverage, authority, engagement and reader feedback;
recency orders the live feed. Every part is stored in `events.score_parts` so the UI can say why.

An event's tab (featured / p1 / all: the feed tab it shows in) comes from importance alone, not recency, so an
event keeps its tab when an old daily edition is rebuilt.
"""

from __future__ import annotations

import math
from collections import defaultdict
from datetime import UTC, datetime

from sqlalchemy import select, update
from sqlalchemy.engine import Engine

from newsdesk.store.schema import event_members, events, feedback, items, sources

HALF_LIFE_HOURS = 36.0
FEATURED = 3.0  # importance for the featured tab (with at least two independent outlets)
P1 = 1.8
FEEDBACK_WEIGHT = {"up": 1.0, "star": 2.0, "down": -2.0}


def _engagement(e: dict) -> float:
    """HN points, Reddit score, likes; comments count double (a discussion, not a click)."""
    if not isinstance(e, dict):
        return 0.0
    reach = max(float(e.get(k) or 0) for k in ("points", "score", "likes", "stars", "upvotes", "reactions", "x"))
    return reach + 2.0 * float(e.get("comments") or e.get("num_comments") or 0)


def score_event(facts: dict, now: datetime) -> tuple[float, dict, str]:
    """(score, parts, tab) for one event's facts: independent_outlets, outlets, best_authority,
    engagement, feedback, last_published_at."""
    parts = {
        # One origin repackaged by five desks is one confirmation: independent outlets carry the weight.
        "coverage": round(math.log2(1 + facts["independent_outlets"]), 3),
        "echo": round(0.2 * math.log2(1 + max(0, facts["outlets"] - facts["independent_outlets"])), 3),
        "authority": round(min(2.0, facts["best_authority"]), 3),
        "engagement": round(0.5 * math.log10(1 + facts["engagement"]), 3),
        "feedback": round(max(-4.0, min(4.0, facts["feedback"])) * 0.5, 3),
    }
    importance = sum(parts.values())
    age_h = max(0.0, (now - facts["last_published_at"]).total_seconds() / 3600)
    parts["importance"] = round(importance, 3)
    parts["recency"] = round(0.5 ** (age_h / HALF_LIFE_HOURS), 4)
    score = round(importance * parts["recency"], 4)
    starred = facts.get("starred", False)
    if starred or (importance >= FEATURED and facts["independent_outlets"] >= 2):
        tab = "featured"
    elif importance >= P1 and facts["feedback"] >= 0:
        tab = "p1"
    else:
        tab = "all"
    return score, parts, tab


def rank_events(engine: Engine, settings=None, *, now: datetime | None = None) -> int:
    """Score every event; writes only rows whose score, parts or tab changed. Returns events ranked."""
    now = now or datetime.now(UTC)
    with engine.begin() as conn:
        authority: dict[int, float] = defaultdict(float)
        engagement: dict[int, float] = defaultdict(float)
        rows = conn.execute(
            select(event_members.c.event_id, sources.c.tier, sources.c.weight, items.c.engagement)
            .join(items, items.c.id == event_members.c.item_id)
            .join(sources, sources.c.id == items.c.source_id)
        )
        for r in rows:
            # tier 1 with weight 1.0 = 1.0; tier 2 = 0.5; a weight of 2 doubles it.
            authority[r.event_id] = max(authority[r.event_id], (r.weight or 1.0) / max(1, r.tier or 2))
            engagement[r.event_id] += _engagement(r.engagement or {})
        votes: dict[int, float] = defaultdict(float)
        starred: set[int] = set()
        for r in conn.execute(select(feedback.c.event_id, feedback.c.kind)):
            votes[r.event_id] += FEEDBACK_WEIGHT.get(r.kind, 0.0)
            if r.kind == "star":
                starred.add(r.event_id)
        count = 0
        for ev in conn.execute(
            select(events.c.id, events.c.outlets, events.c.independent_outlets, events.c.last_published_at,
                   events.c.importance, events.c.score, events.c.score_parts, events.c.tab)
        ).all():
            facts = {
                "independent_outlets": ev.independent_outlets,
                "outlets": ev.outlets,
                "best_authority": authority.get(ev.id, 0.0),
                "engagement": engagement.get(ev.id, 0.0),
                "feedback": votes.get(ev.id, 0.0),
                "starred": ev.id in starred,
                "last_published_at": ev.last_published_at,
            }
            score, parts, tab = score_event(facts, now)
            count += 1
            if (score, parts, tab) != (ev.score, ev.score_parts, ev.tab):
                conn.execute(update(events).where(events.c.id == ev.id).values(
                    importance=parts["importance"], score=score, score_parts=parts, tab=tab))
    return count
