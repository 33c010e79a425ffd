"""The web app in a real browser: Debian's Chromium driven by Playwright, against uvicorn on loopback."""

from __future__ import annotations

import pytest
from conftest import ARTIFACTS
from loopback import serve_app
from sqlalchemy import select
from test_web_app import TOKEN, seed_store

from newsdesk.core.config import Settings
from newsdesk.serve.app import create_app
from newsdesk.store.schema import feedback

pytestmark = pytest.mark.browser


@pytest.fixture
def server(sqlite_engine):
    """The app served by uvicorn in a thread on a free loopback port (tests/loopback.py)."""
    seed_store(sqlite_engine)
    app = create_app(sqlite_engine, Settings(web_token=TOKEN))
    with serve_app(app) as url:
        yield url


def test_reader_and_operator_journey(server, page, sqlite_engine):
    page.goto(server + "/")
    assert page.locator("h1.feed-head").inner_text() == "全部 · 2026-04-23"
    assert page.locator("article.card").count() == 3
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "feed.png"), full_page=True)
    assert (ARTIFACTS / "feed.png").stat().st_size > 10_000

    # Switch tab, then go back one day with the date navigation.
    page.click('nav.tabs a[data-tab="category-funding"]')
    page.wait_for_url("**tab=category-funding**")
    assert page.locator("article.card").count() == 1
    assert "Cognition" in page.locator("article.card h2").inner_text()
    page.click('nav.days a[rel="prev"]')
    page.wait_for_url("**day=2026-04-22**")
    assert page.locator("h1.feed-head").inner_text().endswith("2026-04-22")
    # The date form works too (no JavaScript needed: a plain GET form).
    page.fill('nav.days input[name="day"]', "2026-04-23")
    page.click('nav.days button[type="submit"]')
    page.wait_for_url("**day=2026-04-23**")

    # Open an event from the feed.
    page.click('nav.tabs a[data-tab="all"]')
    page.click("article#event-1 h2 a")
    page.wait_for_url("**/events/1")
    assert page.locator("table.members tbody tr").count() == 2
    assert page.locator("table.score-parts tbody tr").first.inner_text().startswith("authority")

    # Search a Chinese and an English term from the header box.
    page.fill('form.search input[name="q"]', "大模型")
    page.press('form.search input[name="q"]', "Enter")
    page.wait_for_url("**/search?q=**")
    assert "OpenAI 发布 GPT-5.5 大模型" in page.locator("section.results-items").inner_text()
    page.fill('form.search input[name="q"]', "valuation")
    page.press('form.search input[name="q"]', "Enter")
    page.wait_for_url("**q=valuation")
    assert "Cognition in talks" in page.locator("section.results-items").inner_text()

    # Log in, leave feedback, and find it in the store.
    page.goto(server + "/events/2")
    page.click("#feedback a")
    page.wait_for_url("**/login?next=**")
    page.fill('input[name="name"]', "editor-li")
    page.fill('input[name="token"]', TOKEN)
    page.click('form.login button[type="submit"]')
    page.wait_for_url("**/events/2")
    page.fill('form.feedback textarea[name="note"]', "估值缺经营数据，降权")
    page.click('form.feedback button[value="down"]')
    page.wait_for_url("**/events/2#feedback")
    assert "反馈已保存" in page.locator("p.flash").inner_text()
    assert "估值缺经营数据，降权" in page.locator("ul.feedback-list").inner_text()
    with sqlite_engine.connect() as conn:
        rows = conn.execute(select(feedback.c.event_id, feedback.c.kind, feedback.c.note, feedback.c.user)).all()
    assert [tuple(r) for r in rows] == [(2, "down", "估值缺经营数据，降权", "editor-li")]


def test_hostile_feed_item_renders_inert_in_the_browser(server, page):
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    for path in ("/", "/events/3", "/search?q=Evil"):
        page.goto(server + path)
        page.wait_for_load_state("load")
        assert page.evaluate("window.__pwned === undefined"), path  # no payload ran
        assert page.evaluate("document.querySelectorAll('script').length") == 0, path
        hrefs = page.evaluate("Array.from(document.querySelectorAll('[href]'), a => a.getAttribute('href'))")
        assert not [h for h in hrefs if h.strip().lower().startswith("javascript:")], path
        handlers = page.evaluate(
            "Array.from(document.querySelectorAll('*')).flatMap(el => Array.from(el.attributes)"
            ".filter(a => a.name.startsWith('on')).map(a => el.tagName + ' ' + a.name))"
        )
        assert handlers == [], path
        assert page.locator("img, svg").count() == 0, path
    # The payload's words are still there, as text.
    page.goto(server + "/events/3")
    assert "Evil" in page.locator("h1").inner_text()
    assert "plain words" in page.locator("table.members").inner_text()
    # Clicking the neutralised link goes nowhere dangerous either.
    page.get_by_text("click", exact=True).first.click()
    assert page.evaluate("window.__pwned === undefined")
    assert dialogs == []


@pytest.fixture
def story_server(sqlite_engine):
    """The app over a store holding one story (tests/test_stories.py: a launch, its benchmarks, a fix)."""
    from test_stories import BENCHMARKS, FIX, LAUNCH, NOISE, SAME_COMPANY, store_items

    from newsdesk.cluster import cluster_new_items
    from newsdesk.cluster.embed import UseEmbedder
    from newsdesk.stories.threads import link_stories

    store_items(sqlite_engine, LAUNCH + BENCHMARKS + FIX + SAME_COMPANY + NOISE)
    embedder = UseEmbedder(threads=2)
    cluster_new_items(sqlite_engine, Settings(), embedder=embedder)
    assert link_stories(sqlite_engine, Settings(), embedder=embedder).linked == 2
    app = create_app(sqlite_engine, Settings(web_token=TOKEN))
    with serve_app(app) as url:
        yield url


def test_a_story_timeline_on_the_event_page(story_server, page, sqlite_engine):
    from test_stories import event_of

    with sqlite_engine.connect() as conn:
        ev = event_of(conn)
    launch, bench, fix = ev["launch-1"], ev["bench-1"], ev["fix-1"]
    # The day of the fix: its card says what it follows up.
    page.goto(story_server + "/?day=2030-05-21&ui=en")
    card = page.locator(f"article#event-{fix}")
    assert card.locator("p.follows").inner_text().startswith("Follow-up of")
    # The benchmarks' page: the story's three events in time order, this one marked.
    page.goto(story_server + f"/events/{bench}?ui=en")
    timeline = page.locator("section.story ol.timeline li")
    assert timeline.count() == 3
    assert [int(timeline.nth(i).get_attribute("data-event-id")) for i in range(3)] == [launch, bench, fix]
    assert timeline.nth(1).get_attribute("aria-current") == "true"
    assert page.locator("section.story h2").inner_text() == "Story: Tessellate"  # what threads it
    assert "Follow-up of" in page.locator("p.follows").inner_text()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "story.png"), full_page=True)
    # Its links lead along the story.
    timeline.nth(0).locator("a").click()
    page.wait_for_url(f"**/events/{launch}")
    assert page.locator("section.story li[aria-current=true]").get_attribute("data-event-id") == str(launch)
    assert page.locator("p.follows").count() == 0, "the first event follows nothing"
