"""Turning stored text into safe HTML.

Everything a feed supplied (titles, summaries) and everything a model wrote (analyses,
editions) is untrusted. Titles become plain text and are escaped by Jinja's autoescape;
summaries and markdown bodies go through nh3, which keeps a small set of harmless tags
and drops scripts, event-handler attributes and javascript:/data: URLs.
"""

from __future__ import annotations

import html
import re
from datetime import datetime
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

import nh3
from markdown_it import MarkdownIt
from markupsafe import Markup

from newsdesk.core.findings import Finding

_TAGS = {
    "a",
    "p",
    "br",
    "em",
    "strong",
    "b",
    "i",
    "code",
    "pre",
    "blockquote",
    "ul",
    "ol",
    "li",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "hr",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "sup",
    "sub",
    "del",
}
_ATTRIBUTES = {"a": {"href", "title"}, "th": {"align"}, "td": {"align"}}
_SCHEMES = {"http", "https", "mailto"}

# Raw HTML inside markdown is shown as text, not passed through: the sanitizer below
# would make it safe anyway, but a model writing "<b>" means the literal characters.
_markdown = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table").enable("strikethrough")


# A fragment with none of these is text the sanitizer only escapes: no tag, entity or comment to read,
# no carriage return or NUL the HTML parser rewrites, no byte-order mark it drops. Such fragments (most
# summaries and titles) skip the parser; tests/test_html.py holds the short cut to nh3's own answer.
_NEEDS_PARSER = re.compile("[<&\r\x00\ufeff]")


def clean_html(fragment: str | None) -> Markup:
    """Sanitize an HTML fragment (a feed's summary) for inclusion in a page."""
    if not fragment:
        return Markup("")
    if not _NEEDS_PARSER.search(fragment):  # what nh3 gives such text, without parsing it
        return Markup(fragment.replace(">", "&gt;").replace("\xa0", "&nbsp;"))
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
    if not _NEEDS_PARSER.search(fragment):  # text already: nothing to drop or unescape
        return fragment.strip()
    # nh3 with no allowed tags drops <script>/<style> contents too, then we undo its entity escaping
    # so Jinja's autoescape does the escaping exactly once.
    return html.unescape(nh3.clean(fragment, tags=set(), strip_comments=True)).strip()


# Markdown that is only paragraphs of text: no character an inline rule reads (escape, code, emphasis,
# strikethrough, link, autolink, entity, table cell), no control character, and no line a block rule
# reads (a heading, quote, list, table or rule marker; indentation, or a trailing space that makes a hard
# break, is found by the line check). Most analyses are such text (the extractive ones all are): they skip
# the Markdown parser and the sanitizer (~0.7 ms of a ~4 ms cold event page). tests/test_text_html.py holds the
# short cut to the parser's own answer.
_MARKDOWN_SYNTAX = re.compile(r"[\\`*_~\[\]<>&|\x00-\x09\x0b-\x1f\x7f\ufeff]|^[#>+\-=]|^[0-9]+[.)]", re.M)


def _plain_paragraphs(body: str) -> str | None:
    """What markdown_html gives `body` when it is paragraphs of text only; None when it may be more."""
    if _MARKDOWN_SYNTAX.search(body):
        return None
    if any(line != line.strip() for line in body.split("\n")):  # indented, or ending in spaces
        return None
    paragraphs = body.split("\n\n")  # a blank line ends one (blank lines after it make no more)
    return "".join(f"<p>{p.strip(chr(10)).replace(chr(160), '&nbsp;')}</p>\n" for p in paragraphs if p.strip("\n"))


def markdown_html(body: str | None) -> Markup:
    """Markdown (analyses, editions) to sanitized HTML."""
    if not body:
        return Markup("")
    plain = _plain_paragraphs(body)
    if plain is not None:
        return Markup(plain)
    return clean_html(_markdown.render(body))


_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_RAW_TAG = re.compile(r"<(?=[A-Za-z/!?])")
_LINK_SCHEME = re.compile(r"(\]\(\s*<?\s*|^ {0,3}\[[^\]]+\]:\s*<?\s*)([A-Za-z][A-Za-z0-9+.-]*):", re.M)
# A code span may run over a line break (CommonMark joins its lines), never over a blank line.
_CODE_SPAN = re.compile(r"(`+)(?:(?!\n[ \t]*\n).)+?\1", re.S)
# Site generators read a Markdown file as a template before they render it: Jekyll's Liquid runs
# {{ … }} and {% … %} anywhere in the body, code included (a feed title "{{ site.secret }}" printed
# the site's settings, "{% raw %}" stopped the build), and Hugo runs shortcodes {{< … >}} and {{% … %}}.
# A `{` that opens such a pair (with the backslashes before it, when they escape it) is written as
# the entity &#123;, which both engines' Markdown (kramdown, Goldmark) shows as `{`. In code, where
# an entity prints as typed, an invisible word joiner (U+2060) follows it instead.
_TEMPLATE_OPEN = re.compile(r"(?<!\\)((?:\\\\)*)\\?\{(?=[{%])")
_TEMPLATE_OPEN_IN_CODE = re.compile(r"\{(?=[{%])")


def publishable(value):
    """Stored text (a string, or the lists and dicts of an edition's meta) as it may be published:
    without the control characters that XML 1.0 forbids and HTML and Markdown readers mangle (NUL first).
    Every page, feed and Markdown file the site writes is built from editions cleaned by this."""
    if isinstance(value, str):
        return _CONTROL.sub("", value)
    if isinstance(value, list):
        return [publishable(v) for v in value]
    if isinstance(value, dict):
        return {k: publishable(v) for k, v in value.items()}
    return value


def markdown_source(body: str) -> str:
    """Markdown for other tools to render (Hugo, Jekyll, Notion) that shows what our own pages show:
    raw HTML as text, links only to http(s) and mailto, and no template syntax for Jekyll or Hugo to
    run. Code blocks and spans stay as written but for that."""
    code_lines = {
        n for t in _markdown.parse(body) if t.type in ("fence", "code_block") and t.map for n in range(*t.map)
    }

    def outside_code(text: str) -> str:
        text = _TEMPLATE_OPEN.sub(r"\1&#123;", _RAW_TAG.sub("&lt;", text))
        return _LINK_SCHEME.sub(lambda m: m.group(0) if m.group(2).lower() in _SCHEMES else m.group(1) + "#", text)

    def code(text: str) -> str:
        return _TEMPLATE_OPEN_IN_CODE.sub("{\u2060", text)

    def spans(text: str) -> str:
        pieces, at = [], 0
        for span in _CODE_SPAN.finditer(text):
            pieces += [outside_code(text[at : span.start()]), code(span.group(0))]
            at = span.end()
        return "".join([*pieces, outside_code(text[at:])])

    # Runs of lines outside code blocks are read whole: a code span's "`\n{%`" is one span.
    out: list[str] = []
    run: list[str] = []
    for n, line in enumerate([*body.split("\n"), None]):
        if line is None or n in code_lines:
            if run:
                out.append(spans("\n".join(run)))
                run = []
            if line is not None:
                out.append(code(line))
        else:
            run.append(line)
    return "\n".join(out)


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
