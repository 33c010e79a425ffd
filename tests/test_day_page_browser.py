"""The published day page in Chromium, as a reader scans it: the headline list first, each card's
notes one line of badges, more than three reports folded behind "N more", labels in the page's
language; the notes in full on the event page. The site is served over loopback HTTP."""

from __future__ import annotations

import functools
from datetime import UTC, datetime
from http.server import SimpleHTTPRequestHandler

import pytest
from loopback import serve_http
from rows import add_source
from sqlalchemy import insert
from test_daily import add_event, seed

from newsdesk.cluster import event_brief
from newsdesk.core.config import Settings
from newsdesk.editions.daily import build_daily
from newsdesk.publish.site import publish_site
from newsdesk.store.schema import analyses
from newsdesk.write.extractive.card import extractive_card

pytestmark = pytest.mark.browser


class Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture
def site(sqlite_engine, tmp_path):
    settings = Settings(site_dir=str(tmp_path / "site"), site_url="https://news.example/")
    t = lambda h: datetime(2026, 3, 12, h, 0, tzinfo=UTC)  # noqa: E731
    with sqlite_engine.begin() as conn:
        seed(conn)
        for sid, name in (("a36kr", "36氪"), ("huxiu", "虎嗅"), ("geek", "极客公园")):
            add_source(conn, sid, name, category="zh-media")
        wide = add_event(
            conn,
            title="英伟达第四财季营收681亿美元",
            when=t(8),
            score=0.8,
            tab="p1",
            category="zh-media",
            members=[
                (
                    sid,
                    f"英伟达财报：营收681亿美元，同比增长73%（{sid}）",
                    f"https://{sid}.example/nv",
                    t(n),
                    "lead" if n == 1 else "member",
                )
                for n, sid in enumerate(("jqzx", "qbit", "a36kr", "huxiu", "geek"), 1)
            ],
        )
        card = extractive_card(event_brief(conn, wide), "zh")  # as the offline writer stores it
        conn.execute(
            insert(analyses).values(
                event_id=wide,
                language="zh",
                headline=card.headline,
                body=card.body(),
                status="clean",
                flags=[],
                model="extractive",
                material_key="x",
                created_at=t(9),
            )
        )
    build_daily(sqlite_engine, settings, "2026-03-12")
    publish_site(sqlite_engine, settings)
    httpd = serve_http(functools.partial(Quiet, directory=settings.site_dir))
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", wide, card
    finally:
        httpd.shutdown()


def test_a_reader_scans_the_day_then_opens_a_card(site, page):
    url, wide, card = site
    page.goto(f"{url}/zh/daily/2026-03-12.html")
    # The headline list opens the page, before every card: featured first, then p1, with outlet counts.
    top = page.locator(".headlines li")
    assert top.all_inner_texts() == ["DeepSeek V4：1M 上下文 2 个来源", f"{card.headline} 5 个来源"]
    assert page.locator(".headlines").bounding_box()["y"] < page.locator("article.card").first.bounding_box()["y"]
    top.nth(1).locator("a").click()
    assert page.evaluate("location.hash") == f"#event-{wide}"
    assert page.locator(":target").get_attribute("data-event-id") == str(wide)  # the link lands on its card

    wide_card = page.locator(f"#event-{wide}")
    badges = wide_card.locator(".badge")
    assert badges.all_inner_texts() == ["原文摘录", "仅摘要", "5 个来源 / 1 独立", "✓ 已核查"]
    middles = [b["y"] + b["height"] / 2 for b in (badges.nth(i).bounding_box() for i in range(badges.count()))]
    assert max(middles) - min(middles) < 4  # one line
    text = wide_card.inner_text()
    assert card.coverage not in text and card.disclosure not in text  # the notes are the badges now
    assert card.lead[0].text in text  # the news is what the card reads
    # Three reports shown, two folded behind "另有 2 篇报道" until the reader opens it.
    assert wide_card.locator("ul.members").first.locator("li").count() == 3
    folded = wide_card.locator("details.more-members li")
    assert folded.count() == 2 and not folded.first.is_visible()
    wide_card.locator("details.more-members summary").click()
    assert folded.first.is_visible() and wide_card.locator("details summary").inner_text() == "另有 2 篇报道"

    # The event page keeps every disclosure in full.
    page.goto(f"{url}/zh/events/{wide}.html")
    notes = page.locator(".notes").inner_text()
    assert card.coverage in notes and card.disclosure in notes and "原文摘录" in notes

    # The English page: every label English, the category by its English name.
    page.goto(f"{url}/en/daily/2026-03-12.html")
    tabs = page.locator("nav.tabs a").all_inner_texts()
    assert "Chinese media 1" in tabs and not any("zh-media" in t for t in tabs)
    # Told only in Chinese: not a card of the English main list, but a line of the list that ends the
    # edition, "Reported in Chinese (N)": its original headline, linked, and the outlet.
    assert page.locator(f"article#event-{wide}").count() == 0
    # The one card left has an English report (its English card not written yet in this store).
    assert page.locator("article.card").count() == 1 and "Simon Willison" in page.locator("article.card").inner_text()
    fold = page.locator("#reported-in-chinese")
    assert fold.locator("h2").inner_text() == "Reported in Chinese (2)"
    line = fold.locator(f'li[data-event-id="{wide}"]')
    assert line.locator("a").inner_text() == card.headline
    assert line.locator("a").get_attribute("href").startswith("https://") and "·" in line.inner_text()
