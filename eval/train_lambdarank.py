"""A gradient-boosted LambdaRank (LightGBM) over the learned ranker's features, measured held apart
beside the hand-weighted importance (issue 29 item 3: "pairwise or LambdaRank").

    pip install -e '.[train]'      # LightGBM and scikit-learn
    PYTHONPATH=src python eval/train_lambdarank.py eval/ranker/events.jsonl.gz [--without novelty,growth]

The rows are `eval/train_ranker.py dump`'s (one per (day, event), relevance 0–3), the features
rank/learned.py's (the hand importance, its parts, each happening class and routine kind as 0/1,
and the context features), so the only difference from ranker-v2 is the model: trees that can
learn interactions (a release *and* a major lab; first party *and* one outlet) instead of a linear
correction.

Folds as in train_ranker.py: each labelled week scored by a model trained on the other weeks and
both editors; each editor scored by a model trained on every week and the other editor. Inside
each fold, the model's size (leaves, rounds, learning rate, least rows a leaf) is chosen from
GRID by leave-one-source-out over that fold's own training sources (the labelled weeks together
count as one source there), by mean NDCG@10: nothing about the held source chooses anything.
Prints each fold's choice and its figures beside the hand ranking's on the same events.
Nothing is shipped from it (eval/ranker/README.md says why).
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "eval")]

import lightgbm as lgb  # noqa: E402
import numpy as np  # noqa: E402
import train_ranker as tr  # noqa: E402

from newsdesk.rank import learned  # noqa: E402

# Small trees: a few thousand rows from eight sources; larger ones only fit the training editors.
GRID = (
    {"num_leaves": 3, "learning_rate": 0.1, "rounds": 50, "min_data_in_leaf": 100},
    {"num_leaves": 4, "learning_rate": 0.05, "rounds": 100, "min_data_in_leaf": 50},
    {"num_leaves": 8, "learning_rate": 0.05, "rounds": 200, "min_data_in_leaf": 30},
)
MEASURES = ("ndcg@10", "top story first", "leads in top 5")


def source_of(row: dict) -> str:
    """A fold's sources: each labelled week, Juya AI Daily, AINews."""
    return row["source"]


def inner_source(row: dict) -> str:
    """Inside a fold the weeks count as one source: a week holds 18–149 rows, too few to score alone."""
    return "weeks" if row["source"].startswith("2026-W") else row["source"]


class Model:
    def __init__(self, names: list[str], booster):
        self.names, self.booster = names, booster

    def scores(self, group: list[dict]) -> list[float]:
        return list(self.booster.predict(matrix(group, self.names)))


def matrix(rows: list[dict], names: list[str]) -> np.ndarray:
    return np.array([[learned.features(r["parts"]).get(k, 0.0) for k in names] for r in rows], dtype=float)


def fit(rows: list[dict], names: list[str], size: dict) -> Model:
    groups = list(tr.by_query(rows).values())
    x = np.vstack([matrix(g, names) for g in groups])
    y = np.concatenate([[r["rel"] for r in g] for g in groups])
    params = {
        "objective": "lambdarank",
        "label_gain": [0, 1, 3, 7],  # 2^rel − 1, the gain NDCG is measured with
        "lambdarank_truncation_level": tr.TOP,
        "verbose": -1,
        "seed": 29,
        "deterministic": True,
        "num_threads": 1,
        **{k: v for k, v in size.items() if k != "rounds"},
    }
    data = lgb.Dataset(x, y, group=[len(g) for g in groups])
    return Model(names, lgb.train(params, data, num_boost_round=size["rounds"]))


def measure(model: Model | None, rows: list[dict]) -> dict:
    """The held rows' summary under the model (None: the hand importance), featured tab left out."""
    days = []
    for group in tr.by_query(rows).values():
        score = model.scores(group) if model else [r["importance"] for r in group]
        days.append(tr.day_measures(group, score, [False] * len(group)))
    return tr.summarise(days)


def choose(rows: list[dict], names: list[str]) -> dict:
    """The GRID entry with the best mean NDCG@10 over leave-one-source-out inside `rows`."""
    inner = sorted({inner_source(r) for r in rows})

    def mean_ndcg(size: dict) -> float:
        got = []
        for held in inner:
            model = fit([r for r in rows if inner_source(r) != held], names, size)
            got.append(measure(model, [r for r in rows if inner_source(r) == held])["ndcg@10"] or 0.0)
        return sum(got) / len(got)

    return max(GRID, key=mean_ndcg)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("events", type=Path)
    ap.add_argument("--without", default="", help="features left out, comma-separated")
    args = ap.parse_args()
    with gzip.open(args.events, "rt", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    dropped = {f for f in args.without.split(",") if f}
    names = [k for k in learned.features(rows[0]["parts"]) if k not in dropped]
    print(f"{len(rows)} rows, {len(names)} features; held-apart folds, LambdaRank beside the hand importance")
    for held in sorted({source_of(r) for r in rows}):
        train = [r for r in rows if source_of(r) != held]
        test = [r for r in rows if source_of(r) == held]
        size = choose(train, names)
        got, hand = measure(fit(train, names, size), test), measure(None, test)

        def fmt(m: dict) -> str:
            return "  ".join(f"{k} {m[k]:.3f}" if m[k] is not None else f"{k}  n/a" for k in MEASURES)

        print(f"{held:9s} leaves {size['num_leaves']}, {size['rounds']} rounds")
        print(f"   lambdarank  {fmt(got)}")
        print(f"   hand        {fmt(hand)}")


if __name__ == "__main__":
    main()
