"""A headline-only item's article page is fetched where the site's robots.txt allows newsdesk, so
its card can say more than the headline (Anthropic's news feed gives titles alone); a disallowed
page is never requested, and an item with a summary of a source not marked fulltext is left as
its feed gave it. Served on loopback, as the network would."""

from __future__ import annotations

import asyncio
from collections import Counter

from fakes import quick_fetch_settings
from loopback import Replies, serve_http
from sqlalchemy import select
from test_fulltext import ARTICLE

from newsdesk.core.model import Source
from newsdesk.ingest import run as ingest
from newsdesk.store.schema import items

ROBOTS = b"User-agent: *\nDisallow: /private/\n\nUser-agent: SomeOtherBot\nDisallow: /\n"


def _feed(port: int) -> bytes:
    base = f"http://127.0.0.1:{port}"
    entries = [
        ("Anthropic releases new Claude models", f"{base}/news/claude", ""),
        ("A page the site keeps from robots", f"{base}/private/memo", ""),
        ("A post with its summary", f"{base}/news/summary", "<description>What the feed says of it.</description>"),
    ]
    body = "".join(
        f"<item><title>{t}</title><link>{link}</link><guid>{link}</guid>"
        f"<pubDate>Thu, 20 Aug 2026 10:00:00 GMT</pubDate>{extra}</item>"
        for t, link, extra in entries
    )
    return f'<?xml version="1.0"?><rss version="2.0"><channel><title>Lab news</title>{body}</channel></rss>'.encode()


def test_a_headline_alone_fetches_its_page_where_robots_txt_allows(sqlite_engine):
    asked: Counter = Counter()

    class Site(Replies):
        def do_GET(self):
            asked[self.path] += 1
            if self.path == "/feed.xml":
                self.reply(200, _feed(self.server.server_address[1]), {"Content-Type": "application/rss+xml"})
            elif self.path == "/robots.txt":
                self.reply(200, ROBOTS, {"Content-Type": "text/plain"})
            elif self.path.startswith(("/news/", "/private/")):
                self.reply(200, ARTICLE.encode(), {"Content-Type": "text/html; charset=utf-8"})
            else:
                self.reply(404)

    httpd = serve_http(Site)
    port = httpd.server_address[1]
    catalog = [Source(id="lab", name="Lab news", url=f"http://127.0.0.1:{port}/feed.xml", language="en")]
    try:
        first = asyncio.run(ingest.ingest_all(sqlite_engine, quick_fetch_settings(), catalog))
        again = asyncio.run(ingest.ingest_all(sqlite_engine, quick_fetch_settings(), catalog))
    finally:
        httpd.shutdown()
    assert first[0].new == 3 and first[0].warnings == []
    with sqlite_engine.connect() as conn:
        got = {r.url.rsplit("/", 2)[-2] + "/" + r.url.rsplit("/", 1)[-1]: r for r in conn.execute(select(items))}
    assert got["news/claude"].material_level == "full"
    assert "reinforcement-learning setup" in got["news/claude"].body
    assert got["private/memo"].material_level == "title" and asked["/private/memo"] == 0
    assert got["news/summary"].material_level == "summary" and asked["/news/summary"] == 0
    assert asked["/robots.txt"] == 1 and asked["/news/claude"] == 1
    assert again[0].new == 0 and asked["/news/claude"] == 1  # an item seen before keeps what it got


def test_robots_txt_that_cannot_be_read_allows_nothing_and_a_missing_one_allows_all():
    from newsdesk.ingest.fetch import FetchResult
    from newsdesk.ingest.robots import Robots

    class Answers:
        def __init__(self, status):
            self.status, self.calls = status, 0

        async def get(self, url, **_):
            self.calls += 1
            return FetchResult(url=url, status=self.status, body=b"" if self.status == 200 else None)

    async def check(status):
        getter, robots = Answers(status), Robots()
        verdicts = [await robots.allows(getter, f"https://lab.example/news/{n}") for n in range(3)]
        return verdicts, getter.calls

    assert asyncio.run(check(404)) == ([True] * 3, 1)  # no robots.txt: the convention allows all
    assert asyncio.run(check(403)) == ([False] * 3, 1)
    assert asyncio.run(check(None)) == ([False] * 3, 1)  # no answer: nothing fetched by chance
    assert asyncio.run(check(503)) == ([False] * 3, 1)
