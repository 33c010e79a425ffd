"""The weekly's theme settings by held-apart folds over the editorial dev weeks.

    .venv/bin/python benchmarks/weekly_folds.py [FILE...]     (default: every eval/editorial/*.jsonl)

Each labelled week is replayed once through the real stages (as `newsdesk eval editorial` does, on a
fresh temporary store), then the themes are built under every setting of a small grid
(rank/themes.py: LEAD_FLOOR, MAX_LEADS, POOL_FLOOR). For each week, the setting that scores
best on the other weeks is applied to it: that week's numbers are held apart. Measures as the eval's
weekly (tier-3 events in themes, anywhere in the weekly, themed events of tier 0-1); the score a
setting gets on a set of weeks is mean(in themes) + 0.5 mean(anywhere) - 3 max(0, mean(routine) - 0.25).
Prints each fold's setting and numbers, their mean, and the setting chosen on all weeks (shipped).
"""

from __future__ import annotations

import itertools
import json
import statistics
import sys
import tempfile
from pathlib import Path

from sqlalchemy import select

from newsdesk.core.config import load_settings
from newsdesk.eval import editorial as ev
from newsdesk.rank import themes as wt
from newsdesk.run.pipeline import run_pipeline
from newsdesk.store import open_store
from newsdesk.store.schema import event_members, items
from newsdesk.write.extractive.card import extractive_card
from newsdesk.write.extractive.weekly import compose, load_week, theme_events

HARVEST = Path(__file__).resolve().parents[1] / "tests/fixtures/news/ai-daily-harvest.jsonl"
GRID = list(itertools.product([1.8, 2.0, 2.2, 2.5], [8, 10, 12, 14], [1.5, 1.8, 2.0]))


def replayed(file: Path, folder: Path):
    """The week's theme events, labels and store event -> labelled event, from a fresh replay."""
    clusters = sorted((file.resolve().parent.parent / "clusters").glob("*.jsonl"))
    cluster_items = ev.cluster_label_items(clusters)
    labels = {lab.event: lab for lab in ev.read_labels(file, cluster_items)}
    item_event = {it.id: it.event for it in cluster_items if it.event in labels}
    found = ev.harvest_lines(HARVEST, set(item_event))
    folder.mkdir(parents=True)
    settings = ev.replay_settings(load_settings(), folder)
    source = folder / "items.jsonl"
    source.write_text("".join(json.dumps(found[i], ensure_ascii=False) + "\n" for i in sorted(found)), "utf-8")
    engine = open_store(settings.database)
    run_pipeline(engine, settings, stages=ev.DAILY_STAGES, source=source)
    week = file.stem
    with engine.connect() as conn:
        briefs = load_week(conn, settings, week)
        members = conn.execute(
            select(event_members.c.event_id, items.c.url).join(items, items.c.id == event_members.c.item_id)
        ).all()
    engine.dispose()
    by_event: dict[int, list[str]] = {}
    for m in members:
        if (event := item_event.get(ev.harvest_id(m.url or ""))) is not None:
            by_event.setdefault(m.event_id, []).append(event)
    store_event = {i: ev.majority(v) for i, v in by_event.items()}
    cards = {b["event_id"]: extractive_card(b, "zh") for b in briefs}
    return week, theme_events(briefs, cards), labels, store_event


def measures(week, events, labels, store_event) -> tuple:
    named, briefs = compose(events, most=wt.MAX_LEADS)
    themed = {store_event.get(i) for n in named for i in n.events} - {None}
    briefed = {store_event.get(i) for i in briefs} - {None}
    lead = {e for e, lab in labels.items() if lab.tier == 3 and ev._iso_week(lab.day) == week}
    tiers = [labels[e].tier for e in themed if e in labels]
    return (
        len(lead & themed) / len(lead) if lead else None,
        len(lead & (themed | briefed)) / len(lead) if lead else None,
        sum(t <= 1 for t in tiers) / len(tiers) if tiers else None,
    )


def score(results: dict, weeks: list[str]) -> float:
    def mean(k):
        return statistics.mean(v for w in weeks if (v := results[w][k]) is not None)

    return mean(0) + 0.5 * mean(1) - 3 * max(0.0, mean(2) - 0.25)


def main(files: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        weeks = [replayed(Path(f), Path(tmp) / Path(f).stem) for f in files]
    table = {}
    for setting in GRID:
        wt.LEAD_FLOOR, wt.MAX_LEADS, wt.POOL_FLOOR = setting
        table[setting] = {w[0]: measures(*w) for w in weeks}
    names = [w[0] for w in weeks]
    held = []
    print(f"{'week':10s} {'setting (floor, themes, pool)':32s} in themes  anywhere  tier 0-1")
    for week in names:
        chosen = max(GRID, key=lambda s: score(table[s], [w for w in names if w != week]))
        held.append(table[chosen][week])
        cells = "".join(f"{v:10.3f}" if v is not None else "       n/a" for v in table[chosen][week])
        print(f"{week:10s} {str(chosen):32s}{cells}")
    means = [statistics.mean(v for v in column if v is not None) for column in zip(*held)]
    print(f"{'mean':10s} {'':32s}" + "".join(f"{v:10.3f}" for v in means))
    print("chosen on all weeks (shipped):", max(GRID, key=lambda s: score(table[s], names)))


if __name__ == "__main__":
    main(sys.argv[1:] or [str(p) for p in sorted(Path("eval/editorial").glob("*.jsonl"))])
