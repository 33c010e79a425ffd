"""The learned importance ranker (rank/learned.py) and the outside editors' measure (eval/external.py)."""

import dataclasses
import json
from datetime import date
from pathlib import Path

import pytest
from sqlalchemy import select

from newsdesk.core.config import Settings
from newsdesk.core.errors import EvalFileError
from newsdesk.eval import external
from newsdesk.rank import learned
from newsdesk.rank.score import rank_events
from newsdesk.store import open_store
from newsdesk.store.schema import events

SHOWN_NOT_SUMMED = ("importance", "lead probability", "kinds", "material", "recency")


@pytest.mark.parametrize(
    "days", ["2026-04-06", "2026-04-01..2026-04-07", "2026-05-03..2026-05-05", "2026-03-01..2026-06-01"]
)
def test_eval_external_refuses_the_held_out_window(days):
    with pytest.raises(EvalFileError, match="held out"):
        external.parse_days(days)


def test_eval_external_never_replays_a_held_out_day():
    with pytest.raises(EvalFileError, match="held out"):
        external.evaluate(Path("eval/external/data"), Settings(), [date(2026, 4, 20)])
    allowed = external.parse_days("2026-04-04..2026-04-05,2026-05-04")
    assert allowed == [date(2026, 4, 4), date(2026, 4, 5), date(2026, 5, 4)]
    assert not any(external.held_out(d) for d in external.default_days(Path("eval/external/data")))


def test_the_lead_group_is_the_one_sharing_the_lead_titles_words():
    groups = [("Top tweets", "misc"), ("GPT-5.4 Model Launch and Benchmarks", "GPT-5.4 / GPT-5.4 Pro launch")]
    assert external.lead_group("GPT 5.4: SOTA Knowledge Work", groups) is None  # "5.4" alone is not "gpt-5.4"
    assert external.lead_group("GPT-5.4: SOTA Knowledge Work", groups) == groups[1][0]
    assert external.lead_group("Context Graphs: Hype?", groups) is None


def test_the_shipped_model_loads_and_its_contributions_sum_to_the_score():
    model = learned.shipped()
    assert set(model.weights) <= set(learned.FEATURES)
    assert set(learned.FEATURES) - set(model.weights) <= set(learned.CONTEXT)  # a model from before them
    parts = {"coverage": 1.585, "authority": 1.0, "first_party": 0.5, "kind": 1.2, "kinds": "major, release"}
    parts["importance"] = 1.585 + 1.0 + 0.5 + 1.2
    shown = model.contributions(parts)
    assert set(shown) <= {"coverage", "authority", "first_party", "kind", "kind:major", "kind:release"}
    assert {"coverage", "authority", "first_party", "kind"} <= set(shown)  # every hand factor stays visible
    assert model.score(parts) == round(sum(shown.values()), 3)
    score = model.score(parts)
    assert 0.0 < model.lead_probability(score, score + 1.0) < model.lead_probability(score, score) < 1.0
    day = [(score, True), (score - 2.0, True), (score + 1.0, False)]  # the best is not news
    assert model.featured(day)[0] and not model.featured(day)[2]
    assert sum(model.featured([(s, True) for s in range(20)])) <= learned.FEATURED_PER_DAY


def test_a_learned_correction_is_fitted_toward_the_editors_pairs_and_held_to_the_hand_ranking():
    """Three events a day: the hand ranking puts the paper first; the editor, the money event, and
    both above a recap. Weak corrections learn that; a strength of 1e3 keeps the hand order."""
    paper = {"importance": 2.0, "coverage": 1.0, "kind": 1.0, "kinds": "paper"}
    money = {"importance": 1.5, "coverage": 1.0, "kind": 0.5, "kinds": "money"}
    recap = {"importance": 0.0, "coverage": 1.0, "routine": -1.0, "kinds": "recap"}
    rows = []
    for d in range(8):
        rows += [
            {"source": "s", "query": f"d{d}", "rel": 1, "top": False, "parts": paper},
            {"source": "s", "query": f"d{d}", "rel": 3, "top": True, "parts": money},
            {"source": "s", "query": f"d{d}", "rel": 0, "top": False, "parts": recap},
        ]
    weak, strong = learned.fit(rows, 1e-3), learned.fit(rows, 1e3)
    assert weak.score(money) > weak.score(paper)
    assert strong.score(recap) < strong.score(money) < strong.score(paper)
    assert weak.weights["kind:money"] > 0 > weak.weights["kind:paper"]


def _store(tmp_path: Path, fixtures: Path) -> tuple[Settings, object]:
    """A small real store: 40 harvest items of 2026-02-10 … 02-12 through ingest, cluster and stories."""
    from newsdesk.run.pipeline import run_pipeline

    lines = []
    with (fixtures / "news/ai-daily-harvest.jsonl").open(encoding="utf-8") as fh:
        for raw in fh:
            row = json.loads(raw)
            if str(row.get("pub_date", ""))[:10] in ("2026-02-10", "2026-02-11", "2026-02-12"):
                lines.append(raw)
            if len(lines) == 40:
                break
    tmp_path.mkdir(parents=True)
    source = tmp_path / "items.jsonl"
    source.write_text("".join(lines), encoding="utf-8")
    s = Settings(data_dir=str(tmp_path), site_dir=str(tmp_path / "site"), ranking="learned")
    s = dataclasses.replace(s, llm=dataclasses.replace(s.llm, backend="extractive", arbitrate_merges=False))
    engine = open_store(s.database)
    report = run_pipeline(engine, s, stages=["ingest", "cluster", "stories"], source=source)
    assert report.problems == []
    return s, engine


def _ranked(engine) -> list[tuple]:
    with engine.connect() as conn:
        return [
            (r.title, r.importance, r.tab, tuple(sorted(r.score_parts.items())))
            for r in conn.execute(
                select(events.c.title, events.c.importance, events.c.tab, events.c.score_parts).order_by(events.c.title)
            )
        ]


def test_the_learned_ranking_of_a_real_store_is_deterministic_and_shows_each_factor(tmp_path, fixtures):
    s, engine = _store(tmp_path / "a", fixtures)
    try:
        rank_events(engine, s)
        first = _ranked(engine)
        rank_events(engine, s)
        assert _ranked(engine) == first
    finally:
        engine.dispose()
    s2, engine2 = _store(tmp_path / "b", fixtures)
    try:
        rank_events(engine2, s2)
        assert _ranked(engine2) == first
    finally:
        engine2.dispose()
    assert len(first) >= 10
    for _, importance, _, parts in first:
        parts = dict(parts)
        summed = sum(v for k, v in parts.items() if k not in SHOWN_NOT_SUMMED)
        assert summed == pytest.approx(importance, abs=1e-6)
        assert 0.0 <= parts["lead probability"] <= 1.0
    by_day_featured = [t for _, _, t, _ in first if t == "featured"]
    assert 1 <= len(by_day_featured) <= 3 * learned.FEATURED_PER_DAY
