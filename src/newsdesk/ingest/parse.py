"""A fetched feed document → normalized items, with every problem said in one line.

feedparser reads RSS / Atom / RDF (and their broken variants); JSON Feed it does not read,
so that is mapped here by hand. The entry → Item mapping is shared by both.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import xml.sax
from dataclasses import dataclass, field
from datetime import datetime

import feedparser

from newsdesk.core.model import Item, Source
from newsdesk.ingest import sites
from newsdesk.ingest.entries import cut_entries, without
from newsdesk.ingest.normalize import canonical_url, clean_title, clip, date_only, html_to_text, to_utc
from newsdesk.ingest.poll import stated_every
from newsdesk.ingest.sites import Fields
from newsdesk.store.items import FUTURE_SKEW
from newsdesk.text.language import detect_language

SUMMARY_MAX = 1500  # characters of summary kept; the body holds the rest when the feed carries it
# Caps on what one entry may put in the store: a feed is untrusted input, and a 5-million-character
# title would otherwise travel to every page, search index and model prompt.
TITLE_MAX = 500
BODY_MAX = 200_000
URL_MAX = 2_000
GUID_MAX = 500
FULL_MIN_LATIN, FULL_MIN_CJK = 800, 350  # below this, "content" is a teaser rather than the article
_MAX_WARNINGS = 20


@dataclass
class ParsedFeed:
    title: str | None
    items: list[Item]
    warnings: list[str]
    error: str | None
    dropped: int = 0  # entries not kept: duplicates inside the feed, or nothing to show at all
    # Entries not stored, each named with why (a duplicate is stored once, so it is not one of them);
    # warnings stop at _MAX_WARNINGS, this list does not: a replay or import says every item it refused.
    refused: list[str] = field(default_factory=list)
    format: str | None = field(default=None)  # feedparser's version ('rss20', 'atom10', …) or 'json1'
    every: tuple[int, str] | None = (
        None  # (seconds, how) the feed states it updates: <ttl>, sy:updatePeriod (ingest/poll.py)
    )
    bozo: bool = False  # feedparser found the document ill-formed (or its encoding wrong)
    entry_guids: list[str] = field(default_factory=list)  # per entry read, in order: its item's guid, "" for none
    # The entries of this body, {digest: guid}, for the next poll to leave out (ingest/entries.py);
    # None when the body could not be cut into entries.
    digests: dict[str, str] | None = None
    unchanged: int = 0  # items of entries left out as seen before: stored, not parsed again


def parse_feed(
    body: bytes,
    source: Source,
    *,
    fetched_at: datetime,
    url: str | None = None,
    headers: dict[str, str] | None = None,
    seen: dict[str, str] | None = None,
) -> ParsedFeed:
    """Parse one feed document. Never raises on bad input: problems land in warnings / error.
    `seen`: the digests of the entries this source's last parse stored (ParsedFeed.digests); those
    entries are not read again, and only the others' items come back (`unchanged` counts the rest)."""
    if not body or not body.strip():
        return ParsedFeed(None, [], [], "empty document: the server sent no feed — check the source URL")
    where = url or source.url
    try:
        head = body.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
        if head in (b"{", b"["):
            parsed = _parse_json(body, source)
        else:
            parsed = _parse_new_entries(body, source, url, headers, seen or {})
    except Exception as exc:  # noqa: BLE001 — a parser bug on one feed must not stop the run
        return ParsedFeed(None, [], [], f"could not parse {where}: {type(exc).__name__}: {exc}")
    # published_at stays as the feed said (or None): the store stands in the first-seen time for a
    # missing date or one from the future (store/items.py); the fetch row says which entries it was.
    for item in parsed.items:
        if item.published_at is not None and item.published_at > fetched_at + FUTURE_SKEW:
            _warn(
                parsed.warnings,
                f"entry {item.title[:60]!r}: dated {item.published_at:%Y-%m-%d %H:%M} UTC, "
                "after it was fetched; first-seen time used",
            )
    return parsed


# ---------------------------------------------------------------- RSS / Atom / RDF via feedparser


def _parse_new_entries(
    body: bytes, source: Source, url: str | None, headers: dict[str, str] | None, seen: dict[str, str]
) -> ParsedFeed:
    """The document without the entries in `seen`, parsed; the whole document when leaving them out
    could read the rest differently (feedparser found the rest ill-formed, or an entry read now has
    the guid of one left out: a feed listing one guid twice keeps its first copy)."""
    content_type = next((v for k, v in (headers or {}).items() if k.lower() == "content-type"), "")
    context = repr((source.id, source.url, source.kind, source.language, url, content_type))
    cut = cut_entries(body, context)
    if cut is None:
        return _parse_xml(body, source, url, headers)
    left_out = [n for n, digest in enumerate(cut.digests) if digest in seen]
    if left_out:
        skip = set(left_out)
        kept = [n for n in range(len(cut.spans)) if n not in skip]
        parsed = _parse_xml(without(body, [cut.spans[n] for n in left_out]), source, url, headers)
        old = {seen[cut.digests[n]] for n in left_out} - {""}
        if not parsed.bozo and not parsed.error and not old & {i.guid for i in parsed.items}:
            parsed.unchanged = len(old)
            if len(parsed.entry_guids) == len(kept):
                guids = dict(zip(kept, parsed.entry_guids)) | {n: seen[cut.digests[n]] for n in left_out}
                parsed.digests = {cut.digests[n]: guids[n] for n in range(len(cut.spans))}
            return parsed
    parsed = _parse_xml(body, source, url, headers)
    if len(parsed.entry_guids) == len(cut.spans):  # feedparser read the entries expat found, no other
        parsed.digests = dict(zip(cut.digests, parsed.entry_guids))
    return parsed


def _parse_xml(body: bytes, source: Source, url: str | None, headers: dict[str, str] | None) -> ParsedFeed:
    hdrs = {k.lower(): v for k, v in (headers or {}).items()}
    if url:
        hdrs.setdefault("content-location", url)
    # A BytesIO, never raw bytes: feedparser treats a bare string as a path or URL to open.
    # No HTML sanitizing or link rewriting inside content: newsdesk keeps only the text of feed HTML
    # (html_to_text drops scripts, styles and markup), so that work would be thrown away — it was a
    # third of parse time in benchmarks/ingest_throughput.py.
    d = feedparser.parse(io.BytesIO(body), response_headers=hdrs, sanitize_html=False, resolve_relative_uris=False)
    warnings: list[str] = []
    entries = d.get("entries") or []
    if d.get("bozo"):
        warnings.append(_describe_bozo(d.get("bozo_exception"), len(entries)))
    title = clean_title((d.get("feed") or {}).get("title", "")) or None
    if not entries and not d.get("version"):
        if re.search(rb"<html|<!doctype html", body[:2048], re.I):
            return ParsedFeed(title, [], warnings, "not a feed: this is a web page — use the page's RSS/Atom link")
        if not title:  # CDF and other rare dialects have no version but do have a channel title
            return ParsedFeed(None, [], warnings, "not a feed: no RSS, Atom or JSON Feed found — check the source URL")
    transcripts = _transcript_links(body, len(entries)) if any("podcast_transcript" in e for e in entries) else None
    parsed = _build(entries, title, source, warnings, d.get("version") or None, transcripts)
    parsed.every = stated_every(d.get("feed") or {})
    parsed.bozo = bool(d.get("bozo"))
    return parsed


def _describe_bozo(exc: BaseException | None, kept: int) -> str:
    if isinstance(exc, xml.sax.SAXParseException):
        what = f"not well-formed XML at line {exc.getLineNumber()}, column {exc.getColumnNumber()}: {exc.getMessage()}"
    elif isinstance(exc, feedparser.CharacterEncodingOverride):
        what = f"declared encoding was wrong, read with another: {exc}"
    elif isinstance(exc, feedparser.CharacterEncodingUnknown):
        what = f"encoding unknown: {exc}"
    elif isinstance(exc, feedparser.NonXMLContentType):
        what = f"served with a non-XML content type: {exc}"
    elif exc is None:
        what = "ill-formed feed"
    else:
        what = f"{type(exc).__name__}: {exc}"
    what = " ".join(str(what).split())
    return f"{what} (bozo): kept {kept} entr{'y' if kept == 1 else 'ies'}"


_ITEM_BLOCK = re.compile(rb"<(item|entry)[\s>].*?</\1\s*>", re.S)
_TRANSCRIPT_TAG = re.compile(rb"<podcast:transcript\b([^>]*)>")
_ATTR = re.compile(rb"""([\w:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')""")


def _transcript_links(body: bytes, n_entries: int) -> list[list[dict]] | None:
    """All <podcast:transcript> links per entry; feedparser keeps only the last one of each entry."""
    blocks = [m.group(0) for m in _ITEM_BLOCK.finditer(body)]
    if not blocks or len(blocks) != n_entries:
        return None  # cannot line blocks up with entries safely: use feedparser's single link
    per_entry = []
    for block in blocks:
        links = []
        for m in _TRANSCRIPT_TAG.finditer(block):
            attrs = {k.decode(): (v1 or v2).decode("utf-8", "replace") for k, v1, v2 in _ATTR.findall(m.group(1))}
            if attrs.get("url"):
                links.append({"url": attrs["url"], "type": attrs.get("type", "")})
        per_entry.append(links)
    return per_entry


# ---------------------------------------------------------------- JSON Feed (jsonfeed.org, 1.0 and 1.1)


def _parse_json(body: bytes, source: Source) -> ParsedFeed:
    try:
        doc = json.loads(body.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        return ParsedFeed(
            None, [], [], f"JSON Feed is not UTF-8 ({exc.reason} at byte {exc.start}): re-save it as UTF-8"
        )
    except json.JSONDecodeError as exc:
        return ParsedFeed(None, [], [], f"not valid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}")
    if not isinstance(doc, dict) or not isinstance(doc.get("items"), list):
        return ParsedFeed(
            None, [], [], "JSON document is not a JSON Feed (no 'items' list): use the RSS/Atom/JSON Feed URL"
        )
    warnings: list[str] = []
    refused: list[str] = []
    if "jsonfeed.org" not in str(doc.get("version", "")):
        warnings.append(f"JSON Feed without a jsonfeed.org version ({doc.get('version')!r}): read it anyway")
    entries = []
    feed_authors = _json_authors(doc)
    for n, raw in enumerate(doc["items"], start=1):
        if not isinstance(raw, dict):
            refused.append(f"JSON Feed item {n} is a {type(raw).__name__}, not an object: skipped")
            _warn(warnings, refused[-1])
            continue

        def text(key: str, raw: dict = raw, n: int = n) -> str:
            # One item with a number or a list where a string belongs must not cost the whole feed.
            value = raw.get(key)
            if value is None or isinstance(value, str):
                return value or ""
            _warn(warnings, f"JSON Feed item {n}: {key!r} is a {type(value).__name__}, not a string: ignored")
            return ""

        html, plain = text("content_html"), text("content_text")
        content = (
            [{"value": html, "type": "text/html"}]
            if html
            else [{"value": plain, "type": "text/plain"}]
            if plain
            else []
        )
        summary = text("summary")
        item_id = raw.get("id")
        tags, attachments = raw.get("tags"), raw.get("attachments")
        entries.append(
            {
                "id": str(item_id) if isinstance(item_id, (str, int)) and not isinstance(item_id, bool) else "",
                "link": text("url") or text("external_url"),
                "title": text("title"),
                "title_detail": {"type": "text/plain"},
                "summary": summary or (content[0]["value"] if content else ""),
                "summary_detail": {"type": "text/plain" if summary or not html else "text/html"},
                "content": content,
                "published": text("date_published"),
                "updated": text("date_modified"),
                "authors": _json_authors(raw) or feed_authors,
                "tags": [{"term": t} for t in tags if isinstance(t, str)] if isinstance(tags, list) else [],
                "enclosures": [
                    {"href": a["url"], "type": a.get("mime_type") if isinstance(a.get("mime_type"), str) else ""}
                    for a in attachments
                    if isinstance(a, dict) and isinstance(a.get("url"), str) and a["url"]
                ]
                if isinstance(attachments, list)
                else [],
            }
        )
    title = clean_title(str(doc.get("title") or "")) or None
    return _build(entries, title, source, warnings, "json1", None, refused)


def _json_authors(obj: dict) -> list[dict]:
    authors = obj.get("authors") or ([obj["author"]] if isinstance(obj.get("author"), dict) else [])
    if not isinstance(authors, list):
        return []
    return [
        {"name": a["name"]} for a in authors if isinstance(a, dict) and isinstance(a.get("name"), str) and a["name"]
    ]


# ---------------------------------------------------------------- entry → Item


def _build(entries, title, source, warnings, fmt, transcripts, refused: list[str] | None = None) -> ParsedFeed:
    items: list[Item] = []
    refused = refused if refused is not None else []
    seen_guids: set[str] = set()
    guids: list[str] = []
    dropped = duplicates = 0
    for index, entry in enumerate(entries):
        entry = _plain(entry)
        item = _to_item(entry, source, warnings)
        guids.append(item.guid if item is not None else "")
        if item is None:
            dropped += 1
            refused.append(f"entry {index + 1} has no title, link or text: skipped")
            _warn(warnings, refused[-1])
            continue
        # Only the guid identifies an entry: changelog feeds give many entries one URL.
        if item.guid in seen_guids:
            dropped += 1
            duplicates += 1
            continue
        seen_guids.add(item.guid)
        links = transcripts[index] if transcripts else _single_transcript(entry)
        if links:
            item.extra["transcripts"] = links
        items.append(item)
    if duplicates:
        _warn(warnings, f"{duplicates} duplicate entr{'y' if duplicates == 1 else 'ies'} (same guid or link) dropped")
    return ParsedFeed(title, items, warnings, None, dropped=dropped, format=fmt, refused=refused, entry_guids=guids)


def _warn(warnings: list[str], line: str) -> None:
    if len(warnings) < _MAX_WARNINGS:
        warnings.append(line)
    elif len(warnings) == _MAX_WARNINGS:
        warnings.append("more warnings not shown")


def _plain(entry) -> dict:
    """A plain dict of the entry: FeedParserDict's aliasing makes every .get() a Python-level call,
    which was a visible share of the per-item cost. 'enclosures' is computed there, so here too."""
    if not isinstance(entry, feedparser.FeedParserDict):
        return entry
    plain = dict(entry)
    plain["enclosures"] = [link for link in plain.get("links") or () if dict.get(link, "rel") == "enclosure"]
    return plain


def _single_transcript(entry) -> list[dict]:
    t = entry.get("podcast_transcript")
    return [{"url": t["url"], "type": t.get("type", "")}] if isinstance(t, dict) and t.get("url") else []


def _detail_type(entry, key: str) -> str:
    detail = entry.get(key) or {}
    return dict.get(detail, "type") or "text/html"


def _to_text(value: str, mime: str) -> str:
    if "html" in mime or "xml" in mime:
        return html_to_text(value)
    # Plain text may hold a literal "<": escape it so html_to_text keeps it as text (and keeps paragraphs).
    return html_to_text(value.replace("&", "&amp;").replace("<", "&lt;"))


_CJK = re.compile(r"[\u3400-\u9fff]")


def _to_item(entry, source: Source, warnings: list[str]) -> Item | None:
    link = (entry.get("link") or "").strip()
    url = canonical_url(link) if link else None
    raw_title = entry.get("title") or ""
    title_type = _detail_type(entry, "title_detail")
    title = clean_title(raw_title) if "html" in title_type else " ".join(raw_title.split())

    summary_raw = entry.get("summary") or ""
    summary = _to_text(summary_raw, _detail_type(entry, "summary_detail")) if summary_raw else ""
    content_raw, content = _content(entry, summary_raw, summary)

    categories = list(
        dict.fromkeys(filter(None, (dict.get(t, "term") or dict.get(t, "label") for t in entry.get("tags") or ())))
    )
    guid = (entry.get("id") or "").strip()
    shaped = Fields(link=link, url=url, guid=guid, summary=summary, authors=_authors(entry))
    if entry.get("comments"):
        shaped.extra["comments_url"] = entry["comments"]
    sites.shape(entry, source.kind, shaped)  # Hacker News, Reddit, arXiv: what they write into the summary
    summary, authors, engagement, extra = shaped.summary, shaped.authors, shaped.engagement, shaped.extra

    _media(entry, extra)
    if not title:
        if not (summary or content or url):
            return None
        title = _stand_in_title(summary or content, url)
    if not guid:
        guid = _own_guid(link, url, title, entry)
    summary, body, material = _material(title, summary, content, summary_raw, content_raw)
    summary = clip(summary, SUMMARY_MAX)
    title = clip(title, TITLE_MAX)
    if body is not None:
        body = clip(body, BODY_MAX)
    if url and len(url) > URL_MAX:
        _warn(warnings, f"entry {title[:60]!r}: link of {len(url)} characters is not an article address: dropped")
        url = None
    if len(guid) > GUID_MAX:
        guid = "sha1:" + hashlib.sha1(guid.encode("utf-8", "surrogatepass")).hexdigest()

    text = f"{title} {summary[:500]}"
    language = detect_language(text) if any(ch.isalpha() for ch in text) else source.language
    published, dated_by = _published(entry, title, warnings)
    return Item(
        source_id=source.id,
        guid=guid,
        url=url,
        title=title,
        summary=summary,
        body=body,
        language=language,
        published_at=published,
        dated_by=dated_by,
        material_level=material,
        authors=authors,
        categories=categories,
        engagement=engagement,
        extra=extra,
    )


def _media(entry, extra: dict) -> None:
    """A podcast's episode number and enclosure (its audio), into the item's extra."""
    if entry.get("itunes_episode"):
        extra["episode"] = str(entry["itunes_episode"]).strip()
    enclosures = [dict.get(e, "href") for e in entry.get("enclosures") or () if dict.get(e, "href")]
    if enclosures:
        extra["enclosure"] = enclosures[0]


def _stand_in_title(text: str, url: str | None) -> str:
    """An entry with no title: its text's first line (80 characters at most), else its address."""
    if text:
        first = text.split("\n", 1)[0]
        return first[:80].rsplit(" ", 1)[0] + "…" if len(first) > 80 else first
    return url or ""


def _own_guid(link: str, url: str | None, title: str, entry) -> str:
    """No guid of its own: the canonical URL is the key, keeping a fragment that tells entries of one
    page apart (changelog#1.12.3, changelog#1.12.2); with no URL, a hash of its title and date."""
    fragment = link.partition("#")[2]
    return (f"{url}#{fragment}" if url and fragment else url) or "sha1:" + hashlib.sha1(
        f"{title}\x1f{entry.get('published', '')}".encode()
    ).hexdigest()


def _material(
    title: str, summary: str, content: str, summary_raw: str, content_raw: str
) -> tuple[str, str | None, str]:
    """(summary, body, material level): a body only when the feed clearly carries the whole article."""
    longest = content if len(content) >= len(summary) else summary
    full_min = FULL_MIN_CJK if len(_CJK.findall(longest[:400])) > 100 else FULL_MIN_LATIN
    if len(longest) >= full_min and (
        longest is summary or content_raw == summary_raw or len(content) > 1.2 * len(summary)
    ):
        return summary, longest, "full"
    if summary and _same_text(summary, title):
        return "", None, "title"
    return summary or content, None, "summary" if summary or content else "title"


def _published(entry, title: str, warnings: list[str]) -> tuple[datetime | None, str]:
    """When the entry was published, and whether that is its own time ("source") or only its day."""
    # The feed's own text, not feedparser's *_parsed: those roll impossible dates over (month 13
    # of 2026 became 2027-01-01) and take a -9999 zone at its word.
    raw = entry.get("published") or entry.get("updated") or entry.get("created") or ""
    published = to_utc(raw) if raw else None
    if raw and published is None:
        _warn(warnings, f"entry {title[:60]!r}: date {raw[:40]!r} not understood; first-seen time used")
    return published, "day" if published is not None and date_only(raw) else "source"


def _content(entry, summary_raw: str, summary: str) -> tuple[str, str]:
    """The entry's longest content, as the feed wrote it and as text."""
    content_raw, content_type = "", "text/html"
    for c in entry.get("content") or ():
        if len(dict.get(c, "value") or "") > len(content_raw):
            content_raw, content_type = c["value"], dict.get(c, "type") or "text/html"
    if not content_raw:
        return "", ""
    if content_raw == summary_raw:
        return content_raw, summary  # feedparser copies content into summary when there is no summary: parse once
    return content_raw, _to_text(content_raw, content_type)


def _authors(entry) -> list[str]:
    names = [(dict.get(a, "name") or "").strip() for a in entry.get("authors") or () if isinstance(a, dict)]
    names = [n for n in names if n]
    if not names and entry.get("author"):
        names = [entry["author"].strip()]
    return list(dict.fromkeys(names))


def _same_text(summary: str, title: str) -> bool:
    """Many feeds repeat the title as the description; that is not a summary."""
    a, b = summary.casefold().strip(" .…"), title.casefold().strip(" .…")
    return a == b or (a.startswith(b) and len(a) - len(b) < 15)
