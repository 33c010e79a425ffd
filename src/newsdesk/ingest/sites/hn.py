"""Hacker News through hnrss: points and comment counts written into the summary, as lines."""

from __future__ import annotations

import re

from newsdesk.ingest.sites.fields import Fields

KIND = "hn"

_BOILER = re.compile(r"^(Article URL|Comments URL|Points|# Comments):.*$", re.M)
_POINTS = re.compile(r"\bPoints:\s*(\d+)")
_COMMENTS = re.compile(r"#\s*Comments:\s*(\d+)")


def recognizes(entry, fields: Fields) -> bool:
    return "Comments URL:" in fields.summary


def shape(entry, fields: Fields) -> None:
    """Points and comments become engagement; the summary keeps what the submitter wrote."""
    if m := _POINTS.search(fields.summary):
        fields.engagement["points"] = int(m.group(1))
    if m := _COMMENTS.search(fields.summary):
        fields.engagement["comments"] = int(m.group(1))
    fields.summary = _BOILER.sub("", fields.summary).strip()
