"""Cross-language same-happening pairs: a Juya AI Daily item (zh) and an AINews item (en) from days at
most one apart that cite the same address.

    PYTHONPATH=src python eval/external/pair_editors.py eval/external/data/juya.jsonl.gz \
        eval/external/data/ainews.jsonl.gz eval/external/data/pairs_juya_ainews.jsonl.gz

Addresses are compared as `url_key` spells them (no scheme, `www.`, trailing slash or utm_/tracking
parameters; an x.com/twitter.com post by its status number). A shared address makes a pair only when
it can stand for one happening:
- not a site's front page (an address with no path: `openai.com`, `github.com`);
- the AINews item is not a roundup: it cites at most MAX_AINEWS_LINKS addresses (a bullet that
  strings many posts together cites the address among many unrelated ones; read on the allowed
  days, the 5-to-13-address bullets that share an address with a Juya item are mostly such
  strings, e.g. "OpenAI's Codex momentum showed up repeatedly" against a Juya item on an OpenAI
  joint venture). A bullet of the "Top tweets" group is one post and counts like any other;
- the Juya item cites at most MAX_JUYA_LINKS addresses (Juya items cite one to three for one story).
Both inputs are read as converted, so nothing of the held-out window can reach this script; a row
dated inside it stops the script.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from datetime import date, timedelta
from pathlib import Path

from external_common import read_jsonl_gz, refuse_held_out, url_key, write_jsonl_gz

MAX_AINEWS_LINKS = 4
MAX_JUYA_LINKS = 4
MAX_DAYS_APART = 1


def _keys(links: list[str]) -> set[str]:
    keys = set()
    for link in links:
        key = url_key(link)
        if "/" in key.strip("/"):  # a path beyond the host: a page, not a front page
            keys.add(key)
    return keys


def ainews_roundup(item: dict) -> bool:
    return len(item["links"]) > MAX_AINEWS_LINKS


def pairs(juya: list[dict], ainews_days: list[dict]) -> tuple[list[dict], dict[str, int]]:
    """The kept pairs, and how many candidate pairs each rule dropped."""
    by_key: dict[str, list[tuple[date, int, dict]]] = defaultdict(list)
    for day in ainews_days:
        when = date.fromisoformat(day["date"])
        refuse_held_out(when, "AINews input")
        for n, item in enumerate(day["items"]):
            for key in _keys(item["links"]):
                by_key[key].append((when, n, item))
    dropped = {"ainews roundup": 0, "juya roundup": 0}
    kept = []
    for j in juya:
        when = date.fromisoformat(j["date"])
        refuse_held_out(when, "Juya input")
        matched: dict[tuple[str, int], dict] = {}
        for key in _keys(j["links"]):
            for a_day, n, item in by_key.get(key, []):
                if abs(a_day - when) > timedelta(days=MAX_DAYS_APART):
                    continue
                slot = (a_day.isoformat(), n)
                if slot in matched:
                    matched[slot]["shared"].append(key)
                    continue
                matched[slot] = {"a_day": a_day, "n": n, "item": item, "shared": [key]}
        for (a_date, n), m in sorted(matched.items()):
            item = m["item"]
            if ainews_roundup(item):
                dropped["ainews roundup"] += 1
                continue
            if len(j["links"]) > MAX_JUYA_LINKS:
                dropped["juya roundup"] += 1
                continue
            kept.append(
                {
                    "juya_date": j["date"],
                    "juya_rank": j["rank"],
                    "juya_is_top": j["is_top"],
                    "juya_section": j["section"],
                    "juya_title": j["title"],
                    "ainews_date": a_date,
                    "ainews_item": n,
                    "ainews_source": item["source"],
                    "ainews_group": item["group"],
                    "ainews_title": item["title"],
                    "ainews_links": len(item["links"]),
                    "shared": sorted(m["shared"]),
                }
            )
    return kept, dropped


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("juya", type=Path)
    parser.add_argument("ainews", type=Path)
    parser.add_argument("out", type=Path)
    args = parser.parse_args(argv)
    kept, dropped = pairs(list(read_jsonl_gz(args.juya)), list(read_jsonl_gz(args.ainews)))
    write_jsonl_gz(args.out, kept)
    juya_items = len({(p["juya_date"], p["juya_rank"]) for p in kept})
    print(f"pairs: {len(kept)} kept ({juya_items} Juya items); dropped {dropped}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
