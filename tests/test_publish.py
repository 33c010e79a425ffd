"""Publishing: the site's files and links, escaping, feeds that parse back, front matter, and incrementality."""

from __future__ import annotations

import json
import os
import posixpath
import re
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path

import feedparser
import pytest
from sqlalchemy import insert
from test_daily import seed

from newsdesk.core.config import Settings
from newsdesk.editions.daily import build_daily
from newsdesk.publish.markdown import split_front_matter
from newsdesk.publish.site import publish_site
from newsdesk.store.edition_rows import store_edition
from newsdesk.store.schema import analyses

HOSTILE = '<script>alert("x")</script>'


def weekly_meta(week: str) -> dict:
    summary = "本周最清晰的信号是：DeepSeek V4 发布。第二条主线是 RAG。第三条是评测。"
    return {
        "week": week,
        "properties": {
            "type": "Post",
            "status": "Published",
            "date": "Mar 16, 2026 09:00",
            "slug": f"ai-weekly-{week}",
            "summary": summary,
        },
        "summary": summary,
        "overview": ["模型发布：看 DeepSeek V4 的上下文长度。"],
        "sections": [
            {
                "heading": "模型发布",
                "status": "clean",
                "findings": [],
                "events": [1],
                "text": "模型发布\n\n开篇。\n\nDeepSeek V4（机器之心）发布了 1M 上下文。\n\n收束。",
            }
        ],
        "briefs": [{"event_id": 2, "title": "一篇 RAG 论文", "source": "Simon Willison", "text": "只有标题。"}],
        "flags": [],
        "events": 2,
    }


@pytest.fixture
def published(sqlite_engine, tmp_path):
    settings = Settings(site_dir=str(tmp_path / "site"), site_name="测试台", site_url="https://news.example/ai/")
    with sqlite_engine.begin() as conn:
        big, small, _ = seed(conn)
        # Feed-supplied text is hostile until escaped.
        conn.execute(
            insert(analyses).values(
                event_id=big,
                language="en",
                headline=f"DeepSeek V4 {HOSTILE}",
                body=f"First.\n\nSecond {HOSTILE}.",
                status="clean",
                flags=[],
                material_key="k",
                created_at=datetime(2026, 3, 12, tzinfo=UTC),
            )
        )
    build_daily(sqlite_engine, settings, "2026-03-12")
    build_daily(sqlite_engine, settings, "2026-03-13")
    with sqlite_engine.begin() as conn:
        when = datetime(2026, 3, 16, 1, 0, tzinfo=UTC)
        store_edition(
            conn,
            kind="weekly",
            key="2026-W11",
            language="zh",
            title="AI周报 2026-W11 | 测试台",
            body="(the weekly report)",
            meta=weekly_meta("2026-W11"),
            status="clean",
            material_key="w",
            now=when,
        )
        store_edition(
            conn,
            kind="episode",
            key="ep 42/x",
            language="en",
            title=f"42. Talk {HOSTILE}",
            body=f"Summary\n\n• one [bad](javascript:alert(1)) {HOSTILE}\n• two",
            meta={"extractive": True},
            status="clean",
            material_key="e",
            now=when,
        )
        # A part that failed its checks is never published: it stays in the store, off the site.
        store_edition(
            conn,
            kind="episode",
            key="ep-43",
            language="en",
            title="43. Failed",
            body="Summary\n\n• loop loop",
            meta={},
            status="flagged",
            material_key="f",
            now=when,
        )
    stats = publish_site(sqlite_engine, settings)
    return settings, Path(settings.site_dir), stats, sqlite_engine


class Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("href", "src") and value:
                self.links.append(value)


def test_site_has_every_page_and_every_link_resolves(published):
    _, site, stats, _ = published
    expected = [
        "index.html",
        "style.css",
        "zh/index.html",
        "en/index.html",
        "zh/daily/2026-03-12.html",
        "zh/daily/2026-03-12-featured.html",
        "zh/daily/2026-03-12-category-research.html",
        "zh/daily/2026-03-12.md",
        "en/daily/2026-03-13.html",
        "zh/weekly/2026-W11.html",
        "zh/weekly/2026-W11.md",
        "en/episodes/ep-42-x.html",
        "en/episodes/ep-42-x.md",
        "zh/daily.xml",
        "zh/daily.json",
        "zh/weekly.xml",
        "zh/weekly.json",
        "en/daily.xml",
        "en/daily.json",
    ]
    for path in expected:
        assert (site / path).is_file(), path
    events = sorted(p.name for p in (site / "zh/events").iterdir())
    assert len(events) == 3
    assert stats.written == stats.pages and not stats.skipped
    checked = 0
    for page in site.rglob("*.html"):
        parser = Links()
        parser.feed(page.read_text("utf-8"))
        for link in parser.links:
            if link.startswith(("https://", "http://")):
                continue
            if link.startswith("#"):  # the day's headline list links to its cards on the same page
                assert f'id="{link[1:]}"' in page.read_text("utf-8"), f"{page}: {link}"
                checked += 1
                continue
            target = posixpath.normpath(posixpath.join(posixpath.dirname(page.relative_to(site).as_posix()), link))
            assert (site / target.split("#")[0]).is_file(), f"{page}: {link}"
            checked += 1
    assert checked > 50


def test_feed_text_is_escaped_and_bad_links_dropped(published):
    _, site, _, _ = published
    event_page = (site / "en/events").glob("*.html")
    html = "".join(p.read_text("utf-8") for p in event_page)
    assert "&lt;script&gt;" in html and "<script>" not in html
    episode = (site / "en/episodes/ep-42-x.html").read_text("utf-8")
    assert "<script>" not in episode and "&lt;script&gt;" in episode
    assert not re.search(r'href="\s*javascript:', episode, re.I)  # the link stays inert text
    assert "not written by a model" in episode  # an extractive edition says so
    assert not list(site.rglob("ep-43*")) and "43. Failed" not in (site / "en/index.html").read_text("utf-8")


def test_daily_page_shows_tabs_cards_and_check_status(published):
    _, site, _, _ = published
    page = (site / "zh/daily/2026-03-12.html").read_text("utf-8")
    assert "<h1>全部 · 2026-03-12</h1>" in page
    assert page.index("DeepSeek V4：1M 上下文") < page.index("RAG 论文")
    assert 'href="https://jqzx.example/a"' in page and "2026-03-12 02:00" in page
    # The flagged analysis is withheld: the card lists its sources and says there is no analysis.
    assert "只有标题。" not in page and "分析尚未生成" in page and "42%" not in page
    assert ">精选 <small>1</small>" in page
    # A card on its first day is no update (Jinja's card.update was dict.update, always true).
    assert "update-mark" not in page and "更新" not in page


def test_rss_and_json_feed_parse_back(published):
    settings, site, _, _ = published
    for lang, kind, count in (("zh", "daily", 2), ("zh", "weekly", 1), ("en", "daily", 2)):
        parsed = feedparser.parse((site / f"{lang}/{kind}.xml").read_bytes())
        assert parsed.bozo == 0, parsed.get("bozo_exception")
        assert len(parsed.entries) == count
        assert all(e.link.startswith(settings.site_url) and e.published_parsed for e in parsed.entries)
        doc = json.loads((site / f"{lang}/{kind}.json").read_text("utf-8"))
        assert doc["version"] == "https://jsonfeed.org/version/1.1" and doc["title"]
        assert len(doc["items"]) == count
        assert all(i["id"] and (i.get("content_html") or i.get("content_text")) for i in doc["items"])
        # Each item carries its edition's own date: the day or week it covers, not the build time
        # (the dailies were built just now, the weekly the morning after its week ended).
        dates = {i["url"].rsplit("/", 1)[1]: i["date_published"] for i in doc["items"]}
        assert dates == (
            {"2026-03-12.html": "2026-03-12T23:59:59+08:00", "2026-03-13.html": "2026-03-13T23:59:59+08:00"}
            if kind == "daily"
            else {"2026-W11.html": "2026-03-15T23:59:59+08:00"}
        )
    weekly = feedparser.parse((site / "zh/weekly.xml").read_bytes()).entries[0]
    assert weekly.title == "AI周报 2026-W11 | 测试台" and "📌 本周简讯" in weekly.content[0].value


def test_the_weekly_page_shows_readers_its_date_and_summary_and_notion_its_properties(published):
    _, site, _, _ = published
    page = (site / "zh/weekly/2026-W11.html").read_text("utf-8")
    assert "本周最清晰的信号是：DeepSeek V4 发布。" in page and "Mar 16, 2026 09:00" in page
    assert "ai-weekly-2026-W11" not in page and "<dt>" not in page and ">Post<" not in page
    fields, _ = split_front_matter((site / "zh/weekly/2026-W11.md").read_text("utf-8"))
    assert fields["slug"] == "ai-weekly-2026-W11" and fields["type"] == "Post"  # the Markdown export keeps them


def test_markdown_front_matter_imports(published):
    _, site, _, _ = published
    fields, body = split_front_matter((site / "zh/weekly/2026-W11.md").read_text("utf-8"))
    for key in ("title", "date", "slug", "summary", "tags", "lang", "type", "status"):
        assert fields[key], key
    assert fields["slug"] == "ai-weekly-2026-W11" and fields["type"] == "Post" and fields["lang"] == "zh"
    assert datetime.fromisoformat(fields["date"]).utcoffset().total_seconds() == 8 * 3600
    assert "## 📊 本周概览" in body and "## 模型发布" in body and "## 📌 本周简讯" in body
    fields, body = split_front_matter((site / "zh/daily/2026-03-12.md").read_text("utf-8"))
    assert fields["title"] == "全部 · 2026-03-12" and str(fields["date"]) == "2026-03-12"
    # The headline list first, each line linking to the event's page under site_url, then the cards.
    assert body.lstrip().startswith(
        "## 今日要闻\n\n- 1. [DeepSeek V4：1M 上下文](https://news.example/ai/zh/events/1.html) · 2 个来源"
    )
    assert "\n## 1. [DeepSeek V4：1M 上下文](https://news.example/ai/zh/events/1.html)\n" in body
    fields, _ = split_front_matter((site / "en/episodes/ep-42-x.md").read_text("utf-8"))
    assert fields["extractive"] is True and fields["status"] == "Published"


def test_publishing_twice_rewrites_nothing_and_a_change_rewrites_only_its_pages(published):
    settings, site, first, engine = published
    mtimes = {p: p.stat().st_mtime_ns for p in site.rglob("*") if p.is_file()}
    again = publish_site(engine, settings)
    assert again.skipped and again.written == 0 and again.pages == first.pages
    assert {p: p.stat().st_mtime_ns for p in site.rglob("*") if p.is_file()} == mtimes
    # One more English analysis changes the 13th's English page, its event page, the feeds and index.
    with engine.begin() as conn:
        conn.execute(
            insert(analyses).values(
                event_id=3,
                language="en",
                headline="The next day",
                body="Body.",
                status="clean",
                flags=[],
                material_key="k",
                created_at=datetime(2026, 3, 13, tzinfo=UTC),
            )
        )
    build_daily(engine, settings, "2026-03-13")
    os.utime(site / "zh/daily/2026-03-12.html", ns=(1, 1))  # a sentinel: must stay untouched
    before = {p: p.stat().st_mtime_ns for p in site.rglob("*") if p.is_file()}
    third = publish_site(engine, settings)
    changed = sorted(str(p.relative_to(site)) for p in before if p.stat().st_mtime_ns != before[p])
    assert not third.skipped and third.written == len(changed) - 1  # the manifest is not a page
    assert changed == [
        ".publish-manifest.json",
        "en/daily.json",
        "en/daily.xml",
        "en/daily/2026-03-13-category-research.html",
        "en/daily/2026-03-13-p1.html",
        "en/daily/2026-03-13.html",
        "en/daily/2026-03-13.md",
        "en/events/3.html",
    ]
    assert "The next day" in (site / "en/daily/2026-03-13.html").read_text("utf-8")
