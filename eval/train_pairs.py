"""Train the clusterer's same-happening scorer and choose it by leave-one-dataset-out.

    PYTHONPATH=src /work/main/.venv/bin/python eval/train_pairs.py            # LODO table, no file written
    PYTHONPATH=src /work/main/.venv/bin/python eval/train_pairs.py --write    # + src/newsdesk/cluster/model/pairs-v1.json
    PYTHONPATH=src /work/main/.venv/bin/python eval/train_pairs.py --drop rumour_item,rumour_event,rumour_then_not

Each labelled set's items are walked in publish order into their gold events (Clusterer.seed); before
an item is placed, every candidate event the clusterer would score for it (pairs.candidates) gives a
row of pairs.features, labelled by whether it is the item's gold event. A logistic regression
(scikit-learn; each set weighs the same in total) learns from the rows; the join threshold is the
probability that clusters the training sets best (the mean of B-cubed F1 and pairwise F1, as
`eval clusters --folds` tunes). Leave-one-dataset-out: for each set, train and choose the threshold on
the others, cluster the one left out with `newsdesk eval clusters` machinery (eval/clusters.py), and
print its figures beside the rule-based clusterer's on the same vectors.

Sets (never the held-out windows): eval/clusters/ai-news-dev.jsonl, ai-news-early.jsonl (the
harvest, hand-labelled), eval/clusters/itn/itn-dev.jsonl (Wikipedia In-the-news, zh/en),
eval/external/data/clusters_juya_ainews.jsonl (the outside editors' cross-language pairs;
eval/external/clusters_juya_ainews.py). SemEval-2022 Task 8 is not used: its rows carry no
article texts (eval/external/README.md), so there is nothing to compute a feature from.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

from newsdesk.cluster.events import ClusterConfig, Clusterer
from newsdesk.cluster.pair_model import MODEL_DIR, PairModel
from newsdesk.cluster.pairs import FEATURES, candidates, rows
from newsdesk.eval.clusters import cluster_docs, eval_doc, read_eval_file, scores

ROOT = Path(__file__).resolve().parent.parent
SETS = {
    "ai-news-dev": ROOT / "eval/clusters/ai-news-dev.jsonl",
    "ai-news-early": ROOT / "eval/clusters/ai-news-early.jsonl",
    "itn-dev": ROOT / "eval/clusters/itn/itn-dev.jsonl",
    "juya-ainews": ROOT / "eval/external/data/clusters_juya_ainews.jsonl",
}
THRESHOLDS = [round(x, 2) for x in np.arange(0.10, 0.91, 0.05)]
CACHE = ROOT / ".cache/pairs"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def load_set(name: str, path: Path, embedder) -> dict:
    rows = read_eval_file(path)
    digest = sha256(path)
    cached = CACHE / f"{name}-{digest[:16]}-{embedder.model}.npy"
    if cached.exists():
        vectors = np.load(cached)
    else:
        vectors = embedder.embed([r.text for r in rows])
        CACHE.mkdir(parents=True, exist_ok=True)
        np.save(cached, vectors)
    docs = [eval_doc(r, vectors[i]) for i, r in enumerate(rows)]
    return {"name": name, "path": path, "sha256": digest, "rows": rows, "docs": docs}


def pair_rows(data: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Feature rows, labels and item numbers of every candidate pair met while walking the set into its
    gold events, and how many items join an event already open (what a join decision can get right)."""
    clusterer = Clusterer(ClusterConfig())
    docs, gold = data["docs"], [r.event for r in data["rows"]]
    X, y, item = [], [], []
    joins = 0
    for i in sorted(range(len(docs)), key=lambda i: (docs[i].ts, str(docs[i].key))):
        doc = docs[i]
        clusterer.advance(doc.ts)
        joins += gold[i] in clusterer.events and not clusterer.events[gold[i]].roundup
        if not doc.roundup:  # a roundup stands alone before any pair is scored
            found = candidates(clusterer, doc, set())
            if found:
                X.extend(rows(clusterer, doc, found))
                y.extend(key == gold[i] for key, _, _ in found)
                item.extend([i] * len(found))
        clusterer.seed(doc, gold[i])
    return np.array(X).reshape(-1, len(FEATURES)), np.array(y, dtype=bool), np.array(item, dtype=int), joins


def fit(sets: list[dict], drop: set[str], name: str = "pairs-v1", kind: str = "gbm") -> PairModel:
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression

    X = np.vstack([d["X"] for d in sets])
    y = np.concatenate([d["y"] for d in sets])
    # Each set weighs the same: the outside editors' set has four times the rows of a harvest set.
    w = np.concatenate([np.full(len(d["y"]), 1.0 / max(1, len(d["y"]))) for d in sets]) * len(y) / len(sets)
    keep = np.array([f not in drop for f in FEATURES])
    mean, scale = X.mean(axis=0), X.std(axis=0)
    scale[scale == 0] = 1.0
    if kind == "gbm":
        # Shallow trees: the cosine a join needs depends on the language pair, the material and the
        # crowd of candidates, which a linear model cannot say; few and small, so scoring stays cheap.
        gbm = HistGradientBoostingClassifier(
            max_iter=100, learning_rate=0.08, max_depth=4, min_samples_leaf=20, l2_regularization=1.0, random_state=0
        )
        gbm.fit(np.where(keep, X, mean), y, sample_weight=w)
        trees = tuple(_tree(predictors[0].nodes) for predictors in gbm._predictors)
        baseline = float(np.ravel(gbm._baseline_prediction)[0])
        return PairModel(name, mean, scale, np.zeros(len(FEATURES)), baseline, 0.5, trees=trees)
    lr = LogisticRegression(C=1.0, max_iter=5000)
    lr.fit(((X - mean) / scale)[:, keep], y, sample_weight=w)
    coef = np.zeros(len(FEATURES))
    coef[keep] = lr.coef_[0]
    return PairModel(name, mean, scale, coef, float(lr.intercept_[0]), 0.5)


def join_f1(model: PairModel, d: dict, t: float) -> float:
    """F1 of the join decisions on a set's gold walk: each item joins its most probable candidate when
    that reaches t; right when it is the item's gold event."""
    p = model.probability(d["X"])
    right = wrong = 0
    for i in np.unique(d["item"]):
        rows = np.flatnonzero(d["item"] == i)
        best = rows[np.argmax(p[rows])]
        if p[best] >= t:
            right += bool(d["y"][best])
            wrong += not d["y"][best]
    precision = right / (right + wrong) if right + wrong else 1.0
    recall = right / d["joins"] if d["joins"] else 1.0
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def _tree(nodes) -> tuple:
    """A fitted tree's nodes as (feature, threshold, left, right, value); feature -1 marks a leaf."""
    return tuple(
        (
            -1 if n["is_leaf"] else int(n["feature_idx"]),
            float(n["num_threshold"]),
            int(n["left"]),
            int(n["right"]),
            float(n["value"]),
        )
        for n in nodes
    )


def choose_threshold(model: PairModel, sets: list[dict]) -> tuple[float, float]:
    """The threshold with the best mean join F1 over the training sets (each set's gold walk)."""
    best = None
    for t in THRESHOLDS:
        objective = float(np.mean([join_f1(model, d, t) for d in sets]))
        if best is None or objective > best[1] + 1e-9:
            best = (t, objective)
    return best


def figures(result: dict) -> dict:
    keys = ("bcubed_precision", "bcubed_recall", "bcubed_f1", "pairwise_precision", "pairwise_recall", "pairwise_f1")
    out = {k: round(result[k], 3) for k in keys}
    xl = result["cross_lingual_recall"]
    out["cross_lingual_recall"] = None if xl is None else round(xl, 3)
    out["events"], out["gold_events"], out["items"] = result["events"], result["gold_events"], result["items"]
    return out


def line(name: str, who: str, f: dict) -> str:
    xl = "  n/a" if f["cross_lingual_recall"] is None else f"{f['cross_lingual_recall']:.3f}"
    return (
        f"{name:14s} {who:8s} B3 P {f['bcubed_precision']:.3f} R {f['bcubed_recall']:.3f} F1 {f['bcubed_f1']:.3f} | "
        f"pairs P {f['pairwise_precision']:.3f} R {f['pairwise_recall']:.3f} F1 {f['pairwise_f1']:.3f} | "
        f"zh-en R {xl} | events {f['events']}/{f['gold_events']}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--drop", default="", help="features left out (comma-separated), to test a rule's worth")
    ap.add_argument("--rules", default="", help="ClusterConfig fields for both clusterers, e.g. roundups=False")
    ap.add_argument("--write", action="store_true", help="write the model trained on every set")
    ap.add_argument("--name", default="pairs-v1")
    ap.add_argument(
        "--kind", default="gbm", choices=("gbm", "lr"), help="gradient-boosted trees or logistic regression"
    )
    args = ap.parse_args()
    drop = {f for f in args.drop.split(",") if f}
    unknown = drop - set(FEATURES)
    if unknown:
        sys.exit(f"--drop: no such features {sorted(unknown)}; features are {list(FEATURES)}")
    base = ClusterConfig()
    for part in filter(None, args.rules.split(",")):
        field, value = part.split("=")
        base = replace(base, **{field: type(getattr(base, field))(json.loads(value.lower()))})

    from newsdesk.cluster.embed import UseEmbedder

    embedder = UseEmbedder()
    sets = [load_set(n, p, embedder) for n, p in SETS.items()]
    for d in sets:
        d["X"], d["y"], d["item"], d["joins"] = pair_rows(d)
        print(
            f"{d['name']}: {len(d['rows'])} items, {d['joins']} join an open event, {len(d['y'])} candidate pairs, "
            f"{int(d['y'].sum())} of them same-happening"
        )

    report = {}
    for held in sets:
        train = [d for d in sets if d is not held]
        model = fit(train, drop, kind=args.kind)
        t, _ = choose_threshold(model, train)
        gold_rows = held["rows"]
        learned = figures(
            scores(cluster_docs(held["docs"], replace(base, pair_model=model, pair_threshold=t)), gold_rows)
        )
        rules = figures(scores(cluster_docs(held["docs"], base), gold_rows))
        report[held["name"]] = {"threshold": t, "model": learned, "rules": rules}
        print(f"-- left out {held['name']} (threshold {t:.2f}, chosen on the other sets)")
        print(line(held["name"], "rules", rules))
        print(line(held["name"], "model", learned))
    for who in ("rules", "model"):
        mean = {k: np.mean([report[n][who][k] for n in report]) for k in ("bcubed_f1", "pairwise_f1")}
        print(f"mean over sets, {who}: B3 F1 {mean['bcubed_f1']:.3f}  pairs F1 {mean['pairwise_f1']:.3f}")

    if args.write:
        model = fit(sets, drop, args.name, args.kind)
        t, objective = choose_threshold(model, sets)
        manifest = {
            "data": [
                {
                    "set": d["name"],
                    "file": str(d["path"].relative_to(ROOT)),
                    "sha256": d["sha256"],
                    "items": len(d["rows"]),
                    "candidate_pairs": len(d["y"]),
                    "same_happening_pairs": int(d["y"].sum()),
                }
                for d in sets
            ],
            "not_used": "SemEval-2022 Task 8: no article texts in eval/external/data (addresses only)",
            "dropped_features": sorted(drop),
            "trained_by": "eval/train_pairs.py --write",
            "training_objective": round(objective, 4),
            "leave_one_dataset_out": report,
        }
        model = replace(model, threshold=t, meta=manifest)
        path = MODEL_DIR / f"{args.name}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(model.to_json(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {path} (threshold {t:.2f})")
        for f, c in sorted(zip(FEATURES, model.coef), key=lambda fc: -abs(fc[1])) if not model.trees else ():
            print(f"  {f:18s} {c:+.3f}")


if __name__ == "__main__":
    main()
