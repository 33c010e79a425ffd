"""JSON Lines import in the shape of ai-daily-harvest.jsonl: one item per line, outlet by name.

Each outlet becomes an import source (origin 'import') whose id is a slug of its name. Chinese
outlet names have no natural ASCII slug; the well-known ones get the slug of their own domain or
pinyin brand, the rest a stable 'src-' + hash so re-imports land on the same source.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

from newsdesk.core.model import Item, Source
from newsdesk.ingest.normalize import canonical_url, clean_title, clip, date_only, html_to_text, to_utc
from newsdesk.ingest.parse import SUMMARY_MAX, TITLE_MAX, URL_MAX
from newsdesk.text import lexicon
from newsdesk.text.language import detect_language

log = logging.getLogger(__name__)

# Brands as the outlets spell themselves in Latin letters (site domain or official pinyin name).
KNOWN_SLUGS: dict[str, str] = lexicon.table("outlets")["slugs"]

_REQUIRED = ("title", "link", "source")
_EXTRA_FIELDS = ("core_point", "highlights", "why_matters", "score", "level", "verdict", "source_channel", "category")


def source_slug(name: str) -> str:
    """Stable source id for an outlet name: 'Simon Willison' → 'simon-willison', '机器之心' → 'jiqizhixin'."""
    name = name.strip()
    if name in KNOWN_SLUGS:
        return KNOWN_SLUGS[name]
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_name.lower().replace("'", "")).strip("-")
    # A name that is mostly CJK keeps no meaning in its ASCII leftovers ('AI产品黄叔' → 'ai'): hash it.
    if slug and len(ascii_name.strip()) >= len(name) * 0.8 and len(slug) <= 80:
        return slug
    return "src-" + hashlib.sha1(name.encode("utf-8")).hexdigest()[:10]


def read_harvest(
    path, errors: list[str] | None = None, warnings: list[str] | None = None
) -> Iterator[tuple[Source, Item]]:
    """Yield (source, item) per good line. A bad line yields nothing: it is appended to `errors`
    as one line naming file, line number and the fix. A line kept with a repair (a date it could
    not read) goes to `warnings`. Either is logged as a warning when its list is None."""
    path = Path(path)
    sources: dict[str, Source] = {}

    def report(line_no: int, what: str, *, kept: bool = False, record: dict | None = None) -> None:
        message = f"{path.name} line {line_no}: {what}" + _named(record)
        target = warnings if kept else errors
        if target is None:
            log.warning(message)
        else:
            target.append(message)

    with path.open("rb") as fh:
        for line_no, raw in enumerate(fh, 1):
            if not raw.strip():
                continue
            try:
                record = json.loads(raw.decode("utf-8-sig"))
            except UnicodeDecodeError:
                report(line_no, "not UTF-8 — save the file as UTF-8")
                continue
            except json.JSONDecodeError as exc:
                report(line_no, f"not valid JSON ({exc.msg} at column {exc.colno}) — fix or remove the line")
                continue
            if not isinstance(record, dict):
                report(line_no, f"a JSON {type(record).__name__}, not an object — each line must be one item object")
                continue
            missing = [f for f in _REQUIRED if not isinstance(record.get(f), str) or not record[f].strip()]
            if missing:
                report(
                    line_no,
                    f"missing or empty {', '.join(repr(f) for f in missing)} — every item needs title, link and source",
                    record=record,
                )
                continue
            url = canonical_url(record["link"])
            if len(url) > URL_MAX:
                report(
                    line_no,
                    f"link of {len(url)} characters is not an article address — give the article's URL",
                    record=record | {"link": ""},
                )
                continue
            try:
                absolute = bool(urlsplit(url).netloc)
            except ValueError:  # e.g. an unclosed IPv6 bracket
                absolute = False
            if not absolute:
                report(
                    line_no,
                    f"link {record['link'][:80]!r} is not an absolute URL — give the article's full address",
                    record=record | {"link": ""},
                )
                continue
            item = _to_item(record, url, line_no, report)
            outlet = record["source"].strip()
            source = sources.get(outlet)
            if source is None:
                source = sources[outlet] = _to_source(
                    outlet, url, item.language, str(record.get("source_channel") or "")
                )
            item.source_id = source.id
            yield source, item


def _named(record: dict | None) -> str:
    """The refused item as its line can name it beyond its number: by its title, else its link."""
    for key, words in (("title", "titled"), ("link", "at")):
        value = (record or {}).get(key)
        if isinstance(value, str) and value.strip():
            return f" (the item {words} {clip(' '.join(value.split()), 80)!r})"
    return ""


def outlet_category(language: str, channel: str = "") -> str:
    """The catalog's categories (catalog.CATEGORIES): a Chinese outlet is zh-media there (机器之心), so an
    imported one is too, by its items' language or a WeChat channel; any other outlet is media."""
    return "zh-media" if language == "zh" or channel.startswith("wechat") else "media"


def _to_source(outlet: str, url: str, language: str, channel: str = "") -> Source:
    """The outlet as its first item shows it; an import then gives it its items' majority language
    (ingest/run.py, import_jsonl), so one Chinese post does not make an English account Chinese."""
    parts = urlsplit(url)
    return Source(
        id=source_slug(outlet),
        name=clip(outlet, 290),  # the column holds 300
        url=f"{parts.scheme}://{parts.netloc}/",
        kind="jsonl",
        language=language,
        category=outlet_category(language, channel),
        origin="import",
    )


def _to_item(record: dict, url: str, line_no: int, report) -> Item:
    title = clip(clean_title(record["title"]), TITLE_MAX)
    summary = clip(html_to_text(str(record.get("summary") or "")), SUMMARY_MAX)
    published = to_utc(record.get("pub_date"))
    if record.get("pub_date") and published is None:
        report(line_no, f"pub_date {str(record['pub_date'])[:40]!r} is not a date; first-seen time used", kept=True)
    return Item(
        source_id="",
        guid=url,
        url=url,
        title=title,
        summary=summary,
        # The harvester wrote every summary in Chinese, whatever the article's language: the title tells.
        language=detect_language(title if len(title) >= 8 else f"{title} {summary[:500]}"),
        published_at=published,
        dated_by="day" if published is not None and date_only(record.get("pub_date")) else "source",
        material_level="summary" if summary else "title",
        extra={k: record[k] for k in _EXTRA_FIELDS if record.get(k) not in (None, "", [])},
    )
