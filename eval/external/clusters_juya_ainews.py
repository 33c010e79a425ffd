"""A cluster-eval file from the outside editors' cross-language pairs (`newsdesk eval clusters FILE`).

    PYTHONPATH=src:eval/external python eval/external/clusters_juya_ainews.py \
        eval/external/data/juya.jsonl.gz eval/external/data/ainews.jsonl.gz \
        eval/external/data/pairs_juya_ainews.jsonl.gz eval/external/data/clusters_juya_ainews.jsonl

Items: every Juya AI Daily item (zh) of a day that holds a pair, every AINews item (en) in a pair,
and as distractors the first AINEWS_DISTRACTORS AINews items of each such AINews day from topic
groups holding no paired item (an item beside a paired one in its group is often the same
happening, unlabelled, so those are left out). Gold events: the pairs' connected parts; every other
item is its own event. Juya's editor writes one item per happening, so two Juya items are two
happenings, and the Juya side's negatives are sound; an AINews distractor may still be a Juya
item's happening without citing its address, so precision here is a lower bound.

The items carry no address: the pairs were found by a shared address, and an address in the text
would let the clusterer's dedup find them by the label itself. Both archives were converted without
the held-out window (eval/external/README.md); this script refuses a row inside it all the same.
"""

from __future__ import annotations

import argparse
import json
from datetime import date
from pathlib import Path

from external_common import read_jsonl_gz, refuse_held_out

AINEWS_DISTRACTORS = 12


def build(juya: list[dict], ainews_days: list[dict], pairs: list[dict]) -> list[dict]:
    parent: dict = {}

    def find(x):
        while parent.setdefault(x, x) != x:
            x = parent[x]
        return x

    for p in pairs:
        a, b = ("j", p["juya_date"], p["juya_rank"]), ("a", p["ainews_date"], p["ainews_item"])
        parent[find(a)] = find(b)
    juya_days = {p["juya_date"] for p in pairs}
    ainews_days_used = {p["ainews_date"] for p in pairs}
    paired_groups = {(p["ainews_date"], p["ainews_group"]) for p in pairs}
    rows = []

    def event(node) -> str:
        if node in parent:
            root = find(node)
            return f"pair-{root[0]}{root[1]}-{root[2]}"
        return f"single-{node[0]}{node[1]}-{node[2]}"

    for j in juya:
        refuse_held_out(date.fromisoformat(j["date"]), "Juya input")
        if j["date"] not in juya_days:
            continue
        node = ("j", j["date"], j["rank"])
        rows.append(
            {
                "id": f"juya-{j['date']}-{j['rank']:02d}",
                "title": j["title"],
                "summary": j.get("summary") or "",
                "lang": "zh",
                "published": j["date"],
                "event": event(node),
                "source": "Juya AI Daily",
            }
        )
    for day in ainews_days:
        refuse_held_out(date.fromisoformat(day["date"]), "AINews input")
        if day["date"] not in ainews_days_used:
            continue
        distractors = 0
        for n, item in enumerate(day["items"]):
            node = ("a", day["date"], n)
            if node not in parent:
                if (day["date"], item.get("group")) in paired_groups or distractors >= AINEWS_DISTRACTORS:
                    continue
                distractors += 1
            rows.append(
                {
                    "id": f"ainews-{day['date']}-{n:03d}",
                    "title": item["title"],
                    "summary": item.get("text") or "",
                    "lang": "en",
                    "published": day["date"],
                    "event": event(node),
                    "source": f"AINews {item['source']}",
                }
            )
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("juya", type=Path)
    ap.add_argument("ainews", type=Path)
    ap.add_argument("pairs", type=Path)
    ap.add_argument("out", type=Path)
    args = ap.parse_args()
    rows = build(list(read_jsonl_gz(args.juya)), list(read_jsonl_gz(args.ainews)), list(read_jsonl_gz(args.pairs)))
    with args.out.open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    events = {r["event"] for r in rows}
    print(
        f"{len(rows)} items, {len(events)} events, {sum(e.startswith('pair-') for e in events)} paired, -> {args.out}"
    )


if __name__ == "__main__":
    main()
