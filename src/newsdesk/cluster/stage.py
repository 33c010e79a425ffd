"""The cluster stage over the store: place every item not yet in an event, then refresh those events.

Incremental and idempotent: only items without an `event_members` row are placed, in
(published_at, id) order; the open events of the window they fall in are read back from the
store first, so a later run continues where the previous one stopped. A run with nothing new
writes nothing.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from filelock import FileLock, Timeout
from sqlalchemy import Row, insert, select, update
from sqlalchemy.engine import Connection, Engine

from newsdesk.cluster.anchors import extract_anchors
from newsdesk.cluster.embed import Embedder, ensure_vectors, item_text, make_embedder
from newsdesk.cluster.events import DAY, Arbiter, ClusterConfig, Clusterer, Doc, Placement, words_said
from newsdesk.cluster.independence import coverage
from newsdesk.store.items import _dialect_insert
from newsdesk.store.leases import advisory_lock
from newsdesk.store.schema import cluster_rulings, event_members, events, items, roundup_links, sources

BATCH = 256  # items embedded and committed together: a crash loses at most one batch of work


@dataclass
class ClusterStats:
    items: int = 0
    joined: int = 0
    opened: int = 0
    duplicates: int = 0
    syndicated: int = 0
    arbitrated: int = 0
    events_touched: int = 0
    seconds: float = 0.0


def _global_guid(guid: str | None) -> str | None:
    # Only guids that name the item itself (URLs, tag:/oai:/urn: ids) can match across sources;
    # "post-12" from two blogs is two items.
    if guid and ("://" in guid or guid.split(":", 1)[0].lower() in ("tag", "oai", "urn", "doi")):
        return guid
    return None


def _doc(row, vector) -> Doc:
    return Doc(
        key=row.id,
        text=item_text(row.title, row.summary, row.body),
        lang=row.language or "other",
        ts=row.published_at.timestamp(),
        vector=vector,
        url=row.url,
        guid=_global_guid(row.guid),
        said=words_said(row.summary, row.body),
        source=row.source_id,
    )


_ITEM_COLUMNS = (
    items.c.id,
    items.c.title,
    items.c.summary,
    items.c.body,
    items.c.language,
    items.c.published_at,
    items.c.url,
    items.c.guid,
    items.c.source_id,
)


def _seed(conn: Connection, clusterer: Clusterer, embedder: Embedder, since: datetime) -> None:
    """Put back the events still open at `since`, with their members, in publish order."""
    open_events = select(events.c.id).where(events.c.last_published_at >= since)
    rows = conn.execute(
        select(*_ITEM_COLUMNS, event_members.c.event_id, event_members.c.origin_item_id)
        .join(event_members, event_members.c.item_id == items.c.id)
        .where(event_members.c.event_id.in_(open_events))
        .order_by(items.c.published_at, items.c.id)
    ).all()
    vectors = ensure_vectors(conn, embedder, [r.id for r in rows])
    for r in rows:
        clusterer.seed(_doc(r, vectors[r.id]), r.event_id, origin=r.origin_item_id)
    # The arbiter's splits stand across runs: for the items of the window and those still to place.
    splits = conn.execute(
        select(cluster_rulings.c.item_id, cluster_rulings.c.event_id)
        .join(items, items.c.id == cluster_rulings.c.item_id)
        .where(cluster_rulings.c.same_event.is_(False), items.c.published_at >= since)
    )
    for r in splits:
        clusterer.rule_apart(r.item_id, r.event_id)


def cluster_new_items(
    engine: Engine,
    settings=None,
    *,
    embedder: Embedder | None = None,
    arbiter: Arbiter | None = None,
    progress: Callable[[int, int], None] | None = None,
    config: ClusterConfig | None = None,
    waiting: Callable[[str], None] | None = None,
) -> ClusterStats:
    """Place every item that is in no event yet; returns what happened.

    `waiting` is called once, with a sentence, when another clusterer holds the store and this
    one waits for it to finish.
    """
    start = time.perf_counter()
    stats = ClusterStats()
    config = config or ClusterConfig()
    touched: set[int] = set()
    # The lock comes before the items to place are read: a second clusterer that waited finds
    # the first one's placements and places only what is still new.
    with engine.connect() as conn, _exclusive(conn, waiting):
        pending = _pending(conn)
        if not pending:
            stats.seconds = time.perf_counter() - start
            return stats
        embedder = embedder or make_embedder(settings)
        since = pending[0].published_at - timedelta(days=config.window_days)
        now = datetime.now(UTC)

        def new_event(doc: Doc) -> int:
            ts = datetime.fromtimestamp(doc.ts, UTC)
            return conn.execute(
                insert(events).values(title="", first_published_at=ts, last_published_at=ts, updated_at=now)
            ).inserted_primary_key[0]

        clusterer = Clusterer(config, new_event=new_event, arbiter=arbiter)
        with conn.begin():
            _seed(conn, clusterer, embedder, since)
        for i in range(0, len(pending), BATCH):
            ids = [r.id for r in pending[i : i + BATCH]]
            with conn.begin():
                vectors = ensure_vectors(conn, embedder, ids)
                rows = conn.execute(
                    select(*_ITEM_COLUMNS).where(items.c.id.in_(ids)).order_by(items.c.published_at, items.c.id)
                ).all()
            # With an arbiter each placement commits on its own: the model's cache and ledger are
            # written to the store between placements, and SQLite has a single writer.
            step = 1 if arbiter else max(1, len(rows))
            for j in range(0, len(rows), step):
                with conn.begin():
                    chunk_touched: set[int] = set()
                    for row in rows[j : j + step]:
                        chunk_touched.add(_place(conn, clusterer, row, vectors[row.id], now, stats))
                    for event_id in sorted(chunk_touched):
                        refresh_event(conn, event_id, now=now)
                touched |= chunk_touched
                stats.events_touched = len(touched)
            if progress:
                progress(min(i + BATCH, len(pending)), len(pending))
    stats.seconds = time.perf_counter() - start
    return stats


def _pending(conn: Connection) -> Sequence[Row]:
    """The items in no event, in the order they are placed; the read's transaction is ended."""
    pending = conn.execute(
        select(items.c.id, items.c.published_at)
        .outerjoin(event_members, event_members.c.item_id == items.c.id)
        .where(event_members.c.item_id.is_(None))
        .order_by(items.c.published_at, items.c.id)
    ).all()
    conn.rollback()
    return pending


def _place(conn: Connection, clusterer: Clusterer, row, vector, now: datetime, stats: ClusterStats) -> object:
    """Place one item, store where it went (and the arbiter's ruling, and a roundup's links), count
    it; returns its event."""
    calls = clusterer.arbiter_calls
    p = clusterer.add(_doc(row, vector))
    _store_placement(conn, row.id, p, now)
    stats.items += 1
    stats.opened += p.opened
    stats.joined += not p.opened
    stats.duplicates += p.role == "duplicate"
    stats.syndicated += p.role == "syndicated"
    stats.arbitrated += clusterer.arbiter_calls > calls
    return p.event


def _store_placement(conn: Connection, item_id: int, p: Placement, now: datetime) -> None:
    conn.execute(
        insert(event_members).values(
            item_id=item_id,
            event_id=p.event,
            role=p.role,
            origin_item_id=p.origin,
            similarity=p.similarity,
            reason=p.reason[:2000],
            joined_at=now,
        )
    )
    if p.ruling is not None:
        weighed, same, verdict = p.ruling
        ruled = {"same_event": same, "reason": verdict[:2000], "ruled_at": now}
        conn.execute(
            _dialect_insert(conn, cluster_rulings)
            .values(
                item_id=item_id,
                event_id=weighed,
                **ruled,
            )
            .on_conflict_do_update(index_elements=["item_id", "event_id"], set_=ruled)
        )
    if p.links:
        conn.execute(
            insert(roundup_links),
            [{"item_id": item_id, "event_id": event_id, "score": score} for event_id, score in p.links],
        )


WAITING = "another `newsdesk cluster` is placing items in this store; waiting for it to finish"


@contextmanager
def _exclusive(conn: Connection, waiting: Callable[[str], None] | None = None):
    """One clusterer at a time per store: two would each place the same new items.

    PostgreSQL: a session advisory lock. SQLite: a lock file beside the database file (the
    database's own write lock is per transaction, and a run is many). Either way the other
    process waits, and a lock dies with the process that held it.
    """
    if conn.dialect.name == "postgresql":
        with advisory_lock(conn, "newsdesk.cluster", (lambda: waiting(WAITING)) if waiting else None):
            yield
        return
    database = conn.engine.url.database
    if conn.dialect.name != "sqlite" or not database or database == ":memory:":
        yield  # a private in-memory store has one process by construction
        return
    lock = FileLock(f"{database}.cluster-lock")
    try:
        lock.acquire(blocking=False)
    except Timeout:
        if waiting:
            waiting(WAITING)
        lock.acquire()
    try:
        yield
    finally:
        lock.release()


# --- event facts --------------------------------------------------------------------------


def _members(conn: Connection, event_id: int) -> list[dict]:
    rows = (
        conn.execute(
            select(
                items.c.id.label("item_id"),
                items.c.source_id,
                items.c.title,
                items.c.url,
                items.c.guid,
                items.c.summary,
                items.c.body,
                items.c.language,
                items.c.material_level,
                items.c.published_at,
                items.c.extra,
                items.c.engagement,
                sources.c.name.label("source_name"),
                sources.c.tier,
                sources.c.weight,
                sources.c.category,
                sources.c.owner,
                event_members.c.role,
                event_members.c.origin_item_id,
                event_members.c.similarity,
                event_members.c.reason,
            )
            .join(event_members, event_members.c.item_id == items.c.id)
            .join(sources, sources.c.id == items.c.source_id)
            .where(event_members.c.event_id == event_id)
        )
        .mappings()
        .all()
    )
    return [dict(r) for r in rows]


def _authority(m: dict) -> tuple:
    # Lead: the most authoritative outlet (tier 1 first, then weight), then the earliest report.
    return (m["tier"], -m["weight"], m["published_at"], m["item_id"])


def refresh_event(conn: Connection, event_id: int, *, now: datetime | None = None) -> None:
    """Recompute an event's lead, roles and coverage facts from its members."""
    members = _members(conn, event_id)
    if not members:
        return
    originals = [m for m in members if m["role"] in ("lead", "member")] or members
    lead = min(originals, key=_authority)
    for m in members:
        role = "lead" if m is lead else ("member" if m["role"] == "lead" else m["role"])
        if role != m["role"]:
            conn.execute(update(event_members).where(event_members.c.item_id == m["item_id"]).values(role=role))
            m["role"] = role
    cov = coverage(members)
    counts: Counter = Counter()
    for m in members:
        counts.update(extract_anchors(item_text(m["title"], m["summary"], m["body"])))
    lead_anchors = extract_anchors(item_text(lead["title"], lead["summary"], lead["body"]))
    anchors = [a for a, n in counts.most_common() if n >= 2 or a in lead_anchors][:12]
    conn.execute(
        update(events)
        .where(events.c.id == event_id)
        .values(
            title=lead["title"],
            lead_item_id=lead["item_id"],
            first_published_at=min(m["published_at"] for m in members),
            last_published_at=max(m["published_at"] for m in members),
            item_count=len(members),
            outlets=cov["outlets"],
            independent_outlets=cov["independent_outlets"],
            languages=sorted({m["language"] for m in members}),
            category=lead["category"],
            anchors=anchors,
            updated_at=now or datetime.now(UTC),
        )
    )


def event_brief(conn: Connection, event_id: int) -> dict:
    """Everything a writer needs about one event: facts, coverage and every member, lead first."""
    row = conn.execute(select(events).where(events.c.id == event_id)).mappings().first()
    if row is None:
        raise KeyError(f"event {event_id} is not in the store")
    members = _members(conn, event_id)
    cov = coverage(members)
    members.sort(key=lambda m: (m["role"] != "lead", m["published_at"], m["item_id"]))
    return {
        "event_id": row["id"],
        "title": row["title"],
        "lead_item_id": row["lead_item_id"],
        "first_published_at": row["first_published_at"],
        "last_published_at": row["last_published_at"],
        "item_count": row["item_count"],
        "outlets": row["outlets"],
        "independent_outlets": row["independent_outlets"],
        "origin_groups": cov["origin_groups"],
        "languages": row["languages"],
        "category": row["category"],
        "anchors": row["anchors"],
        "score": row["score"],
        "score_parts": row["score_parts"],
        "tab": row["tab"],
        "members": [
            {
                "item_id": m["item_id"],
                "source_id": m["source_id"],
                "source_name": m["source_name"],
                "outlet_tier": m["tier"],
                "outlet_category": m["category"],  # the catalog's: a company's or lab's own channel, media, …
                "title": m["title"],
                "url": m["url"],
                "published_at": m["published_at"],
                "language": m["language"],
                "material_level": m["material_level"],
                "role": m["role"],
                "origin_item_id": m["origin_item_id"],
                "similarity": m["similarity"],
                "reason": m["reason"],
                "summary": m["summary"],
                "body": m["body"],
                "extra": m["extra"] or {},  # the source's own facts: a harvest's core_point and highlights
            }
            for m in members
        ],
    }


__all__ = ["ClusterStats", "cluster_new_items", "event_brief", "refresh_event", "DAY"]
