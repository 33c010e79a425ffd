"""Whether a site lets newsdesk fetch an article page it was not asked to: its robots.txt.

A source marked `fulltext = true` is the operator's choice: its pages are fetched as asked. A
title-only item of any other source (Anthropic's news feed gives headlines alone) has its page
fetched too, so its card can say more than the headline, but only where the site's robots.txt
allows newsdesk: read once per host and run, with the standard library's parser. A robots.txt
that cannot be read (network error, or a replay directory that holds no such file) allows
nothing; a missing one (404) allows everything, as the convention says; 401 or 403 allows nothing.
"""

from __future__ import annotations

import asyncio
import weakref
from typing import Any
from urllib.parse import urlsplit
from urllib.robotparser import RobotFileParser

AGENT = "newsdesk"  # the product token of fetch.user_agent, which robots.txt rules name


class Robots:
    """One run's robots.txt of each host, each read once however many pages ask."""

    def __init__(self) -> None:
        self._hosts: dict[str, asyncio.Future] = {}

    async def allows(self, getter: Any, url: str) -> bool:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            return False
        site = f"{parts.scheme}://{parts.netloc}"
        if site not in self._hosts:
            self._hosts[site] = asyncio.ensure_future(_read(getter, site))
        parser = await self._hosts[site]
        return parser is not None and parser.can_fetch(AGENT, url)


async def _read(getter: Any, site: str) -> RobotFileParser | None:
    got = await getter.get(f"{site}/robots.txt", accept="text/plain, */*;q=0.1")
    if got is None or got.status is None:
        return None
    if got.ok and got.body is not None:
        rules = got.body.decode("utf-8", "replace").splitlines()
    elif got.status in (401, 403):
        rules = ["User-agent: *", "Disallow: /"]
    elif 400 <= got.status < 500:
        rules = []  # no robots.txt: no rule
    else:
        return None  # a server error: ask again next run
    parser = RobotFileParser()
    parser.parse(rules)
    return parser


_RUNS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def robots_of(getter: Any) -> Robots:
    """The robots.txt cache of this run's getter (one getter serves one run)."""
    robots = _RUNS.get(getter)
    if robots is None:
        robots = _RUNS[getter] = Robots()
    return robots
