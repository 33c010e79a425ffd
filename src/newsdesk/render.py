"""Turning stored text into safe HTML.

Everything a feed supplied (titles, summaries) and everything a model wrote (analyses,
editions) is untrusted. Titles become plain text and are escaped by Jinja's autoescape;
summaries and markdown bodies go through nh3, which keeps a small set of harmless tags
and drops scripts, event-handler attributes and javascript:/data: URLs.
"""

from __future__ import annotations

import html
from datetime import datetime
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

import nh3
from markdown_it import MarkdownIt
from markupsafe import Markup

from newsdesk.write.check import Finding

_TAGS = {
    "a", "p", "br", "em", "strong", "b", "i", "code", "pre", "blockquote",
    "ul", "ol", "li", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "table", "thead",
    "tbody", "tr", "th", "td", "sup", "sub", "del",
}
_ATTRIBUTES = {"a": {"href", "title"}, "th": {"align"}, "td": {"align"}}
_SCHEMES = {"http", "https", "mailto"}

# Raw HTML inside markdown is shown as text, not passed through: the sanitizer below
# would make it safe anyway, but a model writing "<b>" means the literal characters.
_markdown = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table").enable("strikethrough")


def clean_html(fragment: str | None) -> Markup:
    """Sanitize an HTML fragment (a feed's summary) for inclusion in a page."""
    if not fragment:
        return Markup("")
    return Markup(
        nh3.clean(
            fragment,
            tags=_TAGS,
            attributes=_ATTRIBUTES,
            url_schemes=_SCHEMES,
            link_rel="noopener noreferrer nofollow",
            strip_comments=True,
        )
    )


def plain_text(fragment: str | None) -> str:
    """Text of an HTML fragment with every tag removed (titles, snippets); escape it on output."""
    if not fragment:
        return ""
    # nh3 with no allowed tags drops <script>/<style> contents too, then we undo its entity escaping
    # so Jinja's autoescape does the escaping exactly once.
    return html.unescape(nh3.clean(fragment, tags=set(), strip_comments=True)).strip()


def markdown_html(body: str | None) -> Markup:
    """Markdown (analyses, editions) to sanitized HTML."""
    if not body:
        return Markup("")
    return clean_html(_markdown.render(body))


def safe_url(url: str | None) -> str | None:
    """A feed-supplied link, only if it is absolute http(s): never javascript:, data: or the like."""
    if not url:
        return None
    url = "".join(ch for ch in url.strip() if ch >= " " and ch != "\x7f")  # browsers ignore these inside schemes too
    parts = urlsplit(url)
    return url if parts.scheme.lower() in ("http", "https") and parts.netloc else None


def finding(value) -> str:
    """One stored checker finding as a line, in whatever shape it was stored (write.check.Finding.load)."""
    f = Finding.load(value)
    line = f"{f.kind}: {f.line()}" if f.kind else f.line()
    if f.span:
        line += f" «{f.span}»"
    return line + (" (warn)" if f.severity == "warn" else "")


def snippet(fragment: str | None, limit: int = 220) -> str:
    text = " ".join(plain_text(fragment).split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def local_time(value: datetime | None, tz: ZoneInfo, fmt: str = "%Y-%m-%d %H:%M") -> str:
    if value is None:
        return "—"
    return value.astimezone(tz).strftime(fmt)
