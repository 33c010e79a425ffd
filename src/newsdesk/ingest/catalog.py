"""The source catalog: the packaged `sources.toml`, a user's file merged over it, and OPML.

A catalog file is TOML with one `[[source]]` table per source:

    [[source]]
    id = "openai-news"          # slug: lower-case letters, digits, '-'
    name = "OpenAI News"
    url = "https://openai.com/news/rss.xml"   # "{bridge}/..." = the RSS bridge setting
    kind = "rss"                # see newsdesk.core.model.SOURCE_KINDS
    language = "en"             # zh | en | other
    tier = 1                    # 1 primary, 2 strong secondary, 3 aggregator / community
    weight = 1.0                # > 0, scales authority within a tier
    category = "lab"            # see CATEGORIES
    fulltext = true             # fetch every item's article page (a headline-only item's page is fetched anyway where robots.txt allows)

A user file uses the same shape. An entry whose id is already in the catalog only
needs the fields it changes (`enabled = false` switches a source off); a new id
needs at least name and url. Bad entries are skipped and reported, one line each,
so one typo never takes the whole catalog down.
"""

from __future__ import annotations

import re
import tomllib
import unicodedata
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from urllib.parse import urlsplit
from xml.etree import ElementTree as ET

import tomli_w
from sqlalchemy import select
from sqlalchemy.engine import Connection

from newsdesk.core.config import Settings
from newsdesk.core.errors import NewsdeskError
from newsdesk.core.model import LANGUAGES, SOURCE_KINDS, Source
from newsdesk.store.items import BATCH
from newsdesk.store.schema import sources as sources_table

CATEGORIES = (
    "lab",  # AI labs' own blogs and newsrooms
    "company",  # other companies' product / engineering blogs
    "research",  # research groups, institutes, safety orgs
    "papers",  # arXiv listings, paper aggregators
    "community",  # Hacker News, Reddit, forums
    "media",  # English-language news outlets
    "newsletter",  # newsletters and personal blogs
    "podcast",
    "zh-media",  # Chinese-language outlets
    "policy",  # governments, regulators, policy think tanks
)

FIELDS = ("id", "name", "url", "kind", "language", "tier", "weight", "category", "fulltext", "enabled", "owner")
OWNER_MAX = 120
_SLUG = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]")
_DEFAULTS = {
    "kind": "rss",
    "language": "en",
    "tier": 2,
    "weight": 1.0,
    "category": "media",
    "fulltext": False,
    "enabled": True,
}


class CatalogError(NewsdeskError):
    """One bad thing in a catalog or OPML file, as one line naming file, entry and field."""


def packaged_catalog_path() -> Path:
    return Path(str(resources.files("newsdesk") / "data" / "sources.toml"))


def user_catalog_path(settings: Settings) -> Path | None:
    """The user's catalog: `sources_file` if set, else `<data_dir>/sources.toml` when it exists.

    The fallback is where `newsdesk sources import` writes, so an import works
    without first editing newsdesk.toml.
    """
    if settings.sources_file:
        return Path(settings.sources_file)
    fallback = Path(settings.data_dir) / "sources.toml"
    return fallback if fallback.exists() else None


def load_catalog(settings: Settings, *, user_file: str | Path | None = None) -> tuple[list[Source], list[str]]:
    """Packaged catalog with the user's file merged over it by id.

    Returns (sources, errors). Disabled sources are returned with enabled=False so
    the store can mark them; callers that fetch filter on `enabled`.
    """
    errors: list[str] = []
    merged: dict[str, dict] = {}
    origins: dict[str, str] = {}

    packaged = packaged_catalog_path()
    for raw in _read_entries(packaged, errors):
        merged[raw["id"]] = raw
        origins[raw["id"]] = "catalog"

    user = Path(user_file) if user_file is not None else user_catalog_path(settings)
    if user is not None:
        if not user.exists():
            errors.append(f"{user}: user catalog not found; fix sources_file in newsdesk.toml or create the file")
        else:
            for raw in _read_entries(user, errors):
                if raw["id"] in merged:
                    # Override: validate the merged entry, but blame the user's file.
                    candidate = {**merged[raw["id"]], **raw}
                    try:
                        _to_source(candidate, user, settings, "user")
                    except CatalogError as exc:
                        errors.append(str(exc))
                        continue
                    merged[raw["id"]] = candidate
                else:
                    merged[raw["id"]] = raw
                origins[raw["id"]] = "user"

    result: list[Source] = []
    for sid, raw in merged.items():
        where = packaged if origins[sid] == "catalog" else user
        try:
            result.append(_to_source(raw, where, settings, origins[sid]))
        except CatalogError as exc:
            errors.append(str(exc))
    return result, errors


def stored_sources(conn: Connection, ids: list[str] | None = None) -> list[Source]:
    """The catalog as ingest reads it: the store's sources (seeded from the files, plus those
    added in the web app and by imports), with `enabled` as last set by the files or the web app."""
    query = select(*(sources_table.c[f] for f in (*FIELDS, "origin"))).order_by(sources_table.c.id)
    if ids is None:
        return [Source(**row._mapping) for row in conn.execute(query)]
    return [  # in chunks under every database's limit on bound parameters
        Source(**row._mapping)
        for start in range(0, len(ids), BATCH)
        for row in conn.execute(query.where(sources_table.c.id.in_(ids[start : start + BATCH])))
    ]


def _read_entries(path: Path, errors: list[str]) -> list[dict]:
    """Raw `[[source]]` tables that have a usable, unique id; problems go to `errors`."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        errors.append(f"{path}: not valid TOML ({exc}); fix that line, no source from this file was loaded")
        return []
    except (OSError, UnicodeDecodeError) as exc:
        errors.append(f"{path}: cannot read ({exc}); check the path and that it is UTF-8")
        return []
    extra = sorted(set(data) - {"source"})
    if extra:
        errors.append(f"{path}: unknown top-level key(s) {', '.join(extra)}; entries go in [[source]] tables")
    entries = data.get("source", [])
    if not isinstance(entries, list):
        errors.append(f"{path}: 'source' must be an array of tables, written [[source]]")
        return []
    out: list[dict] = []
    seen: dict[str, int] = {}
    for n, raw in enumerate(entries, start=1):
        if not isinstance(raw, dict):
            errors.append(f"{path}: entry #{n} is {raw!r}, not a table; write each source as a [[source]] table")
            continue
        sid = raw.get("id")
        if not isinstance(sid, str) or not _SLUG.match(sid):
            label = f"#{n}" if not isinstance(sid, str) else repr(sid)
            errors.append(
                f"{path}: entry {label} field 'id': "
                + ("missing" if sid is None else "must be a slug like 'arxiv-cs-cl' (a-z, 0-9, '-')")
            )
            continue
        if sid in seen:
            errors.append(f"{path}: entry '{sid}' field 'id': duplicate of entry #{seen[sid]}; keep one")
            continue
        seen[sid] = n
        out.append(raw)
    return out


def _to_source(raw: dict, path: Path | None, settings: Settings, origin: str) -> Source:  # noqa: C901 -- one check per field, in the order the entry names them: a flat list reads better than helpers
    """Validate one raw entry and build its Source; the first bad field raises."""
    sid = raw["id"]

    def bad(field: str, why: str) -> CatalogError:
        return CatalogError(f"{path}: entry '{sid}' field '{field}': {why}")

    for key in raw:
        if key not in FIELDS:
            raise bad(key, f"unknown field (known: {', '.join(FIELDS)})")
    for key in ("name", "url"):
        if key not in raw:
            raise bad(key, "missing")
    values = {**_DEFAULTS, **raw}

    name = values["name"]
    if not isinstance(name, str) or not name.strip():
        raise bad("name", "must be a non-empty string")
    url = values["url"]
    if not isinstance(url, str):
        raise bad("url", "must be an http(s) URL")
    url = url.replace("{bridge}", settings.rss_bridge_base.rstrip("/"))
    if "{" in url or "}" in url:
        raise bad("url", "unknown placeholder; only {bridge} is substituted")
    problem = url_problem(url)
    if problem:
        raise bad("url", f"must be an http(s) URL: {problem}")
    if values["kind"] not in SOURCE_KINDS:
        raise bad("kind", f"{values['kind']!r} is not one of {', '.join(SOURCE_KINDS)}")
    if values["language"] not in LANGUAGES:
        raise bad("language", f"{values['language']!r} is not one of {', '.join(LANGUAGES)}")
    tier = values["tier"]
    if isinstance(tier, bool) or not isinstance(tier, int) or not 1 <= tier <= 3:
        raise bad("tier", "must be 1, 2 or 3 (1 = primary source)")
    weight = values["weight"]
    if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not weight > 0:
        raise bad("weight", "must be a number above 0")
    if values["category"] not in CATEGORIES:
        raise bad("category", f"{values['category']!r} is not one of {', '.join(CATEGORIES)}")
    for key in ("fulltext", "enabled"):
        if not isinstance(values[key], bool):
            raise bad(key, "must be true or false")
    owner = values.get("owner")
    if owner is not None and (not isinstance(owner, str) or not owner.strip() or len(owner) > OWNER_MAX):
        raise bad("owner", f"must be the name of the company behind the source (1-{OWNER_MAX} characters)")
    return Source(
        id=sid,
        name=name.strip(),
        url=url,
        kind=values["kind"],
        language=values["language"],
        tier=tier,
        weight=float(weight),
        category=values["category"],
        fulltext=values["fulltext"],
        enabled=values["enabled"],
        origin=origin,
        owner=owner.strip() if owner else None,
    )


def url_problem(url: str) -> str | None:
    """Why `url` is not a feed address ingest can fetch (http or https, a host, a real port); None if it is."""
    if any(c.isspace() for c in url):
        return "it contains a space"
    try:
        parts = urlsplit(url)
        port = parts.port  # ValueError for a port outside 0-65535 or not a number
    except ValueError as exc:
        return f"not a URL ({exc})"
    if not parts.scheme:
        return "no scheme; write it as https://…"
    if parts.scheme not in ("http", "https"):
        return f"{parts.scheme}: is not fetched; only http and https are"
    if not parts.hostname:
        return "no host"
    if port == 0:
        return "port 0 is not a port (1-65535)"
    return None


# ---------------------------------------------------------------- OPML


def slugify(text: str) -> str:
    """ASCII slug of a title; '' when nothing ASCII is left (e.g. an all-Chinese title)."""
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60].strip("-")


def _url_slug(url: str) -> str:
    parts = urlsplit(url)
    host = (parts.hostname or "").removeprefix("www.")
    return slugify(f"{host} {parts.path}") or "feed"


def _guess_kind(url: str, declared: str | None) -> str:
    if declared in SOURCE_KINDS:
        return declared
    host = (urlsplit(url).hostname or "").lower()
    if host.endswith("arxiv.org"):
        return "arxiv"
    if host in ("hnrss.org", "news.ycombinator.com"):
        return "hn"
    if host.endswith("reddit.com"):
        return "reddit"
    return "rss"


def read_opml(path: str | Path, skipped: list[str] | None = None) -> list[Source]:
    """Every feed outline (at any depth) of an OPML file, as sources with origin 'import'.

    An outline that is not a feed newsdesk can fetch (javascript:, file:, no scheme, a broken
    address, a port past 65535, a {placeholder}) or repeats a feed above it is left out, with
    one line in `skipped` naming it and why.

    Attributes newsdesk writes (kind, language, tier, weight, category, fulltext)
    are honoured when valid; other readers' exports get defaults, with the
    language guessed from the title and the category from an enclosing folder
    outline when its name is a newsdesk category.
    """
    path = Path(path)
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as exc:
        raise CatalogError(f"{path}: not valid OPML/XML ({exc}); export it again from your reader") from None
    except OSError as exc:
        raise CatalogError(f"{path}: cannot read ({exc.strerror}); check the path") from None
    if root.tag != "opml":
        raise CatalogError(f"{path}: root element is <{root.tag}>, not <opml>; is this an OPML export?")

    sources: list[Source] = []
    used: set[str] = set()
    seen: dict[str, str] = {}
    skipped = [] if skipped is None else skipped

    def walk(node: ET.Element, folder: str | None) -> None:
        for outline in node.findall("outline"):
            url = (outline.get("xmlUrl") or "").strip()
            title = (outline.get("title") or outline.get("text") or "").strip()
            if not url:
                walk(outline, title or folder)
                continue
            problem: str | None
            if "{" in url or "}" in url:
                problem = "a {placeholder} is for catalog files; write the feed's full URL"
            elif url in seen:
                problem = f"the same feed as outline {seen[url]!r} above"
            else:
                problem = url_problem(url)
            if problem:
                skipped.append(f"{path}: outline {outline_name(title, url)} skipped: {problem}")
                continue
            seen[url] = title or url
            sources.append(_outline_source(outline, url, title, folder, used))

    body = root.find("body")
    walk(body if body is not None else root, None)
    return sources


def outline_name(title: str, url: str) -> str:
    """How a skip line names an outline: its title and its address, both cut short."""
    return f"{title[:60]!r} (xmlUrl {url[:100]!r})" if title else f"xmlUrl {url[:100]!r}"


def _outline_source(outline: ET.Element, url: str, title: str, folder: str | None, used: set[str]) -> Source:
    name = title or url
    given = outline.get("id") or ""
    # An id newsdesk wrote is kept as it was (slugify would cut a trailing '-' or past 60 characters),
    # within the store's 120.
    kept = _SLUG.match(given) and len(given) <= 120
    base = given if kept else slugify(given) or slugify(title) or _url_slug(url)
    sid, n = base, 2
    while sid in used:
        sid, n = f"{base}-{n}", n + 1
    used.add(sid)

    language = outline.get("language", "")
    language = language.split("-")[0].lower() if language else ""
    if language not in LANGUAGES:
        language = "zh" if _CJK.search(name) else "en"
    category = outline.get("category") or (folder or "").lower()
    if category not in CATEGORIES:
        category = "zh-media" if language == "zh" else "media"
    tier = _int_or(outline.get("tier"), 2)
    weight = _float_or(outline.get("weight"), 1.0)
    owner = " ".join((outline.get("owner") or "").split())[:OWNER_MAX] or None
    return Source(
        id=sid,
        name=name,
        url=url,
        kind=_guess_kind(url, outline.get("kind")),  # readers write type="rss" for every feed
        language=language,
        tier=tier if 1 <= tier <= 3 else 2,
        weight=weight if weight > 0 else 1.0,
        category=category,
        fulltext=(outline.get("fulltext") or "").lower() == "true",
        origin="import",
        owner=owner,
    )


def _int_or(value: str | None, default: int) -> int:
    try:
        return int(value) if value is not None else default
    except ValueError:
        return default


def _float_or(value: str | None, default: float) -> float:
    try:
        return float(value) if value is not None else default
    except ValueError:
        return default


# What XML 1.0 cannot hold at all, escaped or not: control characters but tab, LF and CR, surrogates,
# U+FFFE and U+FFFF. A source named from a JSON Lines outlet ("X\x01 @OpenAI") made the export a file
# no XML reader, newsdesk's own import included, would open.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_value(text: str) -> str:
    """`text` as an OPML attribute can carry it: the characters XML 1.0 forbids left out."""
    return _NOT_XML.sub("", text)


def write_opml(sources: list[Source], path: str | Path, title: str = "newsdesk sources") -> None:
    """OPML 2.0, one folder outline per category; newsdesk's fields ride along as attributes. Every
    value is cut to what XML 1.0 can hold, so the file is valid XML whatever a source is called."""
    root = ET.Element("opml", version="2.0")
    head = ET.SubElement(root, "head")
    ET.SubElement(head, "title").text = title
    body = ET.SubElement(root, "body")
    folders: dict[str, ET.Element] = {}
    for src in sources:
        folder = folders.get(src.category)
        if folder is None:
            folder = folders[src.category] = ET.SubElement(body, "outline", text=src.category, title=src.category)
        ET.SubElement(
            folder,
            "outline",
            {
                "type": "rss",
                "text": src.name,
                "title": src.name,
                "xmlUrl": src.url,
                "id": src.id,
                "kind": src.kind,
                "language": src.language,
                "tier": str(src.tier),
                "weight": repr(float(src.weight)),
                "category": src.category,
                "fulltext": "true" if src.fulltext else "false",
            }
            | ({"owner": src.owner} if src.owner else {}),
        )
    for element in root.iter():
        element.attrib = {key: xml_value(value) for key, value in element.attrib.items()}
        element.text = xml_value(element.text) if element.text else element.text
    ET.indent(root)
    Path(path).write_bytes(ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n")


def user_entry(s: Source) -> dict:
    """A source as the [[source]] table a user catalog holds."""
    return {
        "id": s.id,
        "name": s.name,
        "url": s.url,
        "kind": s.kind,
        "language": s.language,
        "tier": s.tier,
        "weight": float(s.weight),
        "category": s.category,
        "fulltext": s.fulltext,
    } | ({"owner": s.owner} if s.owner else {})


def append_user_entries(path: Path, new: list[Source]) -> None:
    """Append sources to a user catalog as [[source]] tables, keeping what the file already says."""
    text = tomli_w.dumps({"source": [user_entry(s) for s in new]})
    path.parent.mkdir(parents=True, exist_ok=True)
    existing = path.read_text(encoding="utf-8") if path.exists() else ""
    sep = "" if not existing or existing.endswith("\n\n") else ("\n" if existing.endswith("\n") else "\n\n")
    path.write_text(existing + sep + text, encoding="utf-8")


@dataclass
class OpmlImport:
    added: list[Source]  # appended to `target`
    already: list[str]  # one line per feed the catalog already has: nothing to do
    skipped: list[str]  # one line per outline left out, naming it and why
    target: Path


def import_opml(settings: Settings, opml: str | Path, target: str | Path | None = None) -> OpmlImport:
    """Add an OPML file's feeds to the user catalog.

    A feed whose URL the catalog already has is not added again, so importing the same export
    twice adds nothing. An id that clashes with a catalog id gets a suffix. Each entry is checked
    by the catalog's own loader before it is written, so the file never holds one it would refuse.
    """
    target = Path(target) if target else (user_catalog_path(settings) or Path(settings.data_dir) / "sources.toml")
    current, _ = load_catalog(settings, user_file=target if target.exists() else None)
    urls = {s.url: s.id for s in current}
    ids = {s.id for s in current}
    report = OpmlImport([], [], [], target)
    for src in read_opml(opml, report.skipped):
        if src.url in urls:
            report.already.append(
                f"{opml}: outline {outline_name(src.name, src.url)}: already in the catalog as {urls[src.url]!r}"
            )
            continue
        base, n = src.id, 2
        while src.id in ids:
            src.id, n = f"{base}-{n}", n + 1
        try:
            _to_source(user_entry(src), target, settings, "user")
        except CatalogError as exc:
            report.skipped.append(
                f"{opml}: outline {outline_name(src.name, src.url)} skipped: the catalog would refuse it ({exc})"
            )
            continue
        ids.add(src.id)
        urls[src.url] = src.id
        report.added.append(src)
    if report.added:
        append_user_entries(target, report.added)
    return report
