"""The ingest stage: for each source, fetch → parse → full text / transcript → store.

One source is one unit of work: it is claimed with a lease (so several workers can share
a catalog), and everything it yields is written in one transaction together with its
fetch row. A failing source records its error and never stops the others; a killed run
loses at most the sources that were mid-transaction, and the next run picks them up.

`ingest()` is the whole stage: the catalog over the network, a replay directory or a JSON
Lines file. Replay (`ingest --from DIR`) goes through the same path: a directory stands in for the
network, feed files named `<source-id>.<ext>`, and an optional `pages.json` maps article
and transcript URLs to files in the directory.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import socket
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Callable, Protocol

from sqlalchemy import and_, or_, select, update
from sqlalchemy.engine import Engine

from newsdesk.catalog import load_catalog
from newsdesk.config import Settings
from newsdesk.errors import NewsdeskError
from newsdesk.ingest.fetch import Fetcher, FetchResult
from newsdesk.ingest.fulltext import extract_article
from newsdesk.ingest.parse import parse_feed
from newsdesk.ingest.transcripts import TranscriptError, parse_transcript
from newsdesk.model import Item, Source
from newsdesk.store.items import record_fetch, save_validators, stored_items, sync_sources, upsert_items
from newsdesk.store.schema import sources

FEED_SUFFIXES = {".xml", ".rss", ".atom", ".json", ".rdf", ".feed"}
LEASE = timedelta(minutes=10)


PAGE_ACCEPT = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8"


class Getter(Protocol):
    async def get(self, url: str, *, etag: str | None = None, last_modified: str | None = None,
                  accept: str = ...) -> FetchResult | None: ...


@dataclass
class SourceOutcome:
    source_id: str
    status: str  # ok | not_modified | error | skipped
    seen: int = 0
    new: int = 0
    updated: int = 0
    warnings: list[str] = field(default_factory=list)
    error: str | None = None


def _worker_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


def claim(engine: Engine, source_id: str, owner: str, now: datetime) -> bool:
    """Take the source's lease unless another live worker holds it."""
    with engine.begin() as conn:
        result = conn.execute(
            update(sources)
            .where(and_(sources.c.id == source_id, or_(sources.c.lease_until.is_(None), sources.c.lease_until < now)))
            .values(lease_owner=owner, lease_until=now + LEASE)
        )
        return result.rowcount == 1


def release(engine: Engine, source_id: str, owner: str) -> None:
    with engine.begin() as conn:
        conn.execute(
            update(sources)
            .where(and_(sources.c.id == source_id, sources.c.lease_owner == owner))
            .values(lease_owner=None, lease_until=None)
        )


def _known(engine: Engine, source_id: str, guids: list[str]) -> dict[str, tuple[str, str | None]]:
    """(material level, body) of the items this source already holds, by guid."""
    if not guids:
        return {}
    with engine.connect() as conn:
        return {r.guid: (r.material, r.body) for r in stored_items(conn, source_id, guids)}


async def _enrich(item: Item, source: Source, getter: Getter, known: dict, warnings: list[str]) -> None:
    """Full text for fulltext sources and transcripts for podcasts, once per item.

    An item seen before keeps what was fetched for it then: the feed's shorter version must
    not overwrite a stored body or a paywall finding.
    """
    if item.guid in known:
        material, body = known[item.guid]
        if material in ("full", "paywalled", "failed") and item.material in ("summary", "title"):
            item.material, item.body = material, body
        return
    if source.fulltext and item.material in ("summary", "title") and item.url:
        # None: a replay directory without this page; the feed's version stands.
        page = await getter.get(item.url, accept=PAGE_ACCEPT)
        if page is not None and page.ok:
            material, body = extract_article(page.body, item.url)
            if material == "full" and body and len(body) > len(item.summary):
                item.body, item.material = body, "full"
            elif material == "paywalled":
                item.material = "paywalled"
            elif material == "failed" and item.material != "title":
                warnings.append(f"{item.url}: full text could not be extracted; kept the feed summary")
        elif page is not None:
            warnings.append(f"{item.url}: full text not fetched ({page.error}); kept the feed summary")
    for ref in item.extra.get("transcripts", []):
        got = await getter.get(ref["url"], accept="*/*")
        if got is None:
            continue
        if not got.ok:
            warnings.append(f"{ref['url']}: transcript not fetched ({got.error})")
            continue
        try:
            fmt, turns = parse_transcript(got.body, fmt=ref.get("type"), name=ref["url"])
        except TranscriptError as exc:
            warnings.append(str(exc))
            continue
        item.transcript, item.transcript_format, item.transcript_url = turns, fmt, ref["url"]
        item.material = "full"  # the whole conversation is the episode's material
        break


async def ingest_source(engine: Engine, source: Source, getter: Getter, *, owner: str) -> SourceOutcome:
    now = datetime.now(UTC)
    if not claim(engine, source.id, owner, now):
        return SourceOutcome(source.id, "skipped", warnings=["another worker holds this source's lease"])
    try:
        with engine.connect() as conn:
            state = conn.execute(select(sources.c.etag, sources.c.last_modified).where(sources.c.id == source.id)).one()
        started = time.monotonic()
        result = await getter.get(source.url, etag=state.etag, last_modified=state.last_modified)
        fetch_row = dict(
            started_at=now,
            url=source.url,
            http_status=result.status,
            etag=result.etag,
            last_modified=result.last_modified,
            not_modified=result.not_modified,
            warnings=list(result.warnings),
        )
        if result.not_modified:
            with engine.begin() as conn:
                record_fetch(conn, source.id, duration_ms=result.duration_ms, **fetch_row)
            return SourceOutcome(source.id, "not_modified", warnings=fetch_row["warnings"])
        if not result.ok:
            with engine.begin() as conn:
                record_fetch(conn, source.id, duration_ms=result.duration_ms, error=result.error, **fetch_row)
            return SourceOutcome(source.id, "error", warnings=fetch_row["warnings"], error=result.error)
        parsed = parse_feed(result.body, source, fetched_at=now, url=result.url, headers=result.headers)
        warnings = fetch_row["warnings"] + parsed.warnings
        known = _known(engine, source.id, [i.guid for i in parsed.items])
        await asyncio.gather(*(_enrich(i, source, getter, known, warnings) for i in parsed.items))
        outcome = SourceOutcome(source.id, "error" if parsed.error else "ok", seen=len(parsed.items), error=parsed.error)
        with engine.begin() as conn:
            states = upsert_items(conn, parsed.items, now)
            outcome.new, outcome.updated = states.count("new"), states.count("updated")
            fetch_row["warnings"] = warnings
            record_fetch(
                conn,
                source.id,
                duration_ms=int((time.monotonic() - started) * 1000),
                items_seen=outcome.seen,
                items_new=outcome.new,
                items_updated=outcome.updated,
                error=parsed.error,
                **fetch_row,
            )
            if not parsed.error:
                save_validators(conn, source.id, result.etag, result.last_modified)
        outcome.warnings = warnings
        return outcome
    finally:
        release(engine, source.id, owner)


async def ingest_all(
    engine: Engine,
    settings: Settings,
    catalog: list[Source],
    *,
    getter: Getter | None = None,
    on_done: Callable[[SourceOutcome], None] | None = None,
) -> list[SourceOutcome]:
    """Fetch every enabled source concurrently (the fetcher enforces per-host politeness)."""
    enabled = [s for s in catalog if s.enabled]
    with engine.begin() as conn:
        sync_sources(conn, catalog)
    owner = _worker_id()

    async def one(src: Source, g: Getter) -> SourceOutcome:
        try:
            out = await ingest_source(engine, src, g, owner=owner)
        except Exception as exc:  # a bug for one source must not stop the others; it is recorded
            line = f"{src.id}: ingest failed ({type(exc).__name__}: {exc}); other sources continue — please report this"
            with engine.begin() as conn:
                record_fetch(conn, src.id, url=src.url, error=line)
            out = SourceOutcome(src.id, "error", error=line)
        if on_done:
            on_done(out)
        return out

    if getter is not None:
        return list(await asyncio.gather(*(one(s, getter) for s in enabled)))
    async with Fetcher(settings.fetch) as fetcher:
        return list(await asyncio.gather(*(one(s, fetcher) for s in enabled)))


# --- replay from a directory -----------------------------------------------------------


class DirectoryGetter:
    """Serves feed files and the pages in `pages.json` from a directory, as the network would."""

    def __init__(self, root: Path, feeds: dict[str, Path]):
        self.root = root
        self.feeds = feeds  # pseudo URL -> file
        manifest = root / "pages.json"
        self.pages: dict[str, str] = json.loads(manifest.read_text("utf-8")) if manifest.exists() else {}

    async def get(self, url: str, *, etag: str | None = None, last_modified: str | None = None,
                  accept: str = "") -> FetchResult | None:
        path = self.feeds.get(url)
        if path is None and url in self.pages:
            path = self.root / self.pages[url]
        if path is None:
            return None
        started = time.monotonic()
        try:
            body, error = path.read_bytes(), None
        except OSError as exc:
            body, error = None, f"{path}: cannot read ({exc.strerror}); check the replay directory"
        return FetchResult(
            url=url, status=200 if body is not None else None, body=body, headers={}, etag=None,
            last_modified=None, not_modified=False, error=error, warnings=[],
            duration_ms=int((time.monotonic() - started) * 1000), attempts=1,
        )


def source_id_for_file(path: Path) -> str:
    """`feed_anthropic_news.xml` → `anthropic-news`; `arxiv-cs-cl.xml` → `arxiv-cs-cl`."""
    stem = re.sub(r"^feed_", "", path.stem.lower())
    return re.sub(r"[^a-z0-9]+", "-", stem).strip("-")


def replay_sources(root: Path, catalog: dict[str, Source]) -> tuple[list[Source], dict[str, Path]]:
    """One source per feed file; catalog metadata where the id is known, else an imported source."""
    found: list[Source] = []
    feeds: dict[str, Path] = {}
    base = root / "feeds" if (root / "feeds").is_dir() else root
    for path in sorted(base.iterdir()):
        if path.suffix.lower() not in FEED_SUFFIXES or not path.is_file():
            continue
        sid = source_id_for_file(path)
        src = catalog.get(sid)
        if src is None:
            src = Source(id=sid, name=sid.replace("-", " ").title(), url=path.resolve().as_uri(), origin="import")
        feeds[src.url] = path
        found.append(src)
    return found, feeds


# --- JSON Lines import ------------------------------------------------------------------


def import_jsonl(engine: Engine, path: Path) -> list[SourceOutcome]:
    """Import a harvest file (one item per line); one transaction and fetch row per outlet."""
    from newsdesk.ingest.jsonl import read_harvest

    errors: list[str] = []
    by_source: dict[str, tuple[Source, list[Item]]] = {}
    for src, item in read_harvest(path, errors=errors):
        by_source.setdefault(src.id, (src, []))[1].append(item)
    now = datetime.now(UTC)
    outcomes: list[SourceOutcome] = []
    with engine.begin() as conn:
        sync_sources(conn, [src for src, _ in by_source.values()])
    for sid, (src, batch) in by_source.items():
        out = SourceOutcome(sid, "ok", seen=len(batch))
        with engine.begin() as conn:
            states = upsert_items(conn, batch, now)
            out.new, out.updated = states.count("new"), states.count("updated")
            record_fetch(conn, sid, started_at=now, url=path.resolve().as_uri(), items_seen=out.seen,
                         items_new=out.new, items_updated=out.updated, duration_ms=0)
        outcomes.append(out)
    if errors:
        outcomes.append(SourceOutcome(path.name, "error", warnings=errors, error=f"{len(errors)} bad lines skipped: {errors[0]}"))
    return outcomes


# --- the stage ----------------------------------------------------------------------------


@dataclass
class IngestReport:
    outcomes: list[SourceOutcome] = field(default_factory=list)
    catalog_errors: list[str] = field(default_factory=list)  # bad catalog entries, skipped; one line each

    @property
    def failed(self) -> list[SourceOutcome]:
        return [o for o in self.outcomes if o.status == "error"]

    @property
    def new(self) -> int:
        return sum(o.new for o in self.outcomes)

    @property
    def updated(self) -> int:
        return sum(o.updated for o in self.outcomes)


def ingest(
    engine: Engine,
    settings: Settings,
    source: Path | None = None,
    only: list[str] | None = None,
    *,
    progress: Callable[[int, int], None] | None = None,
) -> IngestReport:
    """Ingest every enabled source of the catalog over the network, or replay a directory of
    feed files / import a JSON Lines file (`source`); `only` keeps these source ids.
    `progress(done, total)` is called as each source finishes."""
    if source is not None and source.is_file():
        return IngestReport(import_jsonl(engine, source))
    catalog, errors = load_catalog(settings)
    getter = None
    if source is not None:
        if not source.is_dir():
            raise NewsdeskError(f"{source}: no such directory or file",
                                "--from takes a directory of feed files or a .jsonl file")
        catalog, feeds = replay_sources(source, {c.id: c for c in catalog})
        getter = DirectoryGetter(source, feeds)
    if only:
        unknown = set(only) - {c.id for c in catalog}
        if unknown:
            raise NewsdeskError(f"unknown source id(s): {', '.join(sorted(unknown))}", "`newsdesk sources` lists them")
        catalog = [c for c in catalog if c.id in only]
    total, done = sum(c.enabled for c in catalog), 0

    def one_done(_: SourceOutcome) -> None:
        nonlocal done
        done += 1
        if progress:
            progress(done, total)

    outcomes = asyncio.run(ingest_all(engine, settings, catalog, getter=getter, on_done=one_done))
    return IngestReport(outcomes, errors)
