"""The learned importance ranker: an event's importance as a linear model over the facts rank/score.py
already reads, with weights learned from editors instead of written by hand (issue 29).

Features (all read from the hand ranking's parts, `score.importance_parts` plus its `kinds`):
coverage, echo, authority, engagement and feedback as rank/score.py computes them; first party,
undated, title only, off topic as 0/1; and each happening class of rank/happenings.py (major,
release, money, policy, incident, versioned, paper) and each routine kind (changelog, marketing,
roundup, how-to, recap, opinion, explainer) as 0/1, so what the happening is weighs what the
editors' days say, not a hand weight.

The model is a pairwise logistic regression (a RankNet with one layer): for two events of one
day, the probability that an editor put the first above the second is σ(w·(x₁ − x₂)); the score
w·x orders a day. Each factor's contribution is its weight times its value, and the score is their
sum, so "why it ranks" shows every factor. A lead-story probability σ(a·score + b) is fitted on
the same days (the editor's leads: tier 3, Juya's 要闻, AINews's lead); the featured tab
holds the news events (on topic, dated, not routine, readable) whose probability passes the
threshold, at most five a day, and the day's best news event when none passes.

Trained by eval/train_ranker.py, shipped as rank/model/ranker-v1.json with its data manifest and
held-apart figures; applying it needs no library. Fitting needs scikit-learn (the `train` extra).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

from newsdesk.rank.happenings import NEWS_KINDS

VERSION = "ranker-v1"
NUMERIC = ("coverage", "echo", "authority", "engagement", "feedback")
FLAGS = ("first_party", "undated", "unread", "off_topic")
ROUTINE = ("changelog", "marketing", "roundup", "how-to", "recap", "opinion", "explainer")
FEATURES = NUMERIC + FLAGS + tuple(f"kind:{k}" for k in NEWS_KINDS) + tuple(f"routine:{k}" for k in ROUTINE)
FEATURED_PER_DAY = 5


def features(parts: dict) -> dict[str, float]:
    """The model's inputs from an event's hand-ranking parts (events.score_parts as rank/score.py writes them)."""
    kinds = {k.strip() for k in str(parts.get("kinds") or "").split(",") if k.strip()}
    x = {k: float(parts.get(k) or 0.0) for k in NUMERIC}
    x.update({k: 1.0 if parts.get(k) else 0.0 for k in FLAGS})
    x.update({f"kind:{k}": float(k in kinds) for k in NEWS_KINDS})
    x.update({f"routine:{k}": float(k in kinds) for k in ROUTINE})
    return x


def eligible(parts: dict) -> bool:
    """News a day can feature: on topic, dated, not routine, more than a headline (as rank/score.py decides)."""
    kinds = {k.strip() for k in str(parts.get("kinds") or "").split(",") if k.strip()}
    return not (parts.get("off_topic") or parts.get("undated") or parts.get("unread") or kinds & set(ROUTINE))


@dataclass
class Ranker:
    weights: dict[str, float]
    scale: float = 1.0  # lead-story probability σ(scale·score + bias)
    bias: float = 0.0
    threshold: float = 0.5  # featured from this lead-story probability
    version: str = VERSION
    extra: dict = field(default_factory=dict)

    def contributions(self, x: dict[str, float]) -> dict[str, float]:
        """Each factor's weight × value (rounded as stored); factors that are zero are left out."""
        return {k: round(w * x.get(k, 0.0), 3) for k, w in self.weights.items() if x.get(k, 0.0) and round(w, 3)}

    def score(self, x: dict[str, float]) -> float:
        """The importance: the sum of the contributions, exactly as shown."""
        return round(sum(self.contributions(x).values()), 3)

    def lead_probability(self, score: float) -> float:
        z = self.scale * score + self.bias
        return 1.0 / (1.0 + math.exp(-z)) if z > -700 else 0.0

    def importance_at(self, probability: float) -> float:
        """The score whose lead-story probability is `probability` (the tabs' thresholds as importance)."""
        return (math.log(probability / (1 - probability)) - self.bias) / self.scale

    def featured(self, day: list[tuple[float, bool]]) -> list[bool]:
        """Which of a day's events are featured, given (score, eligible) each."""
        order = sorted(range(len(day)), key=lambda i: (-day[i][0], i))
        chosen = [i for i in order if day[i][1] and self.lead_probability(day[i][0]) >= self.threshold]
        chosen = chosen[:FEATURED_PER_DAY]
        if not chosen:
            chosen = [i for i in order if day[i][1]][:1]
        out = [False] * len(day)
        for i in chosen:
            out[i] = True
        return out

    def to_json(self) -> dict:
        return {
            "version": self.version,
            "features": list(self.weights),
            "weights": {k: round(v, 6) for k, v in self.weights.items()},
            "lead_probability": {"scale": round(self.scale, 6), "bias": round(self.bias, 6)},
            "featured_threshold": round(self.threshold, 4),
        }


def learned_parts(ranker: Ranker, parts: dict) -> dict:
    """An event's stored parts under the model: each factor's contribution (keyed as the hand parts
    are, kinds as `kind:NAME` / `routine:NAME`), their sum as `importance`, and the lead-story
    probability. The hand flags other stages read (off_topic, undated) stay keyed as before."""
    out = ranker.contributions(features(parts))
    importance = round(sum(out.values()), 3)
    for flag in FLAGS:  # a flag whose weight rounds to nothing still marks the event
        if parts.get(flag) and flag not in out:
            out[flag] = parts[flag]
    out["importance"] = importance
    out["lead probability"] = round(ranker.lead_probability(importance), 3)
    return out


def from_json(data: dict) -> Ranker:
    unknown = set(data["weights"]) - set(FEATURES)
    if unknown:
        raise ValueError(f"ranker {data.get('version')}: unknown features {sorted(unknown)}; retrain it")
    lead = data.get("lead_probability") or {}
    return Ranker(
        dict(data["weights"]),
        float(lead.get("scale", 1.0)),
        float(lead.get("bias", 0.0)),
        float(data.get("featured_threshold", 0.5)),
        str(data.get("version") or VERSION),
    )


@cache
def shipped() -> Ranker:
    """The model shipped in the package (rank/model/ranker-v1.json)."""
    text = resources.files("newsdesk.rank").joinpath(f"model/{VERSION}.json").read_text(encoding="utf-8")
    return from_json(json.loads(text))


# --- fitting (eval/train_ranker.py) ------------------------------------------------------------


def fit(rows: list[dict], c: float = 1.0) -> Ranker:
    """Fit on rows {query, rel, top, parts}: pairs of one query's events with different relevance,
    each query weighing the same; then the lead-story calibration and the featured threshold."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    queries: dict[str, list[dict]] = {}
    for r in rows:
        queries.setdefault(r["query"], []).append(r)
    diffs, weights = [], []
    for group in queries.values():
        xs = [np.array([features(r["parts"])[k] for k in FEATURES]) for r in group]
        pairs = [(i, j) for i in range(len(group)) for j in range(len(group)) if group[i]["rel"] > group[j]["rel"]]
        for i, j in pairs:
            diffs += [xs[i] - xs[j], xs[j] - xs[i]]
            weights += [1.0 / len(pairs)] * 2
    y = np.array([1, 0] * (len(diffs) // 2))
    pairwise = LogisticRegression(C=c, fit_intercept=False, max_iter=2000)
    pairwise.fit(np.array(diffs), y, sample_weight=np.array(weights))
    model = Ranker(dict(zip(FEATURES, (float(w) for w in pairwise.coef_[0]), strict=True)))
    # No editor's day holds a reader's vote: feedback keeps the hand weight (its part is already
    # votes × 0.5) until an installation's readers teach it.
    if not any(features(r["parts"])["feedback"] for r in rows):
        model.weights["feedback"] = 1.0
    scores = np.array([[model.score(features(r["parts"]))] for r in rows])
    tops = np.array([int(bool(r["top"])) for r in rows])
    calib = LogisticRegression(C=100.0).fit(scores, tops)
    model.scale, model.bias = float(calib.coef_[0][0]), float(calib.intercept_[0])
    model.threshold = _threshold(model, queries)
    return model


def _threshold(model: Ranker, queries: dict[str, list[dict]]) -> float:
    """The lead-story probability whose featured tab best matches the leads (F1) on these days."""
    days = [
        (group, [(model.score(features(r["parts"])), eligible(r["parts"])) for r in group])
        for group in queries.values()
        if any(r["top"] for r in group)
    ]
    best, best_f1 = 0.5, -1.0
    for t in [k / 100 for k in range(5, 96, 5)]:
        model.threshold = t
        shown = right = 0
        tops = sum(r["top"] for group, _ in days for r in group)
        for group, scored in days:
            for r, f in zip(group, model.featured(scored), strict=True):
                shown += f
                right += f and bool(r["top"])
        f1 = 2 * right / (shown + tops) if shown + tops else 0.0
        if f1 > best_f1:
            best, best_f1 = t, f1
    return best
