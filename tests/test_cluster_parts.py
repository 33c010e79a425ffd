"""The clusterer's parts on small hand-made inputs: anchors, dedup, window, eval metrics, eval file."""

import json

import numpy as np
import pytest

from newsdesk.cluster.anchors import extract_anchors, subjects, version_conflict
from newsdesk.cluster.dedup import Deduper, canonical_url
from newsdesk.cluster.embed import UseEmbedder
from newsdesk.cluster.events import DAY, ClusterConfig, Clusterer, Doc, text_language
from newsdesk.eval.clusters import (
    EvalFileError,
    bcubed,
    cross_lingual_recall,
    evaluate,
    pairwise,
    read_eval_file,
)


def test_anchors_cross_languages():
    assert "model:gpt-5.5" in extract_anchors("OpenAI 发布 GPT-5.5，价格减半")
    assert "model:gpt-5.5" in extract_anchors("OpenAI releases GPT 5.5")
    assert extract_anchors("Qwen3-Coder 开源") == {"model:qwen-3-coder"}
    assert {"model:claude-3.7-sonnet", "model:deepseek-r1"} <= extract_anchors("Claude 3.7 Sonnet vs DeepSeek-R1")
    # 250 亿美元 = $25B = 25 billion dollars
    assert extract_anchors("Cognition 正在洽谈 250 亿美元估值") & extract_anchors(
        "Cognition in talks at a $25B valuation"
    )
    assert "money:2.50e+10" in extract_anchors("valued at 25 billion dollars")
    assert "arxiv:2501.01234" in extract_anchors("see arXiv:2501.01234v2")
    # prose is not a product: "at least 38 people", "ICLR 2026"
    assert not any(a.startswith("model:") for a in extract_anchors("At least 38 people died; ICLR 2026 Oral"))


def test_version_conflict_needs_no_shared_versioned_name():
    assert version_conflict({"model:gpt-4.5"}, {"model:gpt-4o-mini"}) == ("model:gpt-4.5", "model:gpt-4o-mini")
    assert version_conflict({"model:qwen-3"}, {"model:qwen-3-coder"}) is None  # one release, less precise
    # "Opus 4.6 beats GPT-5.2" vs "Opus 4.6 and GPT-5.3 Codex": they meet on Opus 4.6
    assert version_conflict({"model:opus-4.6", "model:gpt-5.2"}, {"model:opus-4.6", "model:gpt-5.3-codex"}) is None
    assert version_conflict({"model:gpt-5"}, {"model:gemini-3"}) is None  # different families


def test_canonical_url():
    assert canonical_url("https://www.Example.com/a/b/?utm_source=x&id=2#top") == "example.com/a/b?id=2"
    assert canonical_url("http://arxiv.org/pdf/2501.01234v2") == canonical_url("https://arxiv.org/abs/2501.01234")
    assert canonical_url("not a url") is None


def test_deduper_finds_duplicates_and_syndicated_copies_in_chinese_and_forgets_old_ones():
    d = Deduper()
    text = (
        "字节跳动发布豆包 Seed 2.0 大模型，专家模式今天上线，推理与编程能力显著提升，"
        "API 价格下调一半，企业用户可以通过火山引擎申请试用。"
    )
    d.add(1, "https://a.example/p?utm_source=rss", None, text, ts=0)
    assert d.find("https://a.example/p", None, "whatever") == ("duplicate", 1, 1.0)
    kind, origin, sim = d.find("https://b.example/x", None, "【转载】" + text.replace("显著", "明显"))
    assert (kind, origin) == ("syndicated", 1) and sim >= 0.8
    assert d.find("https://c.example/y", None, "阿里发布通义千问新版本，开源多个尺寸的模型并提供免费试用额度。") is None
    d.evict(before_ts=1)
    assert d.find("https://a.example/p", None, text) is None and len(d) == 0


def _doc(key, vec, ts_days, text="x", lang="en"):
    v = np.asarray(vec, dtype=np.float32)
    return Doc(key, text, lang, ts_days * DAY, v / np.linalg.norm(v), anchors=frozenset())


def test_window_evicts_events_so_cost_does_not_grow_with_history():
    c = Clusterer(ClusterConfig(window_days=2))
    rng = np.random.default_rng(0)
    for day in range(30):
        for k in range(5):  # five unrelated stories a day
            c.add(_doc(f"{day}-{k}", rng.normal(size=16), day + k / 10))
        assert len(c.events) <= 5 * 4  # today's, plus at most the 2 previous days (+1 edge day)
    assert len(c.dedup) <= 5 * 4


def test_same_story_joins_within_the_window_and_opens_again_after_it():
    c = Clusterer(ClusterConfig(window_days=3))
    a = c.add(_doc("a", [1, 0, 0], 0))
    b = c.add(_doc("b", [1, 0.05, 0], 1))
    late = c.add(_doc("c", [1, 0, 0.05], 10))
    assert a.opened and not b.opened and b.event == a.event
    assert late.opened and late.event != a.event


def test_text_language_follows_what_is_compared():
    assert text_language("Introducing GPT-5.5") == "en"
    assert text_language("Build Hour: Prompt Caching\nOpenAI 介绍提示缓存的原理与计费方式。", "en") == "zh"


def test_metrics_on_hand_made_clusterings():
    gold = ["A", "A", "B", "B", "B"]
    assert bcubed(gold, gold) == (1.0, 1.0, 1.0)
    p, r, f = bcubed([1, 1, 1, 1, 1], gold)  # everything in one cluster
    assert r == 1.0 and p == pytest.approx((2 * 2 / 5 + 3 * 3 / 5) / 5)
    p, r, f = bcubed([1, 2, 3, 4, 5], gold)  # singletons
    assert p == 1.0 and r == pytest.approx((2 * 0.5 + 3 / 3) / 5)
    assert pairwise([1, 1, 2, 2, 2], gold) == (1.0, 1.0)
    assert pairwise([1, 1, 1, 2, 2], gold) == (pytest.approx(2 / 4), pytest.approx(2 / 4))
    langs = ["zh", "en", "zh", "en", "en"]
    assert cross_lingual_recall([1, 1, 2, 3, 3], gold, langs) == pytest.approx(1 / 3)  # (0,1) yes; (2,3),(2,4) no
    assert cross_lingual_recall([1, 1], ["A", "A"], ["en", "en"]) is None


def test_eval_file_errors_name_the_line(tmp_path):
    f = tmp_path / "e.jsonl"
    f.write_text(
        json.dumps(
            {"id": 1, "title": "t", "summary": "s", "lang": "en", "published": "2026-01-02T03:04:05Z", "event": "x"}
        )
        + "\n"
    )
    (row,) = read_eval_file(f)
    assert row.text == "t\ns" and row.ts == 1767323045.0
    f.write_text('{"id": 1, "text": "t", "lang": "en", "published": "yesterday", "event": "x"}\n')
    with pytest.raises(EvalFileError, match=r"e.jsonl:1: 'published'"):
        read_eval_file(f)
    f.write_text('{"id": 1, "lang": "en", "published": 1, "event": "x"}\n')
    with pytest.raises(EvalFileError, match=r"e.jsonl:1: missing 'text or title'"):
        read_eval_file(f)


def test_itn_dev_meets_the_acceptance_bar(eval_sets):
    rows = read_eval_file(eval_sets / "clusters/itn/itn-dev.jsonl")
    result = evaluate(rows, UseEmbedder(threads=2))
    assert result["bcubed_f1"] >= 0.93
    assert result["cross_lingual_recall"] >= 0.85


def test_a_pieces_subjects_are_the_releases_its_headline_and_summary_both_name():
    assert subjects("Vantor Labs introduces Halcyon 5.2\nVantor Labs 发布 Halcyon 5.2，电脑操作更强。") == {
        "model:halcyon-5.2"
    }
    # the product in the headline, the version in the summary (and the other way round)
    assert subjects("实测 Halcyon 新品：前端设计追平对手\n详细实测了 Halcyon 5.2 的视觉编程能力。") == {
        "model:halcyon-5.2"
    }
    # named in passing: the summary is about something else
    assert subjects("Halcyon5.2 回一句问候要花 60 美元？读读这篇论文\n解读一篇关于思维链长度的新论文。") == set()
    # a rival in the headline whose summary names another of its versions is not the subject
    assert subjects("Orion 3.1 发布，全线碾压 Halcyon 5.2\nOrion 3.1 与 Halcyon 5.3 的跑分对比。") == {
        "model:orion-3.1"
    }
    assert subjects("Halcyon 5.2 is out") == {"model:halcyon-5.2"}  # a headline alone stands for itself
