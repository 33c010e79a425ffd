"""What the learned same-happening scorer reads: features of an (item, open event) pair.

The clusterer (events.py) asks `candidates` for the open events worth a look and `features` for each;
a model (pair_model.py) turns the row into the probability that the item reports the event's
happening. The same two functions make the training rows (eval/train_pairs.py walks the labelled
sets' items in publish order into their gold events), so what the model learned from is what it
is asked about.

Every feature is computed from the two sides' texts and times and the window's word counts, none
from a hand-written verdict: the weights are learned (Miranda et al. 2018, a learned pair scorer
over a few similarity features).
"""

from __future__ import annotations

import math
import re

import numpy as np

from newsdesk.cluster.anchors import ANCHOR_WEIGHT, anchor_kind, same_release, version_conflict
from newsdesk.cluster.terms import FAMILY

DAY = 86400.0
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LATIN_TERM = re.compile(r"^[a-z]")


FEATURES = (
    "cosine",  # to the event's centroid in the compared language
    "cross_language",  # zh item against an en centroid or the reverse
    "cosine_cross",  # cosine × cross_language: translations sit lower on the scale
    "cosine_first",  # to the event's first report
    "cosine_max",  # to its closest member
    "cosine_lead",  # how far this cosine is above the next candidate's: one clear match, or a crowd of alike topics
    "anchor_weight",  # shared anchors, each by its kind's weight over the open events carrying it
    "shared_address",  # a shared URL or arXiv id
    "shared_version",  # a shared versioned name (GPT-5.4)
    "version_conflict",  # two versions of one family, none in common
    "shared_money",
    "shared_number",
    "same_release",  # both about one release (named in headline and summary)
    "same_amount",  # both headlines state one specific amount
    "own_latin_names",  # Latin names only the item and the event use in the window
    "own_cjk_names",  # Chinese words only they use
    "rare_words",  # share of the item's IDF mass the event's members carry
    "days_since_first",
    "days_since_last",
    "thin_item",  # a title or a line: embeds as its topic
    "thin_event",
    "event_size",  # log(1 + members)
    "same_outlet",  # an outlet reports a happening once (a follow-up is another event)
    "rumour_item",
    "rumour_event",
    "rumour_then_not",  # a rumour event, an item that is no rumour, a day or more later: the launch
)

MAX_CANDIDATES = 8  # events scored per item: the window's size never enters the per-item cost
MIN_MARGIN = -0.40  # cosine below its language pair's base threshold by more: no candidate


def _own_names(clusterer, doc, ev) -> list[str]:
    """Words the item and the event use and no other report in the window does (AlphaGenome; 控诉,
    蒸馏): a happening's own names, where a product word every item uses is a topic. The big
    companies and model families (terms.FAMILY) never count."""
    df = clusterer.words.df
    return [t for t in doc.terms if t not in FAMILY and ev.terms.get(t, 0) > 0 and df.get(t, 0) <= ev.terms[t]]


def candidates(clusterer, doc, out: set) -> list[tuple[object, float, str]]:
    """(event key, cosine, centroid language) of the open events closest to the item, best first."""
    c = clusterer._centroids
    if c is None or not clusterer.events:
        return []
    rows = np.flatnonzero(c.used)
    cos = c.m[rows] @ doc.vector.astype(np.float32)
    best: dict[object, tuple[float, float, str]] = {}
    for row, s in zip(rows.tolist(), cos.tolist()):
        key, lang = c.event[row], c.lang[row]
        ev = clusterer.events[key]
        if ev.roundup or key in out:
            continue
        if lang != doc.lang and doc.lang in ev.slots:
            continue  # like with like: the event's own-language centroid is the better witness
        if ev.first_ts > doc.ts + clusterer.config.window_days * DAY:
            continue
        margin = s - clusterer._threshold(doc.lang, lang)
        if margin >= MIN_MARGIN and (key not in best or margin > best[key][0]):
            best[key] = (margin, s, lang)
    ranked = sorted(best.items(), key=lambda kv: (-kv[1][0], str(kv[0])))[:MAX_CANDIDATES]
    return [(key, s, lang) for key, (_, s, lang) in ranked]


def rows(clusterer, doc, found: list[tuple[object, float, str]]) -> np.ndarray:
    """Feature rows of the item's candidates (from `candidates`), one a candidate."""
    cos = [s for _, s, _ in found]
    return np.stack(
        [
            features(clusterer, doc, key, s, lang, max(cos[:n] + cos[n + 1 :], default=None))
            for n, (key, s, lang) in enumerate(found)
        ]
    )


def features(clusterer, doc, key, cosine: float, lang: str, next_cosine: float | None = None) -> np.ndarray:
    """The row for one candidate; `next_cosine`: the best cosine among the item's other candidates."""
    ev = clusterer.events[key]
    vec = doc.vector.astype(np.float32)
    cross = float(lang != doc.lang and {lang, doc.lang} <= {"zh", "en"})
    first = float(ev.lead[1] @ vec) if ev.lead is not None else cosine
    closest = float(np.max(np.stack(ev.vectors) @ vec)) if ev.vectors else cosine
    shared = [a for a in doc.anchors if a in ev.anchors]
    kinds = [anchor_kind(a) for a in shared]
    weight = sum(ANCHOR_WEIGHT[k] / max(1, clusterer._df[a]) for a, k in zip(shared, kinds))
    own = _own_names(clusterer, doc, ev)
    weights = clusterer.words.weights(doc.terms)
    rare, _ = clusterer.words.similarity(weights, ev.terms, ev.size)
    since_first = max(0.0, doc.ts - ev.first_ts) / DAY
    since_last = max(0.0, doc.ts - ev.lang_last[lang]) / DAY
    rumour_item, rumour_event = float(doc.rumour), float(ev.rumour)
    return np.array(
        [
            cosine,
            cross,
            cosine * cross,
            first,
            closest,
            cosine - (cosine - 0.3 if next_cosine is None else next_cosine),
            min(weight, 1.0),
            float(any(k in ("url", "arxiv") for k in kinds)),
            float("model" in kinds),
            float(version_conflict(set(doc.anchors), set(ev.anchors)) is not None),
            float("money" in kinds),
            float("num" in kinds),
            float(any(same_release(a, b) for a in doc.subjects for b in ev.subjects)),
            float(bool(doc.amounts & ev.amounts)),
            min(3, sum(1 for t in own if _LATIN_TERM.match(t))),
            min(3, sum(1 for t in own if _CJK.match(t))),
            rare,
            min(since_first, 7.0),
            min(since_last, 7.0),
            float(doc.said is not None and doc.said < clusterer.config.thin_words),
            float(ev.thin),
            math.log1p(ev.size),
            float(bool(doc.source) and ev.sources.get(doc.source, 0) > 0),
            rumour_item,
            rumour_event,
            rumour_event * (1.0 - rumour_item) * float(since_first >= 0.5),
        ],
        dtype=np.float64,
    )


def explain(x: np.ndarray, contributions: np.ndarray, top: int = 4) -> str:
    """The features that moved the probability most, for the placement's reason."""
    order = np.argsort(-np.abs(contributions))[:top]
    return ", ".join(f"{FEATURES[i]} {x[i]:.2f} ({contributions[i]:+.2f})" for i in order if contributions[i])
