"""Reddit: a post's summary ends with "submitted by /u/NAME to /r/SUB [link] [comments]"."""

from __future__ import annotations

import re

from newsdesk.ingest.sites.fields import Fields

KIND = "reddit"

_SUBMITTED = re.compile(r"\s*submitted by\s+/u/([\w-]+)(?:\s+to\s+/r/\w+)?\s*(\[link\])?\s*(\[comments\])?\s*$")


def recognizes(entry, fields: Fields) -> bool:
    return "reddit.com" in (fields.url or "")


def shape(entry, fields: Fields) -> None:
    """The submitter is the author when the feed names none; the line leaves the summary."""
    if m := _SUBMITTED.search(fields.summary):
        fields.authors = fields.authors or [m.group(1)]
        fields.summary = fields.summary[: m.start()].strip()
