"""Each labelled day's top ten as published, card by card, with the labelled event each card stands
for: for reading what split@10, glue@10 and the featured tab measure (which cards repeat an event,
mix two, or lead a day that has a better story).

    .venv/bin/python benchmarks/day_tops.py eval/editorial/2026-W08.jsonl [--all]

Each week is replayed once as `newsdesk eval editorial` does. Per card: its place, tab (F featured,
1 p1), importance and its parts, the majority event's tier and id, a mark (SPLIT: the event has a
card higher that day; GLUE: members of two labelled events; OTHER-DAY: an event of another day),
its title and members' events. Below, the day's tier-3 and tier-2 events without a card in the top
ten. `--all` prints every card, not only the top ten.
"""

from __future__ import annotations

import sys
from pathlib import Path

from rank_ablation import pages, replayed
from sqlalchemy import select

from newsdesk.eval.editorial import TOP, card_events, majority
from newsdesk.store.schema import events


def main(files: list[str], every: bool) -> None:
    clusters = sorted(Path("eval/clusters").glob("*.jsonl"))
    for file in files:
        with replayed(Path(file), clusters) as replay:
            with replay.engine.connect() as conn:
                parts = {r.id: r.score_parts or {} for r in conn.execute(select(events.c.id, events.c.score_parts))}
            day_pages = pages(replay.engine, replay.settings.languages[0])
            for day in sorted({lab.day for lab in replay.labels.values()}):
                print(f"\n== {day}")
                seen: set[str] = set()
                cards = [c for c in day_pages.get(day, []) if not c.get("other")]
                for n, card in enumerate(cards if every else cards[:TOP], 1):
                    evs = card_events(card, replay.item_event)
                    event = majority(evs)
                    label = replay.labels.get(event) if event else None
                    mark = []
                    if event in seen:
                        mark.append("SPLIT")
                    if len(set(evs)) > 1:
                        mark.append("GLUE")
                    if label is not None and label.day != day:
                        mark.append("OTHER-DAY")
                    seen.add(event or "")
                    p = parts.get(card.get("event_id"), {})
                    shown = " ".join(
                        f"{k}={v}" for k, v in p.items() if k not in ("importance", "recency", "material") and v
                    )
                    tab = {"featured": "F", "p1": "1"}.get(card.get("tab"), " ")
                    tier = label.tier if label else "-"
                    print(
                        f"{n:2d} {tab} {p.get('importance', 0):5.2f} t{tier} {event or '?':34.34s} "
                        f"{' '.join(mark):9s} {(card.get('title') or '')[:70]}  [{shown}]"
                        + (f"  members={evs}" if len(set(evs)) > 1 else "")
                    )
                top = {majority(card_events(c, replay.item_event)) for c in cards[:TOP]}
                for lab in sorted(replay.labels.values(), key=lambda x: (-x.tier, x.rank or 0)):
                    if lab.day == day and lab.tier >= 2 and lab.event not in top:
                        print(f"   missing from top ten: t{lab.tier} r{lab.rank} {lab.event} {lab.title[:70]}")


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--all"]
    if not args:
        sys.exit("usage: benchmarks/day_tops.py EDITORIAL.jsonl... [--all] (eval/editorial/)")
    main(args, "--all" in sys.argv)
