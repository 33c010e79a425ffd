"""The featured tab's two settings chosen by leave-one-week-out cross-validation, never scored on a
week they were chosen on.

    .venv/bin/python benchmarks/featured_cv.py eval/editorial/2026-W*.jsonl

Each labelled week is replayed once through the real stages (as `newsdesk eval editorial` does),
then ranked and paged again for every pair of rank.FEATURED (the importance that earns the tab)
and rank.FEATURED_PER_DAY (how many a day holds). For each week held apart, the pair with the best
featured precision against tier 3 on the other weeks (ties: the shipped pair, then the one with more
featured) is scored on it. The floor that features a day's top event when nothing earned the tab
stays as shipped, so every day with news keeps one.
"""

from __future__ import annotations

import sys
from pathlib import Path

from rank_ablation import replayed

from newsdesk.editions.daily import build_dailies
from newsdesk.eval.editorial import WeekScore
from newsdesk.rank import score as rank
from newsdesk.rank.score import rank_events

GRID = [(f, n) for f in (3.0, 3.5, 4.0, 4.5, 5.0) for n in (1, 2, 3, 5)]
SHIPPED = (rank.FEATURED, rank.FEATURED_PER_DAY)


def week_scores(file: Path, clusters: list[Path]) -> dict[tuple[float, int], dict[str, WeekScore]]:
    """{(FEATURED, FEATURED_PER_DAY): {ISO week: its score}} for one editorial file."""
    out: dict[tuple[float, int], dict[str, WeekScore]] = {}
    with replayed(file, clusters) as replay:
        try:
            for point in GRID:
                rank.FEATURED, rank.FEATURED_PER_DAY = point
                rank_events(replay.engine, replay.settings)
                build_dailies(replay.engine, replay.settings)
                out[point] = replay.scores()
        finally:
            rank.FEATURED, rank.FEATURED_PER_DAY = SHIPPED
    return out


def pooled(scores: list[WeekScore]) -> tuple[float, int]:
    """(featured precision, featured count) over several weeks' days together."""
    days = [d for s in scores for d in s.days]
    featured = sum(d.featured for d in days)
    return (sum(d.featured_right for d in days) / featured if featured else 0.0), featured


def main(files: list[str]) -> None:
    clusters = sorted(Path("eval/clusters").glob("*.jsonl"))
    table: dict[tuple[float, int], dict[str, WeekScore]] = {p: {} for p in GRID}
    for file in files:
        for point, weeks in week_scores(Path(file), clusters).items():
            table[point].update(weeks)
    weeks = sorted(table[GRID[0]])
    print(f"{'held apart':12s}{'chosen':>14s}{'precision':>11s}{'featured':>10s}{'shipped':>10s}{'no feat.':>10s}")
    for held in weeks:
        rest = [w for w in weeks if w != held]

        def key(p: tuple[float, int], rest: list[str] = rest) -> tuple:
            precision, count = pooled([table[p][w] for w in rest])
            return (round(precision, 3), p == SHIPPED, count)

        best = max(GRID, key=key)
        chosen = table[best][held].summary()
        shipped = table[SHIPPED][held].summary()
        print(
            f"{held:12s}{str(best):>14s}{chosen['featured precision'] or 0:11.3f}{chosen['featured']:10d}"
            f"{shipped['featured precision'] or 0:10.3f}{chosen['days without featured']:10d}"
        )
    print("\nevery pair on all weeks pooled (precision, featured):")
    for p in GRID:
        precision, count = pooled(list(table[p].values()))
        print(f"  FEATURED {p[0]:.1f} per day {p[1]}: {precision:.3f} of {count}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: benchmarks/featured_cv.py EDITORIAL.jsonl... (eval/editorial/)")
    main(sys.argv[1:])
