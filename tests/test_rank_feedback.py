"""Reader feedback teaches the ranking (rank/adjust.py, rank/teach.py): votes in a real SQLite
store become the installation's adjustment, which moves the events the votes never touched toward
the reader's taste, shows in "why it ranks", and is undone exactly."""

import dataclasses
import json
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import insert, select

from newsdesk.core.config import Settings
from newsdesk.rank import adjust, teach
from newsdesk.rank.learned import features
from newsdesk.rank.score import rank_events
from newsdesk.store import open_store
from newsdesk.store.schema import events, feedback

DAYS = ("2026-02-10", "2026-02-11", "2026-02-12", "2026-02-13")
NOW = datetime(2026, 2, 14, tzinfo=UTC)


@pytest.fixture
def store(tmp_path: Path, fixtures: Path):
    """80 harvest items of 2026-02-10 … 02-13 through ingest, cluster and stories; hand ranking."""
    from newsdesk.run.pipeline import run_pipeline

    lines, per_day = [], defaultdict(int)
    with (fixtures / "news/ai-daily-harvest.jsonl").open(encoding="utf-8") as fh:
        for raw in fh:
            day = str(json.loads(raw).get("pub_date", ""))[:10]
            if day in DAYS and per_day[day] < 20:
                per_day[day] += 1
                lines.append(raw)
    source = tmp_path / "items.jsonl"
    source.write_text("".join(lines), encoding="utf-8")
    s = Settings(data_dir=str(tmp_path), site_dir=str(tmp_path / "site"), ranking="hand")
    s = dataclasses.replace(s, llm=dataclasses.replace(s.llm, backend="extractive", arbitrate_merges=False))
    engine = open_store(s.database)
    assert run_pipeline(engine, s, stages=["ingest", "cluster", "stories"], source=source).problems == []
    yield s, engine
    engine.dispose()


def _ranked(engine) -> dict[int, tuple]:
    with engine.connect() as conn:
        rows = conn.execute(select(events.c.id, events.c.first_published_at, events.c.importance, events.c.score_parts))
        return {r.id: (r.first_published_at.date().isoformat(), r.importance, dict(r.score_parts)) for r in rows}


def _ordered_right(ranked: dict[int, tuple], liked: set[int], unvoted: set[int]) -> int:
    """Pairs of one day's unvoted events, one liked by the reader's taste and one not, in that order."""
    return sum(
        ranked[a][1] > ranked[b][1] for a in unvoted & liked for b in unvoted - liked if ranked[a][0] == ranked[b][0]
    )


def test_votes_teach_an_adjustment_that_moves_unvoted_events_toward_them_and_undo_restores(store):
    s, engine = store
    rank_events(engine, s, now=NOW)
    before = _ranked(engine)
    # The reader's taste: events with the commonest happening class or routine kind that not every event has.
    counts = defaultdict(int)
    for _, _, parts in before.values():
        for k, v in features(parts).items():
            if v and (k.startswith(("kind:", "routine:")) or k in ("first_party", "off_topic")):
                counts[k] += 1
    taste = max((k for k, n in counts.items() if 3 <= n <= len(before) - 3), key=lambda k: (counts[k], k))
    liked = {e for e, (_, _, parts) in before.items() if features(parts)[taste]}
    voting_days = set(DAYS[:2])
    voted = {e for e, (day, _, _) in before.items() if day in voting_days}
    assert voted & liked and voted - liked
    with engine.begin() as conn:
        for e in sorted(voted)[:40]:
            conn.execute(insert(feedback).values(event_id=e, kind="up" if e in liked else "down", at=NOW))
    rank_events(engine, s, now=NOW)
    with_votes = _ranked(engine)  # the votes' own part, nothing learned yet

    got = teach.learn(engine, s, strength=1e-3)
    assert got.adjustment.deltas[taste] == max(got.adjustment.deltas.values()) > 0
    assert any(line.strip().startswith(taste) for line in got.lines)
    assert adjust.path(s.data_dir).exists()
    rank_events(engine, s, now=NOW)
    after = _ranked(engine)
    unvoted = set(before) - voted
    assert _ordered_right(after, liked, unvoted) > _ordered_right(with_votes, liked, unvoted)
    for _, importance, parts in after.values():  # "why it ranks" still sums to the importance
        shown = sum(
            v
            for k, v in parts.items()
            if isinstance(v, float | int) and k not in ("importance", "recency", "lead probability")
        )
        assert shown == pytest.approx(importance, abs=1e-6)
    assert any(k.startswith(adjust.PREFIX + taste) for _, _, parts in after.values() for k in parts)

    assert teach.undo(s)[0].startswith("removed the adjustment")
    rank_events(engine, s, now=NOW)
    assert _ranked(engine) == with_votes
    assert not adjust.path(s.data_dir).exists()
    assert teach.undo(s) == ["no adjustment to undo: the ranking is as shipped"]


def test_an_adjustment_learned_on_one_ranking_does_not_apply_to_the_other(tmp_path):
    adj = adjust.Adjustment({"kind:paper": 0.5}, "hand", votes=3)
    adjust.push(tmp_path, adj)
    assert adjust.current(tmp_path, "hand") == adj
    assert adjust.current(tmp_path, "learned") is None
    assert adj.contributions({"importance": 1.0, "kinds": "paper"}) == {"yours: kind:paper": 0.5}
