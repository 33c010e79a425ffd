"""What an event's day knew about it beyond its own parts: novelty and growth (issue 29, item 3).

The learned ranker (rank/learned.py) reads the hand ranking's parts; these are facts those parts do
not hold, each computed only from what was published up to the end of the event's own first day
(its `day`, the newsroom's local day of its first report), never later:

    novelty  1 − the highest cosine of the event's centroid (the mean vector of its members
             published on its day) to the centroids of the events of the previous NOVELTY_DAYS
             days (their members published before the event's day); 1 when there is none.
    growth   log2((1 + outlets reporting it on its day) / (1 + outlets that reported its story's
             earlier events in the previous NOVELTY_DAYS days, before its day)): how much wider
             a continuing happening got; for a new one, log2(1 + its outlets).

`event_context` reads them from a store after a replay (eval/editorial.py, for
eval/train_ranker.py's dump); the two functions below are the arithmetic, tested alone.
"""

from __future__ import annotations

import math
from collections import defaultdict
from datetime import date, timedelta

import numpy as np

NOVELTY_DAYS = 3


def novelty(centroid: np.ndarray | None, earlier: np.ndarray | None) -> float:
    """1 − the highest cosine of `centroid` to the rows of `earlier` (the previous days' event
    centroids), clipped to [0, 1]; 1 when either is missing (nothing earlier to repeat)."""
    if centroid is None or earlier is None or not len(earlier):
        return 1.0
    c = np.asarray(centroid, float)
    e = np.asarray(earlier, float)
    norms = np.linalg.norm(e, axis=1) * (np.linalg.norm(c) or 1.0)
    sims = (e @ c) / np.where(norms > 0, norms, 1.0)
    return round(float(min(1.0, max(0.0, 1.0 - float(sims.max())))), 4)


def growth(outlets_today: int, outlets_before: int) -> float:
    """log2 of how many more outlets reported a happening on its day than in the days before."""
    return round(math.log2((1 + max(0, outlets_today)) / (1 + max(0, outlets_before))), 4)


def event_context(conn, tz: str, days: int = NOVELTY_DAYS) -> dict[int, dict]:
    """event id -> {day, novelty, growth, outlets: the sources reporting it on its day}, from a
    store's events, members, item vectors and story links (no fact published after the day)."""
    from sqlalchemy import select

    from newsdesk.store.days import local_time
    from newsdesk.store.schema import event_members, events, item_vectors, items, story_events

    first = {
        r.id: local_time(r.first_published_at, tz).date()
        for r in conn.execute(select(events.c.id, events.c.first_published_at))
    }
    members: dict[int, list[tuple[int, str, date]]] = defaultdict(list)
    for r in conn.execute(
        select(event_members.c.event_id, items.c.id, items.c.source_id, items.c.published_at).join(
            items, items.c.id == event_members.c.item_id
        )
    ):
        members[r.event_id].append((r.id, r.source_id, local_time(r.published_at, tz).date()))
    vectors: dict[int, np.ndarray] = {}
    for r in conn.execute(select(item_vectors.c.item_id, item_vectors.c.dim, item_vectors.c.vector)):
        if r.item_id not in vectors:
            v = np.frombuffer(r.vector, dtype="<f4", count=r.dim).astype(float)
            vectors[r.item_id] = v / (np.linalg.norm(v) or 1.0)
    story: dict[int, int] = {
        r.event_id: r.story_id for r in conn.execute(select(story_events.c.event_id, story_events.c.story_id))
    }
    by_story: dict[int, list[int]] = defaultdict(list)
    for e, s in story.items():
        by_story[s].append(e)

    def centroid(event: int, until: date, strictly_before: bool) -> np.ndarray | None:
        vs = [
            vectors[i]
            for i, _, d in members.get(event, [])
            if i in vectors and (d < until if strictly_before else d <= until)
        ]
        return np.mean(vs, axis=0) if vs else None

    by_day: dict[date, list[int]] = defaultdict(list)
    for e, d in first.items():
        by_day[d].append(e)
    out: dict[int, dict] = {}
    for day in sorted(by_day):
        window = [e for k in range(1, days + 1) for e in by_day.get(day - timedelta(days=k), [])]
        earlier = [c for c in (centroid(e, day, True) for e in window) if c is not None]
        matrix = np.array(earlier) if earlier else None
        for e in by_day[day]:
            today = sorted({s for _, s, d in members.get(e, []) if d == day})
            before = {
                s
                for other in by_story.get(story.get(e, -1), [])
                if other != e and day - timedelta(days=days) <= first[other] < day
                for _, s, d in members.get(other, [])
                if d < day
            }
            out[e] = {
                "day": day.isoformat(),
                "novelty": novelty(centroid(e, day, False), matrix),
                "growth": growth(len(today), len(before)),
                "outlets": today,
            }
    return out
