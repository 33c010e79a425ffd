"""The shipped same-happening scorer (cluster/pairs.py, cluster/pair_model.py) on real labelled items."""

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from newsdesk.cluster import pair_model
from newsdesk.cluster.embed import UseEmbedder
from newsdesk.cluster.events import ClusterConfig, Clusterer
from newsdesk.cluster.pair_model import PairModelError, load
from newsdesk.cluster.pairs import FEATURES
from newsdesk.eval.clusters import eval_doc, read_eval_file

ROOT = Path(__file__).resolve().parent.parent
DEV = ROOT / "eval/clusters/ai-news-dev.jsonl"


def test_shipped_model_loads_and_scores_a_fixed_pair_the_same_every_time():
    model = load("pairs-v1")
    assert model.meta["features"] == list(FEATURES)
    assert 0.0 < model.threshold < 1.0
    # a close same-language pair sharing a version and an own name, and a distant cross-language one
    close = np.array([0.9, 0, 0, 0.9, 0.9, 0.3, 0.5, 0, 1, 0, 0, 0, 1, 0, 2, 0, 0.4, 0, 0, 0, 0, 0.69, 0, 0, 0, 0])
    far = np.array([0.2, 1, 0.2, 0.2, 0.2, 0.0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 3, 1, 1, 2.0, 1, 0, 0, 0])
    first = model.probability(np.stack([close, far]))
    pair_model.load.cache_clear()
    again = load("pairs-v1").probability(np.stack([close, far]))
    assert first.tolist() == again.tolist()  # bit for bit
    assert first[0] > model.threshold > first[1]


def test_a_model_for_other_features_is_refused_with_the_fix(tmp_path):
    data = json.loads((pair_model.MODEL_DIR / "pairs-v1.json").read_text(encoding="utf-8"))
    data["features"] = data["features"][:-1]
    path = tmp_path / "old.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(PairModelError, match="retrain it with eval/train_pairs.py"):
        load(str(path))
    with pytest.raises(PairModelError, match="shipped models"):
        load("pairs-v0")


@pytest.fixture(scope="module")
def dev_items():
    rows = {r.id: r for r in read_eval_file(DEV)}
    # 2026-02-25, hand-labelled: Claude Code's remote control in Chinese and in English (one happening),
    # and the Claude Code creator's YC interview (another happening naming the same product).
    picked = [rows["adh-24dda454af"], rows["adh-6bc609c325"], rows["adh-a87331819f"]]
    vectors = UseEmbedder(threads=2).embed([r.text for r in picked])
    return [eval_doc(r, v) for r, v in zip(picked, vectors)]


def test_one_happening_in_two_languages_joins_and_another_naming_the_same_company_does_not(dev_items):
    clusterer = Clusterer(replace(ClusterConfig(), pair_model="pairs-v1"))
    placed = {d.key: clusterer.add(d) for d in dev_items}
    interview, remote_zh, remote_en = (placed[k] for k in ("adh-24dda454af", "adh-6bc609c325", "adh-a87331819f"))
    assert remote_en.event == remote_zh.event, remote_en.reason
    assert remote_zh.event != interview.event, remote_zh.reason
    assert "same-happening probability" in remote_en.reason
