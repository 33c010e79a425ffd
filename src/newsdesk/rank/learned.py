"""The learned importance ranker: a learned correction on top of the hand ranking (issue 29).

rank/score.py sums hand-weighted parts into an importance. The model reads those parts as its
features: the hand importance itself, coverage, echo, authority, engagement and feedback as
rank/score.py computes them; first party, undated, title only, off topic as 0/1; each happening
class of rank/happenings.py (major, release, money, policy, incident, versioned, paper) and each
routine kind (changelog, marketing, roundup, how-to, recap, opinion, explainer) as 0/1; and four
the hand parts do not hold (CONTEXT: novelty and growth as of the event's day, rank/context.py; a
first party confirmed by an independent outlet; the outlets' record, with_outlet_prior), which
measured held apart did not help (eval/ranker/README.md: ranker-v2 predates them, weight 0). Its score
is `a · hand importance + Σ wₖ · xₖ`: the hand ranking scaled, corrected where the editors' days
disagree with a hand weight. The corrections are penalised toward zero (L2), so with little
evidence the model is the hand ranking; how hard is chosen by leave-one-source-out
(eval/train_ranker.py).

It is fitted as a pairwise logistic regression (a RankNet with one layer): for two events of one
day, the probability that an editor put the first above the second is σ(score₁ − score₂). Each
factor's contribution is `a` times its hand part plus its correction, so "why it ranks" shows
every factor, and the importance is their sum. A lead-story probability σ(gap·(score − the day's
best) + bias) is fitted on the same days (the editor's leads: tier 3, Juya's 要闻, AINews's lead):
a lead is read against its day. The featured tab holds the news events (on topic, dated, not
routine, readable) whose probability passes the threshold (chosen by F0.5 on the training days),
at most five a day, and the day's best news event when none passes.

Trained by eval/train_ranker.py, shipped as rank/model/ranker-v2.json with its data manifest and
held-apart figures; applying it needs no library, fitting needs numpy and scipy.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

from newsdesk.rank.happenings import NEWS_KINDS

VERSION = "ranker-v2"
LEAD_VERSION = "lead-v1"  # the hand ranking's featured tab (fit_lead)
HAND = "hand"
NUMERIC = ("coverage", "echo", "authority", "engagement", "feedback")
FLAGS = ("first_party", "undated", "unread", "off_topic")
ROUTINE = ("changelog", "marketing", "roundup", "how-to", "recap", "opinion", "explainer")
# What the hand parts do not hold (issue 29 item 3): novelty against the previous days and growth
# over them (rank/context.py, as of the event's day), a first party confirmed by an independent
# outlet (first party, and two or more independent outlets), and the outlets' own record: how
# much more often than the average an editor put the events its outlets reported on other days
# in their top half (with_outlet_prior, learned from a fold's training rows).
CONTEXT = ("novelty", "growth", "confirmed", "outlet_prior")
CORRECTIONS = (
    NUMERIC + FLAGS + tuple(f"kind:{k}" for k in NEWS_KINDS) + tuple(f"routine:{k}" for k in ROUTINE) + CONTEXT
)
CONFIRMED_COVERAGE = round(math.log2(3), 3) - 0.001  # coverage of two independent outlets (rank/score.py)
FEATURES = (HAND,) + CORRECTIONS
# The hand parts rank/score.py sums into the importance (each shown scaled by the model's `a`).
# `misdated` (rank/chronology.py) came after the shipped model: a hand part, not a correction.
HAND_PARTS = NUMERIC + ("kind", "routine") + FLAGS + ("misdated",)
FEATURED_PER_DAY = 5


def kinds_of(parts: dict) -> set[str]:
    return {k.strip() for k in str(parts.get("kinds") or "").split(",") if k.strip()}


def features(parts: dict) -> dict[str, float]:
    """The model's inputs from an event's hand-ranking parts (score.importance_parts, plus `kinds`)."""
    kinds = kinds_of(parts)
    x = {HAND: float(parts.get("importance") or 0.0)}
    x.update({k: float(parts.get(k) or 0.0) for k in NUMERIC})
    x.update({k: 1.0 if parts.get(k) else 0.0 for k in FLAGS})
    x.update({f"kind:{k}": float(k in kinds) for k in NEWS_KINDS})
    x.update({f"routine:{k}": float(k in kinds) for k in ROUTINE})
    x.update(context_features(parts))
    return x


def context_features(parts: dict) -> dict[str, float]:
    """novelty (1 when unknown: nothing earlier to repeat), growth and outlet_prior (0 when
    unknown) and confirmed."""
    novelty = parts.get("novelty")
    return {
        "novelty": 1.0 if novelty is None else float(novelty),
        "growth": float(parts.get("growth") or 0.0),
        "outlet_prior": float(parts.get("outlet_prior") or 0.0),
        "confirmed": float(
            bool(parts.get("first_party")) and float(parts.get("coverage") or 0.0) >= CONFIRMED_COVERAGE
        ),
    }


def eligible(parts: dict) -> bool:
    """News a day can feature: on topic, dated (and not misdated), not routine, more than a headline
    (as rank/score.py decides)."""
    flags = ("off_topic", "undated", "unread", "misdated")
    return not (any(parts.get(k) for k in flags) or kinds_of(parts) & set(ROUTINE))


@dataclass
class Ranker:
    weights: dict[str, float]  # HAND: the hand importance's scale; the rest: corrections
    scale: float = 0.0  # lead-story probability σ(scale·score + gap·(score − the day's best) + bias)
    gap: float = 0.0
    bias: float = 0.0
    threshold: float = 0.5  # featured from this lead-story probability
    version: str = VERSION
    extra: dict = field(default_factory=dict)

    def contributions(self, parts: dict) -> dict[str, float]:
        """Each factor's contribution (its hand part × the hand scale, plus its correction), rounded
        as stored; factors that are zero are left out."""
        x = features(parts)
        a = self.weights.get(HAND, 0.0)
        out: dict[str, float] = defaultdict(float)
        for k in HAND_PARTS:
            out[k] += a * float(parts.get(k) or 0.0)
        for k in CORRECTIONS:
            out[k] += self.weights.get(k, 0.0) * x[k]
        return {k: round(v, 3) for k, v in out.items() if round(v, 3)}

    def score(self, parts: dict) -> float:
        """The importance: the sum of the contributions, exactly as shown."""
        return round(sum(self.contributions(parts).values()), 3)

    def lead_probability(self, score: float, best: float) -> float:
        """The probability that an event of this score is a lead of a day whose best score is `best`:
        a lead is read against its day (a score that leads a quiet day is one of many on a busy one)."""
        z = self.scale * score + self.gap * (score - best) + self.bias
        return 1.0 / (1.0 + math.exp(-z)) if z > -700 else 0.0

    def featured(self, day: list[tuple[float, bool]]) -> list[bool]:
        """Which of a day's events are featured, given (score, eligible) each."""
        order = sorted(range(len(day)), key=lambda i: (-day[i][0], i))
        best = max((score for score, _ in day), default=0.0)
        chosen = [i for i in order if day[i][1] and self.lead_probability(day[i][0], best) >= self.threshold]
        chosen = chosen[:FEATURED_PER_DAY] or [i for i in order if day[i][1]][:1]
        return [i in chosen for i in range(len(day))]

    def to_json(self) -> dict:
        return {
            "version": self.version,
            "features": list(self.weights),
            "weights": {k: round(v, 6) for k, v in self.weights.items()},
            "lead_probability": {"scale": round(self.scale, 6), "gap": round(self.gap, 6), "bias": round(self.bias, 6)},
            "featured_threshold": round(self.threshold, 4),
            **self.extra,
        }


def learned_parts(ranker: Ranker, parts: dict) -> dict:
    """An event's stored parts under the model: each factor's contribution (keyed as the hand parts
    are, corrections of a kind as `kind:NAME` / `routine:NAME`), their sum as `importance`, and the
    lead-story probability once its day is known (score.rank_events)."""
    out: dict = ranker.contributions(parts)
    out["importance"] = round(sum(out.values()), 3)
    return out


def from_json(data: dict) -> Ranker:
    unknown = set(data["weights"]) - set(FEATURES)
    if unknown:
        raise ValueError(f"ranker {data.get('version')}: unknown features {sorted(unknown)}; retrain it")
    lead = data.get("lead_probability") or {}
    return Ranker(
        dict(data["weights"]),
        float(lead.get("scale", 0.0)),
        float(lead.get("gap", 0.0)),
        float(lead.get("bias", 0.0)),
        float(data.get("featured_threshold", 0.5)),
        str(data.get("version") or VERSION),
    )


@cache
def shipped(version: str = VERSION) -> Ranker:
    """A model shipped in the package: rank/model/ranker-v2.json, or LEAD_VERSION's calibration."""
    text = resources.files("newsdesk.rank").joinpath(f"model/{version}.json").read_text(encoding="utf-8")
    return from_json(json.loads(text))


def shipped_lead() -> Ranker:
    """The featured tab under the hand ranking: the hand importance as it is (weight 1, no
    corrections) with a lead-story probability fitted on it (fit_lead, rank/model/lead-v1.json)."""
    return shipped(LEAD_VERSION)


# --- fitting (eval/train_ranker.py, rank/adjust.py) -----------------------------------------


def pairwise_logistic(diffs, weights, penalty, offset=None):
    """θ minimising Σ wₚ·log(1 + exp(−(offsetₚ + Δₚ·θ))) / Σ wₚ + Σ penaltyₖ·θₖ²: "the first of
    each pair ranks above the second", Δₚ the pair's feature difference (numpy arrays)."""
    import numpy as np
    from scipy.optimize import minimize
    from scipy.special import expit

    diffs, weights, penalty = np.asarray(diffs, float), np.asarray(weights, float), np.asarray(penalty, float)
    weights = weights / weights.sum()
    base = np.zeros(len(diffs)) if offset is None else np.asarray(offset, float)

    def loss(theta):
        margin = base + diffs @ theta
        value = weights @ np.logaddexp(0.0, -margin) + penalty @ theta**2
        grad = -(diffs.T @ (weights * expit(-margin))) + 2 * penalty * theta
        return value, grad

    return minimize(loss, np.zeros(diffs.shape[1]), jac=True, method="L-BFGS-B").x


def fit(rows: list[dict], strength: float = 0.01, leads_from: frozenset[str] = frozenset()) -> Ranker:
    """Fit on rows {source, query, rel, top, parts}: pairs of one query's events with different
    relevance, each query weighing the same; corrections penalised by `strength`; then the
    lead-story calibration and the featured threshold, on the rows of the sources in `leads_from`
    (all when empty)."""
    import numpy as np

    matrix = np.array([[features(r["parts"])[k] for k in FEATURES] for r in rows])
    queries: dict[str, list[int]] = defaultdict(list)
    for n, r in enumerate(rows):
        queries[r["query"]].append(n)
    firsts, seconds, weights = [], [], []
    for members in queries.values():
        pairs = [(i, j) for i in members for j in members if rows[i]["rel"] > rows[j]["rel"]]
        firsts += [i for i, _ in pairs]
        seconds += [j for _, j in pairs]
        weights += [1.0 / max(1, len(pairs))] * len(pairs)
    penalty = np.array([1e-6 if k == HAND else strength for k in FEATURES])
    # No editor's day holds a reader's vote: feedback keeps the hand weight (scaled) until an
    # installation's readers teach it (rank/adjust.py).
    if not matrix[:, FEATURES.index("feedback")].any():
        penalty[FEATURES.index("feedback")] = 1e6
    theta = pairwise_logistic(matrix[firsts] - matrix[seconds], weights, penalty)
    model = Ranker(dict(zip(FEATURES, (float(w) for w in theta), strict=True)))
    model.extra["correction_strength"] = strength
    return _calibrated(model, rows, matrix @ theta, queries, leads_from)


def fit_lead(rows: list[dict], leads_from: frozenset[str] = frozenset()) -> Ranker:
    """The hand ranking as it is (the hand importance, weight 1, no correction) with the lead-story
    probability and featured threshold fitted on it as fit() fits them: the featured tab learned
    from the editors' leads over an order the learned corrections did not beat (eval/ranker)."""
    import numpy as np

    queries: dict[str, list[int]] = defaultdict(list)
    for n, r in enumerate(rows):
        queries[r["query"]].append(n)
    model = Ranker({HAND: 1.0}, version=LEAD_VERSION)
    return _calibrated(model, rows, np.array([features(r["parts"])[HAND] for r in rows]), queries, leads_from)


PRIOR_SMOOTHING = 5.0  # pseudo-events at the average rate: an outlet seen once says little


def day_of(row: dict) -> str:
    return row["query"].split(":", 1)[-1]


def with_outlet_prior(rows: list[dict], learn: list[dict]) -> list[dict]:
    """`rows` with parts["outlet_prior"]: the best, over the outlets reporting the event on its day,
    of (its events in an editor's top half (rel ≥ 2) + PRIOR_SMOOTHING·p) / (its events +
    PRIOR_SMOOTHING) − p, p the average rate, counted over the rows of `learn` (a fold's
    training rows, eval/train_ranker.py) of other days than the row's: a row's own label, or its
    event's under the other editor that day, never counts toward its own feature."""
    total: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    per_day: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0.0])
    hits = sum(r["rel"] >= 2 for r in learn)
    rate = hits / len(learn) if learn else 0.0
    for r in learn:
        for o in set(r.get("outlets") or []):
            for bucket in (total[o], per_day[(o, day_of(r))]):
                bucket[0] += r["rel"] >= 2
                bucket[1] += 1
    out = []
    for r in rows:
        best = None
        for o in set(r.get("outlets") or []):
            k, n = total.get(o, (0.0, 0.0))
            dk, dn = per_day.get((o, day_of(r)), (0.0, 0.0))
            prior = (k - dk + PRIOR_SMOOTHING * rate) / (n - dn + PRIOR_SMOOTHING) - rate
            best = prior if best is None else max(best, prior)
        out.append({**r, "parts": {**r["parts"], "outlet_prior": round(best or 0.0, 4)}})
    return out


def _calibrated(model: Ranker, rows: list[dict], score, queries: dict[str, list[int]], leads_from) -> Ranker:
    """The model with its lead-story calibration and featured threshold fitted on the rows of the
    sources in `leads_from` (all when empty), given each row's score under it."""
    import numpy as np

    best = np.zeros(len(rows))
    for members in queries.values():
        best[members] = score[members].max()
    keep = [n for n, r in enumerate(rows) if not leads_from or r["source"] in leads_from]
    inputs = np.column_stack([score - best, np.ones(len(rows))])[keep]
    tops = np.array([float(bool(rows[n]["top"])) for n in keep])
    # The calibration is a logistic regression (top or not), its two weights barely penalised. The
    # score itself is left out: pooled over days it drew the probability from the day's best (many
    # AINews leads on days whose best was high), flat or falling within a day.
    sign = 2 * tops - 1
    calib = pairwise_logistic(sign[:, None] * inputs, np.ones(len(keep)), [1e-6] * 2)
    model.scale, model.gap, model.bias = 0.0, float(calib[0]), float(calib[1])
    days = {q: [(rows[n], float(score[n])) for n in members] for q, members in queries.items() if members[0] in keep}
    model.threshold = _threshold(model, days)
    return model


def _threshold(model: Ranker, queries: dict[str, list[tuple[dict, float]]], beta: float = 0.5) -> float:
    """The lead-story probability whose featured tab best matches the leads on these days, by F0.5
    (precision weighs twice recall: the featured tab is what a reader must not miss, and a wrong
    one costs their trust more than a lead left on page one). queries: each day's (row, score)."""
    days = [
        ([r for r, _ in group], [(score, eligible(r["parts"])) for r, score in group])
        for group in queries.values()
        if any(r["top"] for r, _ in group)
    ]
    tops = sum(r["top"] for group, _ in days for r in group)
    best, best_f = 0.5, -1.0
    for t in [k / 100 for k in range(5, 96, 5)]:
        model.threshold = t
        shown = right = 0
        for group, scored in days:
            for r, f in zip(group, model.featured(scored), strict=True):
                shown += f
                right += f and bool(r["top"])
        p, rc = (right / shown if shown else 0.0), (right / tops if tops else 0.0)
        f_beta = (1 + beta**2) * p * rc / (beta**2 * p + rc) if p + rc else 0.0
        if f_beta > best_f:
            best, best_f = t, f_beta
    return best
