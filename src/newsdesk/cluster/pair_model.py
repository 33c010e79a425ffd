"""The shipped same-happening scorer over pairs.FEATURES, read from a JSON file.

`cluster/model/pairs-v1.json` holds the model (gradient-boosted trees: each tree's nodes as
[feature, threshold, left, right, value]; or a logistic regression: standardisation and
coefficients), the join threshold chosen on the training folds, and the manifest of the data it
was trained on (files, hashes, counts) with its figures. eval/train_pairs.py writes it. Scoring is
plain Python and numpy, so the package needs no learning library at run time, and the same row
always gets the same probability.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from newsdesk.cluster.pairs import FEATURES
from newsdesk.core.errors import NewsdeskError

MODEL_DIR = Path(__file__).parent / "model"


class PairModelError(NewsdeskError):
    """The pair model file cannot be used; the message names the file and the fix."""


@dataclass(frozen=True)
class PairModel:
    name: str
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float
    threshold: float  # join at this probability or more
    meta: dict = field(default_factory=dict, compare=False)
    trees: tuple = ()  # gradient boosting: each tree a tuple of nodes (feature, threshold, left, right, value); feature -1 a leaf

    def logits(self, x: np.ndarray) -> np.ndarray:
        x = np.atleast_2d(x)
        if not self.trees:
            return ((x - self.mean) / self.scale) @ self.coef + self.intercept
        out = []
        for row in x.tolist():
            total = self.intercept
            for nodes in self.trees:
                n = 0
                while nodes[n][0] >= 0:
                    f, t, left, right, _ = nodes[n]
                    n = left if row[f] <= t else right
                total += nodes[n][4]
            out.append(total)
        return np.array(out)

    def probability(self, x: np.ndarray) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-self.logits(x)))

    def contributions(self, x: np.ndarray) -> np.ndarray:
        """Each feature's share of the logit against an average pair (linear model), or, for trees,
        the logit moved when the feature is set to its average (one at a time)."""
        x = np.asarray(x, dtype=np.float64)
        if not self.trees:
            return (x - self.mean) / self.scale * self.coef
        base = self.logits(x)[0]
        probes = np.repeat(x[None, :], len(x), axis=0)
        probes[np.arange(len(x)), np.arange(len(x))] = self.mean
        return base - self.logits(probes)

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "kind": "gradient-boosting" if self.trees else "logistic-regression",
            "features": list(FEATURES),
            "trees": [
                [[f, round(t, 8), left, right, round(v, 8)] for f, t, left, right, v in tree] for tree in self.trees
            ],
            "mean": self.mean.round(8).tolist(),
            "scale": self.scale.round(8).tolist(),
            "coef": self.coef.round(8).tolist(),
            "intercept": round(float(self.intercept), 8),
            "threshold": round(float(self.threshold), 4),
            **self.meta,
        }


def from_json(data: dict, where: str = "pair model") -> PairModel:
    if data.get("features") != list(FEATURES):
        raise PairModelError(
            f"{where}: its features {data.get('features')} are not this newsdesk's {list(FEATURES)}",
            "retrain it with eval/train_pairs.py, or install the newsdesk it was trained for",
        )
    meta = {
        k: v for k, v in data.items() if k not in ("mean", "scale", "coef", "intercept", "threshold", "name", "trees")
    }
    return PairModel(
        data["name"],
        np.asarray(data["mean"], dtype=np.float64),
        np.asarray(data["scale"], dtype=np.float64),
        np.asarray(data["coef"], dtype=np.float64),
        float(data["intercept"]),
        float(data["threshold"]),
        meta,
        tuple(tuple(tuple(node) for node in tree) for tree in data.get("trees") or ()),
    )


@lru_cache(maxsize=4)
def load(name: str) -> PairModel:
    """A shipped model by name (pairs-v1), or a path to a model file."""
    path = Path(name) if name.endswith(".json") else MODEL_DIR / f"{name}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        shipped = sorted(p.stem for p in MODEL_DIR.glob("*.json"))
        raise PairModelError(
            f"pair model {name!r}: cannot read {path} ({exc.strerror})",
            f"use one of the shipped models {shipped} or a path to a .json file eval/train_pairs.py wrote",
        ) from None
    except json.JSONDecodeError as exc:
        raise PairModelError(f"{path}: not JSON ({exc.msg})", "retrain it with eval/train_pairs.py") from None
    return from_json(data, str(path))
