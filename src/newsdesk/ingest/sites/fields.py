"""The parts of an item a site's feed shape may change, while ingest/parse.py builds it."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Fields:
    link: str  # the entry's link as the feed wrote it
    url: str | None  # its canonical form
    guid: str
    summary: str  # as text, before the material level is decided
    authors: list[str]
    engagement: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)
