"""Every kind of edition in one place: what the store calls it, how its stage builds it, where the
site and the web app put it, which templates show it, its Markdown file, its feed and its MCP tool.

The site (publish/site.py), the feeds, the Markdown files, the pipeline's edition stages, the web
app's pages, the JSON API and the MCP server read this table; none of them spells a kind out.
docs/adding-an-output.md says what a new kind takes, and tests/test_outputs.py holds every kind
here to it (its templates exist, its renderers run, a throwaway kind takes only those files).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, time
from zoneinfo import ZoneInfo

from newsdesk.editions.build import Build, daily_stage, episode_stage, weekly_stage
from newsdesk.publish import markdown as md


@dataclass(frozen=True)
class Key:
    """What names one edition of a kind (a day, an ISO week, an episode's slug), as an MCP tool's
    argument asks for it and as a wrong one is told."""

    name: str  # the tool's argument: date, week, key
    help: str  # its description
    pattern: str | None = None  # what a key looks like; None: any
    what: str = ""  # "a date": the error's words for it, and how to write one
    form: str = ""
    example: str = ""  # a key, in the error that lists the stored ones
    last_day: Callable[[str], date] | None = None  # the last day a key covers (keys that sort by time)

    def problem(self, key: str) -> str | None:
        """What is wrong with a key an assistant gave, or None."""
        if self.pattern is None or re.fullmatch(self.pattern, key):
            return None
        return f"{self.name} {key!r} is not {self.what}; write it as {self.form}, e.g. {self.example}"


def _week_end(key: str) -> date:
    year, week = key.split("-W")
    return date.fromisocalendar(int(year), int(week), 7)


DAY = Key(
    "date",
    "YYYY-MM-DD; omit for the newest",
    r"\d{4}-\d{2}-\d{2}",
    "a date",
    "YYYY-MM-DD",
    "2025-02-27",
    date.fromisoformat,
)
WEEK = Key(
    "week",
    "ISO week like 2025-W09; omit for the newest",
    r"\d{4}-W\d{2}",
    "an ISO week",
    "YYYY-Www",
    "2025-W09",
    _week_end,
)


@dataclass(frozen=True)
class EditionKind:
    name: str  # editions.kind; also its pipeline stage, its `newsdesk` command and its interface word (core/labels.py)
    build: Build  # its stage's work (editions/build.py)
    body: Callable[[dict], str]  # its Markdown file's body, after the front matter (publish/markdown.py)
    summary: Callable[[dict], str]  # one line: the front matter's summary, the feed entry's description
    written: bool = False  # its build hands parts to whoever writes (a model may be asked): the workers run its stage on the `write` queue, the rest on `editions`
    page: str = "edition.html"  # the site page of one edition (publish/templates; this one: title and Markdown body)
    segment: str = ""  # the web app's pages: /{segment} (the newest) and /{segment}/{key}; "": its name
    folder: str = ""  # the site's pages: {lang}/{folder}/{key}.html, beside them {key}.md; "": its segment
    feed: str | None = None  # a feed entry's content (publish/templates): {lang}/{name}.xml and .json; None: no feed
    cards: bool = False  # its meta carries event cards in tabs: a site page per tab and one per card
    listed_when_empty: bool = True  # its section of a language page says "nothing yet" rather than leave out
    menu: bool = True  # the web app's menu links its pages (the daily's are the front page's days)
    front: Callable[[dict], dict] = lambda meta: {"status": "Published"}  # its own front matter fields
    slug: Callable[[dict], str | None] = lambda edition: None  # a slug of its own, else {name}-{key}
    # The MCP tool that returns one edition, and what names one (no entry is dated after its last day).
    tool: str = ""
    about: str = ""  # the tool's description
    key: Key = Key("key", "omit for the newest")

    def __post_init__(self):
        object.__setattr__(self, "segment", self.segment or self.name)
        object.__setattr__(self, "folder", self.folder or self.segment)

    def time(self, edition: dict, tz: str) -> datetime:
        """When an edition was published, as its feed entry and front matter date it: its last update,
        but never after the end of the day or week it covers (an episode digest covers the day its
        episode aired, meta["aired"]), so a February week built (or replayed) in December is dated
        February, while today's edition carries the time it last changed."""
        updated: datetime = edition["updated_at"].astimezone(ZoneInfo(tz))
        try:
            last = self.key.last_day(edition["key"]) if self.key.last_day else None
        except ValueError:  # a key that names no day: dated by its update
            return updated
        if last is None and (aired := (edition["meta"] or {}).get("aired")):
            last = datetime.fromisoformat(aired).astimezone(ZoneInfo(tz)).date()
        return min(updated, datetime.combine(last, time(23, 59, 59), ZoneInfo(tz))) if last else updated

    def markdown(self, edition: dict, tz: str) -> str:
        """The edition as a Markdown document with front matter."""
        meta = edition["meta"]
        fields = {
            "title": edition["title"],
            "date": edition["key"] if self.cards else self.time(edition, tz).isoformat(timespec="seconds"),
            "slug": self.slug(edition) or f"{self.name}-{edition['key']}",
            "summary": self.summary(edition),
            "tags": ["AI", self.name],
            "lang": edition["language"],
            **self.front(meta),  # only editions that passed their checks are published
        }
        return md.document(fields, self.body(edition), md.extractive_note(meta, edition["language"]))


KINDS = [
    EditionKind(
        "daily",
        build=daily_stage,
        body=md.untitled_body,
        summary=md.headlines_summary,
        page="daily.html",
        feed="feed_daily.html",
        cards=True,
        menu=False,
        tool="daily_edition",
        about="The daily edition of one day (in settings.timezone) as markdown, with its event cards in `meta`.",
        key=DAY,
    ),
    EditionKind(
        "weekly",
        build=weekly_stage,
        written=True,
        body=md.weekly_markdown,
        summary=lambda edition: edition["meta"].get("summary", ""),
        page="weekly.html",
        feed="feed_weekly.html",
        front=md.weekly_front,
        slug=md.weekly_slug,
        tool="weekly_report",
        about="The weekly report of one ISO week as markdown: summary, themed sections, briefs.",
        key=WEEK,
    ),
    EditionKind(
        "episode",
        build=episode_stage,
        written=True,
        body=lambda edition: md.digest_markdown(edition["body"]),  # the title lives in the front matter
        summary=lambda edition: s if isinstance(s := edition["meta"].get("summary"), str) else "",
        segment="episodes",
        listed_when_empty=False,
        tool="episode_digest",
        about="A podcast episode's digest (摘要 + 精读; in English: Summary + Deep dive) as markdown.",
        key=Key(
            "key",
            "the episode's key from list_editions; omit for the newest",
            example="a key from list_editions(kind='episode')",
        ),
    ),
]
EDITION_KINDS = {kind.name: kind for kind in KINDS}
BY_SEGMENT = {kind.segment: kind for kind in KINDS}


def kind_names() -> str:
    """The kinds as an error message offers them: 'daily', 'weekly' or 'episode'."""
    quoted = [repr(name) for name in EDITION_KINDS]
    return " or ".join([", ".join(quoted[:-1]), quoted[-1]] if len(quoted) > 1 else quoted)
