"""Small, fast normalizers every ingest path shares: URLs, titles, HTML text, time.

They run once per item on the hot path (see benchmarks/ingest_throughput.py), so each
one avoids work it does not need: plain text skips the HTML parser. (Which language a text
is in, which every floor above asks too, is text/language.py.)
"""

from __future__ import annotations

import calendar
import html as htmllib
import re
import time
from datetime import UTC, date, datetime, timedelta
from email.utils import parsedate_to_datetime
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import feedparser.datetimes
import lxml.etree
import lxml.html

# ---------------------------------------------------------------- canonical URL

_TRACKING_PARAMS = frozenset(
    {"fbclid", "gclid", "mc_cid", "mc_eid", "ref", "ref_src", "igshid", "spm", "from", "isappinstalled"}
)
# A WeChat article is identified by these four; everything else (chksm, scene, sessionid…) is per-reader noise.
_WECHAT_KEEP = ("__biz", "mid", "idx", "sn")
_DEFAULT_PORTS = {"http": 80, "https": 443}


def canonical_url(url: str) -> str:
    """One spelling per article, so the same item from two shares dedups to one row."""
    url = (url or "").strip()
    if not url:
        return ""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:  # e.g. a non-numeric port: keep what the feed gave rather than guess
        return url
    scheme = parts.scheme.lower()
    if not parts.netloc:
        return url  # relative or opaque (mailto:, urn:): nothing to normalize safely
    host = (parts.hostname or "").lower()
    netloc = host
    if parts.username is not None:
        netloc = parts.username + (f":{parts.password}" if parts.password is not None else "") + "@" + host
    if port is not None and _DEFAULT_PORTS.get(scheme) != port:
        netloc += f":{port}"
    path = parts.path or "/"
    if not parts.query:  # most feed links: nothing to filter or sort
        return urlunsplit((scheme, netloc, path, "", ""))
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    if host == "mp.weixin.qq.com":
        pairs = [(k, v) for k, v in pairs if k in _WECHAT_KEEP]
    else:
        pairs = [(k, v) for k, v in pairs if k.lower() not in _TRACKING_PARAMS and not k.lower().startswith("utm_")]
    pairs.sort()
    return urlunsplit((scheme, netloc, path, urlencode(pairs, doseq=True), ""))


# ---------------------------------------------------------------- titles and HTML

_TAG = re.compile(r"<[^<>]*>")
_SPACE = re.compile(r"\s+")


def clean_title(text: str) -> str:
    """Titles arrive with markup and entities (sometimes escaped twice); readers want one plain line."""
    if not text:
        return ""
    if "<" in text:
        text = _TAG.sub(" ", text)
    if "&" in text:
        text = htmllib.unescape(text)
        if "&" in text and ";" in text:  # double-escaped feeds: "&amp;amp;" → "&amp;" → "&"
            text = htmllib.unescape(text)
    return _SPACE.sub(" ", text).strip()


_DROP = frozenset({"script", "style", "noscript", "template", "head", "title", "iframe", "svg", "button", "form"})
_PARAGRAPH = frozenset(
    {
        "p",
        "div",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "blockquote",
        "pre",
        "ul",
        "ol",
        "dl",
        "table",
        "section",
        "article",
        "header",
        "footer",
        "aside",
        "figure",
        "figcaption",
        "hr",
        "main",
        "nav",
        "address",
    }
)
_LINE = frozenset({"br", "li", "tr", "dt", "dd"})
_PARA_MARK, _LINE_MARK = "\x00", "\x01"
# Comments and processing instructions go at parse time, so their tails join the text around them.
_HTML_PARSER = lxml.html.HTMLParser(remove_comments=True, remove_pis=True)
_MARKS = re.compile(r"[ \x00\x01]*[\x00\x01][ \x00\x01]*")


def _join_marks(match: re.Match) -> str:
    return "\n\n" if _PARA_MARK in match.group(0) else "\n"


def _plain_paragraphs(text: str) -> str:
    paras = (_SPACE.sub(" ", p).strip() for p in re.split(r"\n\s*\n", text))
    return "\n\n".join(p for p in paras if p)


def html_to_text(html: str) -> str:
    """Readable text with paragraphs as blank-line separated blocks; scripts and styles dropped."""
    if not html:
        return ""
    if "<" not in html:
        return _plain_paragraphs(htmllib.unescape(html) if "&" in html else html)
    html = re.sub(r"^\s*<\?xml[^>]*\?>", "", html)  # lxml refuses str input that declares an encoding
    try:
        root = lxml.html.fromstring(html, parser=_HTML_PARSER)
    except (lxml.etree.ParserError, ValueError):
        return _plain_paragraphs(htmllib.unescape(_TAG.sub(" ", html)))
    out: list[str] = []
    walker = lxml.etree.iterwalk(root, events=("start", "end"))
    for event, el in walker:
        tag = el.tag
        if event == "start":
            if tag in _DROP:
                walker.skip_subtree()  # its "end" still comes, and brings the tail
                continue
            if tag in _PARAGRAPH:
                out.append(_PARA_MARK)
            elif tag in _LINE:
                out.append(_LINE_MARK)
            if el.text:
                out.append(el.text)
            continue
        if tag in _PARAGRAPH:
            out.append(_PARA_MARK)
        if el.tail and el is not root:
            out.append(el.tail)
    text = "".join(out)
    text = _SPACE.sub(" ", text.replace("\n", " "))
    text = _MARKS.sub(_join_marks, text)
    return text.strip(" \n\x00\x01")


def clip(text: str, limit: int) -> str:
    """At most about `limit` characters, cut at a paragraph, sentence or word, marked with ' …'."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    for stop in ("\n\n", "。", ". ", "\n"):
        at = cut.rfind(stop)
        if at > limit * 0.6:
            return cut[: at + len(stop)].rstrip() + " …"
    return cut.rsplit(" ", 1)[0] + " …"


# ---------------------------------------------------------------- time

_MIN_YEAR, _MAX_YEAR = 1970, 2200


_MAX_OFFSET = timedelta(hours=14)  # the furthest any real zone is from UTC (Kiribati's +14:00)


def _sane(dt: datetime | None) -> datetime | None:
    if dt is None or not (_MIN_YEAR <= dt.year <= _MAX_YEAR):
        return None
    offset = dt.utcoffset()
    if offset is not None and abs(offset) > _MAX_OFFSET:
        return None  # -1500 or +2300 is no zone: the date cannot be placed
    if dt.tzinfo is None:
        return dt.replace(tzinfo=UTC)  # feeds that omit the zone mean UTC far more often than local time
    return dt.astimezone(UTC)


def to_utc(value) -> datetime | None:
    """Aware UTC datetime from what feeds and files carry; None when there is no usable time."""
    if value is None or value == "":
        return None
    try:
        if isinstance(value, time.struct_time) or (isinstance(value, tuple) and len(value) >= 6):
            # feedparser's *_parsed values are already in UTC
            return _sane(datetime.fromtimestamp(calendar.timegm(tuple(value)[:9]), UTC))
        if isinstance(value, datetime):
            return _sane(value)
        if isinstance(value, date):
            return _sane(datetime(value.year, value.month, value.day))
        if isinstance(value, bool):
            return None
        if isinstance(value, (int, float)):
            seconds = value / 1000 if value > 1e11 else value  # milliseconds since the epoch (JavaScript)
            return _sane(datetime.fromtimestamp(seconds, UTC))
        if isinstance(value, bytes):
            value = value.decode("utf-8", "replace")
        if not isinstance(value, str):
            return None
    except (OverflowError, OSError, ValueError):
        return None
    s = value.strip()
    if re.fullmatch(r"\d{9,13}(\.\d+)?", s):
        return to_utc(float(s))
    if _impossible(s):
        return None  # the parsers would roll it over (2026-13-45T99:99:99Z became 2027-01-01) or take it as said
    try:
        return _sane(datetime.fromisoformat(s.replace("Z", "+00:00") if s.endswith(("Z", "z")) else s))
    except ValueError:
        pass
    try:
        return _sane(parsedate_to_datetime(s))
    except (TypeError, ValueError, IndexError):
        pass
    parsed = feedparser.datetimes._parse_date(s)  # the many odd formats feeds use (W3C-DTF, Korean, Greek…)
    return to_utc(parsed) if parsed else None


_MONTHS = {
    m: n for n, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), 1)
}
_YMD = re.compile(r"(?<!\d)(\d{4})[-/](\d{1,2})[-/](\d{1,2})(?!\d)")
_DMY = re.compile(r"(?<!\d)(\d{1,2})\s+([A-Za-z]{3})[a-z]*\.?\s+(\d{4})(?!\d)")
_HMS = re.compile(r"(?<!\d)(\d{1,2}):(\d{2})(?::(\d{2}))?")
_ZONE = re.compile(r"\d:\d{2}(?::\d{2}(?:[.,]\d+)?)?\s*(?:GMT|UTC)?\s*[+-](\d{2}):?(\d{2})\s*$")


def _impossible(s: str) -> bool:
    """A date with a field out of range: month 13, day 45, hour 99, a -9999 zone (real ones
    stay within 14 hours). No calendar holds it, so it is not a date at all."""
    for y, m, d in _YMD.findall(s):
        if not _real_day(int(y), int(m), int(d)):
            return True
    for d, mon, y in _DMY.findall(s):
        month = _MONTHS.get(mon.lower())
        if month and not _real_day(int(y), month, int(d)):
            return True
    for h, mi, sec in _HMS.findall(s):
        if int(h) > 24 or int(mi) > 59 or (sec and int(sec) > 60):
            return True
    zone = _ZONE.search(s)
    return zone is not None and (int(zone[1]) > 14 or int(zone[2]) > 59)


def _real_day(year: int, month: int, day: int) -> bool:
    try:
        date(year, month, day)
    except ValueError:
        return False
    return True


# A stated time of exactly midnight: what feeds that know only the day write ("… 00:00:00 +0000").
_MIDNIGHT = re.compile(r"(?:^|[T\s])00:00(?::00(?:\.0+)?)?(?=$|[\sZz+-])")


def date_only(value) -> bool:
    """True when a source's date carries no time of day ("2026-03-01", a `date`, or a time of
    exactly midnight, as feeds that know only the day write it): its stored time is no time the
    source stated, so readers are shown the day alone."""
    if isinstance(value, datetime):
        return False
    if isinstance(value, date):
        return True
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if not isinstance(value, str):
        return False
    s = value.strip()
    if not s or re.fullmatch(r"[\d.]+", s):
        return False
    return bool(_MIDNIGHT.search(s)) or not re.search(r"\d:\d|T\d{4}", s)
