"""RSS 2.0 and JSON Feed 1.1 for one kind of edition (daily or weekly) in one language.

Entry dates are the editions' own (publish/markdown.edition_time: the last update, never after
the end of the day or week covered), which only move when an edition's content changes, so an
unchanged store yields byte-identical feeds (and publishing rewrites nothing).
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from datetime import datetime
from email.utils import format_datetime

CONTENT_NS = "http://purl.org/rss/1.0/modules/content/"
ATOM_NS = "http://www.w3.org/2005/Atom"
ET.register_namespace("content", CONTENT_NS)
ET.register_namespace("atom", ATOM_NS)


@dataclass
class FeedEntry:
    id: str  # the entry's absolute URL doubles as its permanent id
    title: str
    url: str
    updated: datetime
    summary: str
    content_html: str


@dataclass
class Feed:
    title: str
    home_url: str
    feed_url: str  # of this document; the other format's URL is derived by the caller
    language: str
    description: str
    entries: list[FeedEntry]


def rss(feed: Feed) -> bytes:
    root = ET.Element("rss", {"version": "2.0"})
    channel = ET.SubElement(root, "channel")
    ET.SubElement(channel, "title").text = feed.title
    ET.SubElement(channel, "link").text = feed.home_url
    ET.SubElement(channel, "description").text = feed.description
    ET.SubElement(channel, "language").text = {"zh": "zh-cn"}.get(feed.language, feed.language)
    ET.SubElement(channel, f"{{{ATOM_NS}}}link", {"href": feed.feed_url, "rel": "self", "type": "application/rss+xml"})
    if feed.entries:
        ET.SubElement(channel, "lastBuildDate").text = format_datetime(max(e.updated for e in feed.entries))
    for entry in feed.entries:
        item = ET.SubElement(channel, "item")
        ET.SubElement(item, "title").text = entry.title
        ET.SubElement(item, "link").text = entry.url
        ET.SubElement(item, "guid", {"isPermaLink": "true"}).text = entry.id
        ET.SubElement(item, "pubDate").text = format_datetime(entry.updated)
        ET.SubElement(item, "description").text = entry.summary
        ET.SubElement(item, f"{{{CONTENT_NS}}}encoded").text = entry.content_html
    ET.indent(root)
    return (
        b'<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="utf-8", xml_declaration=False) + b"\n"
    )


def json_feed(feed: Feed) -> bytes:
    doc = {
        "version": "https://jsonfeed.org/version/1.1",
        "title": feed.title,
        "home_page_url": feed.home_url,
        "feed_url": feed.feed_url,
        "description": feed.description,
        "language": feed.language,
        "items": [
            {
                "id": e.id,
                "url": e.url,
                "title": e.title,
                "summary": e.summary,
                "content_html": e.content_html,
                "date_published": e.updated.isoformat(timespec="seconds"),
                "date_modified": e.updated.isoformat(timespec="seconds"),
            }
            for e in feed.entries
        ],
    }
    return (json.dumps(doc, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
