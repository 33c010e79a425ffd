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
eval/external/clusters_juya_ainews.py), and, to learn from only (it has no stream to walk or
cluster, so it is never left out and never chooses the threshold), the SemEval-2022 Task 8 training
pairs with texts, eval/external/data/semeval_train_texts.jsonl.gz (en-en; HFL's zh-zh and zh-en
translations; eval/external/README.md). Each SemEval pair is one row: its second article the item,
its first a one-member open event among BACKGROUND other SemEval articles (so the window's word
counts mean what they mean in a stream); a pair whose cosine is too low for `candidates` to offer
is left out, as the clusterer would never score it. The articles carry no dates: their two
time features are drawn from the other training sets' rows, so time says nothing within SemEval
and its rows carry no value no other set has. `--no-semeval` trains without it (the earlier model).
The SemEval evaluation split has no texts here, so it gives no validation line.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

from newsdesk.cluster.events import ClusterConfig, Clusterer, Doc
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
SEMEVAL = ROOT / "eval/external/data/semeval_train_texts.jsonl.gz"
SEMEVAL_TS = 1577836800.0  # 2020-01-01, the task's crawl: one time for every article (they carry none)
BACKGROUND = 100  # other SemEval articles open beside a pair's event
TIME_FEATURES = [FEATURES.index("days_since_first"), FEATURES.index("days_since_last")]
THRESHOLDS = [round(x, 2) for x in np.arange(0.10, 0.91, 0.05)]
CACHE = ROOT / ".cache/pairs"
CLUSTER_CODE = ROOT / "src/newsdesk/cluster"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def embed_cached(name: str, digest: str, texts: list[str], embedder) -> np.ndarray:
    cached = CACHE / f"{name}-{digest[:16]}-{embedder.model}.npy"
    if cached.exists():
        return np.load(cached)
    vectors = embedder.embed(texts)
    CACHE.mkdir(parents=True, exist_ok=True)
    np.save(cached, vectors)
    return vectors


def load_set(name: str, path: Path, embedder) -> dict:
    rows = read_eval_file(path)
    digest = sha256(path)
    vectors = embed_cached(name, digest, [r.text for r in rows], embedder)
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


def load_semeval(path: Path, embedder, originals: bool = False) -> dict:
    """SemEval's rated pairs as feature rows (see the module's note): X, y; no walk, no items.
    `originals`: only the task's own pairs, none of HFL's translations."""
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        pairs = [json.loads(line) for line in fh if line.strip()]
    articles: dict[str, tuple[str, str]] = {}
    for p in pairs:
        for side, article in zip("12", p["pair_id"].split("_")):
            articles.setdefault(article, (p[f"text{side}"], p[f"lang{side}"]))
    ids = sorted(articles)
    digest = sha256(path)
    vectors = embed_cached("semeval-train", digest, [articles[a][0] for a in ids], embedder)
    # The rows take minutes to make: kept beside the vectors, keyed by the data and the clusterer's code.
    code = hashlib.sha256(b"".join(f.read_bytes() for f in sorted(CLUSTER_CODE.glob("*.py"))))
    cached = CACHE / f"semeval-rows-{digest[:16]}-{code.hexdigest()[:16]}-{BACKGROUND}-{embedder.model}.npz"
    if cached.exists():
        with np.load(cached) as saved:
            X, y, pair = saved["X"], saved["y"], saved["pair"]
    else:
        X, y, pair = semeval_rows(pairs, ids, articles, vectors)
        np.savez(cached, X=X, y=y, pair=pair)
    if originals:
        keep = np.array([not pairs[n]["translated"] for n in pair], dtype=bool)
        X, y = X[keep], y[keep]
    return {
        "name": "semeval-train",
        "path": path,
        "sha256": digest,
        "rows": pairs,
        "X": X,
        "y": y,
        "walk": False,
        "time_from_others": True,
    }


def semeval_rows(
    pairs: list[dict], ids: list[str], articles: dict, vectors: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Feature rows of the pairs offered as a candidate, their labels and pair numbers."""
    docs = {a: Doc(a, articles[a][0], articles[a][1], SEMEVAL_TS, vectors[n]) for n, a in enumerate(ids)}
    rng = np.random.default_rng(0)
    X, y, pair = [], [], []
    for n_pair, p in enumerate(pairs):
        first, second = p["pair_id"].split("_")
        clusterer = Clusterer(ClusterConfig())
        others = [a for a in rng.choice(ids, size=BACKGROUND + 2, replace=False) if a not in (first, second)]
        for n, a in enumerate(others[:BACKGROUND]):
            clusterer.seed(docs[a], f"background-{n}")
        clusterer.seed(docs[first], "pair")
        item = docs[second]
        found = [] if item.roundup else candidates(clusterer, item, set())
        for (key, _, _), row in zip(found, rows(clusterer, item, found) if found else []):
            if key == "pair":
                X.append(row)
                y.append(bool(p["same_event"]))
                pair.append(n_pair)
    return np.array(X).reshape(-1, len(FEATURES)), np.array(y, dtype=bool), np.array(pair, dtype=int)


def fill_time(sets: list[dict], by_label: bool = False, seed: int = 0) -> list[dict]:
    """Sets whose items carry no dates get their time features drawn (row by row, both together)
    from the other sets' rows, so their values are no mark of the set. Blind to the label, time
    tells nothing within them (and they teach that time gaps do not matter); `by_label` draws a
    same-happening row's time from the others' same-happening rows and so on, so they neither teach
    nor unteach what time says."""
    timed = [d for d in sets if not d.get("time_from_others")]
    pool_X = np.vstack([d["X"] for d in timed])
    pool_y = np.concatenate([d["y"] for d in timed])
    rng = np.random.default_rng(seed)
    out = []
    for d in sets:
        if d.get("time_from_others") and len(d["y"]):
            X = d["X"].copy()
            for label in (False, True) if by_label else (None,):
                where = np.ones(len(X), bool) if label is None else d["y"] == label
                pool = pool_X if label is None else pool_X[pool_y == label]
                X[np.ix_(where, TIME_FEATURES)] = pool[rng.integers(0, len(pool), size=int(where.sum()))][
                    :, TIME_FEATURES
                ]
            d = {**d, "X": X}
        out.append(d)
    return out


def fit(
    sets: list[dict], drop: set[str], name: str = "pairs-v1", kind: str = "gbm", time_by_label: bool = False
) -> PairModel:
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression

    sets = fill_time(sets, time_by_label)
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
    sets = [d for d in sets if d.get("walk", True)]
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
    ap.add_argument("--no-semeval", action="store_true", help="train without SemEval's rated pairs")
    ap.add_argument("--semeval-originals", action="store_true", help="SemEval without HFL's translated pairs")
    ap.add_argument(
        "--semeval-time",
        default="blind",
        choices=("blind", "label"),
        help="SemEval's time features drawn from the other sets' rows: any row, or one of the same label",
    )
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

    learn_only = []
    if not args.no_semeval:
        semeval = load_semeval(SEMEVAL, embedder, args.semeval_originals)
        learn_only.append(semeval)
        print(
            f"{semeval['name']}: {len(semeval['rows'])} rated en/zh pairs, {len(semeval['y'])} offered as a candidate, "
            f"{int(semeval['y'].sum())} of them same-happening"
        )

    report = {}
    for held in sets:
        train = [d for d in sets if d is not held] + learn_only
        model = fit(train, drop, kind=args.kind, time_by_label=args.semeval_time == "label")
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
        model = fit(sets + learn_only, drop, args.name, args.kind, args.semeval_time == "label")
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
                for d in sets + learn_only
            ],
            "not_used": (
                "SemEval-2022 Task 8 evaluation split: no article texts here"
                if learn_only
                else "SemEval-2022 Task 8: not used (--no-semeval)"
            ),
            "dropped_features": sorted(drop),
            "semeval_time": None if args.no_semeval else args.semeval_time,
            "semeval_translated_pairs": not (args.no_semeval or args.semeval_originals),
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
