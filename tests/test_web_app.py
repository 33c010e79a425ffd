"""The web app over a real store (SQLite, and PostgreSQL where the backend matters), through its ASGI interface."""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import insert, select, update

from newsdesk.core.config import Settings
from newsdesk.serve.app import create_app
from newsdesk.store.schema import (
    analyses,
    checks,
    editions,
    event_members,
    events,
    failed_drafts,
    feedback,
    fetches,
    items,
    llm_usage,
    sources,
)

TOKEN = "test-operator-token"
DAY1 = datetime(2026, 4, 22, 3, 0, tzinfo=UTC)  # 11:00 in Asia/Shanghai
DAY2 = datetime(2026, 4, 23, 2, 0, tzinfo=UTC)
XSS_TITLE = '<script>window.__pwned = 1</script>Evil <img src=x onerror="window.__pwned = 2"> headline'
XSS_SUMMARY = '<a href="javascript:window.__pwned = 3">click</a> <img src=x onerror=alert(1)> <svg onload=alert(2)></svg> plain words'


def _item(conn, id, source_id, title, summary, when, language, url=None, material_level="summary"):
    conn.execute(
        insert(items).values(
            id=id,
            source_id=source_id,
            guid=f"g{id}",
            url=url or f"https://example.com/{id}",
            title=title,
            summary=summary,
            language=language,
            published_at=when,
            first_seen_at=when,
            updated_at=when,
            content_hash=f"h{id}",
            material_level=material_level,
        )
    )


def _event(conn, id, title, when, score, tab, category, members, **extra):
    conn.execute(
        insert(events).values(
            id=id,
            title=title,
            first_published_at=when,
            last_published_at=when,
            updated_at=when,
            score=score,
            tab=tab,
            category=category,
            item_count=len(members),
            lead_item_id=members[0][0],
            outlets=extra.pop("outlets", len(members)),
            independent_outlets=extra.pop("independent", 1),
            languages=extra.pop("languages", ["zh"]),
            score_parts=extra.pop("score_parts", {"coverage": score}),
            **extra,
        )
    )
    for item_id, role, origin in members:
        conn.execute(
            insert(event_members).values(
                item_id=item_id,
                event_id=id,
                role=role,
                origin_item_id=origin,
                joined_at=when,
                reason="anchor GPT-5.5" if role == "member" else None,
            )
        )


def seed_store(engine) -> None:
    """A small newsroom: two days of events, analyses, checks, editions, usage, fetches and one hostile item."""
    now = datetime.now(UTC)
    with engine.begin() as conn:
        for sid, name, lang in (
            ("jiqizhixin", "机器之心", "zh"),
            ("openai-blog", "OpenAI Blog", "en"),
            ("bloomberg-tech", "Bloomberg Technology", "en"),
            ("hostile-feed", "Hostile Feed", "en"),
        ):
            conn.execute(
                insert(sources).values(
                    id=sid, name=name, url=f"https://{sid}.example.com/feed", kind="rss", language=lang
                )
            )
        _item(
            conn,
            1,
            "jiqizhixin",
            "OpenAI 发布 GPT-5.5 大模型，推理成本下降 40%",
            "<p>机器之心报道：新模型在<b>编程</b>任务上更强。</p>",
            DAY2,
            "zh",
            material_level="full",
        )
        _item(
            conn,
            2,
            "openai-blog",
            "Introducing GPT-5.5",
            "Our most capable model for coding and agents.",
            DAY2 + timedelta(hours=1),
            "en",
        )
        _item(
            conn,
            3,
            "bloomberg-tech",
            "Cognition in talks for funding at $25 billion valuation",
            "Early talks, people familiar said.",
            DAY2,
            "en",
            material_level="paywalled",
        )
        _item(conn, 4, "jiqizhixin", "Cognition 洽谈新一轮融资，估值 250 亿美元", "据彭博社报道。", DAY2, "zh")
        _item(conn, 5, "hostile-feed", XSS_TITLE, XSS_SUMMARY, DAY2, "en", url="javascript:window.__pwned=4")
        _item(conn, 6, "jiqizhixin", "昨天的开源语音模型发布", "一个语音模型。", DAY1, "zh")
        _event(
            conn,
            1,
            "OpenAI 发布 GPT-5.5",
            DAY2,
            9.5,
            "featured",
            "model",
            [(1, "lead", None), (2, "member", None)],
            languages=["zh", "en"],
            independent=2,
            score_parts={
                "coverage": 2.0,
                "authority": 5.5,
                "recency": 1.2,
                "feedback": 0.8,
                "updates": {"2026-04-25": 1.4},
            },
            anchors=["GPT-5.5"],
        )
        _event(
            conn,
            2,
            "Cognition 估值 250 亿美元",
            DAY2,
            6.0,
            "p1",
            "funding",
            [(3, "lead", None), (4, "syndicated", 3)],
            independent=1,
        )
        _event(conn, 3, XSS_TITLE, DAY2, 2.0, "all", "model", [(5, "lead", None)])
        _event(conn, 4, "开源语音模型", DAY1, 3.0, "all", "open-source", [(6, "lead", None)])
        conn.execute(
            insert(analyses).values(
                id=1,
                event_id=1,
                language="zh",
                headline="GPT-5.5：推理成本下降四成",
                status="clean",
                flags=[],
                body="我的判断很直接：**成本**是主线。\n\n正文没披露训练算力。",
                material_key="k1",
                created_at=DAY2,
                model="test-model",
            )
        )
        conn.execute(
            insert(analyses).values(
                id=2,
                event_id=1,
                language="en",
                headline="GPT-5.5 cuts inference cost by 40%",
                status="clean",
                flags=[],
                body="My verdict: **cost** is the story.",
                material_key="k1",
                created_at=DAY2,
            )
        )
        conn.execute(
            insert(analyses).values(
                id=3,
                event_id=2,
                language="zh",
                headline="Cognition 估值翻倍，缺经营数据",
                status="clean",
                flags=[],
                body="估值 250 亿美元，正文没披露 ARR。\n\n[点我](javascript:alert(1)) <script>alert(1)</script>",
                material_key="k2",
                created_at=DAY2,
            )
        )
        conn.execute(
            insert(checks).values(
                output="analysis",
                subject_id="2:zh",
                attempt=1,
                passed=False,
                findings=[{"kind": "number", "detail": "数字 ARR 30% 不在材料里", "span": "30%", "severity": "error"}],
                at=DAY2,
            )
        )
        for key, when in (("2026-W16", DAY1 - timedelta(days=7)), ("2026-W17", DAY2)):
            # Shaped as editions/weekly.py stores it: the body repeats the properties as text, meta holds the parts.
            props = {
                "type": "Post",
                "status": "Published",
                "date": "Apr 19, 2026",
                "slug": f"ai-weekly-{key}",
                "summary": f"{key} 摘要",
            }
            meta = {
                "properties": props,
                "summary": props["summary"],
                "overview": [f"{key} 中文正文"],
                "sections": [{"text": "模型发布\n\nGPT-5.5 发布。", "events": [1]}],
                "briefs": [{"title": "Cognition 融资", "source": "机器之心", "text": "估值翻倍。"}],
            }
            body = "\n\n".join(
                [
                    f"AI周报 {key}",
                    *(x for kv in props.items() for x in kv),
                    "📊 本周概览",
                    f"{key} 中文正文",
                    "模型发布",
                    "GPT-5.5 发布。",
                ]
            )
            conn.execute(
                insert(editions).values(
                    kind="weekly",
                    key=key,
                    language="zh",
                    title=f"AI周报 {key}",
                    body=body,
                    meta=meta,
                    material_key=key,
                    updated_at=when,
                )
            )
            conn.execute(
                insert(editions).values(
                    kind="weekly",
                    key=key,
                    language="en",
                    title=f"AI Weekly {key}",
                    body=f"## Overview\n\n{key} English body",
                    meta={},
                    material_key=key,
                    updated_at=when,
                )
            )
        conn.execute(
            insert(editions).values(
                kind="episode",
                key="ep-42",
                language="zh",
                title="42. 智能体的未来",
                body="摘要\n\n• 观点",
                meta={"extractive": True},
                material_key="e",
                updated_at=DAY2,
                status="clean",
            )
        )
        # What failed its checks is never shown to readers: a flagged analysis and edition stay in the store,
        # and the failed draft is listed for the operator only.
        conn.execute(
            insert(analyses).values(
                id=4,
                event_id=4,
                language="zh",
                headline="语音模型未核实稿",
                status="flagged",
                body="循环循环循环 999 万",
                flags=[{"kind": "loop", "detail": "a sentence in a loop", "span": "", "severity": "error"}],
                material_key="k4",
                created_at=DAY1,
            )
        )
        conn.execute(
            insert(editions).values(
                kind="episode",
                key="ep-43",
                language="zh",
                title="43. 未通过的一期",
                body="摘要\n\n• 循环",
                meta={},
                material_key="f",
                updated_at=DAY2,
                status="flagged",
            )
        )
        conn.execute(
            insert(failed_drafts).values(
                output="analysis",
                subject_id="2:zh",
                language="zh",
                title="Cognition 估值 250 亿美元",
                model="test-model",
                text="Cognition ARR 增长 30%，30%，30%。",
                material_key="k2",
                created_at=DAY2,
                findings=[{"kind": "number", "detail": "数字 ARR 30% 不在材料里", "span": "30%", "severity": "error"}],
            )
        )
        for at, stage, p, c, cached, cost, hit in (
            (now - timedelta(days=1), "analysis", 1000, 300, 400, 0.010, False),
            (now - timedelta(days=1), "analysis", 1000, 300, 1000, 0.0, True),
            (now - timedelta(days=1), "translation", 500, 500, 0, 0.004, False),
            (now - timedelta(days=2), "analysis", 2000, 600, 500, 0.020, False),
            (now - timedelta(days=90), "analysis", 9999, 9999, 0, 9.0, False),  # outside the window
        ):
            conn.execute(
                insert(llm_usage).values(
                    at=at,
                    output=stage,
                    backend="openai",
                    model="m",
                    prompt_tokens=p,
                    completion_tokens=c,
                    cached_tokens=cached,
                    cost_usd=cost,
                    cache_hit=hit,
                )
            )
        conn.execute(
            insert(fetches).values(
                source_id="jiqizhixin", started_at=now - timedelta(hours=3), http_status=200, warnings=[]
            )
        )
        for h in (2, 1):
            conn.execute(
                insert(fetches).values(
                    source_id="bloomberg-tech",
                    started_at=now - timedelta(hours=h),
                    http_status=503,
                    warnings=[],
                    error="HTTP 503 from bloomberg",
                )
            )


@pytest.fixture
def client(sqlite_engine):
    seed_store(sqlite_engine)
    with TestClient(create_app(sqlite_engine, Settings(web_token=TOKEN))) as c:
        yield c


def csrf_of(html: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', html).group(1)


def login(client) -> None:
    token = csrf_of(client.get("/login").text)
    r = client.post(
        "/login", data={"token": TOKEN, "name": "alice", "csrf": token, "next": "/events/1"}, follow_redirects=False
    )
    assert r.status_code == 303 and r.headers["location"] == "/events/1"


# --- reading -------------------------------------------------------------------------------


def test_feed_defaults_to_latest_day_with_tabs_and_cards_in_score_order(client):
    html = client.get("/").text
    assert "全部 · 2026-04-23" in html
    assert [m for m in re.findall(r'data-tab="([^"]+)"', html)] == [
        "all",
        "featured",
        "p1",
        "category-model",
        "category-funding",
    ]
    assert re.findall(r'data-event-id="(\d+)"', html) == ["1", "2", "3"]
    assert "GPT-5.5：推理成本下降四成" in html  # the zh analysis headline
    assert 'href="https://example.com/2"' in html and "OpenAI Blog" in html  # sources with links
    assert "2026-04-23 10:00" in html  # times shown in the configured time zone (UTC+8)
    assert "✓ 已核查" in html and "未通过" not in html
    assert 'href="/?day=2026-04-22&amp;tab=all"' in html  # date navigation to the previous day with events


def test_the_app_opens_on_the_newest_day_with_news_and_moves_to_a_newer_one_when_it_comes(sqlite_engine):
    """Today (the machine's date) has no news: the front page is the newest day that has, never an
    empty day; a newer day's news, stored while the server runs, becomes the front page."""
    seed_store(sqlite_engine)
    with TestClient(create_app(sqlite_engine, Settings())) as c:
        html = c.get("/").text
        assert "全部 · 2026-04-23" in html and "这一天没有事件" not in html
        later = DAY2 + timedelta(days=3)
        with sqlite_engine.begin() as conn:
            _item(conn, 30, "openai-blog", "A newer launch", "Three days later.", later, "en")
            _event(conn, 30, "A newer launch", later, 4.0, "p1", "model", [(30, "lead", None)], languages=["en"])
        deadline = time.monotonic() + 15
        while "全部 · 2026-04-26" not in (html := c.get("/").text) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert "全部 · 2026-04-26" in html and "A newer launch" in html and "这一天没有事件" not in html
        assert 'href="/?day=2026-04-23&amp;tab=all"' in html  # the previous day with news, 04-24 and 04-25 skipped


def test_the_app_does_not_open_on_a_day_whose_only_event_is_off_topic(sqlite_engine):
    """A feed's undated changelog line ("v2.1.114: Fixed a crash in the permission dialog…") first
    seen today is today's only event, and off-topic (under 其他 / Other): the reader is met by the
    newest day with news, and today stays one click away."""
    seed_store(sqlite_engine)
    later = DAY2 + timedelta(days=2)
    with sqlite_engine.begin() as conn:
        _item(conn, 32, "openai-blog", "v2.1.114", "Fixed a crash in the permission dialog.", later, "en")
        _event(
            conn, 32, "v2.1.114", later, -2.5, "all", "model", [(32, "lead", None)],
            languages=["en"], score_parts={"coverage": 0.5, "off_topic": -3.0},
        )  # fmt: skip
    with TestClient(create_app(sqlite_engine, Settings())) as c:
        html = c.get("/").text
        assert "全部 · 2026-04-23" in html and "v2.1.114" not in html
        assert 'href="/?day=2026-04-25&amp;tab=all"' in html  # the next day, still listed
        assert "v2.1.114" in c.get("/?day=2026-04-25").text


def test_a_search_result_is_dated_by_its_first_report_as_its_day_page_dates_it(sqlite_engine):
    """GPT-5.5 is news of 04-23 (its day page); a report two days later grew it. Search names the
    day a reader finds it under, not the latest report's (it said 04-25 before)."""
    seed_store(sqlite_engine)
    with sqlite_engine.begin() as conn:
        conn.execute(update(events).where(events.c.id == 1).values(last_published_at=DAY2 + timedelta(days=2)))
    with TestClient(create_app(sqlite_engine, Settings())) as c:
        html = c.get("/search", params={"q": "GPT-5.5"}).text
        result = re.search(r'<a href="/events/1">.*?</small>', html, re.S).group(0)
        assert "2026-04-23 10:00" in result and "2026-04-25" not in result


def test_an_item_dated_by_day_shows_its_date_alone_on_every_page(sqlite_engine):
    """A source that gave only a date (dated_by "day", stored at midnight UTC, 08:00 in Shanghai):
    the feed, the event page and search show the date, never a made-up time of day."""
    seed_store(sqlite_engine)
    midnight = datetime(2026, 4, 24, 0, 0, tzinfo=UTC)
    with sqlite_engine.begin() as conn:
        _item(conn, 31, "openai-blog", "Quarterly letter on model safety", "Dated by day only.", midnight, "en")
        conn.execute(update(items).where(items.c.id == 31).values(dated_by="day"))
        _event(conn, 31, "Quarterly letter on model safety", midnight, 4.0, "p1", "model", [(31, "lead", None)])
    with TestClient(create_app(sqlite_engine, Settings())) as c:
        pages = {
            "feed": c.get("/?day=2026-04-24").text,
            "event": c.get("/events/31").text,
            "search": c.get("/search", params={"q": "Quarterly letter"}).text,
        }
        for name, html in pages.items():
            assert "2026-04-24" in html and "08:00" not in html, name
        assert "2026-04-23 10:00" in c.get("/events/1").text  # a time the source gave is still shown
        api = c.get("/api/events/31").json()
        assert [m["published_at"] for m in api["members"]] == ["2026-04-24"]
        found = c.get("/api/search", params={"q": "Quarterly letter"}).json()["items"]
        assert [(i["id"], i["dated_by"]) for i in found] == [(31, "day")]


def test_what_failed_its_checks_is_withheld_from_readers_and_listed_for_the_operator(client):
    day1 = client.get("/?day=2026-04-22").text
    assert "语音模型未核实稿" not in day1 and "循环" not in day1 and "分析尚未生成" in day1
    assert "循环" not in client.get("/events/4").text
    api = client.get("/api/events/4").json()
    assert api["analyses"] == {} and api["analysis"] is None and api["check"] == "missing"
    assert "循环" not in client.get("/api/events", params={"day": "2026-04-22"}).text
    assert [e["key"] for e in client.get("/api/editions/episode").json()] == ["ep-42"]
    assert client.get("/api/editions/episode/ep-43").status_code == 404
    # The drafts that failed: the operator's, behind the login; never a reader's.
    r = client.get("/drafts", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].startswith("/login")
    assert "ARR 增长 30%" not in client.get("/events/2").text
    login(client)
    drafts = client.get("/drafts").text
    assert "Cognition ARR 增长 30%" in drafts and "数字 ARR 30% 不在材料里" in drafts and "2:zh" in drafts
    assert 'href="/drafts"' in drafts and 'href="/events/2"' in drafts


def test_feed_tab_and_day_filter(client):
    funding = client.get("/?day=2026-04-23&tab=category-funding").text
    assert re.findall(r'data-event-id="(\d+)"', funding) == ["2"]
    featured = client.get("/?day=2026-04-23&tab=featured").text
    assert re.findall(r'data-event-id="(\d+)"', featured) == ["1"]
    day1 = client.get("/?day=2026-04-22").text
    assert re.findall(r'data-event-id="(\d+)"', day1) == ["4"]
    assert 'href="/?day=2026-04-23&amp;tab=all"' in day1 and "2026-04-22" in day1
    assert "这一天没有事件" in client.get("/?day=2026-01-01").text
    bad = client.get("/?day=23-04-2026")
    assert bad.status_code == 400 and "use YYYY-MM-DD" in bad.text


def test_event_page_explains_coverage_analysis_checks_and_rank(client):
    html = client.get("/events/2").text
    assert "Bloomberg Technology" in html and "机器之心" in html
    assert "转载自 Bloomberg Technology" in html  # syndicated copy names its origin
    assert "<td>转载</td>" in html and "<td>syndicated</td>" not in html  # its role in the reader's language
    assert re.search(r"<strong>2</strong> 个来源, <strong>1</strong> 独立来源", html)
    assert "付费墙" in html  # the material level in the reader's language
    # The failed attempt's check run is listed; its findings quote the draft: they are the operator's (/drafts).
    assert "未通过" in html and "数字 ARR 30% 不在材料里" not in html
    # Each check run names the analysis it checked: an event has one a language, each attempt 1 first.
    assert re.search(r"<tr><td>中文</td><td>1</td><td>未通过</td>", html), html
    assert [(c["language"], c["passed"]) for c in client.get("/api/events/2").json()["checks"]] == [("zh", False)]
    html1 = client.get("/events/1").text
    parts = re.findall(r"<tr><td>(\w+)</td><td>([\d.]+)</td></tr>", html1)
    assert [p for p, _ in parts] == ["authority", "coverage", "recency", "feedback"]  # largest first
    # The line above them states the importance that orders its day (the stored score, importance
    # times recency when ranked, orders nothing a reader sees: 0.000 for an event a few days old).
    importance = client.get("/api/events/1").json()["importance"]
    assert f"<p>重要性: <strong>{importance:.3f}</strong> · " in html1 and "分数" not in html1
    assert "我的判断很直接" in html1 and "My verdict" in html1  # both languages' analyses
    # Why a member joined is the clusterer's reasoning: the logged-in operator's, never a reader's.
    assert "anchor GPT-5.5" not in html1 and "归入原因" not in html1
    assert not any(m["reason"] for m in client.get("/api/events/1").json()["members"])
    operator = client.get("/api/events/1", headers={"Authorization": f"Bearer {TOKEN}"}).json()
    assert any("GPT-5.5" in (m["reason"] or "") for m in operator["members"])
    login(client)
    assert "anchor GPT-5.5" in client.get("/events/1").text
    assert client.get("/events/999").status_code == 404


def test_event_page_lists_the_check_runs_of_each_analysiss_last_writing(sqlite_engine):
    """An analysis is written again as its event grows and when the writers change, each time from
    attempt 1: its page listed every writing's runs (the replayed GPT-5.4 page, four rows for its two
    analyses after one upgrade). It lists those of the text it shows: each analysis's last writing."""
    seed_store(sqlite_engine)
    earlier = DAY2 - timedelta(days=2)
    runs_before = [
        (1, True, earlier),
        (1, False, earlier + timedelta(hours=1)),
        (2, True, earlier + timedelta(hours=2)),
    ]
    second = (2, True, DAY2 + timedelta(minutes=1))  # after seed_store's failed attempt 1 of DAY2
    rows = [{"attempt": a, "passed": p, "at": at} for a, p, at in [*runs_before, second]]
    with sqlite_engine.begin() as conn:
        conn.execute(insert(checks).values(output="analysis", subject_id="2:zh", findings=[]), rows)
    with TestClient(create_app(sqlite_engine, Settings(web_token=TOKEN))) as client:
        runs = [(c["language"], c["attempt"], c["passed"]) for c in client.get("/api/events/2").json()["checks"]]
        html = client.get("/events/2").text
    assert runs == [("zh", 1, False), ("zh", 2, True)]  # DAY2's writing: its first attempt failed, its second passed
    assert re.findall(r"<tr><td>中文</td><td>(\d)</td><td>(\w+)</td>", html) == [("1", "未通过"), ("2", "通过")]


def test_event_page_reads_its_votes_and_notes_in_one_statement(client, sqlite_engine):
    """The votes on the event page's card are the counts of its notes, read with them in one statement
    (a cold event page is a first read of a random event: each statement costs it ~0.3 ms)."""
    from zoneinfo import ZoneInfo

    from sqlalchemy import event

    from newsdesk.serve import queries

    for kind, note in (("up", "好"), ("star", "值得跟踪"), ("up", "")):  # a write clears the pages kept
        vote = {"kind": kind, "note": note}
        assert client.post("/api/events/1/feedback", json=vote, headers={"Authorization": f"Bearer {TOKEN}"}).is_success
    seen: list[str] = []
    listen = lambda *a: seen.append(a[2])  # noqa: E731
    event.listen(sqlite_engine, "before_cursor_execute", listen)
    try:
        with sqlite_engine.connect() as conn:
            detail = queries.event_detail(conn, 1, ZoneInfo("Asia/Shanghai"))
    finally:
        event.remove(sqlite_engine, "before_cursor_execute", listen)
    assert detail["feedback"] == {"star": 1, "up": 2}
    assert [(f["kind"], f["note"]) for f in detail["feedback_list"]] == [("up", ""), ("star", "值得跟踪"), ("up", "好")]
    assert sum("FROM feedback" in statement for statement in seen) == 1
    assert "👍 2 · 👎 0 · ⭐ 1" in client.get("/events/1").text
    assert client.get("/api/events/1").json()["feedback"] == {"star": 1, "up": 2}


def test_the_readers_pages_are_matched_before_the_api_routes(sqlite_engine):
    """A request is matched against the app's routes in order: a cold event page is not tried against
    every API route's pattern first (no other route can match a reader page's path)."""

    def paths(routes, prefix=""):
        for route in routes:
            inner = getattr(route, "original_router", None)  # FastAPI keeps an included router whole
            if inner is not None:
                yield from paths(inner.routes, prefix + route.include_context.prefix)
            else:
                yield prefix + getattr(route, "path", "")

    order = list(paths(create_app(sqlite_engine, Settings()).routes))
    api = min(i for i, path in enumerate(order) if path.startswith("/api/events"))  # the JSON API's routes
    assert max(order.index(path) for path in ("/", "/events/{event_id}", "/search")) < api


def test_hostile_feed_html_is_inert_in_every_page(client):
    for path in ("/", "/events/3", "/search?q=Evil", "/search?q=plain", "/events/2", "/api/events/3"):
        body = client.get(path).text
        if path.startswith("/api/"):
            continue  # JSON is data, not markup; the pages are what a browser runs
        assert not re.search(r"<script\b", body, re.I), path
        assert not re.search(r"\son\w+\s*=", body, re.I), path  # no event-handler attributes
        assert not re.search(r"href=\"\s*javascript:", body, re.I), path
        assert "<img" not in body and "<svg" not in body, path
    card = client.get("/events/3").text
    assert "Evil" in card and "headline" in card and "plain words" in card  # the text survives, inert


def test_search_finds_chinese_and_english_terms(client):
    zh = client.get("/search", params={"q": "大模型"}).text
    assert 'href="https://example.com/1"' in zh  # the item
    en = client.get("/api/search", params={"q": "valuation"}).json()
    assert [i["id"] for i in en["items"]] == [3]
    assert en["items"][0]["event_id"] == 2 and en["items"][0]["outlet"] == "Bloomberg Technology"
    ev = client.get("/api/search", params={"q": "推理成本"}).json()
    assert [e["id"] for e in ev["events"]] == [1]  # through its analysis headline
    assert client.get("/api/search", params={"q": "nothing-like-this-anywhere"}).json() == {
        "query": "nothing-like-this-anywhere",
        "events": [],
        "items": [],
    }


def test_the_newest_news_is_searchable_from_the_first_request(sqlite_engine, monkeypatch):
    """The newest documents are indexed before the server answers: a background catch-up that
    has not run yet (a loaded machine) and a search that indexes nothing itself still find them."""
    import newsdesk.search.index as search_index
    import newsdesk.serve.app as app_module

    class NotYet:  # the background catch-up thread, not started
        def __init__(self, *args, **kwargs):
            pass

        def start(self):
            pass

    monkeypatch.setattr(app_module, "threading", SimpleNamespace(Thread=NotYet))
    monkeypatch.setattr(search_index, "SEARCH_BATCH", 0)
    seed_store(sqlite_engine)
    with TestClient(create_app(sqlite_engine, Settings())) as c:
        ev = c.get("/api/search", params={"q": "推理成本"}).json()
        assert [e["id"] for e in ev["events"]] == [1]  # through its analysis headline


@pytest.mark.parametrize("store_url", ["sqlite", "postgresql"], indirect=True)
def test_search_index_on_both_backends_keeps_up_with_the_store(engine):
    seed_store(engine)
    app = create_app(engine, Settings())
    index = app.state.index
    kinds = lambda q: sorted((h.kind, h.ref_id) for h in index.search(q))  # noqa: E731
    assert ("item", 1) in kinds("大模型")
    assert ("item", 4) in kinds("融资") and ("event", 2) in kinds("估值")
    assert kinds("GPT-5.5 coding") == [("item", 2)]
    assert kinds("洽谈新") == [("item", 4)]  # no jieba word: falls back to a substring match
    # Another stage adds an item and rewrites one: the next search sees both.
    with engine.begin() as conn:
        _item(conn, 7, "openai-blog", "Sora 视频生成 update", "视频", DAY2, "en")
        conn.execute(
            update(items).where(items.c.id == 6).values(title="语音合成 TTS", updated_at=DAY2 + timedelta(days=1))
        )
    assert kinds("视频生成") == [("item", 7)]
    assert kinds("语音合成") == [("item", 6)]
    assert index.refresh() == 0  # nothing changed since: nothing re-indexed


# --- writing -------------------------------------------------------------------------------


def test_writes_disabled_without_operator_token(sqlite_engine):
    seed_store(sqlite_engine)
    with TestClient(create_app(sqlite_engine, Settings())) as c:
        page = c.get("/events/1").text
        assert "NEWSDESK_WEB_TOKEN" in page and 'action="/events/1/feedback"' not in page
        r = c.post("/events/1/feedback", data={"kind": "up", "csrf": "any"})
        assert r.status_code == 403 and "写入已关闭" in r.text
        assert c.post("/api/events/1/feedback", json={"kind": "up"}).status_code == 403
        assert c.post("/login", data={"token": "x", "csrf": "any"}).status_code == 403
    with sqlite_engine.connect() as conn:
        assert conn.execute(select(feedback)).all() == []


def test_login_and_feedback_through_forms_with_csrf(client, sqlite_engine):
    r = client.post("/events/1/feedback", data={"kind": "up"}, follow_redirects=False)
    assert r.status_code == 403  # no CSRF token at all
    page = client.get("/events/1").text
    assert 'action="/events/1/feedback"' not in page  # not logged in: a link to log in instead
    session_csrf = csrf_of(client.get("/login").text)
    r = client.post(
        "/events/1/feedback",
        data={"kind": "up", "csrf": session_csrf},
        follow_redirects=False,
        headers={"referer": "http://testserver/events/1"},
    )
    assert r.status_code == 303 and r.headers["location"] == "/login?next=/events/1"  # back here after login
    bad = client.post("/login", data={"token": "wrong", "csrf": csrf_of(client.get("/login").text)})
    assert bad.status_code == 401 and "令牌不对" in bad.text
    login(client)
    page = client.get("/events/1").text
    assert "alice" in page
    forged = client.post("/events/1/feedback", data={"kind": "star", "csrf": "forged"})
    assert forged.status_code == 403
    r = client.post(
        "/events/1/feedback", data={"kind": "star", "note": "值得跟踪", "csrf": csrf_of(page)}, follow_redirects=False
    )
    assert r.status_code == 303
    after = client.get(r.headers["location"]).text
    assert "反馈已保存" in after and "值得跟踪" in after
    assert client.post("/events/1/feedback", data={"kind": "meh", "csrf": csrf_of(after)}).status_code == 400
    with sqlite_engine.connect() as conn:
        rows = conn.execute(select(feedback.c.event_id, feedback.c.kind, feedback.c.note, feedback.c.user)).all()
    assert [tuple(r) for r in rows] == [(1, "star", "值得跟踪", "alice")]


def test_api_reads_and_token_guarded_writes(client, sqlite_engine):
    spec = client.get("/openapi.json").json()
    for path in (
        "/api/events",
        "/api/events/{event_id}",
        "/api/events/{event_id}/feedback",
        "/api/search",
        "/api/usage",
        "/api/sources",
        "/api/editions/{kind}/{key}",
    ):
        assert path in spec["paths"], path
    feed = client.get("/api/events", params={"day": "2026-04-23", "tab": "category-model"}).json()
    assert [e["event_id"] for e in feed["events"]] == [1, 3] and feed["previous_day"] == "2026-04-22"
    detail = client.get("/api/events/1").json()
    assert detail["score_parts"][0] == ["authority", 5.5] and detail["independent_outlets"] == 2
    assert detail["score_parts"][-1] == ["update 2026-04-25", 1.4]  # a later day's new reports, by day
    assert {m["role"] for m in detail["members"]} == {"lead", "member"}
    assert client.post("/api/events/1/feedback", json={"kind": "down"}).status_code == 401
    auth = {"Authorization": f"Bearer {TOKEN}"}
    r = client.post("/api/events/1/feedback", json={"kind": "down", "note": "hype", "user": "bot"}, headers=auth)
    assert r.status_code == 201
    assert client.post("/api/events/77/feedback", json={"kind": "up"}, headers=auth).status_code == 404
    assert client.post("/api/events/1/feedback", json={"kind": "love"}, headers=auth).status_code == 422
    assert client.get("/api/events/1").json()["feedback"] == {"down": 1}
    with sqlite_engine.connect() as conn:
        assert conn.execute(select(feedback.c.kind, feedback.c.user)).all() == [("down", "bot")]


def test_the_api_and_its_docs_are_where_the_commands_guide_says(client):
    """docs/commands.md names the API's address, its OpenAPI page and its schema: each answers there."""
    guide = (Path(__file__).resolve().parents[1] / "docs" / "commands.md").read_text("utf-8")
    api, docs, schema = (
        re.search(rf"{words} at `(/[^`]*)`", guide).group(1) for words in ("JSON API", "OpenAPI page", "schema")
    )
    index = client.get(api)
    assert index.status_code == 200, (api, index.status_code)
    assert {"/api/events", "/api/stories/{story_id}"} <= set(index.json()["endpoints"])
    assert index.json()["docs"] == docs and index.json()["openapi"] == schema
    page = client.get(docs)
    assert page.status_code == 200 and "swagger-ui" in page.text, docs
    assert "cdn.jsdelivr.net" in page.headers["content-security-policy"]  # the page's script may load
    assert client.get(schema).json()["openapi"].startswith("3.")


def test_sources_health_add_and_disable(client, sqlite_engine):
    html = client.get("/sources").text
    row = re.search(r'<tr id="source-bloomberg-tech".*?</tr>', html, re.S).group(0)
    assert "HTTP 503 from bloomberg" in row and "failing" in row
    assert "<td>2</td>" in row  # two failures in a row
    login(client)
    page = client.get("/sources").text
    bad = client.post(
        "/sources", data={"csrf": csrf_of(page), "id": "new-feed", "name": "New", "url": "ftp://x", "kind": "rss"}
    )
    assert (
        bad.status_code == 400 and "source url" in bad.text and 'value="new-feed"' in bad.text
    )  # the form keeps its input
    good = {
        "csrf": csrf_of(page),
        "id": "new-feed",
        "name": "New Feed",
        "url": "https://new.example.com/rss",
        "kind": "atom",
        "language": "zh",
        "tier": "1",
        "category": "lab",
        "fulltext": "1",
    }
    assert client.post("/sources", data=good, follow_redirects=False).status_code == 303
    dup = client.post("/sources", data=good)
    assert dup.status_code == 400 and "already exists" in dup.text
    r = client.post("/sources/jiqizhixin/enabled", data={"csrf": csrf_of(page), "enabled": "0"}, follow_redirects=False)
    assert r.status_code == 303
    with sqlite_engine.connect() as conn:
        new = conn.execute(select(sources).where(sources.c.id == "new-feed")).one()
        assert (new.kind, new.language, new.tier, new.category, new.fulltext, new.origin, new.enabled) == (
            "atom",
            "zh",
            1,
            "lab",
            True,
            "user",
            True,
        )
        assert conn.execute(select(sources.c.enabled).where(sources.c.id == "jiqizhixin")).scalar() is False
    assert (
        client.patch(
            "/api/sources/jiqizhixin", json={"enabled": True}, headers={"Authorization": f"Bearer {TOKEN}"}
        ).status_code
        == 200
    )
    assert next(s for s in client.get("/api/sources").json() if s["id"] == "jiqizhixin")["enabled"] is True


# --- the rest ------------------------------------------------------------------------------


def test_usage_per_day_and_output(client):
    data = client.get("/api/usage", params={"days": 30}).json()
    total = data["total"]
    assert (total["calls"], total["cache_hits"], total["prompt_tokens"], total["cached_tokens"]) == (3, 1, 4500, 1900)
    assert total["cached_share"] == pytest.approx(1900 / 4500)
    assert total["cost_usd"] == pytest.approx(0.034)
    outputs = {s["output"]: s for s in data["per_output"]}
    assert outputs["analysis"]["calls"] == 2 and outputs["translation"]["cost_usd"] == pytest.approx(0.004)
    assert len(data["per_day"]) == 2 and len(data["per_day_output"]) == 3
    html = client.get("/usage").text
    assert "42.2%" in html and "0.0340" in html


def test_weekly_and_episode_editions_with_language_toggle_and_archive(client):
    latest = client.get("/weekly").text
    assert "AI周报 2026-W17" in latest and "2026-W17 中文正文" in latest
    assert 'href="/weekly/2026-W16"' in latest  # archive
    assert 'href="/weekly/2026-W17?lang=en"' in latest
    en = client.get("/weekly/2026-W17?lang=en").text
    assert "2026-W17 English body" in en and "ai-weekly" not in en
    zh = client.get("/weekly/2026-W16").text
    # As the published site shows it: its date and summary (Notion's properties are the Markdown export's,
    # never a reader's), each theme a heading, the language by name.
    assert "ai-weekly-2026-W16" not in zh and "<dt>" not in zh and 'class="weekly-summary"' in zh
    assert "<h2>模型发布</h2>" in zh and "<h2>📊 本周概览</h2>" in zh and "<strong>Cognition 融资</strong>" in zh
    assert "<strong>中文</strong>" in zh and re.search(r'hreflang="en">英文</a>', zh) and "zh: zh" not in zh
    ep = client.get("/episodes").text
    assert "42. 智能体的未来" in ep and "未经模型撰写" in ep  # the extractive edition says so
    assert "43. 未通过的一期" not in ep and client.get("/episodes/ep-43").status_code == 404
    assert client.get("/weekly/2030-W01").status_code == 404
    assert client.get("/api/editions/weekly/2026-W16", params={"lang": "en"}).json()["title"] == "AI Weekly 2026-W16"


def test_interface_language_switch_and_no_open_redirect(client):
    r = client.get("/ui/en", params={"next": "/sources"}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/sources"
    html = client.get("/").text
    assert "All · 2026-04-23" in html and "Previous day" in html
    assert (
        client.get("/ui/zh", params={"next": "//evil.example.com"}, follow_redirects=False).headers["location"] == "/"
    )
    assert "全部 · 2026-04-23" in client.get("/").text


def test_markdown_bodies_are_sanitized(client):
    html = client.get("/events/2").text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html  # shown as text, not run
    assert not re.search(r"href=\"\s*javascript:", html, re.I)  # the hostile markdown link got no href
    assert "正文没披露 ARR" in html


def test_serve_refuses_a_busy_port_with_one_line(tmp_path, monkeypatch):
    import socket

    from typer.testing import CliRunner

    from newsdesk.cli import _state, app

    monkeypatch.setenv("NEWSDESK_DATA_DIR", str(tmp_path))
    _state.clear()
    with socket.create_server(("127.0.0.1", 0)) as busy:
        port = busy.getsockname()[1]
        result = CliRunner().invoke(app, ["serve", "--port", str(port)])
    _state.clear()
    assert result.exit_code == 2
    assert f"cannot listen on 127.0.0.1:{port}" in result.output
