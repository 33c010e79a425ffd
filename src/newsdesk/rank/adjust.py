"""The installation's own adjustment: what its readers' votes teach the ranking (issue 29).

The shipped ranking (the hand weights, or the learned model) stays as shipped; on top of it an
installation keeps a small adjustment learned from its readers' 👍 / 👎 / ⭐ (the feedback
table): one delta per factor of rank/learned.py's corrections (coverage, authority, each happening
class and routine kind, the flags), added to an event's importance as `yours: FACTOR`
contributions, so "why it ranks" shows what the readers moved.

A day's votes order pairs of its events, as an editor's tiers do for the shipped model: a voted
event over one voted lower (⭐ > 👍 > 👎), a liked one over each unvoted event the shipped ranking
put above it (the reader read past it to vote), and each unvoted event put above a 👎 over it
(read, and let be); an unvoted event below every vote says nothing. The deltas are a pairwise logistic regression
with the shipped importance as its offset (so a pair the shipped ranking already gets right
teaches little), penalised toward zero (a few votes move a little; how hard is chosen on the
installation's own newest votes). The vote's own part (feedback) is taken out of the offset and
is no feature: the adjustment learns what in an event the readers like, for the events they have
not voted on.

The adjustment lives in `<data_dir>/ranker-adjustment.json` with its history: each `newsdesk
rank --learn` adds one, `newsdesk rank --undo-learn` removes the newest. It holds for the ranking
it was learned on (`ranking = "hand"` or `"learned"`) only. rank/teach.py learns it from a store.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from newsdesk.rank.learned import CONTEXT, CORRECTIONS, features, pairwise_logistic

FILE = "ranker-adjustment.json"
# The hand ranking's factors alone: the learned ranker's context features (novelty, growth and the
# outlets' record are not in an installation's stored parts) stay out, so votes teach what they did.
FACTORS = tuple(k for k in CORRECTIONS if k != "feedback" and k not in CONTEXT)
GRADE = {"star": 3, "up": 2, "down": 0}  # an event with no vote is 1
# How hard the deltas are pulled toward zero: chosen per installation on its own newest votes
# (choose_strength); 1e3 is "no adjustment". benchmarks/reader_feedback.py measures it.
STRENGTHS = (1e-3, 1e-2, 1e-1, 1e3)
STRENGTH = 1e-1  # under three voted days: a little
PREFIX = "yours: "


@dataclass
class Adjustment:
    deltas: dict[str, float]
    ranking: str  # the shipped ranking it was learned on top of
    votes: int = 0
    pairs: int = 0
    days: int = 0
    learned_at: str = ""
    strength: float = STRENGTH
    why: dict[str, dict[str, int]] = field(default_factory=dict)  # factor -> {grade: events voted with it}

    def contributions(self, parts: dict) -> dict[str, float]:
        """`yours: FACTOR` → delta × the factor's value for one event's hand parts (with `kinds`)."""
        x = features(parts)
        out = {PREFIX + k: round(d * x[k], 3) for k, d in self.deltas.items() if k in x}
        return {k: v for k, v in out.items() if v}


def grade(kinds: list[str]) -> int:
    """An event's grade from its votes: its best ⭐ / 👍 when the 👍 outweigh the 👎, else 👎."""
    if not kinds:
        return 1
    net = sum({"star": 2.0, "up": 1.0, "down": -2.0}.get(k, 0.0) for k in kinds)
    if net > 0:
        return 3 if "star" in kinds else 2
    return 0 if net < 0 else 1


def _pairs(day: list[tuple[dict, float, int]]) -> tuple[list[int], list[tuple[int, int]]]:
    """The events of one day that votes speak of, and the pairs they order: a voted event over one
    voted lower (⭐ > 👍 > 👎), a liked one over each unvoted event the shipped ranking put above
    it (the reader read past it to vote), and each unvoted event put above a 👎 over it (read,
    and let be). An unvoted event below every vote says nothing: the reader may not have got to it."""
    place = {i: n for n, i in enumerate(sorted(range(len(day)), key=lambda i: -day[i][1]))}
    voted = [i for i in range(len(day)) if day[i][2] != 1]
    above = [(i, j) for i in voted for j in range(len(day)) if day[j][2] == 1 and place[j] < place[i]]
    pairs = [(i, j) for i in voted for j in voted if day[i][2] > day[j][2]]
    pairs += [(i, j) for i, j in above if day[i][2] > 1] + [(j, i) for i, j in above if day[i][2] == 0]
    return sorted({k for pair in pairs for k in pair}), pairs


def _arrays(days: list[list[tuple[dict, float, int]]]):
    """(feature differences, offsets, weights) of every day's pairs, each day weighing the same."""
    import numpy as np

    diffs, offsets, weights = [], [], []
    for day in days:
        seen, pairs = _pairs(day)
        xs = {i: np.array([features(day[i][0])[k] for k in FACTORS]) for i in seen}
        for i, j in pairs:
            diffs.append(xs[i] - xs[j])
            offsets.append(day[i][1] - day[j][1])
            weights.append(1.0 / len(pairs))
    return np.array(diffs).reshape(-1, len(FACTORS)), np.array(offsets), np.array(weights)


def choose_strength(days: list[list[tuple[dict, float, int]]]) -> float:
    """The strength whose adjustment, learned on the older voted days, best orders the newest
    third's vote pairs (the share ordered right, each day weighing the same); STRENGTHS[-1] is
    "no adjustment", so votes that do not carry to later days teach nothing. Under three voted
    days, STRENGTH."""
    voted = [d for d in days if _pairs(d)[1]]
    if len(voted) < 3:
        return STRENGTH
    cut = len(voted) - max(1, len(voted) // 3)
    diffs, offsets, weights = _arrays(voted[cut:])
    old_diffs, old_offsets, old_weights = _arrays(voted[:cut])
    best, best_right = STRENGTHS[-1], -1.0
    for strength in STRENGTHS:
        theta = pairwise_logistic(old_diffs, old_weights, [strength] * len(FACTORS), old_offsets)
        right = float(weights @ (offsets + diffs @ theta > 0))
        if right > best_right + 1e-9:
            best, best_right = strength, right
    return best


def fit(days: list[list[tuple[dict, float, int]]], ranking: str, strength: float | None = None) -> Adjustment:
    """The adjustment from days of (hand parts with kinds, shipped importance less the vote's part,
    grade) per event; strength None: chosen on the votes themselves (choose_strength)."""
    strength = choose_strength(days) if strength is None else strength
    diffs, offsets, weights = _arrays(days)
    why: dict[str, dict[str, int]] = {}
    for day in days:
        for i in _pairs(day)[0]:
            if day[i][2] != 1:
                for k, v in features(day[i][0]).items():
                    if v and k in FACTORS:
                        tally = why.setdefault(k, {})
                        tally[str(day[i][2])] = tally.get(str(day[i][2]), 0) + 1
    votes = sum(1 for day in days for _, _, g in day if g != 1)
    voted_days = sum(1 for day in days if _pairs(day)[1])
    if not len(diffs):
        return Adjustment({}, ranking, votes, strength=strength)
    theta = pairwise_logistic(diffs, weights, [strength] * len(FACTORS), offsets)
    deltas = {k: round(float(d), 4) for k, d in zip(FACTORS, theta, strict=True) if abs(d) >= 5e-4}
    return Adjustment(deltas, ranking, votes, len(diffs), voted_days, strength=strength, why=why)


def path(data_dir: str | Path) -> Path:
    return Path(data_dir) / FILE


def history(data_dir: str | Path) -> list[Adjustment]:
    file = path(data_dir)
    if not file.exists():
        return []
    return [Adjustment(**a) for a in json.loads(file.read_text(encoding="utf-8"))["history"]]


def current(data_dir: str | Path, ranking: str) -> Adjustment | None:
    """The newest adjustment, when it was learned on top of `ranking`."""
    found = history(data_dir)
    return found[-1] if found and found[-1].ranking == ranking else None


def _write(data_dir: str | Path, found: list[Adjustment]) -> None:
    file = path(data_dir)
    if not found:
        file.unlink(missing_ok=True)
        return
    file.parent.mkdir(parents=True, exist_ok=True)
    tmp = file.with_suffix(".tmp")
    tmp.write_text(json.dumps({"history": [asdict(a) for a in found]}, ensure_ascii=False, indent=1) + "\n", "utf-8")
    tmp.replace(file)


def push(data_dir: str | Path, adjustment: Adjustment) -> None:
    _write(data_dir, [*history(data_dir), adjustment])


def undo(data_dir: str | Path) -> Adjustment | None:
    """Remove the newest adjustment (the one before it applies again); returns the one removed."""
    found = history(data_dir)
    if not found:
        return None
    _write(data_dir, found[:-1])
    return found[-1]


def explain(adjustment: Adjustment) -> list[str]:
    """What moved and why, a line per factor, largest first: its delta and the votes on events with it."""
    names = {"3": "⭐", "2": "👍", "0": "👎"}
    lines = []
    for k, d in sorted(adjustment.deltas.items(), key=lambda kv: -abs(kv[1])):
        tally = adjustment.why.get(k, {})
        votes = ", ".join(f"{names[g]} {tally[g]}" for g in ("3", "2", "0") if tally.get(g)) or "no vote on it"
        lines.append(f"{k:<20} {d:+.3f}   events voted with it: {votes}")
    return lines
