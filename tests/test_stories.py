"""Stories over a real store (SQLite and PostgreSQL) with the embedded USE model: a launch, its
benchmarks a week later and a fix a week after that are three events and one story; other news
of the same company is not part of it.

Every item here was written for this test.
"""

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import create_engine, select

from newsdesk.cluster import cluster_new_items
from newsdesk.cluster.embed import UseEmbedder
from newsdesk.core.config import Settings
from newsdesk.core.model import Item, Source
from newsdesk.eval.clusters import EvalItem, story_scores
from newsdesk.store.items import sync_sources, upsert_item
from newsdesk.store.schema import event_members, events, items, stories, story_events
from newsdesk.stories.threads import link_stories, story_threads

T0 = datetime(2030, 5, 6, 8, 0, tzinfo=UTC)

SOURCES = [
    Source("halcyon-blog", "Halcyon Blog", "https://halcyon.example/rss.xml", tier=1, weight=1.5, category="official"),
    Source("techwire", "TechWire", "https://techwire.example/rss"),
    Source("zhiku", "智库科技", "https://zhiku.example/rss", language="zh"),
]

LAUNCH = [
    (
        "halcyon-blog",
        "launch-1",
        0,
        "Introducing Tessellate, an open-source coding agent from Halcyon",
        (
            "Tessellate plans multi-file changes, runs the test suite and opens pull requests on its own. It is free "
            "under the Apache license."
        ),
        "en",
    ),
    (
        "techwire",
        "launch-2",
        4,
        "Halcyon open-sources Tessellate, a coding agent that writes its own pull requests",
        "The startup's Tessellate agent edits many files at once and runs tests before it proposes a change.",
        "en",
    ),
    (
        "zhiku",
        "launch-3",
        6,
        "Halcyon 开源编程智能体 Tessellate，可自主提交代码合并请求",
        "Tessellate 能跨多个文件修改代码、运行测试并自动发起 pull request，采用 Apache 许可证免费使用。",
        "zh",
    ),
]
BENCHMARKS = [
    (
        "techwire",
        "bench-1",
        24 * 7 + 2,
        "Tessellate beats proprietary coding agents on independent benchmark runs",
        (
            "Researchers ran Halcyon's open-source Tessellate agent on 500 real repository bugs: it fixed 61%, ahead of "
            "two paid rivals, though it was slower."
        ),
        "en",
    ),
    (
        "zhiku",
        "bench-2",
        24 * 7 + 9,
        "第三方评测：开源编程智能体 Tessellate 修复 61% 真实代码缺陷，超过两款付费产品",
        "研究人员用 500 个真实仓库缺陷测试 Halcyon 的 Tessellate，修复率 61%，但速度较慢。",
        "zh",
    ),
]
FIX = [
    (
        "halcyon-blog",
        "fix-1",
        24 * 15,
        "Halcyon ships Tessellate 1.1: the open-source coding agent no longer deletes untracked files",
        (
            "After users reported that the Tessellate agent removed files outside git, the update asks before any "
            "deletion and keeps a backup."
        ),
        "en",
    ),
]
SAME_COMPANY = [
    (
        "techwire",
        "cfo-1",
        24 * 9,
        "Halcyon hires a former airline executive as its chief financial officer",
        "The startup is preparing for a larger funding round and expanding its finance team in London.",
        "en",
    ),
]
NOISE = [
    (
        "techwire",
        "noise-1",
        24 * 2,
        "City council approves a new tram line to the airport",
        "Construction starts next spring and the line should open in 2033.",
        "en",
    ),
    ("zhiku", "noise-2", 24 * 8, "新能源车企三月销量同比增长四成", "多家车企公布月度交付数据，出口增长明显。", "zh"),
    (
        "techwire",
        "noise-3",
        24 * 12,
        "A chip maker's quarterly revenue falls short of forecasts",
        "Shares fell 6% after hours as data-center orders slowed.",
        "en",
    ),
]


@pytest.fixture(scope="module")
def embedder():
    return UseEmbedder(threads=2)


def store_items(engine, rows):
    with engine.begin() as conn:
        sync_sources(conn, SOURCES)
        for src, guid, hours, title, summary, lang in rows:
            upsert_item(
                conn,
                Item(
                    src,
                    guid,
                    f"https://{src}.example/{guid}",
                    title,
                    summary,
                    language=lang,
                    published_at=T0 + timedelta(hours=hours),
                ),
                now=T0 + timedelta(days=20),
            )


def _store_items_as_at(engine, rows, tmp_path):
    """Store rows into an old schema as its code would have: written by today's code into a
    store at head, then copied with only the columns the old tables have (later revisions
    add columns, such as items.dated_by, that an old store lacks)."""
    from sqlalchemy import MetaData, insert

    from newsdesk.store import open_store, schema

    today = open_store(f"sqlite:///{tmp_path / 'today.db'}")
    store_items(today, rows)
    old_tables = MetaData()
    old_tables.reflect(engine, only=["sources", "items"])
    with today.connect() as src, engine.begin() as dst:
        for name in ("sources", "items"):
            table = old_tables.tables[name]
            picked = [r._mapping for r in src.execute(select(schema.metadata.tables[name]))]
            dst.execute(insert(table), [{c.name: r[c.name] for c in table.columns} for r in picked])
    today.dispose()


def event_of(conn) -> dict[str, int]:
    return dict(
        conn.execute(
            select(items.c.guid, event_members.c.event_id).join(event_members, event_members.c.item_id == items.c.id)
        ).all()
    )


def _snapshot(engine):
    with engine.connect() as conn:
        return (
            conn.execute(select(stories).order_by(stories.c.id)).all(),
            conn.execute(select(story_events).order_by(story_events.c.event_id)).all(),
            conn.execute(select(events.c.id, events.c.story_checked_at).order_by(events.c.id)).all(),
        )


def _run(engine, embedder):
    cluster_new_items(engine, Settings(), embedder=embedder)
    return link_stories(engine, Settings(), embedder=embedder)


def _check_story(engine):
    with engine.connect() as conn:
        ev = event_of(conn)
        launch, bench, fix, cfo = ev["launch-1"], ev["bench-1"], ev["fix-1"], ev["cfo-1"]
        # Three happenings, three events: the clusterer keeps them apart ...
        assert ev["launch-2"] == ev["launch-3"] == launch and ev["bench-2"] == bench
        assert len({launch, bench, fix, cfo}) == 4
        # ... and the story threads them, each follow-up naming the event it follows.
        threads = story_threads(conn, [launch, bench, fix, cfo] + [ev[k] for k in ("noise-1", "noise-2", "noise-3")])
        assert set(threads) == {launch, bench, fix}, "the CFO hire and the noise are in no story"
        story = threads[launch]
        assert [e["event_id"] for e in story["events"]] == [launch, bench, fix]
        assert threads[launch]["follows_event_id"] is None
        assert threads[bench]["follows_event_id"] == launch
        assert threads[fix]["follows_event_id"] in (launch, bench)
        row = conn.execute(select(stories)).one()
        assert row.event_count == 3 and row.title == "Tessellate", "titled by what threads it, not its first headline"
        assert row.first_published_at == T0 and row.last_published_at == T0 + timedelta(hours=24 * 15)
        reason = conn.execute(select(story_events.c.reason).where(story_events.c.event_id == bench)).scalar()
        assert "names Tessellate" in reason


def test_a_launch_its_benchmarks_and_a_fix_are_one_story_and_other_company_news_is_not(engine, embedder):
    store_items(engine, LAUNCH + BENCHMARKS + FIX + SAME_COMPANY + NOISE)
    stats = _run(engine, embedder)
    assert (stats.linked, stats.stories_opened) == (2, 1)
    _check_story(engine)
    before = _snapshot(engine)
    again = link_stories(engine, Settings(), embedder=embedder)
    # Nothing changed since each event was looked at: nothing is looked at again (the do-nothing run
    # re-sketched the latest cluster run's events, and with them the whole look-back, every time).
    assert again.checked == 0 and again.linked == 0 and _snapshot(engine) == before, "a re-run changes nothing"


def test_found_incrementally_run_by_run_gives_the_same_story(engine, embedder):
    store_items(engine, LAUNCH + NOISE[:1])
    assert _run(engine, embedder).linked == 0
    store_items(engine, BENCHMARKS + NOISE[1:2] + SAME_COMPANY)
    assert _run(engine, embedder).linked == 1
    store_items(engine, FIX + NOISE[2:])
    assert _run(engine, embedder).linked == 1
    _check_story(engine)


def _eval_rows(spec):
    """(id, event, story) -> EvalItem; text and time do not matter to the scores."""
    return [EvalItem(i, i, "en", 0.0, e, s) for i, e, s in spec]


def test_story_scores_count_item_pairs_and_the_pairs_across_events():
    rows = _eval_rows([("a1", "A", "S"), ("a2", "A", "S"), ("b1", "B", "S"), ("c1", "C", ""), ("d1", "D", "")])
    perfect = story_scores(["s", "s", "s", "c", "d"], rows)
    assert perfect["story_pairwise_precision"] == perfect["story_pairwise_recall"] == 1.0
    assert perfect["followup_pairs"] == 2 and perfect["followup_recall"] == 1.0
    # Events found, no story: the same-event pair is right, the two follow-up pairs are missed.
    apart = story_scores(["a", "a", "b", "c", "d"], rows)
    assert apart["story_pairwise_precision"] == 1.0 and apart["story_pairwise_recall"] == pytest.approx(1 / 3)
    assert apart["followup_recall"] == 0.0
    # The standalone C wrongly threaded into the story: 3 wrong pairs across events, 2 right.
    glued = story_scores(["s", "s", "s", "s", "d"], rows)
    assert glued["followup_precision"] == pytest.approx(2 / 5) and glued["followup_recall"] == 1.0


@pytest.fixture(scope="module")
def story_store(tmp_path_factory, embedder):
    """One SQLite store holding the story, its daily editions and its published site."""
    from newsdesk.editions.daily import build_dailies
    from newsdesk.publish.site import publish_site
    from newsdesk.store import open_store

    folder = tmp_path_factory.mktemp("story")
    engine = open_store(f"sqlite:///{folder / 'newsdesk.db'}")
    store_items(engine, LAUNCH + BENCHMARKS + FIX + SAME_COMPANY + NOISE)
    _run(engine, embedder)
    settings = Settings(site_dir=str(folder / "site"))
    build_dailies(engine, settings)
    publish_site(engine, settings)
    with engine.connect() as conn:
        ev = event_of(conn)
    yield engine, settings, ev
    engine.dispose()


def test_api_story_route_gives_the_timeline_and_404_for_unknown_ids(story_store):
    from fastapi.testclient import TestClient

    from newsdesk.serve.app import create_app

    engine, settings, ev = story_store
    with engine.connect() as conn:
        story_id = conn.execute(select(stories.c.id)).scalar_one()
    with TestClient(create_app(engine, settings)) as client:
        got = client.get(f"/api/stories/{story_id}?lang=en")
        assert got.status_code == 200
        body = got.json()
        assert set(body) == {"story_id", "title", "events", "event_count", "first_published_at", "last_published_at"}
        assert body["story_id"] == story_id and body["event_count"] == 3
        assert body["title"] == "Tessellate"
        assert [e["event_id"] for e in body["events"]] == [ev["launch-1"], ev["bench-1"], ev["fix-1"]]
        assert [e["date"] for e in body["events"]] == ["2030-05-06", "2030-05-13", "2030-05-21"]
        assert body["events"][0]["follows_event_id"] is None
        assert body["events"][1]["follows_event_id"] == ev["launch-1"]
        assert body["first_published_at"] == "2030-05-06 16:00"  # Asia/Shanghai, the default timezone
        for missing in (story_id + 1, 2**63 - 1, 2**64):
            assert client.get(f"/api/stories/{missing}").status_code in (404, 422)
        assert client.get(f"/api/stories/{story_id + 1}").json()["detail"] == f"story {story_id + 1} does not exist"
        # The event's own card carries its place in the story.
        card = client.get(f"/api/events/{ev['bench-1']}?lang=en").json()
        assert card["follows"] == {"event_id": ev["launch-1"], "headline": body["events"][0]["headline"]}
        assert card["story"]["story_id"] == story_id and len(card["story"]["events"]) == 3
        assert client.get(f"/api/events/{ev['cfo-1']}").json()["story"] is None
        schema = client.get("/openapi.json").json()
        assert "/api/stories/{story_id}" in schema["paths"]


def test_the_site_shows_the_timeline_on_the_event_page_and_the_follow_up_on_the_card(story_store):
    engine, settings, ev = story_store
    site = Path(settings.site_dir)
    page = (site / "en" / "events" / f"{ev['bench-1']}.html").read_text("utf-8")
    assert 'class="story"' in page and "Story: Tessellate" in page
    assert page.index(f'href="../../en/events/{ev["launch-1"]}.html"') < page.index('aria-current="true"')
    assert f'href="../../en/events/{ev["fix-1"]}.html"' in page
    assert (site / "en" / "events" / f"{ev['launch-1']}.html").exists()  # the links lead somewhere
    day = (site / "zh" / "daily" / "2030-05-21.html").read_text("utf-8")
    assert "后续报道，前情：" in day and f'href="../../zh/events/{ev["launch-1"]}.html"' in day
    markdown = (site / "en" / "daily" / "2030-05-21.md").read_text("utf-8")
    assert "Follow-up of Introducing Tessellate, an open-source coding agent from Halcyon" in markdown
    cfo = (site / "en" / "events" / f"{ev['cfo-1']}.html").read_text("utf-8")
    assert 'class="story"' not in cfo and "Follow-up of" not in cfo


def test_a_store_from_before_stories_upgrades_with_its_rows_and_links_them(tmp_path, embedder):
    from alembic import command

    from newsdesk.store import open_store
    from newsdesk.store.migrate import config, current, head

    url = f"sqlite:///{tmp_path / 'old.db'}"
    old = create_engine(url)
    with old.connect() as conn:
        command.upgrade(config(conn), "0006")  # the revision before stories
        conn.commit()
    old.dispose()
    engine = open_store(url, migrate_schema=False)
    _store_items_as_at(engine, LAUNCH + BENCHMARKS + FIX, tmp_path)
    with engine.connect() as conn:
        assert current(conn) == "0006"
    # Cluster as the old code did: its events table has no story_checked_at yet.
    with engine.begin() as conn:
        conn.exec_driver_sql(
            "INSERT INTO events (id, title, first_published_at, last_published_at, item_count, outlets, "
            "independent_outlets, languages, anchors, importance, score, score_parts, tab, updated_at) "
            "VALUES (1, 'old event', '2030-05-01 08:00:00', '2030-05-01 08:00:00', 0, 0, 0, '[]', '[]', "
            "0, 0, '{}', 'all', '2030-05-01 08:00:00')"
        )
    before = {table: _rows(engine, table) for table in ("sources", "items", "events")}
    engine.dispose()
    engine = open_store(url)
    with engine.connect() as conn:
        assert current(conn) == head()
    for table, rows in before.items():
        after = _rows(engine, table)
        assert [{k: r[k] for k in old} for r, old in zip(after, rows)] == rows, f"every {table} row kept"
        assert len(after) == len(rows) > 0
    assert _rows(engine, "events")[0]["story_checked_at"] is None  # never looked at: the next run does
    stats = _run(engine, embedder)
    assert (stats.linked, stats.stories_opened) == (2, 1)
    engine.dispose()


def _rows(engine, table: str) -> list[dict]:
    with engine.connect() as conn:
        return [dict(r._mapping) for r in conn.exec_driver_sql(f"SELECT * FROM {table} ORDER BY id")]


def test_eval_clusters_reports_story_level_precision_and_recall(tmp_path, monkeypatch):
    import json

    from typer.testing import CliRunner

    from newsdesk import cli

    gold = {"launch": "tessellate", "bench": "tessellate", "fix": "tessellate"}
    path = tmp_path / "stories.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        for _src, guid, hours, title, summary, lang in LAUNCH + BENCHMARKS + FIX + SAME_COMPANY + NOISE:
            event = guid.rsplit("-", 1)[0] if guid.split("-")[0] != "noise" else guid
            fh.write(
                json.dumps(
                    {
                        "id": guid,
                        "title": title,
                        "summary": summary,
                        "lang": lang,
                        "event": event,
                        "story": gold.get(event, ""),
                        "published": (T0 + timedelta(hours=hours)).isoformat(),
                    },
                    ensure_ascii=False,
                )
                + "\n"
            )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NEWSDESK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setattr(cli, "_state", {})
    out = " ".join(CliRunner().invoke(cli.app, ["eval", "clusters", str(path)]).output.split())
    assert "stories (default thresholds, whole file): 1 gold stories, 11 same-story pairs across events" in out
    assert "story pairwise P 1.000 R 1.000 F1 1.000" in out
    assert "across events P 1.000 R 1.000" in out
    out = CliRunner().invoke(cli.app, ["eval", "clusters", str(path), "--folds", "2"]).output
    assert "stories (held-apart folds (2, split by story))" in " ".join(out.split())


def test_a_follow_up_names_what_the_earlier_events_headline_is_about(embedder):
    from newsdesk.cluster.terms import terms
    from newsdesk.stories.threads import StoryLinker, sketch

    day = 86400.0
    spec = [  # (key, day, headline, summary)
        (
            "wan",
            0,
            "Alibaba open-sources Wan 2.1, a video generation model",
            "The 14 billion parameter model is released on Hugging Face under an open licence.",
        ),
        (
            "phi",
            2,
            "Microsoft releases Phi-4-multimodal, a small model for speech and vision",
            "The 5.6 billion parameter model is released on Hugging Face for developers to download.",
        ),
        (
            "wan-top",
            9,
            "Wan 2.1 tops the open video generation leaderboard",
            "Alibaba's open-sourced Wan model beat closed rivals on motion quality, a week after its release.",
        ),
    ]
    texts = [f"{h}\n{s}" for _, _, h, s in spec]
    vectors = embedder.embed(texts)
    sketches = [
        sketch(key, [(d * day, v, terms(t), False, t)], h) for (key, d, h, _), t, v in zip(spec, texts, vectors)
    ]
    links = {link.event: link.follows for link in StoryLinker().run(sketches)}
    assert links.get("wan-top") == "wan"
    assert "phi" not in links  # "Hugging Face", "billion parameters": words both bodies use, not what Wan 2.1 is


def _sketches_of(spec):
    """(key, day, headline, summary) -> sketches whose texts all read alike (one vector): what is
    left to decide a link is the names."""
    import numpy as np

    from newsdesk.cluster.terms import terms
    from newsdesk.stories.threads import sketch

    v = np.ones(4, dtype=np.float32) / 2
    return [sketch(k, [(d * 86400.0, v, terms(f"{h}\n{s}"), False, f"{h}\n{s}")], h) for k, d, h, s in spec]


def test_a_family_word_threads_no_story_and_a_specific_name_does():
    from newsdesk.stories.threads import StoryLinker

    spec = [
        ("constitution", 0, "Claude's new constitution", "Anthropic publishes the values Claude is trained on."),
        ("remote", 3, "Claude Code 新功能：手机远程控制", "Anthropic 为 Claude 推出手机远程控制编程会话。"),
        ("launch", 4, "OpenAI introduces GPT-5.4 with more knowledge-work capability", "OpenAI's new model."),
        ("cost", 5, "GPT5.4 回一个 hi 要花 80 刀", "OpenAI 的新模型 GPT-5.4 价格很高。"),
        ("talk-1", 6, "Zephyrine Okonkwo on why agents fail", "A talk."),
        ("talk-2", 7, "Zephyrine Okonkwo on open models", "Another talk."),
    ]
    links = {link.event: link for link in StoryLinker().run(_sketches_of(spec))}
    assert "remote" not in links, "Claude (and Claude Code) is a family word"
    assert links["cost"].follows == "launch" and links["cost"].name == "GPT-5.4"
    assert "talk-2" in links and links["talk-2"].name == "Zephyrine Okonkwo"  # a person's full name is specific
    # Only later events follow: the launch follows nothing, whatever it shares with what came after.
    assert "launch" not in links and "constitution" not in links


def test_a_person_alone_or_an_acronym_is_a_weak_name():
    from newsdesk.cluster.terms import is_family, is_weak, names

    found = names("陶哲轩来给AI数学泼冷水了，API 和 OpenClaw")
    assert {"陶哲轩", "api", "openclaw"} <= found.keys()
    assert is_weak("陶哲轩", "陶哲轩") and is_weak("api", "API") and not is_weak("openclaw", "OpenClaw")
    assert is_weak("rust", "Rust", frozenset({"rust"})) and not is_weak("moltbook", "Moltbook", frozenset())
    assert is_family("claude code") and is_family("openai") and not is_family("nano banana")
    assert "v:seedance-2.0" in names("实测即梦 Seedance 2.0") and "v:gpt-5.4" in names("GPT5.4 回一个 hi")
    assert "gesc" not in names("Von der Geschäftsstelle bis zum Trainingsplatz")  # no word cut at its umlaut
    assert is_family("ki")  # German for AI


def test_a_follow_up_that_now_begins_before_what_it_follows_is_shown_as_no_follow_up(story_store):
    from sqlalchemy import update

    from newsdesk.stories.timelines import story_facts

    engine, settings, ev = story_store
    with engine.connect() as conn:
        rollback = conn.begin()  # the store is shared by this module's tests: leave it as it was
        before = story_facts(conn, [ev["bench-1"]], "en", "UTC")[ev["bench-1"]]
        assert before["follows"]["event_id"] == ev["launch-1"]
        # An earlier report joined the benchmark event after it was linked: it now begins first.
        conn.execute(
            update(events).where(events.c.id == ev["bench-1"]).values(first_published_at=T0 - timedelta(days=1))
        )
        after = story_facts(conn, [ev["bench-1"]], "en", "UTC")[ev["bench-1"]]
        assert after["follows"] is None and after["story"]["events"][0]["event_id"] == ev["bench-1"]
        rollback.rollback()


def test_two_releases_a_feed_naming_itself_and_a_word_opening_a_headline_thread_nothing():
    from newsdesk.cluster.terms import names, terms
    from newsdesk.stories.threads import StoryLinker, sketch

    assert "statement" not in names("Statement on the comments from the Secretary")  # grammar, not a name
    assert "moltbook" in names("Moltbook底裤被扒了")  # a Chinese headline capitalises nothing by grammar
    assert "introducing perplexity" not in names("Introducing Perplexity Health")  # no common word at a run's end
    spec = [  # (key, day, headline, summary, source)
        ("instant", 0, "GPT-5.3 Instant System Card", "What GPT-5.3 Instant was tested on.", "OpenAI News"),
        ("five-four", 2, "Introducing GPT-5.4", "GPT-5.4 and its System Card.", "OpenAI News"),
        ("wave", 3, "Windsurf Wave 13: Merry Shipmas", "Windsurf ships a wave of features.", "Windsurf Changelog"),
        ("spark", 5, "GPT-5.3-Codex-Spark is now available in Windsurf", "Try it in Windsurf.", "Windsurf Changelog"),
        ("stmt", 6, "Statement from our CEO", "On our talks with the Department.", "Halcyon News"),
        ("stmt-2", 7, "Statement on the comments from the Secretary", "A reply.", "Halcyon News"),
    ]
    import numpy as np

    v = np.ones(4, dtype=np.float32) / 2
    sketches = [
        sketch(k, [(d * 86400.0, v, terms(f"{h}\n{s}"), False, f"{h}\n{s}")], h, [src]) for k, d, h, s, src in spec
    ]
    assert StoryLinker().run(sketches) == []
