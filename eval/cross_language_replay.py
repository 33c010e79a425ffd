"""Place a store's items again, in memory, by the rules and by the rules with the pair model's veto on a
bare cross-language join (cross_language_veto.py), and list what differs (eval/clusters/glue.md).

    PYTHONPATH=src /work/main/.venv/bin/python eval/cross_language_replay.py COPY/data/newsdesk.db [P ...]

Reads a SQLite store's items and their stored vectors (use-multilingual-v3-s), read-only, and places
them in publish order as the cluster stage does (no arbiter), with the shipped pairs-v1 (trained on
none of the store's items). For each P (default 0.05 0.10 0.30 0.50): every bare cross-language join
the model let through, with what it said, and every item placed differently from the rules alone,
with both reasons.
"""

from __future__ import annotations

import sys

import numpy as np
from cross_language_veto import SecondOpinion
from sqlalchemy import create_engine, select

from newsdesk.cluster.events import ClusterConfig, Clusterer
from newsdesk.cluster.pair_model import load
from newsdesk.cluster.stage import _ITEM_COLUMNS, _doc
from newsdesk.store.schema import item_vectors, items


def place(docs, clusterer: Clusterer) -> dict:
    return {d.key: clusterer.add(d) for d in docs}


def first_reports(docs, placed: dict) -> dict:
    first: dict = {}
    for d in docs:
        first.setdefault(placed[d.key].event, d.key)
    return first


def joined(placed: dict) -> int:
    """Events with two or more reports."""
    return int((np.unique([str(p.event) for p in placed.values()], return_counts=True)[1] >= 2).sum())


def stored_docs(path: str) -> tuple[list, list]:
    """A SQLite store's items as the cluster stage reads them, in publish order, with their stored
    vectors (use-multilingual-v3-s), read-only: (the items' rows, their documents)."""
    engine = create_engine(f"sqlite:///file:{path}?mode=ro&uri=true")
    with engine.connect() as conn:
        vectors = {
            r.item_id: np.frombuffer(r.vector, dtype="<f4", count=r.dim).copy()
            for r in conn.execute(select(item_vectors).where(item_vectors.c.model == "use-multilingual-v3-s"))
        }
        rows = conn.execute(select(*_ITEM_COLUMNS).order_by(items.c.published_at, items.c.id)).all()
    return rows, [_doc(r, vectors[r.id]) for r in rows if r.id in vectors]


def main() -> None:
    probabilities = [float(p) for p in sys.argv[2:]] or [0.05, 0.10, 0.30, 0.50]
    rows, docs = stored_docs(sys.argv[1])
    title = {r.id: r.title[:60] for r in rows}
    rules = place(docs, Clusterer(ClusterConfig()))
    rule_first = first_reports(docs, rules)
    print(f"{len(docs)} items; the rules alone: {joined(rules)} events with 2+ reports")
    for p in probabilities:
        clusterer = SecondOpinion(ClusterConfig(), load("pairs-v1"), p)
        model = place(docs, clusterer)
        first = first_reports(docs, model)
        print(f"== veto at p {p:.2f}: {joined(model)} events with 2+ reports")
        for key, said in clusterer.said.items():
            print(f"  let through: {title[key]!r} -> {title[first[model[key].event]]!r}: {said}")
        for d in docs:
            pr, pm = rules[d.key], model[d.key]
            went = [None if x.opened else title[f[x.event]] for x, f in ((pr, rule_first), (pm, first))]
            if went[0] != went[1]:
                print(f"  {title[d.key]!r}: rules -> {went[0]!r}, with the veto -> {went[1]!r}")
                print(f"       rules: {pr.reason}\n       veto:  {pm.reason}")


if __name__ == "__main__":
    main()
