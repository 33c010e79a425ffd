"""Place a store's items again, in memory, as the cluster stage does (no arbiter), and write where each
went; or list every item two such runs placed differently (eval/clusters/glue.md: the cross-language
name evidence over a translation's lag, `name_cross_days`).

    PYTHONPATH=src /work/main/.venv/bin/python eval/name_window_replay.py place COPY/data/newsdesk.db OUT.json [KEY=VALUE ...]
    PYTHONPATH=src /work/main/.venv/bin/python eval/name_window_replay.py diff BEFORE.json AFTER.json

`place` reads a SQLite store's items and their stored vectors (use-multilingual-v3-s), read-only, with
the shipped ClusterConfig or the values given (name_cross_days=1.0), and writes each item's event as
its first report's title, with the placement's reason. Run it with each checkout's src to compare code.
"""

from __future__ import annotations

import json
import sys
from dataclasses import fields, replace

from cross_language_replay import first_reports, joined, place, stored_docs

from newsdesk.cluster.events import ClusterConfig, Clusterer


def placed(path: str, config: ClusterConfig) -> dict:
    rows, docs = stored_docs(path)
    title = {r.id: f"{r.published_at:%m-%d} {r.title[:60]}" for r in rows}
    where = place(docs, Clusterer(config))
    first = first_reports(docs, where)
    print(f"{len(docs)} items, {joined(where)} events with 2+ reports")
    return {
        str(d.key): [
            title[d.key],
            None if where[d.key].opened else title[first[where[d.key].event]],
            where[d.key].reason,
        ]
        for d in docs
    }


def main() -> None:
    if sys.argv[1] == "place":
        types = {f.name: type(getattr(ClusterConfig(), f.name)) for f in fields(ClusterConfig)}
        given = dict(a.split("=", 1) for a in sys.argv[4:])
        config = replace(ClusterConfig(), **{k: types[k](v) for k, v in given.items()})
        with open(sys.argv[3], "w", encoding="utf-8") as fh:
            json.dump(placed(sys.argv[2], config), fh, ensure_ascii=False)
        return
    with open(sys.argv[2], encoding="utf-8") as a, open(sys.argv[3], encoding="utf-8") as b:
        before, after = json.load(a), json.load(b)
    moved = [k for k in before if before[k][1] != after[k][1]]
    print(f"{len(moved)} items placed differently")
    for k in moved:
        (item, was, why_was), (_, now, why_now) = before[k], after[k]
        print(f"  {item!r}: before -> {was!r}, after -> {now!r}\n       before: {why_was}\n       after:  {why_now}")


if __name__ == "__main__":
    main()
