"""The daily edition: which events a day holds, their order, cards, tabs and skipping an unchanged day."""

from __future__ import annotations

from datetime import UTC, date, datetime

from rows import add_source
from sqlalchemy import insert, select, update

from newsdesk.core.config import Settings
from newsdesk.editions.daily import build_dailies, build_daily
from newsdesk.store.days import local_day_bounds
from newsdesk.store.schema import analyses, editions, event_members, events, items


def add_event(conn, *, title, when, score, tab="all", category="research", members=(), now=None):
    """An event with its member items; `members` = [(source_id, title, url, published_at, role)]."""
    now = now or datetime.now(UTC)
    event_id = conn.execute(
        insert(events).values(
            title=title,
            first_published_at=min(m[3] for m in members),
            last_published_at=when,
            item_count=len(members),
            outlets=len({m[0] for m in members}),
            independent_outlets=1,
            languages=["zh"],
            category=category,
            score=score,
            tab=tab,
            updated_at=now,
        )
    ).inserted_primary_key[0]
    for source_id, item_title, url, published, role in members:
        item_id = conn.execute(
            insert(items).values(
                source_id=source_id,
                guid=url,
                url=url,
                title=item_title,
                summary=item_title,
                language="zh",
                published_at=published,
                first_seen_at=now,
                updated_at=now,
                material_level="summary",
                content_hash=url,
            )
        ).inserted_primary_key[0]
        conn.execute(insert(event_members).values(item_id=item_id, event_id=event_id, role=role, joined_at=now))
    return event_id


def seed(conn):
    for sid, name in (("jqzx", "机器之心"), ("qbit", "量子位"), ("simonw", "Simon Willison")):
        add_source(conn, sid, name)
    t = lambda d, h: datetime(2026, 3, d, h, 0, tzinfo=UTC)  # noqa: E731
    # 2026-03-11 20:00 UTC is 03-12 04:00 in Shanghai: belongs to the 12th.
    big = add_event(
        conn,
        title="DeepSeek V4 发布",
        when=t(11, 20),
        score=0.9,
        tab="featured",
        category="model",
        members=[
            ("jqzx", "DeepSeek V4 发布，1M 上下文", "https://jqzx.example/a", t(11, 18), "lead"),
            ("qbit", "DeepSeek V4 来了", "https://qbit.example/a", t(11, 20), "member"),
        ],
    )
    small = add_event(
        conn,
        title="一篇 RAG 论文",
        when=t(12, 3),
        score=0.4,
        members=[("simonw", "A RAG paper", "https://simonw.example/b", t(12, 3), "lead")],
    )
    # Late on the 12th in UTC = the 13th in Shanghai: not on the 12th's page.
    other = add_event(
        conn,
        title="第二天的事",
        when=t(12, 17),
        score=0.99,
        tab="p1",
        members=[("qbit", "第二天的事", "https://qbit.example/c", t(12, 17), "lead")],
    )
    conn.execute(
        insert(analyses).values(
            event_id=big,
            language="zh",
            headline="DeepSeek V4：1M 上下文",
            body="第一段。\n\n第二段。",
            status="clean",
            flags=[],
            material_key="k",
            created_at=t(12, 1),
        )
    )
    conn.execute(
        insert(analyses).values(
            event_id=small,
            language="zh",
            headline="RAG 论文",
            body="只有标题。",
            status="flagged",
            flags=["number 42% not in the material"],
            material_key="k",
            created_at=t(12, 4),
        )
    )
    return big, small, other


def test_day_bounds_follow_the_newsroom_timezone():
    start, end = local_day_bounds(date(2026, 3, 12), "Asia/Shanghai")
    assert start == datetime(2026, 3, 11, 16, tzinfo=UTC) and end == datetime(2026, 3, 12, 16, tzinfo=UTC)


def test_daily_edition_cards_order_tabs_and_check_status(engine):
    settings = Settings()
    with engine.begin() as conn:
        big, small, other = seed(conn)
    stats = build_daily(engine, settings, "2026-03-12")
    assert stats.events == 2 and stats.built == ["zh", "en"]
    with engine.connect() as conn:
        zh = conn.execute(
            select(editions).where(
                editions.c.kind == "daily", editions.c.key == "2026-03-12", editions.c.language == "zh"
            )
        ).one()
        en = conn.execute(select(editions).where(editions.c.key == "2026-03-12", editions.c.language == "en")).one()
    assert zh.title == "全部 · 2026-03-12" and en.title == "All · 2026-03-12"
    assert zh.body.startswith("# 全部 · 2026-03-12\n")
    cards = zh.meta["cards"]
    assert [c["event_id"] for c in cards] == [big, small]  # by score; `other` is on the 13th
    assert cards[0]["headline"] == "DeepSeek V4：1M 上下文"
    assert [m["outlet"] for m in cards[0]["members"]] == ["机器之心", "量子位"]  # lead first
    assert cards[0]["members"][0]["published_at"] == "2026-03-12 02:00"  # Shanghai time
    # A flagged analysis is never published as content: the card shows the lead's summary instead.
    assert cards[1]["check"] == "missing" and cards[1]["analysis"] is None and zh.status == "clean"
    assert "只有标题。" not in zh.body and "42%" not in zh.body
    assert "[DeepSeek V4 发布，1M 上下文](https://jqzx.example/a) — 机器之心 · 2026-03-12 02:00" in zh.body
    tabs = {t["id"]: t["events"] for t in zh.meta["tabs"]}
    assert tabs["all"] == [big, small] and tabs["featured"] == [big] and tabs["category-research"] == [small]
    assert "p1" in tabs and tabs["p1"] == [big]
    # No English analysis: the card falls back to the event title and says there is none.
    assert en.meta["cards"][0]["headline"] == "DeepSeek V4 发布" and en.meta["cards"][0]["check"] == "missing"
    assert "No analysis yet." in en.body


def test_unchanged_day_is_not_rebuilt_and_a_new_analysis_is(engine):
    settings = Settings(languages=["zh"])
    with engine.begin() as conn:
        big, small, _ = seed(conn)
    build_daily(engine, settings, date(2026, 3, 12))
    with engine.connect() as conn:
        first = conn.execute(select(editions.c.updated_at, editions.c.id)).one()
    again = build_daily(engine, settings, date(2026, 3, 12))
    assert again.built == [] and again.unchanged == ["zh"]
    with engine.connect() as conn:
        assert conn.execute(select(editions.c.updated_at, editions.c.id)).one() == first
    with engine.begin() as conn:
        conn.execute(update(analyses).where(analyses.c.event_id == small).values(status="clean", flags=[]))
    third = build_daily(engine, settings, date(2026, 3, 12))
    assert third.built == ["zh"]
    with engine.connect() as conn:
        row = conn.execute(select(editions)).one()
    assert row.status == "clean" and row.id == first.id


def test_build_dailies_covers_every_day_with_events(sqlite_engine):
    settings = Settings(languages=["zh"])
    with sqlite_engine.begin() as conn:
        seed(conn)
    built = build_dailies(sqlite_engine, settings)
    assert [s.date.isoformat() for s in built] == ["2026-03-12", "2026-03-13"]
    assert all(s.events for s in built)


def test_checker_findings_show_as_lines_without_warnings():
    from newsdesk.editions.cards import flag_lines

    findings = [
        {"kind": "number", "detail": "number not in the material: 42%", "span": "42%", "severity": "error"},
        {"kind": "name", "detail": "name not in the material: ASP", "span": "ASP", "severity": "warn"},
        "hand-written note",
    ]
    assert flag_lines(findings) == ["number not in the material: 42%", "hand-written note"]


def test_web_feed_shows_the_daily_editions_cards_tabs_and_order(sqlite_engine):
    """One card builder and one set of tabs: the web app's feed and the published day agree."""
    from zoneinfo import ZoneInfo

    from newsdesk.serve import queries

    settings = Settings(languages=["zh", "en"])
    with sqlite_engine.begin() as conn:
        seed(conn)
    build_daily(sqlite_engine, settings, "2026-03-12")
    with sqlite_engine.connect() as conn:
        stored = conn.execute(
            select(editions.c.meta).where(editions.c.key == "2026-03-12", editions.c.language == "zh")
        ).scalar_one()
        for tab in stored["tabs"]:
            web = queries.feed(conn, date(2026, 3, 12), tab["id"], ZoneInfo(settings.timezone), lang="zh")
            assert web["tabs"] == stored["tabs"] and web["label"] == tab["label"]
            assert [{k: v for k, v in c.items() if k != "feedback"} for c in web["events"]] == [
                c for c in stored["cards"] if c["event_id"] in tab["events"]
            ]


def test_cards_tell_outlets_from_member_items_in_both_languages(engine):
    with engine.begin() as conn:
        seed(conn)
    build_daily(engine, Settings(), "2026-03-12")
    with engine.connect() as conn:
        rows = conn.execute(select(editions).where(editions.c.key == "2026-03-12")).all()
    body = {r.language: r.body for r in rows}
    cards = {r.language: r.meta["cards"] for r in rows}
    assert "2 个来源 / 1 独立" in body["zh"] and "\n报道:\n" in body["zh"]
    # In English the DeepSeek event, told only in Chinese, is one line of "Reported in Chinese"; its card still
    # counts its outlets, and the English-led card its one outlet.
    assert [b["text"] for b in cards["en"][0]["badges"] if b["kind"] == "outlets"] == ["2 outlets / 1 independent"]
    assert " · 1 outlet · " in body["en"] and "\nCoverage:\n" in body["en"]
    assert body["en"].endswith(
        "# Reported in Chinese (1)\n\n- [DeepSeek V4 发布，1M 上下文](https://jqzx.example/a) — 机器之心\n"
    )


def test_an_event_stays_on_its_first_day_and_returns_only_as_an_update_when_it_grows(sqlite_engine):
    """GPT-5.4 launched on the 5th is the 5th's news; the 6th shows it again, marked, only because a
    new outlet reported it then, that report first; a second piece from an outlet already counted
    (the 7th) is no growth."""
    from zoneinfo import ZoneInfo

    from newsdesk.serve import queries
    from newsdesk.store.days import day_events, event_dates, event_days

    settings = Settings(languages=["zh", "en"])
    t = lambda d, h: datetime(2026, 3, d, h, 0, tzinfo=UTC)  # noqa: E731
    with sqlite_engine.begin() as conn:
        seed(conn)
        launch = add_event(
            conn,
            title="GPT-5.4 发布",
            when=t(7, 2),
            score=2.0,
            tab="featured",
            members=[
                ("jqzx", "OpenAI 发布 GPT-5.4", "https://jqzx.example/g", t(5, 2), "lead"),
                ("qbit", "GPT-5.4 实测", "https://qbit.example/g", t(6, 3), "member"),
                ("jqzx", "GPT-5.4 再解读", "https://jqzx.example/g2", t(7, 2), "member"),
            ],
        )
        conn.execute(update(events).where(events.c.id == launch).values(importance=5.0))
        assert [e.id for e in day_events(conn, date(2026, 3, 5), settings.timezone)] == [launch]
        assert not day_events(conn, date(2026, 3, 5), settings.timezone)[0].update
        again = day_events(conn, date(2026, 3, 6), settings.timezone)
        assert [(e.id, e.update, e.tab) for e in again] == [(launch, True, "p1")]  # never featured on a later day
        assert day_events(conn, date(2026, 3, 7), settings.timezone) == []
        assert event_days(conn, launch, settings.timezone) == [date(2026, 3, 5), date(2026, 3, 6)]
        assert [d.isoformat() for d in event_dates(conn, settings.timezone)] == [
            "2026-03-05",
            "2026-03-06",
            "2026-03-12",
            "2026-03-13",
        ]
    build_daily(sqlite_engine, settings, "2026-03-06")
    with sqlite_engine.connect() as conn:
        stored = dict(
            conn.execute(select(editions.c.language, editions.c.meta).where(editions.c.key == "2026-03-06")).all()
        )
        body = conn.execute(
            select(editions.c.body).where(editions.c.key == "2026-03-06", editions.c.language == "zh")
        ).scalar()
        card = stored["zh"]["cards"][0]
        assert (
            card["update"] and [m["title"] for m in card["members"]][0] == "GPT-5.4 实测"
        )  # the day's new report first
        assert "更新 · 要闻" in body
        web = queries.feed(conn, date(2026, 3, 6), "all", ZoneInfo(settings.timezone), lang="zh")
        assert [{k: v for k, v in c.items() if k != "feedback"} for c in web["events"]] == stored["zh"]["cards"]


def test_a_date_without_a_time_of_day_shows_as_the_date_alone(sqlite_engine, tmp_path):
    from newsdesk.ingest.jsonl import read_harvest
    from newsdesk.store.items import sync_sources, upsert_item

    harvest = tmp_path / "harvest.jsonl"
    harvest.write_text(
        '{"title": "英伟达 Q4 营收 681 亿美元", "link": "https://x.example/nv", "source": "机器之心", '
        '"pub_date": "2026-02-26", "summary": "同比增长 73%"}\n',
        encoding="utf-8",
    )
    [(source, item)] = list(read_harvest(harvest))
    with sqlite_engine.begin() as conn:
        sync_sources(conn, [source])
        upsert_item(conn, item, now=datetime(2026, 3, 1, tzinfo=UTC))
        item_id = conn.execute(select(items.c.id)).scalar_one()
        event_id = conn.execute(
            insert(events).values(
                title="英伟达",
                first_published_at=datetime(2026, 2, 26, tzinfo=UTC),
                last_published_at=datetime(2026, 2, 26, tzinfo=UTC),
                item_count=1,
                outlets=1,
                independent_outlets=1,
                updated_at=datetime(2026, 3, 1, tzinfo=UTC),
            )
        ).inserted_primary_key[0]
        conn.execute(
            insert(event_members).values(
                item_id=item_id, event_id=event_id, role="lead", joined_at=datetime(2026, 3, 1, tzinfo=UTC)
            )
        )
    build_daily(sqlite_engine, Settings(languages=["zh"]), "2026-02-26")
    with sqlite_engine.connect() as conn:
        meta = conn.execute(select(editions.c.meta).where(editions.c.key == "2026-02-26")).scalar()
    assert meta["cards"][0]["members"][0]["published_at"] == "2026-02-26"  # not "2026-02-26 08:00"


def test_off_topic_events_close_the_day_under_other(sqlite_engine):
    """An event rank/score.py found not about AI stays on its day, after the news, under 其他 / Other."""
    settings = Settings(languages=["zh"])
    with sqlite_engine.begin() as conn:
        seed(conn)
        t = datetime(2026, 3, 12, 1, tzinfo=UTC)
        off = add_event(
            conn,
            title="艾滋病为何难以痊愈",
            when=t,
            score=0.99,
            members=[("qbit", "艾滋病为何难以痊愈", "https://qbit.example/hiv", t, "lead")],
        )
        conn.execute(update(events).where(events.c.id == off).values(importance=-1.5, score_parts={"off_topic": -3.0}))
    build_daily(sqlite_engine, settings, "2026-03-12")
    with sqlite_engine.connect() as conn:
        body, meta = conn.execute(select(editions.c.body, editions.c.meta).where(editions.c.key == "2026-03-12")).one()
    assert [c["other"] for c in meta["cards"]] == [False, False, True]
    assert body.index("# 其他") > body.index("RAG 论文") and body.index("# 其他") < body.index("艾滋病为何难以痊愈")


def test_a_day_whose_only_event_is_off_topic_gets_no_edition(sqlite_engine, tmp_path):
    """A changelog's undated line first seen on 03-14 ("v2.1.114: Fixed a crash…", off-topic) is that
    day's only event: the site, its feeds and the push get no edition saying nothing; one stored
    while the day had news is withdrawn; `newsdesk daily` with no date builds the newest day with
    news. The web app still lists the day (tests/test_web_app.py)."""
    from newsdesk.publish.site import publish_site

    settings = Settings(languages=["zh", "en"], site_dir=str(tmp_path / "site"))
    t = datetime(2026, 3, 14, 2, tzinfo=UTC)
    with sqlite_engine.begin() as conn:
        seed(conn)
        line = add_event(
            conn, title="v2.1.114", when=t, score=0.1,
            members=[("simonw", "v2.1.114", "https://simonw.example/changelog#2.1.114", t, "lead")],
        )  # fmt: skip
    assert build_daily(sqlite_engine, settings, "2026-03-14").built == ["zh", "en"]  # ranked as news so far
    with sqlite_engine.begin() as conn:
        conn.execute(update(events).where(events.c.id == line).values(importance=-2.5, score_parts={"off_topic": -3.0}))
    stats = build_daily(sqlite_engine, settings, "2026-03-14")
    assert stats.quiet and stats.events == 1 and not stats.built
    assert build_daily(sqlite_engine, settings).date == date(2026, 3, 13)  # the newest day with news
    with sqlite_engine.connect() as conn:
        assert set(conn.execute(select(editions.c.key).where(editions.c.kind == "daily")).scalars()) == {"2026-03-13"}
    build_dailies(sqlite_engine, settings)
    publish_site(sqlite_engine, settings)
    index = (tmp_path / "site" / "zh" / "index.html").read_text("utf-8")
    assert "2026-03-13" in index and "2026-03-12" in index and "2026-03-14" not in index
    assert not (tmp_path / "site" / "zh" / "daily" / "2026-03-14.html").exists()


def test_a_feeds_back_catalogue_gets_no_day(sqlite_engine):
    """Paul Graham's feed lists essays from 1995 beside this month's: first seen in one run, the old
    ones were old when they came and get no daily page; a harvest backfilled weeks at once keeps its days."""
    from newsdesk.store.days import back_catalogue, day_events, event_dates

    settings = Settings(languages=["zh"])
    first_run, later = datetime(2026, 7, 4, tzinfo=UTC), datetime(2026, 8, 22, tzinfo=UTC)
    with sqlite_engine.begin() as conn:
        seed(conn)
        essay = add_event(
            conn,
            title="How to Start a Startup",
            when=datetime(1995, 3, 1, tzinfo=UTC),
            score=1.0,
            members=[
                (
                    "simonw",
                    "How to Start a Startup",
                    "https://pg.example/1995",
                    datetime(1995, 3, 1, tzinfo=UTC),
                    "lead",
                )
            ],
            now=first_run,
        )
        new = add_event(
            conn,
            title="A new essay",
            when=datetime(2026, 7, 1, tzinfo=UTC),
            score=1.0,
            members=[("simonw", "A new essay", "https://pg.example/2026", datetime(2026, 7, 1, tzinfo=UTC), "lead")],
            now=first_run,
        )
        # Weeks older than the newest item, all seen at once (a harvest backfill): still news.
        backfilled = add_event(
            conn,
            title="Six weeks back",
            when=datetime(2026, 5, 20, tzinfo=UTC),
            score=1.0,
            members=[("simonw", "Six weeks back", "https://pg.example/may", datetime(2026, 5, 20, tzinfo=UTC), "lead")],
            now=first_run,
        )
        # A source's newest item when first seen counts, not one that came later.
        add_event(
            conn,
            title="Much later",
            when=later,
            score=1.0,
            members=[("jqzx", "Much later", "https://jqzx.example/late", later, "lead")],
            now=later,
        )
        # An undated item of the same run (a harvest replayed months on, stamped with the time it was
        # seen) makes nothing of its source old.
        seen = datetime(2027, 3, 1, tzinfo=UTC)
        stamped = add_event(
            conn,
            title="No date of its own",
            when=seen,
            score=1.0,
            members=[("simonw", "No date of its own", "https://pg.example/undated", seen, "lead")],
            now=first_run,
        )
        conn.execute(update(items).where(items.c.url == "https://pg.example/undated").values(dated_by="first_seen"))
        assert back_catalogue(conn) == {essay}
        assert stamped not in back_catalogue(conn)
        days = event_dates(conn, settings.timezone)
        assert date(1995, 3, 1) not in days and date(2026, 5, 20) in days and date(2026, 7, 1) in days
        assert day_events(conn, date(1995, 3, 1), settings.timezone) == []
        assert [e.id for e in day_events(conn, date(2026, 7, 1), settings.timezone)] == [new]
        assert [e.id for e in day_events(conn, date(2026, 5, 20), settings.timezone)] == [backfilled]


def test_a_feeds_back_catalogue_takes_no_days_featured_place_nor_a_place_in_its_week(sqlite_engine):
    """A blog first polled in August lists a January post among its new ones: no day lists that
    post, so it is no day's featured news either, and the day's own news is (a replayed 01-29
    featured "Inside OpenAI's in-house data agent", which its page did not show, and nothing else);
    nor is it in that week's report (W05's English weekly named it among the week's headlines)."""
    from newsdesk.rank.score import rank_events
    from newsdesk.write.weekly import week_events

    def report(conn, source, title, when, seen):
        url = f"https://{source}.example/{when:%m%d}"
        return add_event(
            conn, title=title, when=when, score=1.0, members=[(source, title, url, when, "lead")], now=seen
        )

    jan, aug = datetime(2026, 1, 29, 10, tzinfo=UTC), datetime(2026, 8, 22, tzinfo=UTC)
    with sqlite_engine.begin() as conn:
        seed(conn)
        archived = report(conn, "simonw", "OpenAI releases GPT-5.2", jan, aug)
        report(conn, "simonw", "An essay of August", datetime(2026, 8, 20, tzinfo=UTC), aug)
        own = report(conn, "qbit", "智谱发布新一代视觉模型", datetime(2026, 1, 29, 4, tzinfo=UTC), jan)
    rank_events(sqlite_engine, Settings(languages=["zh"]), now=aug)
    with sqlite_engine.connect() as conn:
        tab = dict(conn.execute(select(events.c.id, events.c.tab)).all())
        importance = dict(conn.execute(select(events.c.id, events.c.importance)).all())
    assert importance[archived] > importance[own]  # it would have taken the place
    assert tab[own] == "featured" and tab[archived] != "featured"
    with sqlite_engine.connect() as conn:
        assert [e.id for e in week_events(conn, Settings(languages=["zh"]), "2026-W05")] == [own]


def test_an_event_not_about_ai_told_only_in_chinese_is_a_line_of_the_english_fold_not_a_card(engine):
    """The Chinese edition shows it under 其他; an English reader gets its headline in the day's
    "Reported in Chinese" list, not a Chinese card under Other (the 2026-03-02 replay showed four)."""
    from newsdesk.core.labels import Labels

    with engine.begin() as conn:
        seed(conn)
        coffee = add_event(
            conn,
            title="喝杯咖啡或帮助抗癌？",
            when=datetime(2026, 3, 12, 6, tzinfo=UTC),
            score=0.1,
            members=[
                (
                    "qbit",
                    "喝杯咖啡或帮助抗癌？",
                    "https://qbit.example/coffee",
                    datetime(2026, 3, 12, 6, tzinfo=UTC),
                    "lead",
                )
            ],
        )
        conn.execute(
            update(events).where(events.c.id == coffee).values(importance=-2.0, score_parts={"off_topic": -3.0})
        )
    build_daily(engine, Settings(), "2026-03-12")
    with engine.connect() as conn:
        body = dict(
            conn.execute(select(editions.c.language, editions.c.body).where(editions.c.key == "2026-03-12")).all()
        )
    assert f"# {Labels('zh').other}" in body["zh"] and "喝杯咖啡或帮助抗癌？" in body["zh"]
    assert f"# {Labels('en').other}" not in body["en"]
    assert "# Reported in Chinese (2)" in body["en"]
    assert body["en"].endswith("- [喝杯咖啡或帮助抗癌？](https://qbit.example/coffee) — 量子位\n")
