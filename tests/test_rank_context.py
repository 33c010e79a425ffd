"""What an event's day knew beyond its hand parts (rank/context.py) and how the learned ranker reads it."""

import dataclasses
import json
import math
from datetime import date

import numpy as np
import pytest

from newsdesk.core.config import Settings
from newsdesk.rank import context, learned


def test_novelty_of_an_event_identical_to_yesterdays_is_zero_and_of_a_new_one_high():
    yesterday = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    assert context.novelty(np.array([2.0, 0.0, 0.0]), yesterday) == pytest.approx(0.0, abs=1e-6)
    assert context.novelty(np.array([0.0, 0.0, 1.0]), yesterday) == pytest.approx(1.0)
    near = context.novelty(np.array([1.0, 0.2, 0.0]), yesterday)
    assert 0.0 < near < 0.1
    assert context.novelty(np.array([-1.0, 0.0, 0.0]), yesterday[:1]) == 1.0  # clipped: opposite is new
    assert context.novelty(np.array([1.0, 0.0, 0.0]), None) == 1.0  # nothing earlier
    assert context.novelty(None, yesterday) == 1.0  # no vector: unknown, read as new


def test_growth_is_how_much_wider_a_happening_got_than_in_the_days_before():
    assert context.growth(3, 3) == 0.0
    assert context.growth(7, 1) == pytest.approx(2.0)
    assert context.growth(1, 3) == pytest.approx(-1.0)
    assert context.growth(3, 0) == pytest.approx(2.0)  # a new happening: log2(1 + its outlets)


def test_the_ranker_reads_novelty_growth_and_confirmation_and_shows_each_as_a_contribution():
    confirmed = {"first_party": 0.5, "coverage": round(math.log2(3), 3), "novelty": 0.2, "growth": 1.5}
    alone = {"first_party": 0.5, "coverage": 1.0}
    echoed = {"coverage": 2.0}
    assert learned.features(confirmed)["confirmed"] == 1.0
    assert learned.features(alone)["confirmed"] == 0.0  # the company alone
    assert learned.features(echoed)["confirmed"] == 0.0  # outlets, but no first party
    assert learned.features(alone)["novelty"] == 1.0 and learned.features(alone)["growth"] == 0.0  # unknown
    model = learned.Ranker({learned.HAND: 1.0, "novelty": 0.5, "growth": 0.25, "confirmed": 0.3})
    shown = model.contributions({**confirmed, "importance": 2.085})
    assert shown["novelty"] == 0.1 and shown["growth"] == 0.375 and shown["confirmed"] == 0.3
    assert model.score({**confirmed, "importance": 2.085}) == pytest.approx(sum(shown.values()))


def test_a_stores_events_get_their_days_novelty_and_growth_from_nothing_later(tmp_path, fixtures):
    from newsdesk.run.pipeline import run_pipeline
    from newsdesk.store import open_store

    lines = []
    with (fixtures / "news/ai-daily-harvest.jsonl").open(encoding="utf-8") as fh:
        for raw in fh:
            if str(json.loads(raw).get("pub_date", ""))[:10] in ("2026-02-10", "2026-02-11", "2026-02-12"):
                lines.append(raw)
            if len(lines) == 40:
                break
    source = tmp_path / "items.jsonl"
    source.write_text("".join(lines), encoding="utf-8")
    s = Settings(data_dir=str(tmp_path), site_dir=str(tmp_path / "site"))
    s = dataclasses.replace(s, llm=dataclasses.replace(s.llm, backend="extractive", arbitrate_merges=False))
    engine = open_store(s.database)
    try:
        assert run_pipeline(engine, s, stages=["ingest", "cluster", "stories"], source=source).problems == []
        with engine.connect() as conn:
            known = context.event_context(conn, s.timezone)
    finally:
        engine.dispose()
    assert len(known) >= 10
    first_day = min(date.fromisoformat(k["day"]) for k in known.values())
    for k in known.values():
        assert 0.0 <= k["novelty"] <= 1.0
        assert k["outlets"]  # an event is reported on its own first day
        assert k["growth"] <= math.log2(1 + len(k["outlets"])) + 1e-9
        if date.fromisoformat(k["day"]) == first_day:  # nothing earlier in the store
            assert k["novelty"] == 1.0 and k["growth"] == pytest.approx(math.log2(1 + len(k["outlets"])))
    assert any(k["novelty"] < 1.0 for k in known.values())  # the later days are read against the earlier


def test_an_outlets_prior_is_learned_from_other_days_never_from_the_rows_own():
    def row(day: str, outlets: list[str], rel: int, source: str = "juya") -> dict:
        return {
            "source": source,
            "query": f"{source}:{day}",
            "rel": rel,
            "top": rel == 3,
            "parts": {},
            "outlets": outlets,
        }

    learn = [row(f"2026-02-{d:02d}", ["lab.com"], 3) for d in range(1, 11)]
    learn += [row(f"2026-02-{d:02d}", ["blog.net"], 0) for d in range(1, 11)]
    got = learned.with_outlet_prior(
        [row("2026-02-20", ["lab.com"], 0), row("2026-02-20", ["blog.net", "lab.com"], 0), row("2026-02-20", [], 0)]
        + [row("2026-02-20", ["new.org"], 0), row("2026-02-20", ["blog.net"], 0)],
        learn,
    )
    prior = [r["parts"]["outlet_prior"] for r in got]
    assert prior[0] == pytest.approx(10 / 15 + 0.5 * 5 / 15 - 0.5, abs=1e-4) and prior[0] > 0  # 0.5: the average rate
    assert prior[1] == prior[0]  # the best of its outlets
    assert prior[2] == 0.0 and prior[3] == 0.0  # no outlet, an outlet never seen: the average
    assert prior[4] < 0
    # A row's own label (and any row of its day) never counts toward its own prior.
    alone = [row("2026-02-01", ["solo.io"], 3), row("2026-02-01", ["solo.io"], 3, "ainews")]
    assert [r["parts"]["outlet_prior"] for r in learned.with_outlet_prior(alone, alone)] == [0.0, 0.0]
    assert learned.features(got[0]["parts"])["outlet_prior"] == prior[0]
