"""One source at a time from the command line: `newsdesk sources add | remove | enable | disable`.

They follow the model `sources import` follows. What a user adds lives in their catalog file
(`sources_file`, else `<data_dir>/sources.toml`), which seeds the store: the entry is checked
by the catalog's own loader before it is written, so the file never holds one it would refuse,
and the store gets it at once. Switching a source on or off is the store's switch, as the web
app's is (it holds until the file's own `enabled` changes). Nothing stored is lost: a removed
source that has items keeps them, and stays in the store switched off.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import delete, func, select, update
from sqlalchemy.engine import Engine

from newsdesk.core.config import Settings
from newsdesk.core.errors import NewsdeskError
from newsdesk.core.model import IMPORTED_KIND, Source
from newsdesk.ingest.catalog import (  # the loader's own reading and checks, so an entry means one thing
    _SLUG,
    CatalogError,
    _read_entries,
    _to_source,
    append_user_entries,
    load_catalog,
    packaged_catalog_path,
    user_catalog_path,
)
from newsdesk.store.items import sync_sources
from newsdesk.store.schema import fetches, items, sources

TABLE_START = re.compile(r"^\s*\[\[source\]\]\s*(?:#.*)?$", re.M)


class SourceError(NewsdeskError):
    """A source that cannot be added, removed or switched as asked: one line with the fix."""


def user_file(settings: Settings) -> Path:
    """Where the user's sources live: the file `sources import` writes."""
    return user_catalog_path(settings) or Path(settings.data_dir) / "sources.toml"


def add(engine: Engine, settings: Settings, entry: dict) -> tuple[Source, Path]:
    """Append `entry` (a [[source]] table: id, name, url, kind, …) to the user's catalog file and
    seed the store with it; returns the source and the file."""
    target = user_file(settings)
    sid = entry["id"]
    if not _SLUG.match(sid):
        raise SourceError(f"source name {sid!r} is not a slug", "write it like 'openai-blog' (a-z, 0-9, '-')")
    if entry.get("kind") == IMPORTED_KIND:
        raise SourceError(
            f"kind {IMPORTED_KIND!r} is for outlets imported from JSON Lines (`newsdesk ingest --from FILE.jsonl`)",
            "give the kind of the feed at the URL (rss, atom, …)",
        )
    catalog, _ = load_catalog(settings)
    with engine.connect() as conn:
        stored = {r.id: r.url for r in conn.execute(select(sources.c.id, sources.c.url))}
    known = {s.id: s.url for s in catalog} | stored
    if sid in known:
        where = _where(settings, sid, catalog)
        raise SourceError(
            f"a source named {sid!r} already exists ({where}, {known[sid]})",
            f"pick another NAME, or `newsdesk sources enable {sid}` if it is switched off",
        )
    try:
        source = _to_source(entry, target, settings, "user")  # the loader's checks: url, kind, language, …
    except CatalogError as exc:
        raise SourceError(str(exc).replace(f"{target}: entry ", "source ", 1)) from None
    same_url = next((other for other, url in known.items() if url == source.url), None)
    if same_url:
        raise SourceError(f"{source.url} is already the source {same_url!r}", "add it once")
    append_user_entries(target, [source])
    _seed(engine, settings)
    return source, target


def remove(engine: Engine, settings: Settings, sid: str) -> str:
    """Take `sid` out of the user's catalog file and the store; returns what was done, in one line."""
    catalog, _ = load_catalog(settings)
    if sid in _packaged_ids():
        raise SourceError(
            f"{sid!r} is in newsdesk's own catalog and cannot be removed",
            f"`newsdesk sources disable {sid}` switches it off",
        )
    said = []
    target = user_file(settings)
    if any(s.id == sid for s in catalog) and target.exists():
        _drop_table(target, sid)
        said.append(f"removed {sid!r} from {target}")
    with engine.begin() as conn:
        if conn.execute(select(sources.c.id).where(sources.c.id == sid)).first() is None:
            if not said:
                raise SourceError(f"no source named {sid!r}", "`newsdesk sources` lists them")
            return said[0]
        kept = conn.execute(select(func.count()).select_from(items).where(items.c.source_id == sid)).scalar()
        if kept:  # its items are the newsroom's: they stay, and so does their source, switched off
            conn.execute(update(sources).where(sources.c.id == sid).values(enabled=False, catalog_enabled=False))
            said.append(f"its {kept} stored items stay, so the store keeps it, switched off")
        else:
            conn.execute(delete(fetches).where(fetches.c.source_id == sid))
            conn.execute(delete(sources).where(sources.c.id == sid))
            said.append(f"removed {sid!r} from the store")
    return "; ".join(said)


def set_enabled(engine: Engine, settings: Settings, sid: str, enabled: bool) -> bool:
    """Switch `sid` on or off in the store (the web app's switch); returns whether it changed."""
    _seed(engine, settings)  # a source just written into a catalog file is in the store to switch
    with engine.begin() as conn:
        row = conn.execute(select(sources.c.enabled).where(sources.c.id == sid)).first()
        if row is None:
            raise SourceError(f"no source named {sid!r}", "`newsdesk sources` lists them")
        conn.execute(update(sources).where(sources.c.id == sid).values(enabled=enabled))
    return row.enabled != enabled


@dataclass
class _Table:
    text: str
    id: str | None


def _drop_table(path: Path, sid: str) -> None:
    """Rewrite `path` without the [[source]] table whose id is `sid`, keeping every other line
    (comments included) as written. The result is checked against the file read by TOML: if the
    file is shaped so that this would change anything else, it is left alone and the fix named."""
    text = path.read_text(encoding="utf-8")
    starts = [m.start() for m in TABLE_START.finditer(text)]
    head, parts = text[: starts[0]] if starts else text, []
    for start, end in zip(starts, starts[1:] + [len(text)]):
        chunk = text[start:end]
        try:
            parts.append(_Table(chunk, tomllib.loads(chunk)["source"][0].get("id")))
        except (tomllib.TOMLDecodeError, KeyError, IndexError):
            parts.append(_Table(chunk, None))
    kept = head + "".join(p.text for p in parts if p.id != sid)
    before = tomllib.loads(text).get("source", [])
    after = tomllib.loads(kept).get("source", []) if kept.strip() else []
    if after != [e for e in before if e.get("id") != sid]:
        raise SourceError(f"{path}: cannot take out {sid!r} without touching other lines", "delete its table by hand")
    path.write_text(kept, encoding="utf-8")


def _packaged_ids() -> set[str]:
    return {raw["id"] for raw in _read_entries(packaged_catalog_path(), [])}


def _where(settings: Settings, sid: str, catalog: list[Source]) -> str:
    if sid in _packaged_ids():
        return "in newsdesk's own catalog"
    return f"in {user_file(settings)}" if any(s.id == sid for s in catalog) else "added in the web app"


def _seed(engine: Engine, settings: Settings) -> None:
    catalog, _ = load_catalog(settings)
    with engine.begin() as conn:
        sync_sources(conn, catalog)
