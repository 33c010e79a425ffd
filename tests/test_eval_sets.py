"""The hand-labelled event sets under eval/clusters/: each one loads as `newsdesk eval clusters`
reads it, names every item once by the id rule of the harvest (`adh-` + SHA-1 of the canonical
link), and holds nothing from the held-out week, which no one may label or tune on."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from newsdesk.core.errors import EvalFileError
from newsdesk.eval.clusters import read_eval_file
from newsdesk.eval.editorial import label_problems
from newsdesk.ingest.normalize import canonical_url

EVAL_SETS = sorted((Path(__file__).resolve().parents[1] / "eval" / "clusters").glob("*.jsonl"))
HELD_OUT = (date(2026, 3, 9), date(2026, 3, 15))


def harvest_id(link: str) -> str:
    return "adh-" + hashlib.sha1(canonical_url(link).encode("utf-8")).hexdigest()[:10]


def problems(path: Path) -> list[str]:
    """What is wrong with one labelled file, one line per problem (empty when it is sound)."""
    try:
        items = read_eval_file(path)
    except EvalFileError as exc:
        return [str(exc)]
    found = []
    seen: set[str] = set()
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    for n, (row, item) in enumerate(zip(rows, items, strict=True), 1):
        if item.id in seen:
            found.append(f"line {n}: id {item.id} repeated")
        seen.add(item.id)
        if item.id != harvest_id(str(row.get("link") or "")):
            found.append(f"line {n}: id {item.id} is not adh- + SHA-1 of its link")
        day = datetime.fromtimestamp(item.ts, UTC).date()
        if HELD_OUT[0] <= day <= HELD_OUT[1]:
            found.append(f"line {n}: published {day}, in the held-out week")
    return found


def test_there_are_eval_sets():
    assert len(EVAL_SETS) >= 2, EVAL_SETS


@pytest.mark.parametrize("path", EVAL_SETS, ids=lambda p: p.name)
def test_eval_set_is_sound(path):
    assert problems(path) == []


def _line(link: str, published: str = "2026-02-01", **over) -> str:
    row = {
        "id": harvest_id(link),
        "title": "t",
        "summary": "s",
        "lang": "zh",
        "published": published,
        "event": "e",
        "story": "",
        "source": "x",
        "link": link,
        "note": "",
    }
    return json.dumps(row | over)


@pytest.mark.parametrize(
    "bad, expect",
    [
        (_line("https://b.example/2"), "repeated"),
        (_line("https://b.example/3", id="adh-0000000000"), "not adh- + SHA-1"),
        (_line("https://b.example/4", published="2026-03-12"), "held-out week"),
        (_line("https://b.example/5", event=""), "missing 'event'"),
        ('{"id": "adh-1", "title": ', "not valid JSON"),
    ],
)
def test_a_bad_line_is_found(tmp_path, bad, expect):
    # The checks above can fail: each of these lines, added to a sound file, is reported.
    path = tmp_path / "set.jsonl"
    sound = [_line("https://b.example/1"), _line("https://b.example/2")]
    path.write_text("\n".join(sound) + "\n", encoding="utf-8")
    assert problems(path) == []
    path.write_text("\n".join([*sound, bad]) + "\n", encoding="utf-8")
    assert any(expect in p for p in problems(path)), problems(path)


# The editorial sets under eval/editorial/: an editor's tier for each event of a labelled week
# (eval/editorial/GUIDE.md). Each names events of the cluster labels above, on the day of the
# event's earliest item, ranks only tiers 2-3 (1..n within a day), and labels every event whose
# first day is a day it labels, so the measures see the whole day.
EDITORIAL_SETS = sorted((Path(__file__).resolve().parents[1] / "eval" / "editorial").glob("*.jsonl"))


def cluster_events() -> dict[str, date]:
    """Every labelled event of eval/clusters/ and the date of its earliest item."""
    first: dict[str, date] = {}
    for path in EVAL_SETS:
        for item in read_eval_file(path):
            day = datetime.fromtimestamp(item.ts, UTC).date()
            if item.event not in first or day < first[item.event]:
                first[item.event] = day
    return first


def test_there_are_editorial_sets():
    assert len(EDITORIAL_SETS) >= 2, EDITORIAL_SETS


@pytest.mark.parametrize("path", EDITORIAL_SETS, ids=lambda p: p.name)
def test_editorial_set_is_sound(path):
    assert label_problems(path, cluster_events()) == []


def _tier(event: str = "e1", day: str = "2026-02-02", tier: int = 3, rank: int | None = 1, **over) -> str:
    return json.dumps({"event": event, "day": day, "tier": tier, "rank": rank, "title": "t", "reason": "r"} | over)


@pytest.mark.parametrize(
    "bad, expect",
    [
        (_tier("e1", tier=2, rank=2), "labelled twice"),
        (_tier("nope", rank=2), "in no cluster label file"),
        (_tier("e2", day="2026-02-03", rank=2), "earliest item is 2026-02-02"),
        (_tier("e2", tier=1, rank=2), "rank 2 for tier 1"),
        (_tier("e2", tier=2, rank=None), "rank None for tier 2"),
        (_tier("e2", tier=2, rank=3), "are not 1..2"),
        (_tier("e2", tier=4, rank=None), "not 0-3"),
    ],
)
def test_a_bad_editorial_line_is_found(tmp_path, bad, expect):
    events = {"e1": date(2026, 2, 2), "e2": date(2026, 2, 2)}
    path = tmp_path / "week.jsonl"
    path.write_text(_tier("e1") + "\n" + _tier("e2", tier=1, rank=None) + "\n", encoding="utf-8")
    assert label_problems(path, events) == []
    path.write_text(_tier("e1") + "\n" + bad + "\n", encoding="utf-8")
    assert any(expect in p for p in label_problems(path, events)), label_problems(path, events)
    path.write_text(_tier("e1") + "\n", encoding="utf-8")
    assert any("without a tier: e2" in p for p in label_problems(path, events))
