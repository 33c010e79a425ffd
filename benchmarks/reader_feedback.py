"""Reader feedback teaches the ranking: a simulated reader whose taste is one editor's votes 20
events a day, the installation relearns its adjustment (rank/adjust.py) after each day, and the
later days are scored against that editor, before and after (issue 29).

    PYTHONPATH=src python benchmarks/reader_feedback.py [eval/ranker/events.jsonl.gz]

Data: eval/ranker/events.jsonl.gz (eval/train_ranker.py dump): each event of a replayed day with
its hand parts, the shipped hand importance, and the editor's grade of it (a labelled week's tier;
Juya AI Daily's rank and 要闻; AINews's groups and lead). No held-out day is in it.

The reader: each editor's days in date order; the first half are voting days, the second half
the days scored. On a voting day the reader reads the page as ranked now (the shipped ranking plus
the adjustment learned so far) from the top, and votes on what the editor would: ⭐ the editor's
top story, 👍 an event the editor ranked high (grade ≥ 2), 👎 one the editor left out (grade 0);
an event the editor mentions in passing (grade 1) gets no vote. The reader stops at 20 votes.
After each voting day the adjustment is learned again from every vote so far (as a nightly
`newsdesk rank --learn`). The scored days never see a vote: NDCG@10 (gain 2^grade − 1) of their
own order against the editor's, before (shipped) and after (with the adjustment), after 1, 3, 7
days of votes and after all voting days.

The adjustment's strength is chosen as an installation chooses it, on the reader's own newest
votes (rank/adjust.py choose_strength, no editor's label); each fixed strength is printed beside it.
"""

from __future__ import annotations

import gzip
import json
import math
import sys
from collections import defaultdict
from pathlib import Path

from newsdesk.rank import adjust

VOTES_A_DAY = 20
TOP = 10
READERS = {"labelled weeks": lambda s: s.startswith("2026-W"), "juya": "juya".__eq__, "ainews": "ainews".__eq__}


def ndcg(day: list[dict], scores: list[float]) -> float | None:
    order = sorted(range(len(day)), key=lambda i: (-scores[i], i))
    gains = [2.0 ** day[i]["rel"] - 1 for i in order]
    ideal = sorted(gains, reverse=True)
    idcg = sum(g / math.log2(k + 2) for k, g in enumerate(ideal[:TOP]))
    if idcg <= 0 or len(set(ideal)) == 1:
        return None
    return sum(g / math.log2(k + 2) for k, g in enumerate(gains[:TOP])) / idcg


def scored(day: list[dict], adj: adjust.Adjustment | None) -> list[float]:
    extra = (lambda r: sum(adj.contributions(r["parts"]).values())) if adj else (lambda r: 0.0)
    return [r["importance"] + extra(r) for r in day]


def votes(day: list[dict], adj: adjust.Adjustment | None) -> list[int]:
    """The reader's grades for one day's page (1: no vote), reading from the top."""
    s = scored(day, adj)
    grades, cast = [1] * len(day), 0
    for i in sorted(range(len(day)), key=lambda i: (-s[i], i)):
        if cast == VOTES_A_DAY:
            break
        r = day[i]
        grade = 3 if r["top"] else 2 if r["rel"] >= 2 else 0 if r["rel"] == 0 else 1
        if grade != 1:
            grades[i], cast = grade, cast + 1
    return grades


def mean(values: list[float | None]) -> float:
    got = [v for v in values if v is not None]
    return sum(got) / len(got)


def simulate(days: list[list[dict]], strength: float | None) -> dict[str, float]:
    half = len(days) // 2
    voting, later = days[:half], days[half:]
    out = {"before": mean([ndcg(d, scored(d, None)) for d in later])}
    seen: list[list[tuple[dict, float, int]]] = []
    adj = None
    for n, day in enumerate(voting, 1):
        grades = votes(day, adj)
        seen.append([(r["parts"], r["importance"], g) for r, g in zip(day, grades, strict=True)])
        adj = adjust.fit(seen, "hand", strength)
        if n in (1, 3, 7) or n == half:
            out[f"after {n} days"] = mean([ndcg(d, scored(d, adj)) for d in later])
    out["days voted / scored"] = f"{half} / {len(later)}"  # type: ignore[assignment]
    return out


def main(path: Path) -> None:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh]
    by_reader: dict[str, dict[str, list[dict]]] = {name: defaultdict(list) for name in READERS}
    for r in rows:
        for name, mine in READERS.items():
            if mine(r["source"]):
                by_reader[name][r["query"].split(":", 1)[1]].append(r)
    for name, by_day in by_reader.items():
        days = [by_day[d] for d in sorted(by_day)]
        for strength in (None, *adjust.STRENGTHS):
            figures = simulate(days, strength)
            cells = ", ".join(f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}" for k, v in figures.items())
            how = "chosen on its own votes" if strength is None else f"fixed {strength:g}"
            print(f"{name} (strength {how}): NDCG@10 on later days: {cells}", flush=True)


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "eval/ranker/events.jsonl.gz"))
