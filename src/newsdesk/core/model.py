"""The newsroom's nouns as plain dataclasses, shared by every stage."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime

MATERIAL_LEVELS = ("full", "summary", "title", "paywalled", "failed")
SOURCE_KINDS = ("rss", "atom", "jsonfeed", "arxiv", "hn", "reddit", "podcast", "jsonl")
# An outlet whose items arrive in JSON Lines files (`ingest --from FILE`): its url is the outlet's
# home page, not a feed, so nothing ever polls it.
IMPORTED_KIND = "jsonl"
NOT_POLLED = (
    "imported outlet, not polled: its items come from JSON Lines files (`newsdesk ingest --from FILE`); "
    "its url is a home page, not a feed"
)
# A source made by replaying a feed file (`ingest --from DIR` or FILE, the demo's pack) whose id no
# catalog knows: its url is that file's file:// address, which no fetcher polls (it refuses the
# scheme), so a plain `ingest` / `run` leaves it alone; replaying the file again still updates it.
REPLAYED_URL = "file:"
REPLAYED_NOT_POLLED = (
    "replayed feed file, not polled: its items come from replaying the file "
    "(`newsdesk ingest --from FILE` or DIR); its url is that file, not a feed on the web"
)


def polled(kind: str, url: str) -> bool:
    """Whether ingest polls a source: not an imported outlet (no feed) nor a replayed file (no web feed)."""
    return kind != IMPORTED_KIND and not url.startswith(REPLAYED_URL)


def not_polled_why(kind: str, url: str) -> str:
    """Why a source that is not polled is not (the line an `ingest --source` of it prints)."""
    return NOT_POLLED if kind == IMPORTED_KIND else REPLAYED_NOT_POLLED


LANGUAGES = ("zh", "en", "other")
# What an item's published_at rests on: the source's date and time; a date the source gave without a
# time of day; or none usable (missing, impossible, or later than first seen), so the time newsdesk first saw it.
DATED_BY = ("source", "day", "first_seen")


@dataclass
class Source:
    id: str
    name: str
    url: str
    kind: str = "rss"
    language: str = "en"
    tier: int = 2
    weight: float = 1.0
    category: str = "media"
    fulltext: bool = False
    enabled: bool = True
    origin: str = "catalog"
    owner: str | None = None  # who speaks through it, when several sources are one company's channels

    @property
    def polled(self) -> bool:
        """Whether ingest fetches it: not an imported outlet (no feed) nor a replayed file (model.polled)."""
        return polled(self.kind, self.url)


@dataclass
class Turn:
    """One speaker turn of a transcript; times in seconds when the transcript has them."""

    speaker: str
    text: str
    start: float | None = None
    end: float | None = None


@dataclass
class Item:
    """One item: an entry one source published (a row of `items`)."""

    source_id: str
    guid: str
    url: str | None
    title: str
    summary: str = ""
    body: str | None = None
    language: str = "other"
    published_at: datetime | None = None  # None = the store uses first_seen_at
    dated_by: str = "source"  # DATED_BY; the store sets "first_seen" when it stands in first_seen_at
    material_level: str = "summary"  # full | summary | title | paywalled | failed
    authors: list[str] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)
    engagement: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)
    transcript: list[Turn] | None = None
    transcript_format: str | None = None
    transcript_url: str | None = None

    @property
    def content_hash(self) -> str:
        """Changes when what a reader sees changes; drives 'updated' on re-ingest."""
        h = hashlib.sha256()
        for part in (self.title, self.summary, self.body or "", self.url or "", self.material_level):
            h.update(part.encode("utf-8", "surrogatepass"))  # a lone surrogate from a JSON escape is stored as U+FFFD
            h.update(b"\x1f")
        return h.hexdigest()
