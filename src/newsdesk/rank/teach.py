"""`newsdesk rank --learn`: turn the store's reader votes into the installation's adjustment
(rank/adjust.py) and say what moved; `--undo-learn` takes the newest back.

Each event's features are its hand parts (rank/score.py), its offset the shipped importance with
its votes taken out (feedback 0, no star), so the adjustment learns what in an event the readers
like, not that they voted for it.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from sqlalchemy import select
from sqlalchemy.engine import Engine

from newsdesk.rank import adjust
from newsdesk.rank.learned import shipped
from newsdesk.rank.score import event_facts, importance_parts, score_event
from newsdesk.store.schema import events, feedback

MOVES = 5  # the newest voted-on day's events whose place moved most, shown to the operator


@dataclass
class Learned:
    adjustment: adjust.Adjustment
    lines: list[str]  # what moved and why, for the operator


def _days(engine: Engine, settings) -> dict:
    """day -> [(event id, title, hand parts with kinds, shipped importance without the votes, grade)]."""
    ranker = shipped() if settings.ranking == "learned" else None
    now = datetime.now(UTC)
    with engine.connect() as conn:
        kinds: dict[int, list[str]] = defaultdict(list)
        for r in conn.execute(select(feedback.c.event_id, feedback.c.kind)):
            kinds[r.event_id].append(r.kind)
        titles = dict(conn.execute(select(events.c.id, events.c.title)).all())
        by_day: dict = defaultdict(list)
        for ev, facts, day in event_facts(conn, settings):
            quiet = {**facts, "feedback": 0.0, "starred": False}
            _, parts, _ = score_event(quiet, now, ranker)
            hand = importance_parts(quiet) | ({"kinds": parts["kinds"]} if "kinds" in parts else {})
            by_day[day].append((ev.id, titles.get(ev.id, ""), hand, parts["importance"], adjust.grade(kinds[ev.id])))
    return by_day


def learn(engine: Engine, settings, strength: float | None = None) -> Learned:
    """Fit the adjustment on every vote in the store, keep it (after the ones before it), and explain it."""
    by_day = _days(engine, settings)
    voted = {d: rows for d, rows in by_day.items() if any(g != 1 for *_, g in rows)}
    fitted = adjust.fit(
        [[(h, base, g) for _, _, h, base, g in rows] for rows in voted.values()], settings.ranking, strength
    )
    fitted = replace(fitted, learned_at=datetime.now(UTC).isoformat(timespec="seconds"))
    lines = [
        f"{fitted.votes} events voted on over {len(voted)} days: {fitted.pairs} pairs "
        f"(⭐ > 👍 > 👎; a liked event over the unvoted ones above it, those over a 👎 below them), on top of ranking = {settings.ranking!r}"
    ]
    if not fitted.deltas:
        return Learned(fitted, [*lines, "nothing to learn: no day has two events graded apart by votes"])
    adjust.push(settings.data_dir, fitted)
    lines += ["what moved (factor, delta to its weight, the votes on events that have it):"]
    lines += ["  " + line for line in adjust.explain(fitted)]
    if voted:
        lines += _moves(by_day[max(voted)], fitted)
    return Learned(fitted, lines)


def _moves(day: list[tuple], fitted: adjust.Adjustment) -> list[str]:
    """The places on the newest voted day's page that moved most under the adjustment (votes left out)."""
    before = sorted(day, key=lambda e: -e[3])
    after = sorted(day, key=lambda e: -(e[3] + sum(fitted.contributions(e[2]).values())))
    place = {e[0]: n for n, e in enumerate(after, 1)}
    moved = sorted(((n, place[e[0]], e[1]) for n, e in enumerate(before, 1)), key=lambda m: -abs(m[0] - m[1]))
    lines = [f"  #{a} → #{b}  {title[:70]}" for a, b, title in moved[:MOVES] if a != b]
    return ["the newest voted day's places that moved most:", *lines] if lines else ["its order is unchanged"]


def undo(settings) -> list[str]:
    """Take the newest adjustment back; say which applies now."""
    removed = adjust.undo(settings.data_dir)
    if removed is None:
        return ["no adjustment to undo: the ranking is as shipped"]
    now = adjust.current(settings.data_dir, settings.ranking)
    after = f"the one learned {now.learned_at} applies again" if now else "the ranking is as shipped"
    return [f"removed the adjustment learned {removed.learned_at} ({removed.votes} votes); {after}"]
