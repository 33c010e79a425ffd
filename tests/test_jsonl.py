"""read_harvest over the real 1,012-line harvest, and over a file with bad lines; then into a real store."""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime

from sqlalchemy import func, select

from newsdesk.ingest.jsonl import read_harvest, source_slug
from newsdesk.store.items import sync_sources, upsert_item
from newsdesk.store.schema import items as items_table


def test_real_harvest(fixtures):
    path = fixtures / "news/ai-daily-harvest.jsonl"
    errors: list[str] = []
    warnings: list[str] = []
    rows = list(read_harvest(path, errors, warnings))
    assert errors == []
    assert len(rows) == 673  # the harvest's 1,012 less the held-out week (tests/fixtures/news/README.md)
    sources = {s.id: s for s, _ in rows}
    assert len(sources) == 84 == len({s.name for s, _ in rows})  # one id per outlet, no collisions
    assert all(s.origin == "import" and s.kind == "jsonl" for s in sources.values())
    # Every WeChat outlet writes Chinese; the overseas titles are English even though the harvester's
    # summaries of them are Chinese.
    langs = Counter((i.extra["source_channel"], i.language) for _, i in rows)
    assert langs == {("wechat-ai", "zh"): 581, ("overseas", "en"): 92}
    assert all(i.material_level == "summary" and i.summary for _, i in rows)
    # 95 lines carry an empty pub_date: those items get the store's first-seen time, not a guess
    assert sum(i.published_at is None for _, i in rows) == 95

    first_source, first = rows[0]
    assert first_source.id == "jiqizhixin" and first_source.name == "机器之心"
    assert first.url == first.guid
    assert first.url.startswith("https://mp.weixin.qq.com/s?__biz=MzA3MzI4MjgzMw%3D%3D&idx=3&mid=2651018004&sn=")
    assert first.published_at == datetime(2026, 2, 25, tzinfo=UTC)
    assert first.extra["highlights"][0].startswith("首个面向可解释情感推理的强化学习框架")
    assert first.extra["why_matters"] and first.extra["core_point"] and first.extra["verdict"] == "must_read"
    assert sources["simon-willison"].name == "Simon Willison"
    # Categories as the catalog has them: a Chinese outlet (every WeChat account) is zh-media, like
    # the catalog's 机器之心; an overseas one is media.
    channel = {s.id: i.extra["source_channel"] for s, i in rows}
    assert {(channel[sid], s.category) for sid, s in sources.items()} == {
        ("wechat-ai", "zh-media"),
        ("overseas", "media"),
    }


def test_source_slugs_are_stable():
    assert source_slug("Simon Willison") == "simon-willison"
    assert source_slug("Lenny's Newsletter") == "lennys-newsletter"
    assert source_slug("量子位") == "qbitai"
    unknown = source_slug("卡尔的AI沃茨")
    assert unknown.startswith("src-") and unknown == source_slug(" 卡尔的AI沃茨 ")


def test_bad_lines_are_reported_and_skipped(tmp_path):
    good = {
        "title": "OpenAI ships GPT-5.4",
        "link": "https://openai.com/index/gpt-5-4/?utm_source=x",
        "source": "OpenAI Blog",
        "pub_date": "2026-03-05",
        "summary": "A new model.",
    }
    lines = [
        json.dumps(good),
        '{"title": "broken", "link": ',
        json.dumps({**good, "title": ""}),
        json.dumps(["not", "an", "object"]),
        "",
        json.dumps({**good, "link": "/relative/only"}),
        json.dumps({**good, "link": "https://openai.com/index/other/", "pub_date": "sometime"}),
    ]
    path = tmp_path / "harvest.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    errors: list[str] = []
    warnings: list[str] = []
    rows = list(read_harvest(path, errors, warnings))
    assert [i.url for _, i in rows] == ["https://openai.com/index/gpt-5-4/", "https://openai.com/index/other/"]
    assert rows[1][1].published_at is None
    assert [e.split(":")[0] for e in errors] == [
        "harvest.jsonl line 2",
        "harvest.jsonl line 3",
        "harvest.jsonl line 4",
        "harvest.jsonl line 6",
    ]
    assert "not valid JSON" in errors[0] and "'title'" in errors[1] and "not an absolute URL" in errors[3]
    # A bad date is not a skipped line: the item is kept with its first-seen time, and said so.
    assert (
        len(warnings) == 1 and warnings[0].startswith("harvest.jsonl line 7") and "first-seen time used" in warnings[0]
    )


def test_harvest_into_store_is_idempotent(fixtures, sqlite_engine):
    rows = list(read_harvest(fixtures / "news/ai-daily-harvest.jsonl"))
    distinct = len({(s.id, i.guid) for s, i in rows})
    for _ in range(2):
        with sqlite_engine.begin() as conn:
            sync_sources(conn, list({s.id: s for s, _ in rows}.values()))
            outcomes = Counter(upsert_item(conn, item) for _, item in rows)
    assert outcomes["new"] == 0  # second import adds nothing
    with sqlite_engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(items_table)).scalar_one() == distinct
