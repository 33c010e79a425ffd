"""The learned scorer as a second opinion on bare cross-language joins, chosen by leave-one-dataset-out.

    PYTHONPATH=src /work/main/.venv/bin/python eval/cross_language_veto.py   # needs scikit-learn (train extra)

A cross-language join on cosine alone below `bare_cross_language`, where the Chinese side names
nothing in Latin letters, is what the rules cannot decide (events.py `Clusterer._unsupported`;
eval/clusters/glue.md): a translated blurb shares no word with its original, and unrelated posts sit
at the same cosines. `SecondOpinion` is the rules plus a veto there: such a join stands only when
the pair model (pairs.py, pair_model.py) gives it `p` or more. (Where both sides name things in
Latin letters the rules already refuse such a join; letting the model rescue those instead joined
unrelated posts again on the real replay, eval/cross_language_replay.py.) For each labelled cluster set H of
ai-news-dev, ai-news-early and itn-dev: the pair model is trained as eval/train_pairs.py trains the
shipped one (--drop cosine_lead --semeval-time label) on every set but H (juya-ainews and SemEval
included), the join probability `cross_language_p` is chosen on the other two cluster sets (the mean
of B-cubed F1 and pairwise F1, as `eval clusters --folds` tunes; ties: the lowest, which vetoes
least), and H is clustered with that model and probability beside the rules alone. No model scores a
set it was trained on. The whole curve of each set is printed too, so a flat objective shows.
"""

from __future__ import annotations

import argparse

import numpy as np
from train_pairs import SEMEVAL, SETS, figures, fit, line, load_semeval, load_set, pair_rows

from newsdesk.cluster.events import ClusterConfig, Clusterer, Doc
from newsdesk.cluster.pairs import candidates, explain, features
from newsdesk.eval.clusters import cluster_docs, scores

CLUSTER_SETS = ("ai-news-dev", "ai-news-early", "itn-dev")
PROBABILITIES = [round(x, 2) for x in np.arange(0.05, 0.76, 0.05)]
DROP = {"cosine_lead"}  # as the shipped pairs-v1 (eval/clusters/pair-model.md)


class SecondOpinion(Clusterer):
    """The shipped rules, with the pair model's veto on a bare cross-language join; `said` keeps what
    the model said of each join it let through (item key -> sentence)."""

    def __init__(self, config: ClusterConfig, model, p: float):
        super().__init__(config)
        self.model, self.p, self.said = model, p, {}

    def _unsupported(self, doc: Doc, ev, lang: str, cosine: float, evidence: list[str], bonus: float) -> str:
        short = super()._unsupported(doc, ev, lang, cosine, evidence, bonus)
        cfg = self.config
        cross = self._threshold(doc.lang, lang) == cfg.cross_language and doc.lang != lang
        if short or not cross or evidence or cosine >= cfg.bare_cross_language:
            return short
        # The row the model was trained on (pairs.rows): `cosine_lead` over the best other candidate.
        others = [s for key, s, _ in candidates(self, doc, set()) if key != ev.key]
        x = features(self, doc, ev.key, cosine, lang, max(others, default=None))
        p = float(self.model.probability(x)[0])
        said = f"same-happening probability {p:.2f} (needs {self.p:.2f}; {explain(x, self.model.contributions(x))})"
        if p < self.p:
            return f"across languages on cosine alone: {said}: not joined"
        self.said[doc.key] = said
        return ""


def cluster_with(docs: list[Doc], model, p: float) -> list:
    """As eval.clusters.cluster_docs, with the veto."""
    clusterer = SecondOpinion(ClusterConfig(), model, p)
    assigned: list = [None] * len(docs)
    for i in sorted(range(len(docs)), key=lambda i: (docs[i].ts, str(docs[i].key))):
        assigned[i] = clusterer.add(docs[i]).event
    return assigned


def objective(f: dict) -> float:
    return (f["bcubed_f1"] + f["pairwise_f1"]) / 2


def recall(f: dict) -> str:
    return "-" if f["cross_lingual_recall"] is None else f"{f['cross_lingual_recall']:.2f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kind", default="gbm", choices=("gbm", "lr"), help="as eval/train_pairs.py --kind")
    ap.add_argument("--semeval-time", default="label", choices=("blind", "label"), help="as eval/train_pairs.py")
    ap.add_argument("--held", default=",".join(CLUSTER_SETS), help="the sets to leave out in turn")
    args = ap.parse_args()
    from newsdesk.cluster.embed import UseEmbedder

    embedder = UseEmbedder()
    sets = [load_set(n, p, embedder) for n, p in SETS.items()]
    for d in sets:
        d["X"], d["y"], d["item"], d["joins"] = pair_rows(d)
    semeval = load_semeval(SEMEVAL, embedder)
    by_name = {d["name"]: d for d in sets}
    rules = {
        n: figures(scores(cluster_docs(by_name[n]["docs"], ClusterConfig()), by_name[n]["rows"])) for n in CLUSTER_SETS
    }
    report = {}
    for held in args.held.split(","):
        train = [d for d in sets if d["name"] != held] + [semeval]
        model = fit(train, DROP, kind=args.kind, time_by_label=args.semeval_time == "label")
        curves = {}
        for n in CLUSTER_SETS:
            d = by_name[n]
            curves[n] = {t: figures(scores(cluster_with(d["docs"], model, t), d["rows"])) for t in PROBABILITIES}
        others = [n for n in CLUSTER_SETS if n != held]
        chosen = max(PROBABILITIES, key=lambda t: (np.mean([objective(curves[n][t]) for n in others]), -t))
        report[held] = (chosen, curves[held][chosen])
        print(f"-- model trained without {held}; cross_language_p {chosen:.2f}, chosen on {', '.join(others)}")
        print(line(held, "rules", rules[held]))
        print(line(held, "veto", curves[held][chosen]))
        for n in CLUSTER_SETS:
            marks = " ".join(f"{t:.2f}:{objective(f):.3f}/{recall(f)}" for t, f in curves[n].items())
            print(f"   curve {n:14s} (objective/zh-en R){' [held]' if n == held else ''}: {marks}")
    print("-- summary (each set clustered by the model trained without it)")
    for n, (t, f) in report.items():
        print(f"{n:14s} p {t:.2f}: rules {objective(rules[n]):.3f} -> veto {objective(f):.3f}")


if __name__ == "__main__":
    main()
