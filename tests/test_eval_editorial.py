"""`newsdesk eval editorial`: each measure on a small labelled fixture of real harvest items (their
links and event labels from eval/clusters/ai-news-dev.jsonl), against values worked out by hand;
then a real replay of a few harvest items through the stages, and the file errors it reports."""

from __future__ import annotations

import dataclasses
import json
from datetime import date
from math import log2
from pathlib import Path

import pytest

from newsdesk.core.config import Settings
from newsdesk.core.errors import EvalFileError
from newsdesk.eval.clusters import read_eval_file
from newsdesk.eval.editorial import (
    Label,
    WeekScore,
    card_opening,
    describes_article,
    evaluate,
    harvest_id,
    harvest_lines,
    score_day,
    score_weekly,
)

ROOT = Path(__file__).resolve().parents[1]
DEV = ROOT / "eval" / "clusters" / "ai-news-dev.jsonl"
ROWS = [json.loads(line) for line in DEV.read_text(encoding="utf-8").splitlines() if line.strip()]

NVIDIA, VERCEPT, RSP, HOARD, HIV = (
    "nvidia-q4-fy2026-results",
    "single-db6984775c",
    "single-d0032fbfe6",
    "single-c5a05bdb82",
    "single-6f70c9a27e",
)
NANO, PASSKEYS = "nano-banana-2-release", "single-b5b1d2fbcc"
D1, D2 = date(2026, 2, 26), date(2026, 2, 27)
LABELS = {
    e: Label(e, day, tier, None, e)
    for e, day, tier in [
        (NVIDIA, D1, 3),
        (VERCEPT, D1, 3),
        (RSP, D1, 2),
        (HOARD, D1, 1),
        (HIV, D1, 0),
        (NANO, D2, 3),
        (PASSKEYS, D2, 0),
    ]
}
ITEM_EVENT = {r["id"]: r["event"] for r in ROWS if r["event"] in LABELS}
REPORTS = {NVIDIA: 3, NANO: 4}  # items each has in the labels; the rest one each


def links(event: str) -> list[str]:
    return [r["link"] for r in ROWS if r["event"] == event]


def card(*members: str, tab: str = "all", summary: str = "") -> dict:
    """A card as the daily edition stores it: what the measures read is its members' links and tab."""
    return {"members": [{"url": u} for u in members], "tab": tab, "analysis": None, "summary": summary}


# Day 1, as published: 1. Nvidia with Vercept glued in (featured), 2. the HIV study (featured),
# 3. Nvidia again, 4. Simon Willison's how-to. Vercept and RSP 3.0 get no card of their own.
PAGE1 = [
    card(links(NVIDIA)[0], links(VERCEPT)[0], tab="featured"),
    card(links(HIV)[0], tab="featured"),
    card(links(NVIDIA)[1]),
    card(links(HOARD)[0]),
]
# Day 2: RSP 3.0 (a day-1 event, shown a day late), then Nano Banana 2; nothing featured.
PAGE2 = [card(links(RSP)[0]), card(*links(NANO), tab="p1")]
ZH1 = [
    card(summary="介绍了 LM Studio 推出的远程调用功能 LM Link。"),
    card(summary="英伟达财报再创新高，数据中心业务驱动总营收增长。"),
]


@pytest.fixture(scope="module")
def days():
    return (
        score_day(D1, PAGE1, ZH1, LABELS, ITEM_EVENT, REPORTS),
        score_day(D2, PAGE2, [], LABELS, ITEM_EVENT, REPORTS),
    )


def test_the_fixture_is_real_items():
    assert all(harvest_id(u) in ITEM_EVENT for c in PAGE1 + PAGE2 for u in (m["url"] for m in c["members"]))
    assert len(links(NVIDIA)) == 3 and len(links(NANO)) == 4


IDEAL1 = 7 + 7 / log2(3) + 3 / 2 + 1 / log2(5)  # Nvidia, Vercept (7 each), RSP (3), the how-to (1), HIV (0)
RANDOM_MEAN = (7 + 7 + 3 + 1 + 0) / 5
POSITIONS5 = 1 + 1 / log2(3) + 1 / 2 + 1 / log2(5) + 1 / log2(6)


@pytest.mark.parametrize(
    "measure, expect",
    [
        # placement: of the day's tier >= 2 events (Nvidia, Vercept, RSP) only Nvidia has a card of its own
        (lambda d: (d[0].placed, d[0].placeable), (1, 3)),
        (lambda d: (d[1].placed, d[1].placeable), (1, 1)),
        # NDCG@10: gains 7 (Nvidia), 0 (HIV, tier 0), 0 (Nvidia again), 1 (the how-to)
        (lambda d: d[0].ndcg, (7 + 1 / log2(5)) / IDEAL1),
        # day 2: RSP belongs to day 1 and gains nothing here; Nano Banana 2 at position 2; ideal 7 at 1
        (lambda d: d[1].ndcg, (7 / log2(3)) / 7),
        # glue@10, split@10, noise@10: one card each on day 1, none on day 2
        (lambda d: (d[0].top, d[0].glue, d[0].split, d[0].noise), (4, 1, 1, 1)),
        (lambda d: (d[1].top, d[1].glue, d[1].split, d[1].noise), (2, 0, 0, 0)),
        # featured: two cards on day 1, one of them a tier-3 event of the day; day 2 has news and none
        (lambda d: (d[0].featured, d[0].featured_right, d[0].needs_featured), (2, 1, True)),
        (lambda d: (d[1].featured, d[1].needs_featured), (0, True)),
        # zh cards opening about the article: "介绍了…" is, the earnings sentence is not
        (lambda d: (d[0].zh_about, d[0].zh_cards), (1, 2)),
        # random order: every position's expected gain is the mean gain
        (lambda d: d[0].random_ndcg, RANDOM_MEAN * POSITIONS5 / IDEAL1),
        # most reports first: Nvidia (3 items) first, then the one-item events in random order
        (lambda d: d[0].reports_ndcg, (7 + (7 + 3 + 1 + 0) / 4 * (POSITIONS5 - 1)) / IDEAL1),
    ],
)
def test_day_measure(days, measure, expect):
    assert measure(days) == pytest.approx(expect)


def test_week_measures(days):
    week = WeekScore("2026-W09", list(days))
    # the weekly: a theme holding Nvidia and the how-to, Vercept as a brief; Nano Banana 2 absent
    store_event = {1: NVIDIA, 2: HOARD, 3: VERCEPT, 4: NANO}
    score_weekly(week, {"sections": [{"events": [1, 2]}], "briefs": [{"event_id": 3}]}, "clean", LABELS, store_event)
    m = week.summary()
    assert m["placement"] == pytest.approx(2 / 4)
    assert m["ndcg@10"] == pytest.approx(((7 + 1 / log2(5)) / IDEAL1 + 1 / log2(3)) / 2)
    assert (m["glue@10"], m["split@10"], m["noise@10"]) == pytest.approx((1 / 6, 1 / 6, 1 / 6))
    assert (m["featured"], m["featured precision"], m["days without featured"]) == (2, 0.5, 1)
    # both featured cards fall on day 1, which has a tier-3 event: its best tier is 3
    assert (m["featured precision, tier-3 days"], m["featured top tier"]) == (0.5, 0.5)
    assert m["zh about-the-article"] == pytest.approx(1 / 2)
    assert (m["weekly tier-3 in themes"], m["weekly tier-3 anywhere"]) == pytest.approx((1 / 3, 2 / 3))
    assert m["weekly themed tier 0-1"] == pytest.approx(1 / 2)
    assert m["weekly clean"] == 1.0
    score_weekly(week, {"sections": [], "briefs": []}, "flagged", LABELS, store_event)
    assert week.summary()["weekly clean"] == 0.0  # measured, but never published to readers


def test_the_featured_ceiling_features_the_tier_3_events_and_one_event_on_every_other_day(days):
    # day 1 has two tier-3 events, day 2 one: featuring exactly those is right every time
    assert (days[0].tier3, days[0].events, days[1].tier3, days[1].events) == (2, 5, 1, 2)
    assert WeekScore("2026-W09", list(days)).summary()["featured precision ceiling"] == 1.0
    # a day with events but no tier-3 one still features one event, a miss by the guide's measure;
    # a day without labelled events features nothing
    quiet = score_day(date(2026, 2, 28), [], [], {RSP: dataclasses.replace(LABELS[RSP], day=date(2026, 2, 28))}, {}, {})
    empty = score_day(date(2026, 3, 1), [], [], LABELS, ITEM_EVENT, REPORTS)
    assert (quiet.tier3, quiet.events, empty.events) == (0, 1, 0)
    week = WeekScore("2026-W09", [*days, quiet, empty])
    assert week.summary()["featured precision ceiling"] == pytest.approx(3 / 4)
    assert WeekScore("2026-W08", [quiet]).summary()["featured precision ceiling"] == 0.0
    assert WeekScore("2026-W08", [empty]).summary()["featured precision ceiling"] is None


@pytest.mark.parametrize(
    "opening, about",
    [
        ("英伟达2026财年第四财季财报深度解读，重点关注数据中心业务。", True),
        ("报道了OpenAI因GitHub频繁宕机拟开发自有代码托管平台。", True),
        ("本文盘点了春节档发布的国产模型。", True),
        ("解析 Google 新发布的 Nano Banana 2 模型，强调其性价比。", True),
        ("This post explores how agents change code review.", True),
        ("Q4营收681亿美元（同比+73%），净利润430亿美元。", False),
        ("Anthropic 收购 AI 电脑操控初创公司 Vercept。", False),
        ("OpenAI releases GPT-5.4 with native computer use.", False),
    ],
)
def test_the_about_the_article_detector(opening, about):
    assert describes_article(opening) is about


def test_the_opening_is_the_first_sentence_under_the_extractive_note():
    body = "*抽取自原文*\n\n介绍 Claude Code 官方新增的远程控制功能。（AI工程化）Claude Code 新推出的远程控制功能详解。"
    assert card_opening({"analysis": {"body": body}}) == "介绍 Claude Code 官方新增的远程控制功能。"


# --- a real replay -------------------------------------------------------------------------

REPLAYED = [NVIDIA, VERCEPT, HIV, NANO, PASSKEYS]


def small_set(tmp_path: Path, fixtures: Path, drop: str | None = None) -> tuple[Path, Path, Path]:
    """Real harvest lines of five labelled events over two days, their cluster labels and tiers."""
    wanted = {r["id"] for r in ROWS if r["event"] in REPLAYED}
    harvest = tmp_path / "harvest.jsonl"
    with (
        (fixtures / "news/ai-daily-harvest.jsonl").open(encoding="utf-8") as fh,
        harvest.open("w", encoding="utf-8") as out,
    ):
        for line in fh:
            row = json.loads(line)
            if harvest_id(row["link"]) in wanted and harvest_id(row["link"]) != drop:
                out.write(line)
    (tmp_path / "clusters").mkdir()
    clusters = tmp_path / "clusters" / "set.jsonl"
    clusters.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ROWS if r["event"] in REPLAYED), encoding="utf-8"
    )
    (tmp_path / "editorial").mkdir()
    tiers = tmp_path / "editorial" / "week.jsonl"
    ranked = {NVIDIA: 1, VERCEPT: 2, NANO: 1}
    tiers.write_text(
        "".join(
            json.dumps(
                {
                    "event": e,
                    "day": LABELS[e].day.isoformat(),
                    "tier": LABELS[e].tier,
                    "rank": ranked.get(e),
                    "title": e,
                    "reason": "fixture",
                }
            )
            + "\n"
            for e in REPLAYED
        ),
        encoding="utf-8",
    )
    return harvest, clusters, tiers


def test_a_labelled_week_is_replayed_through_the_stages(tmp_path, fixtures):
    harvest, clusters, tiers = small_set(tmp_path, fixtures)
    settings = Settings(data_dir=str(tmp_path / "unused"))
    (week,), problems = evaluate(tiers, settings, harvest=harvest, clusters=[clusters])
    assert problems == []
    assert week.week == "2026-W09" and [d.day for d in week.days] == [D1, D2]
    # the ten items were published as five to ten cards, none mixing two events, and each tier-3
    # event has a card of its own on its first day
    cards = sum(d.cards for d in week.days)
    assert 5 <= cards <= 10 and sum(d.zh_cards for d in week.days) == cards
    assert sum(d.glue for d in week.days) == 0
    assert (sum(d.placed for d in week.days), sum(d.placeable for d in week.days)) == (3, 3)
    assert week.weekly_status in ("clean", "flagged") and week.tier3 == 3
    assert not (tmp_path / "unused").exists()  # the replay's store is a temporary one


def test_the_replay_writes_extractive_when_the_user_has_the_model_write(tmp_path, fixtures):
    """`[write] by = "model"` in the user's settings, an endpoint that answers nothing: the replay still
    writes every card by code and makes no call. (Once, it set the retired llm.backend = "extractive",
    and its write stage opened the model writers over a backend that does not exist.)"""
    harvest, clusters, tiers = small_set(tmp_path, fixtures)
    settings = Settings(data_dir=str(tmp_path / "unused"))
    settings.write.by = "model"
    settings.llm.base_url, settings.llm.model = "http://127.0.0.1:9/v1", "nowhere"
    (week,), problems = evaluate(tiers, settings, harvest=harvest, clusters=[clusters])
    assert problems == []
    assert sum(d.cards for d in week.days) >= 5 and week.weekly_status in ("clean", "flagged")
    assert settings.write.by == "model"  # the user's settings are left as they were


def test_an_item_missing_from_the_harvest_is_one_clear_error(tmp_path, fixtures):
    drop = harvest_id(links(NANO)[0])
    harvest, clusters, tiers = small_set(tmp_path, fixtures, drop=drop)
    with pytest.raises(EvalFileError, match=f"1 labelled items are not in it \\(first: {drop}\\); give --harvest"):
        evaluate(tiers, Settings(data_dir=str(tmp_path)), harvest=harvest, clusters=[clusters])


def test_a_label_of_an_unknown_event_is_one_clear_error(tmp_path, fixtures):
    harvest, clusters, tiers = small_set(tmp_path, fixtures)
    with tiers.open("a", encoding="utf-8") as fh:
        fh.write(
            json.dumps({"event": "nope", "day": "2026-02-26", "tier": 1, "rank": None, "title": "t", "reason": "r"})
            + "\n"
        )
    with pytest.raises(EvalFileError, match="line 6: event nope is in no cluster label file; fix the labels"):
        evaluate(tiers, Settings(data_dir=str(tmp_path)), harvest=harvest, clusters=[clusters])
    assert read_eval_file(clusters)  # the cluster labels themselves are sound


def test_a_harvest_line_listed_again_without_its_date_keeps_the_date(tmp_path):
    # The harvest re-lists some items with an empty pub_date (W06's Google results): the last line
    # wins, as in the import, but an earlier line's date stays, as the store keeps a stored one.
    link = "https://example.com/a"
    harvest = tmp_path / "h.jsonl"
    lines = [
        {"title": "A", "link": link, "source": "S", "pub_date": "2026-02-08"},
        {"title": "A again", "link": link, "source": "S", "pub_date": ""},
    ]
    harvest.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    found = harvest_lines(harvest, {harvest_id(link)})
    assert found[harvest_id(link)] == {**lines[1], "pub_date": "2026-02-08"}
