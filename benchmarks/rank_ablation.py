"""What each ranking signal adds: each labelled week replayed once, then ranked again with one part of
importance left out at a time.

    .venv/bin/python benchmarks/rank_ablation.py eval/editorial/2026-W*.jsonl

Each week goes through the real stages once on a fresh store, as `newsdesk eval editorial` replays
it (ingest → cluster → stories → rank → write → daily, extractive). Then, for every row, rank/score.py
scores the events again leaving those parts out (a kind left out stops deciding the tab too), the
day pages are rebuilt and measured as the eval measures them: placement, NDCG@10, noise@10,
featured count and precision against tier 3, days with news and no featured event. Every week is a
held-apart fold (nothing is tuned on it here); the table gives each week's NDCG@10 and the mean of
every measure over the weeks.
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections import Counter, defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.engine import Engine

from newsdesk.core.config import Settings, load_settings
from newsdesk.editions.daily import build_dailies
from newsdesk.eval.editorial import (
    DAILY_STAGES,
    WeekScore,
    _iso_week,
    cluster_label_items,
    harvest_lines,
    read_labels,
    replay_settings,
    score_day,
)
from newsdesk.rank.score import rank_events
from newsdesk.run.pipeline import run_pipeline
from newsdesk.store import open_store
from newsdesk.store.schema import editions

HARVEST = Path(__file__).resolve().parents[1] / "tests/fixtures/news/ai-daily-harvest.jsonl"
TEXT = frozenset({"kind", "routine", "first_party", "off_topic"})
ROWS = {  # label: the parts left out
    "all signals": frozenset(),
    "- kind (release, money, policy, ...)": frozenset({"kind"}),
    "- routine kinds": frozenset({"routine"}),
    "- first party": frozenset({"first_party"}),
    "- off-topic": frozenset({"off_topic"}),
    "- coverage (outlets)": frozenset({"coverage", "echo"}),
    "coverage only (no text signal)": TEXT,
}
MEASURES = ("placement", "ndcg@10", "noise@10", "featured", "featured precision", "days without featured")


def pages(engine, language: str) -> dict[date, list[dict]]:
    with engine.connect() as conn:
        rows = conn.execute(
            select(editions.c.key, editions.c.meta).where(editions.c.kind == "daily", editions.c.language == language)
        ).all()
    return {date.fromisoformat(r.key): (r.meta or {}).get("cards") or [] for r in rows}


@dataclass
class Replay:
    """One editorial file's week(s) replayed on a fresh store, and what scoring its pages needs."""

    engine: Engine
    settings: Settings
    labels: dict
    item_event: dict
    reports: Counter
    weeks: list[str]

    def scores(self) -> dict[str, WeekScore]:
        """{ISO week: its score} for the day pages as they are stored now."""
        day_pages = pages(self.engine, self.settings.languages[0])
        out = {}
        for week in self.weeks:
            days = sorted({lab.day for lab in self.labels.values() if _iso_week(lab.day) == week})
            out[week] = WeekScore(
                week,
                [score_day(d, day_pages.get(d, []), None, self.labels, self.item_event, self.reports) for d in days],
            )
        return out


@contextmanager
def replayed(file: Path, clusters: list[Path]) -> Iterator[Replay]:
    """Replays one editorial file through the real stages (ingest -> daily) on a temporary store."""
    cluster_items = cluster_label_items(clusters)
    labels = {lab.event: lab for lab in read_labels(file, cluster_items)}
    item_event = {it.id: it.event for it in cluster_items if it.event in labels}
    found = harvest_lines(HARVEST, set(item_event))
    weeks = sorted({_iso_week(lab.day) for lab in labels.values()})
    with tempfile.TemporaryDirectory(prefix="newsdesk-replay-") as tmp:
        settings = replay_settings(load_settings(), Path(tmp))
        source = Path(tmp) / "items.jsonl"
        source.write_text(
            "".join(json.dumps(found[i], ensure_ascii=False) + "\n" for i in sorted(found)), encoding="utf-8"
        )
        engine = open_store(settings.database)
        try:
            run_pipeline(engine, settings, stages=DAILY_STAGES, source=source)
            yield Replay(engine, settings, labels, item_event, Counter(item_event.values()), weeks)
        finally:
            engine.dispose()


def week_rows(file: Path, clusters: list[Path]) -> dict[str, dict[str, WeekScore]]:
    """{row label: {ISO week: its score}} for one editorial file."""
    out: dict[str, dict[str, WeekScore]] = defaultdict(dict)
    with replayed(file, clusters) as replay:
        for label, without in ROWS.items():
            rank_events(replay.engine, replay.settings, without=without)
            build_dailies(replay.engine, replay.settings)
            out[label] = replay.scores()
    return out


def main(files: list[str]) -> None:
    clusters = sorted(Path("eval/clusters").glob("*.jsonl"))
    table: dict[str, dict[str, WeekScore]] = defaultdict(dict)
    for file in files:
        for label, weeks in week_rows(Path(file), clusters).items():
            table[label].update(weeks)
    weeks = sorted(next(iter(table.values())))
    print(f"{'':36s}" + "".join(f"{w[5:]:>7s}" for w in weeks) + "".join(f"{m[:12]:>13s}" for m in MEASURES))
    print(f"{'':36s}" + "".join(f"{'ndcg':>7s}" for _ in weeks) + "".join(f"{'(mean)':>13s}" for _ in MEASURES))
    for label, by_week in table.items():
        summaries = [by_week[w].summary() for w in weeks]
        ndcg = "".join(f"{s['ndcg@10']:7.3f}" if s["ndcg@10"] is not None else f"{'n/a':>7s}" for s in summaries)
        means = []
        for m in MEASURES:
            known = [s[m] for s in summaries if s[m] is not None]
            means.append(f"{sum(known) / len(known):13.3f}" if known else f"{'n/a':>13s}")
        print(f"{label:36s}{ndcg}{''.join(means)}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: benchmarks/rank_ablation.py EDITORIAL.jsonl... (eval/editorial/)")
    main(sys.argv[1:])
