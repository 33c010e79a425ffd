"""The ingest stage: for each source, fetch → parse → full text / transcript → store.

The sources are the store's: the catalog files seed it (catalog.load_catalog → sync_sources),
the web app adds and switches sources in it, and ingest fetches what it says is enabled.

One source is one unit of work: it is claimed with a lease (so several workers can share
a catalog), and everything it yields is written in one transaction together with its
fetch row. A failing source records its error and never stops the others; a killed run
loses at most the sources that were mid-transaction, and the next run picks them up: a
lease is short and renewed while its worker lives, and one held by a dead process on this
host is taken over at once. A source that is not fetched is reported, never silently left.

Replay (`ingest --from DIR`) goes through the same path: a directory stands in for the
network, feed files named `<source-id>.<ext>`, and an optional `pages.json` maps article
and transcript URLs to files in the directory.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Protocol

from sqlalchemy import and_, case, select, update
from sqlalchemy.engine import Engine

from newsdesk.core.config import ScheduleSettings, Settings
from newsdesk.core.errors import NewsdeskError, error_line
from newsdesk.core.model import IMPORTED_KIND, Item, Source, not_polled_why
from newsdesk.ingest.catalog import load_catalog, stored_sources
from newsdesk.ingest.fetch import Fetcher, FetchResult
from newsdesk.ingest.poll import schedule_next_poll
from newsdesk.ingest.robots import robots_of
from newsdesk.store.items import (
    items_language,
    record_fetch,
    save_validators,
    stored_items,
    sync_sources,
    upsert_items,
)
from newsdesk.store.leases import lease_holder, owner_id, take_lease
from newsdesk.store.schema import sources

FEED_SUFFIXES = {".xml", ".rss", ".atom", ".json", ".rdf", ".feed"}
JSONL_SUFFIXES = {".jsonl", ".ndjson"}
PAGES_FILE = "pages.json"
# A lease outlives its worker by at most LEASE: the worker renews it every HEARTBEAT while it runs.
LEASE = timedelta(minutes=2)
HEARTBEAT = 30.0


PAGE_ACCEPT = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8"


class IngestError(NewsdeskError):
    """Ingest cannot start as asked (unknown source id, no such file); one line naming the fix."""


class Getter(Protocol):
    async def get(
        self, url: str, *, etag: str | None = None, last_modified: str | None = None, accept: str = ...
    ) -> FetchResult | None: ...


@dataclass
class SourceOutcome:
    source_id: str
    status: str  # ok | not_modified | error | skipped
    seen: int = 0
    new: int = 0
    updated: int = 0
    warnings: list[str] = field(default_factory=list)
    error: str | None = None
    refused: list[str] = field(default_factory=list)  # an import's items not stored: each named, with why
    every: tuple[int, str] | None = None  # what the feed states about its updates (ingest/poll.py)


def claim(engine: Engine, source_id: str, owner: str, now: datetime) -> bool:
    """Take the source's lease unless another live worker holds it."""
    with engine.begin() as conn:
        return take_lease(conn, sources, sources.c.id == source_id, owner, now, LEASE)


def renew(engine: Engine, owner: str, now: datetime) -> None:
    """Extend every lease this worker holds (the heartbeat)."""
    with engine.begin() as conn:
        conn.execute(update(sources).where(sources.c.lease_owner == owner).values(lease_until=now + LEASE))


def release(engine: Engine, source_id: str, owner: str) -> None:
    with engine.begin() as conn:
        conn.execute(
            update(sources)
            .where(and_(sources.c.id == source_id, sources.c.lease_owner == owner))
            .values(lease_owner=None, lease_until=None)
        )


async def _heartbeat(engine: Engine, owner: str) -> None:
    while True:
        await asyncio.sleep(HEARTBEAT)
        renew(engine, owner, datetime.now(UTC))


def _known(engine: Engine, source_id: str, guids: list[str]) -> dict[str, tuple[str, str | None]]:
    """(material level, body) of the items this source already holds, by guid."""
    if not guids:
        return {}
    with engine.connect() as conn:
        return {r.guid: (r.material_level, r.body) for r in stored_items(conn, source_id, guids)}


def _wants_page(item: Item, source: Source) -> bool:
    """Whether an item's article page is worth fetching: every item the feed gave no full text for,
    of a source marked fulltext; a headline alone, of any source (where robots.txt allows)."""
    return item.material_level == "title" or (source.fulltext and item.material_level == "summary")


async def _enrich(item: Item, source: Source, getter: Getter, known: dict, warnings: list[str]) -> None:
    """Full text for fulltext sources and title-only items, transcripts for podcasts, once per item.

    An item seen before keeps what was fetched for it then: the feed's shorter version must
    not overwrite a stored body or a paywall finding.
    """
    if item.guid in known:
        level, body = known[item.guid]
        if level in ("full", "paywalled", "failed") and item.material_level in ("summary", "title"):
            item.material_level, item.body = level, body
        return
    if item.url and _wants_page(item, source) and (source.fulltext or await robots_of(getter).allows(getter, item.url)):
        from newsdesk.ingest.fulltext import extract_article  # trafilatura: 0.2 s, only when a page is fetched

        # None: a replay directory without this page; the feed's version stands.
        page = await getter.get(item.url, accept=PAGE_ACCEPT)
        if page is not None and page.ok:
            level, body = extract_article(page.body, item.url)
            if level == "full" and body and len(body) > len(item.summary):
                item.body, item.material_level = body, "full"
            elif level == "paywalled":
                item.material_level = "paywalled"
            elif level == "failed" and item.material_level != "title":
                warnings.append(f"{item.url}: full text could not be extracted; kept the feed summary")
        elif page is not None and source.fulltext:
            # A page fetched only because the feed gave a headline alone fails quietly: its card
            # already says that only the headline is known.
            warnings.append(f"{item.url}: full text not fetched ({page.error}); kept the feed summary")
    for ref in item.extra.get("transcripts", []):
        from newsdesk.ingest.transcripts import TranscriptError, parse_transcript  # chardet, lxml: podcasts only

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
        item.material_level = "full"  # the whole conversation is the episode's material
        break


def body_hash(body: bytes, source: Source) -> str:
    """What makes a poll's items: the body, and the source settings parsing and storing read. The
    same digest as the last body stored without error means the same items: nothing to parse."""
    digest = hashlib.sha256(body)
    digest.update(repr((source.url, source.kind, source.language, source.fulltext, source.tier)).encode())
    return digest.hexdigest()


def _claim_state(engine: Engine, source_id: str, owner: str, now: datetime):
    """Take the source's lease and read what its last poll left (validators, body digest), in one
    transaction; None when another live worker holds it."""
    with engine.begin() as conn:
        if not take_lease(conn, sources, sources.c.id == source_id, owner, now, LEASE):
            return None
        return conn.execute(
            select(sources.c.etag, sources.c.last_modified, sources.c.body_hash).where(sources.c.id == source_id)
        ).one()


class _Finish:
    """A poll's last writes, in the transaction that stores its outcome (one commit per source, not
    three): when to poll it next (if `schedule`), and its lease given back."""

    def __init__(self, source_id: str, owner: str, schedule: ScheduleSettings | None):
        self.source_id, self.owner, self.schedule = source_id, owner, schedule
        self.done = False

    def __call__(self, conn, outcome: SourceOutcome) -> SourceOutcome:
        if self.schedule is not None:  # ingest/poll.py, from what this fetch said
            now = datetime.now(UTC)
            schedule_next_poll(conn, self.source_id, outcome.status, outcome.every, self.schedule, now)
        conn.execute(
            update(sources)
            .where(and_(sources.c.id == self.source_id, sources.c.lease_owner == self.owner))
            .values(lease_owner=None, lease_until=None)
        )
        return outcome


async def ingest_source(
    engine: Engine, source: Source, getter: Getter, *, owner: str, schedule: ScheduleSettings | None = None
) -> SourceOutcome:
    """Poll one source and store what it says; `schedule`: also store when to poll it next."""
    now = datetime.now(UTC)
    # A replay serves the source's file itself: a source made by replaying a file is updated by the next replay.
    if not source.polled and not isinstance(getter, DirectoryGetter):
        return SourceOutcome(source.id, "skipped", error=not_polled_why(source.kind, source.url))
    if not source.enabled:
        return SourceOutcome(
            source.id, "skipped", error="disabled (in the web app or the catalog); enable it to fetch it"
        )
    state = _claim_state(engine, source.id, owner, now)
    if state is None:
        holder = lease_holder(engine, sources, sources.c.id == source.id) or "another worker"
        return SourceOutcome(source.id, "skipped", error=f"not fetched: held by {holder}")
    finish = _Finish(source.id, owner, schedule)
    try:
        result = await getter.get(source.url, etag=state.etag, last_modified=state.last_modified)
        assert result is not None, "a replay directory holds every replayed source's feed (only pages may be missing)"
        fetch_row: dict[str, Any] = dict(
            started_at=now,
            url=source.url,
            http_status=result.status,
            etag=result.etag,
            last_modified=result.last_modified,
            not_modified=result.not_modified,
            warnings=list(result.warnings),
        )
        digest = body_hash(result.body, source) if result.ok and result.body is not None else None
        if fetch_row["not_modified"] or not result.ok or digest == state.body_hash:
            with engine.begin() as conn:
                if result.ok:
                    # A server that ignores If-None-Match / If-Modified-Since (or sends no validators) sent
                    # the body stored last time: counted as not modified, neither parsed nor stored again.
                    fetch_row["not_modified"] = True
                    save_validators(conn, source.id, result.etag, result.last_modified, digest)
                record_fetch(conn, source.id, duration_ms=result.duration_ms, error=result.error, **fetch_row)
                status = "not_modified" if fetch_row["not_modified"] else "error"
                out = finish(conn, SourceOutcome(source.id, status, warnings=fetch_row["warnings"], error=result.error))
            finish.done = True
            return out
        return await _store_parsed(engine, source, getter, result, fetch_row, digest, finish)
    finally:
        if not finish.done:
            release(engine, source.id, owner)


async def _store_parsed(
    engine: Engine,
    source: Source,
    getter: Getter,
    result: FetchResult,
    fetch_row: dict[str, Any],
    digest: str | None,
    finish: _Finish,
) -> SourceOutcome:
    """A new body: its entries not seen at the last parse parsed, enriched and stored with the fetch row."""
    # feedparser, lxml and the normalizers (0.1 s to import) only when a body is new: a refresh
    # of feeds that did not change never loads them.
    from newsdesk.ingest.parse import parse_feed

    now, started = fetch_row["started_at"], time.monotonic()
    with engine.connect() as conn:  # the entries stored last time: read again only where they changed
        seen = conn.execute(select(sources.c.entry_digests).where(sources.c.id == source.id)).scalar()
    assert result.body is not None
    parsed = parse_feed(result.body, source, fetched_at=now, url=result.url, headers=result.headers, seen=seen or None)
    warnings = fetch_row["warnings"] + parsed.warnings
    known = _known(engine, source.id, [i.guid for i in parsed.items])
    await asyncio.gather(*(_enrich(i, source, getter, known, warnings) for i in parsed.items))
    outcome = SourceOutcome(
        source.id,
        "error" if parsed.error else "ok",
        seen=len(parsed.items) + parsed.unchanged,
        error=parsed.error,
        every=parsed.every,
        refused=[f"{source.id}: {line}" for line in parsed.refused],
    )
    with engine.begin() as conn:
        states = upsert_items(conn, parsed.items, now)
        outcome.new, outcome.updated = states.count("new"), states.count("updated")
        fetch_row["warnings"] = warnings
        record_fetch(
            conn,
            source.id,
            duration_ms=result.duration_ms + int((time.monotonic() - started) * 1000),
            items_seen=outcome.seen,
            items_new=outcome.new,
            items_updated=outcome.updated,
            error=parsed.error,
            **fetch_row,
        )
        if not parsed.error:
            save_validators(conn, source.id, result.etag, result.last_modified, digest, entry_digests=parsed.digests)
        finish(conn, outcome)
    finish.done = True
    outcome.warnings = warnings
    return outcome


async def ingest_all(
    engine: Engine,
    settings: Settings,
    catalog: list[Source],
    *,
    getter: Getter | None = None,
    on_done: Callable[[SourceOutcome], None] | None = None,
) -> list[SourceOutcome]:
    """Fetch these sources concurrently (the fetcher enforces per-host politeness).

    A source the store does not know yet is added; one it knows is fetched as the store
    has it, so a source switched off in the web app is reported as skipped, not fetched.
    """
    ids = [s.id for s in catalog]
    with engine.begin() as conn:
        known = {s.id for s in stored_sources(conn, ids)}
        sync_sources(conn, [s for s in catalog if s.id not in known])
        current = {s.id: s for s in stored_sources(conn, ids)}
    todo = [current[i] for i in dict.fromkeys(ids)]
    owner = owner_id()

    async def one(src: Source, g: Getter) -> SourceOutcome:
        try:  # it stores when to poll the source next with its outcome
            out = await ingest_source(engine, src, g, owner=owner, schedule=settings.schedule)
        except Exception as exc:  # a bug for one source must not stop the others; it is recorded
            line = f"{src.id}: ingest failed ({error_line(exc)}); other sources continue"
            out = SourceOutcome(src.id, "error", error=line)
            with engine.begin() as conn:
                record_fetch(conn, src.id, url=src.url, error=line)
                schedule_next_poll(conn, src.id, out.status, out.every, settings.schedule, datetime.now(UTC))
        if on_done:
            on_done(out)
        return out

    heartbeat = asyncio.create_task(_heartbeat(engine, owner))
    try:
        if getter is not None:
            return list(await asyncio.gather(*(one(s, getter) for s in todo)))
        async with Fetcher(settings.fetch) as fetcher:
            return list(await asyncio.gather(*(one(s, fetcher) for s in todo)))
    finally:
        heartbeat.cancel()


@dataclass
class IngestReport:
    outcomes: list[SourceOutcome] = field(default_factory=list)
    catalog_errors: list[str] = field(default_factory=list)  # bad catalog entries, skipped; one line each

    @property
    def failed(self) -> list[SourceOutcome]:
        return [o for o in self.outcomes if o.status == "error"]

    @property
    def skipped(self) -> list[SourceOutcome]:
        """Sources this run did not fetch (disabled, or leased by another live worker), each with why."""
        return [o for o in self.outcomes if o.status == "skipped"]

    @property
    def refused(self) -> list[str]:
        """Items not stored, each named with why (a bad JSON Lines line, a feed entry with nothing in it)."""
        return [line for o in self.outcomes for line in o.refused]

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
    catalog: list[Source] | None = None,
) -> IngestReport:
    """The ingest stage: seed the store from the catalog files (or `catalog`), then fetch every
    source the store has enabled; or replay a directory / one feed file, or import a JSON Lines
    file (`source`). `only` keeps these source ids (one the store does not have is an IngestError).
    Problems with replay files are outcomes with status 'error', like a failing source.
    `progress(done, total)` is called as each source finishes."""
    errors: list[str] = []
    if catalog is None:
        catalog, errors = load_catalog(settings)
    with engine.begin() as conn:
        sync_sources(conn, catalog)
        stored = stored_sources(conn)
    getter: Getter | None = None
    problems: list[SourceOutcome] = []
    if source is None:
        # Named sources are tried as asked (an imported outlet is then skipped, saying why); a plain
        # run fetches the enabled feeds only.
        todo = stored if only else [s for s in stored if s.enabled and s.polled]
    elif source.is_file() and source.suffix.lower() in JSONL_SUFFIXES:
        if only:
            raise IngestError(f"--source does not apply to {source.name}: a JSON Lines import takes every outlet in it")
        return IngestReport(import_jsonl(engine, source), errors)
    elif source.is_dir() or (source.is_file() and source.suffix.lower() in FEED_SUFFIXES):
        todo, feeds, problems = replay_sources(source, {s.id: s for s in stored})
        root = source if source.is_dir() else source.parent
        pages, trouble = read_pages(root)
        problems += trouble
        getter = DirectoryGetter(root, feeds, pages)
    elif source.is_file():
        raise IngestError(
            f"{source}: not a feed ({', '.join(sorted(FEED_SUFFIXES))}) or JSON Lines "
            f"({', '.join(sorted(JSONL_SUFFIXES))}) file; rename it or give a directory of feed files"
        )
    else:
        raise IngestError(
            f"{source}: no such directory or file; --from takes a directory of feed files, a feed file or a .jsonl file"
        )
    if only:
        unknown = sorted(set(only) - {s.id for s in todo})
        if unknown:
            raise IngestError(f"unknown source id(s): {', '.join(unknown)}; `newsdesk sources` lists them")
        todo = [s for s in todo if s.id in only]
    total, done = len(todo) + len(problems), 0

    def one_done(_: SourceOutcome) -> None:
        nonlocal done
        done += 1
        if progress:
            progress(done, total)

    for problem in problems:
        one_done(problem)
    outcomes = asyncio.run(ingest_all(engine, settings, todo, getter=getter, on_done=one_done))
    return IngestReport(problems + outcomes, errors)


# --- replay from a directory -----------------------------------------------------------


class DirectoryGetter:
    """Serves feed files and the pages in `pages.json` from a directory, as the network would."""

    def __init__(self, root: Path, feeds: dict[str, Path], pages: dict[str, str] | None = None):
        self.root = root
        self.feeds = feeds  # pseudo URL -> file
        self.pages = pages or {}  # article / transcript URL -> file name in root

    async def get(
        self, url: str, *, etag: str | None = None, last_modified: str | None = None, accept: str = ""
    ) -> FetchResult | None:
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
            url=url,
            status=200 if body is not None else None,
            body=body,
            headers={},
            etag=None,
            last_modified=None,
            not_modified=False,
            error=error,
            warnings=[],
            duration_ms=int((time.monotonic() - started) * 1000),
            attempts=1,
        )


def read_pages(root: Path) -> tuple[dict[str, str], list[SourceOutcome]]:
    """The replay directory's `pages.json` ({url: file name}); a broken one is reported and ignored."""
    manifest = root / PAGES_FILE
    if not manifest.is_file():
        return {}, []
    fix = "it must be one JSON object mapping article URLs to file names in the directory"
    try:
        pages = json.loads(manifest.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        why = f"line {exc.lineno}, column {exc.colno}: {exc.msg}" if isinstance(exc, json.JSONDecodeError) else str(exc)
        pages, problem = None, f"{manifest}: not readable JSON ({why}); {fix}. Feeds replayed without full pages"
    else:
        problem = f"{manifest}: {fix}. Feeds replayed without full pages"
    if isinstance(pages, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in pages.items()):
        return pages, []
    return {}, [SourceOutcome(PAGES_FILE, "error", error=problem)]


def source_id_for_file(path: Path) -> str:
    """`feed_anthropic_news.xml` → `anthropic-news`; `arxiv-cs-cl.xml` → `arxiv-cs-cl`."""
    stem = re.sub(r"^feed_", "", path.stem.lower())
    return re.sub(r"[^a-z0-9]+", "-", stem).strip("-")


def replay_sources(path: Path, known: dict[str, Source]) -> tuple[list[Source], dict[str, Path], list[SourceOutcome]]:
    """One source per feed file (a directory's, or one file); known metadata where the id is known,
    else an imported source. A file name that gives no id, or the same id as another file, is an
    error outcome naming the files: guessing which file a source means would drop the other's items."""
    if path.is_file():
        files = [path]
    else:
        base = path / "feeds" if (path / "feeds").is_dir() else path
        files = [
            p
            for p in sorted(base.iterdir())
            if p.suffix.lower() in FEED_SUFFIXES and p.is_file() and not (base == path and p.name == PAGES_FILE)
        ]
    by_id: dict[str, list[Path]] = {}
    problems: list[SourceOutcome] = []
    for file in files:
        sid = source_id_for_file(file)
        if not sid:
            problems.append(
                SourceOutcome(
                    file.name,
                    "error",
                    error=(
                        f"{file}: the file name gives no source id; rename it <source-id>{file.suffix} "
                        "with letters a-z, digits and '-' (e.g. openai-news.xml)"
                    ),
                )
            )
            continue
        by_id.setdefault(sid, []).append(file)
    found: list[Source] = []
    feeds: dict[str, Path] = {}
    for sid, paths in by_id.items():
        if len(paths) > 1:
            names = ", ".join(p.name for p in paths)
            problems.append(
                SourceOutcome(
                    sid,
                    "error",
                    error=(f"{names}: these files all name source {sid!r}, none was replayed; rename all but one"),
                )
            )
            continue
        src = known.get(sid) or Source(
            id=sid, name=sid.replace("-", " ").title(), url=paths[0].resolve().as_uri(), origin="import"
        )
        feeds[src.url] = paths[0]
        found.append(src)
    return found, feeds, problems


# --- JSON Lines import ------------------------------------------------------------------


def _settle_outlet_language(conn, source_id: str, rows: list[Item]) -> None:
    """An imported outlet's language is the one most of its stored items are in, not its first
    item's: "X @sama", first seen through a Chinese post, became a Chinese source. A catalog source
    keeps the catalog's language, and a company's channel its filing with the company (`_owned`)."""
    from newsdesk.ingest.jsonl import outlet_category

    language = items_language(conn, source_id)
    if language is None:
        return
    channel = next((str(i.extra["source_channel"]) for i in rows if i.extra.get("source_channel")), "")
    conn.execute(
        update(sources)
        .where(sources.c.id == source_id, sources.c.origin == "import", sources.c.kind == IMPORTED_KIND)
        .values(
            language=language,
            category=case((sources.c.owner.is_(None), outlet_category(language, channel)), else_=sources.c.category),
        )
    )


def _owned(conn, new: list[Source]) -> list[Source]:
    """An imported outlet named as a major company's own channel ("OpenAI Blog") speaks for the owner
    the store's sources give that company ("OpenAI"): one voice with its other channels, not an
    independent outlet confirming them (cluster/independence.py). It is filed where those channels
    are (AI labs, not the import's media): a reader saw OpenAI's own posts labelled as media."""
    from collections import Counter
    from dataclasses import replace

    from newsdesk.text.companies import companies_named, first_party_name

    channels = [s for s in new if not s.owner and first_party_name(s.name)]
    if not channels:
        return new
    owners: dict[frozenset[str], str] = {}
    filed: dict[str, Counter] = {}
    for s in stored_sources(conn):
        if s.owner:
            filed.setdefault(s.owner, Counter())[s.category] += 1
    for name in sorted(filed):
        owners.setdefault(frozenset(companies_named(name)), name)
    found = {s.id: owners.get(frozenset(companies_named(s.name))) for s in channels}
    return [
        replace(s, owner=owner, category=filed[owner].most_common(1)[0][0]) if (owner := found.get(s.id)) else s
        for s in new
    ]


def import_jsonl(engine: Engine, path: Path) -> list[SourceOutcome]:
    """Import a harvest file (one item per line); one transaction and fetch row per outlet.

    An outlet the store already has (a catalog source of the same id) keeps its catalog entry, and
    its items are stored even when it is off for polling (x-openai needs an X bridge, so the
    catalog has it off): the user gave the items, and `enabled` says only whether ingest polls it.
    Each line refused is named, with why, in the file's outcome (`refused`).
    """
    from newsdesk.ingest.jsonl import read_harvest

    errors: list[str] = []
    warnings: list[str] = []
    by_source: dict[str, tuple[Source, dict[str, Item]]] = {}
    repeats = 0
    for src, item in read_harvest(path, errors=errors, warnings=warnings):
        batch = by_source.setdefault(src.id, (src, {}))[1]
        # A link harvested twice is one item: the later line wins. Storing both in turn made every
        # re-import flip the pair and report them as updated.
        repeats += item.guid in batch
        batch.pop(item.guid, None)
        batch[item.guid] = item
    if repeats:
        warnings.append(f"{path.name}: {repeats} lines repeat an outlet's link; the last line of each was kept")
    now = datetime.now(UTC)
    outcomes: list[SourceOutcome] = []
    with engine.begin() as conn:
        known = {s.id: s for s in stored_sources(conn, list(by_source))}
        new = [source for sid, (source, _) in by_source.items() if sid not in known]
        sync_sources(conn, _owned(conn, new))
    for sid, (_, kept) in by_source.items():
        rows = list(kept.values())
        out = SourceOutcome(sid, "ok", seen=len(rows))
        with engine.begin() as conn:
            states = upsert_items(conn, rows, now)
            out.new, out.updated = states.count("new"), states.count("updated")
            _settle_outlet_language(conn, sid, rows)
            # Its items are the import's now: a polled source's next changed body is read whole,
            # none of its entries left out as stored by the last poll (ingest/entries.py).
            conn.execute(update(sources).where(sources.c.id == sid).values(entry_digests=None))
            record_fetch(
                conn,
                sid,
                started_at=now,
                url=path.resolve().as_uri(),
                items_seen=out.seen,
                items_new=out.new,
                items_updated=out.updated,
                duration_ms=0,
            )
        outcomes.append(out)
    if errors:
        outcomes.append(
            SourceOutcome(
                path.name,
                "error",
                warnings=errors + warnings,
                error=f"{len(errors)} bad line{'s' if len(errors) != 1 else ''} not imported, each named below",
                refused=errors,
            )
        )
    elif warnings:
        outcomes.append(SourceOutcome(path.name, "ok", warnings=warnings))
    return outcomes
