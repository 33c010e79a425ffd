"""Stories: events that follow one another (a launch → its benchmarks → a tutorial → a fix).

An event is one happening; a story threads several. A later event is a follow-up of an
earlier one when both name the same rare things (a product, a company, a person: the words of
terms.py, versions dropped, weighted by how rare they are among the events of the look-back)
and their embeddings are close, within `lookback_days`. The clusterer already decided they
are two happenings; here they are only linked. Each follow-up names the one earlier event it
follows (the best-scoring), and takes that event's story.

The same `StoryLinker` runs in memory for `newsdesk eval clusters` and over the store as the
`stories` stage (after `cluster`). Its cost per event depends on how many events the
look-back holds, never on the length of the history.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import numpy as np
from sqlalchemy import bindparam, delete, insert, or_, select, update
from sqlalchemy.engine import Connection, Engine

from newsdesk.store.leases import advisory_lock
from newsdesk.store.schema import event_members, events, items, sources, stories, story_events

DAY = 86400.0
_LOWER = re.compile(r"(?<![A-Za-z0-9])[a-z]{3,}(?![A-Za-z0-9])")
_WORDS = re.compile(r"[A-Za-z0-9]+|[\u3400-\u9fff]+")


@dataclass(frozen=True)
class StoryConfig:
    lookback_days: float = 60.0  # an earlier event this long before the new one's start is still followed up
    threshold: float = 0.70  # cosine of the events' centroids + name_weight x rare-name overlap, to link
    name_weight: float = 0.50  # what the shared rare names add at most
    min_idf: float = 1.0  # a shared word this common (in more than ~1 in e events of the look-back) is no name
    # Events assumed seen before the look-back without the word: in a quiet window (a new store)
    # a word one earlier event used is still rare; in a busy one this changes little.
    prior_events: int = 20
    min_cosine: float = 0.30  # however many names two events share, their texts must be this close
    # A shared name used by more than ~1 in e^min_name_idf events of the look-back is a family
    # word of the period (the OpenClaw craze, Claude Code), not what threads two events.
    min_name_idf: float = 2.0


@dataclass
class Sketch:
    """An event as the story linker sees it."""

    key: object
    first_ts: float
    last_ts: float
    vector: np.ndarray  # L2-normalized centroid of the members' vectors
    terms: frozenset[str]  # the members' words (terms.py): names without versions
    title: str = ""
    roundup: bool = False  # a roundup of several stories (terms.is_roundup): in no story, it lists many
    headline_terms: frozenset[str] = frozenset()  # the words of its title: what it is about
    names: dict[str, str] = field(default_factory=dict)  # terms.names of its members' texts: name -> written form
    headline_names: frozenset[str] = frozenset()  # the names in its members' headlines
    lowercase: frozenset[str] = frozenset()  # the Latin words its texts write in lowercase: words, not names
    publisher: frozenset[str] = frozenset()  # the words of its sources' names ("windsurf", "changelog")
    title_names: frozenset[str] = frozenset()  # the names of its stored title: what a story it begins is called


@dataclass
class Link:
    event: object
    follows: object
    score: float
    reason: str
    name: str = ""  # the specific name the two share, as written: what threads the story


def sketch(
    key, members: list[tuple[float, np.ndarray, frozenset[str], bool, str]], title: str = "", publishers=()
) -> Sketch:
    """The sketch of an event from its members' (publish time, vector, words, is a roundup, text)
    and the names of the sources that published them."""
    v = np.sum([m[1] for m in members], axis=0).astype(np.float32)
    n = float(np.linalg.norm(v))
    from newsdesk.cluster.terms import names, terms

    found: dict[str, str] = {}
    in_headlines: set[str] = set()
    for m in members:
        head, _, rest = m[4].partition("\n")
        mine = names(head)
        in_headlines |= mine.keys()
        for k, written in (names(rest) | mine).items():
            found.setdefault(k, written)

    return Sketch(
        key,
        min(m[0] for m in members),
        max(m[0] for m in members),
        v / n if n else v,
        frozenset().union(*(m[2] for m in members)),
        title,
        all(m[3] for m in members),
        terms(title),
        found,
        frozenset(in_headlines),
        frozenset(w for m in members for w in _LOWER.findall(m[4])),
        frozenset(w.lower() for p in publishers for w in _WORDS.findall(p)),
        frozenset(names(title)),
    )


@dataclass
class StoryLinker:
    """Slides a look-back window over events in (first_ts, key) order and links follow-ups."""

    config: StoryConfig = field(default_factory=StoryConfig)

    def run(self, sketches: list[Sketch], check=None, linked=frozenset(), first_of: dict | None = None) -> list[Link]:
        """Links for the events in `check` (default: all) not in `linked`, each to the best earlier event.

        Every sketch given counts toward the words' rarity and can be followed up; give all the
        events of the look-back before the first one to check. `first_of` maps an event already
        in a story to the story's first event (the store knows; in memory it starts empty).
        """
        cfg = self.config
        first_of = dict(first_of or {})
        by_key = {s.key: s for s in sketches}
        order = sorted(sketches, key=lambda s: (s.first_ts, str(s.key)))
        window: list[Sketch] = []
        df: Counter = Counter()
        name_df: Counter = Counter()  # events of the look-back using each name
        lower_df: Counter = Counter()  # ... writing each Latin word in lowercase
        start = 0  # window[start:] are the events in the look-back
        links = []
        for s in order:
            horizon = s.first_ts - cfg.lookback_days * DAY
            while start < len(window) and window[start].first_ts < horizon:
                gone = window[start]
                for counter, words in ((df, gone.terms), (name_df, gone.names), (lower_df, gone.lowercase)):
                    for w in words:
                        counter[w] -= 1
                        if counter[w] <= 0:
                            del counter[w]
                start += 1
            if s.roundup:
                continue  # neither follows nor is followed: a roundup lists several stories
            if (check is None or s.key in check) and s.key not in linked:
                link = self._best(
                    s, window[start:], df, (name_df, lower_df), lambda e: by_key.get(first_of.get(e.key, e.key), e)
                )
                if link is not None:
                    links.append(link)
                    first_of[s.key] = first_of.setdefault(link.follows, link.follows)
            window.append(s)
            df.update(s.terms)
            name_df.update(s.names.keys())
            lower_df.update(s.lowercase)
            if start > 1024 and start * 2 > len(window):  # keep the list as short as the look-back
                window, start = window[start:], 0
        return links

    def _threads(self, s: Sketch, e: Sketch, n: int, counts: tuple[Counter, Counter]) -> list[str]:
        """The specific names that `s` shares with `e`'s headline: a versioned release, or a name
        neither a family word nor one that many events of the look-back use.
        None when the only such name is weak (terms.is_weak: a person, an acronym, a word)."""
        from newsdesk.cluster.terms import FAMILY, is_family, is_named, is_weak

        name_df, lower_df = counts

        def idf(name: str) -> float:
            return math.log((n + 1) / (name_df.get(name, 0) + 1))

        # A company's own feed naming itself twice ("Windsurf 1.9544" and "Opus 4.6 is now
        # available in Windsurf", both from Windsurf's changelog) is its feed, not a story.
        own = s.publisher & e.publisher
        found = [
            k
            for k in s.names
            if k in e.headline_names
            and not is_family(k)
            and not (own and set(k.split()) <= own | FAMILY)
            and (k.startswith("v:") or idf(k) >= self.config.min_name_idf)
        ]
        # A name the follow-up's headline does not carry is weak too unless its form says it is a
        # name (a release, two words or more, OpenClaw's capitals): a body's "Dagster" or "Wie" is not.
        weak = {
            k
            for k in found
            if is_weak(k, s.names[k], lower_df) or (k not in s.headline_names and not is_named(k, s.names[k]))
        }
        if len(found) == len(weak):
            return []
        # Most telling first: strong, in the followed event's own title, a release, in both
        # headlines (the launch's product, not its maker named in the follow-up's body), longer, rarer.
        return sorted(
            found,
            key=lambda k: (
                k in weak,
                k not in e.title_names,
                not k.startswith("v:"),
                k not in s.headline_names,
                -len(k.split()),
                -idf(k),
                k,
            ),
        )

    def _best(
        self, s: Sketch, earlier: list[Sketch], df: Counter, counts: tuple[Counter, Counter], first
    ) -> Link | None:
        cfg = self.config
        candidates = [e for e in earlier if e.first_ts < s.first_ts]
        if not candidates or not s.terms:
            return None
        cos = np.stack([e.vector for e in candidates]) @ s.vector
        n = len(earlier) + cfg.prior_events

        def idf(word: str) -> float:
            return math.log((n + 1) / (df.get(word, 0) + 1))

        mine = {w: x for w in s.terms if (x := idf(w)) >= cfg.min_idf}
        # Only words some earlier event also uses can link: the words no other event has would
        # dilute the share of every candidate alike.
        linkable = sum(x for w, x in mine.items() if df.get(w, 0) > 0)
        best = None
        for e, c in zip(candidates, cos.tolist()):
            if c < cfg.min_cosine or c + cfg.name_weight < cfg.threshold:
                continue  # not close enough, or the names could not lift it far enough
            shared = [w for w in mine if w in e.terms]
            if not shared:
                continue  # a follow-up names what it follows
            if e.headline_terms and not any(w in e.headline_terms for w in shared):
                continue  # ... what its headline is about, not only words both bodies happen to use ("Hugging Face", "billion")
            if _other_release(s.headline_names, e.headline_names):
                continue  # GPT-5.4 does not follow GPT-5.3 Instant: two releases, two stories
            threads = self._threads(s, e, n, counts)
            if not threads:
                continue  # ... by a specific name: "Claude" threads no story, "GPT-5.4" or "Seedance" may
            root = first(e)
            if root is not e and (
                float(root.vector @ s.vector) < cfg.min_cosine or not self._threads(s, root, n, counts)
            ):
                continue  # a story is about one thing: a follow-up names its first event too, not only a bridge
            theirs = sum(x for w in e.terms if (x := idf(w)) >= cfg.min_idf and (df.get(w, 0) > 1 or w in mine))
            overlap = sum(mine[w] for w in shared) / min(linkable, theirs)
            score = c + cfg.name_weight * min(1.0, overlap)
            if score >= cfg.threshold and (best is None or score > best[0]):
                best = (score, e, c, threads)
        if best is None:
            return None
        score, e, c, threads = best
        written = [e.names.get(k) or s.names[k] for k in threads]  # as the followed headline writes it
        reason = f"names {', '.join(written[:5])}; cosine {c:.2f}; score {score:.2f} ≥ {cfg.threshold:.2f}"
        return Link(s.key, e.key, round(score, 4), reason, written[0])


def _other_release(a: frozenset[str], b: frozenset[str]) -> bool:
    """Two headlines naming releases of one family and no release in common (terms.names' "v:family-version")."""
    ra, rb = {k for k in a if k.startswith("v:")}, {k for k in b if k.startswith("v:")}
    if ra & rb:
        return False
    return bool({k.split("-", 1)[0] for k in ra} & {k.split("-", 1)[0] for k in rb})


def story_keys(keys: list, links: list[Link]) -> dict:
    """Story of each event key: the key of the first event of its chain of follow-ups."""
    parent = {link.event: link.follows for link in links}

    def root(k):
        seen = set()
        while k in parent and k not in seen:
            seen.add(k)
            k = parent[k]
        return k

    return {k: root(k) for k in keys}


# --- the store ---------------------------------------------------------------------------


@dataclass
class StoryStats:
    checked: int = 0  # events looked at (new or changed since last looked at)
    linked: int = 0  # of them, now following an earlier event
    stories_opened: int = 0
    stories_merged: int = 0


def link_stories(engine: Engine, settings=None, *, embedder=None, config: StoryConfig | None = None) -> StoryStats:
    """Link every event that is new or changed since the linker last saw it, and not yet a
    follow-up, to the earlier event it follows up, if any. A link is never undone; a run with
    no changed event writes nothing."""
    stats = StoryStats()
    config = config or StoryConfig()
    with engine.connect() as conn, _exclusive(conn), conn.begin():
        # Each event against its own stamp: a watermark (updated_at >= the newest stamp) took the last
        # run's events again every run, all stamped alike, and a run with no new input re-sketched the
        # whole look-back (2.5 s of a 7.8 s do-nothing demo run).
        changed = select(events.c.id, events.c.first_published_at, events.c.updated_at).where(
            events.c.item_count > 0,
            or_(events.c.story_checked_at.is_(None), events.c.updated_at > events.c.story_checked_at),
        )
        following = select(story_events.c.event_id).where(story_events.c.follows_event_id.is_not(None))
        check = conn.execute(changed.where(events.c.id.not_in(following))).all()
        if not check:
            return stats
        stats.checked = len(check)
        horizon = min(r.first_published_at for r in check) - timedelta(days=config.lookback_days)
        latest = max(r.first_published_at for r in check)
        sketches = _store_sketches(conn, horizon, latest, embedder, settings)
        recent = select(events.c.id).where(events.c.last_published_at >= horizon)
        linked = set(conn.execute(following.where(story_events.c.event_id.in_(recent))).scalars())
        links = StoryLinker(config).run(
            sketches, check={r.id for r in check}, linked=linked, first_of=_first_events(conn, recent)
        )
        now = datetime.now(UTC)
        touched = _apply(conn, links, now, stats)
        touched |= set(
            conn.execute(
                select(story_events.c.story_id).where(
                    story_events.c.event_id.in_(select(events.c.id).where(changed.whereclause))
                )
            ).scalars()
        )
        _refresh_stories(conn, touched, now)
        conn.execute(update(events).where(changed.whereclause).values(story_checked_at=events.c.updated_at))
    return stats


def _store_sketches(conn: Connection, horizon: datetime, latest: datetime, embedder, settings) -> list[Sketch]:
    """Every event that starts inside the look-back, as a sketch: one query for the members."""
    from newsdesk.cluster.embed import ensure_vectors, item_text, make_embedder
    from newsdesk.cluster.terms import is_roundup, terms

    # last_published_at is indexed, and an event starting after `horizon` ends after it too.
    rows = conn.execute(
        select(
            event_members.c.event_id,
            events.c.first_published_at,
            events.c.title,
            items.c.id,
            items.c.title.label("item_title"),
            items.c.summary,
            items.c.body,
            items.c.published_at,
            sources.c.name.label("source_name"),
        )
        .join(events, events.c.id == event_members.c.event_id)
        .join(items, items.c.id == event_members.c.item_id)
        .join(sources, sources.c.id == items.c.source_id)
        .where(
            events.c.last_published_at >= horizon,
            events.c.first_published_at >= horizon,
            events.c.first_published_at <= latest,
        )
        .order_by(event_members.c.event_id, items.c.id)
    ).all()
    vectors = ensure_vectors(conn, embedder or make_embedder(settings), [r.id for r in rows])
    members: dict[int, list] = {}
    titles = {}
    publishers: dict[int, set[str]] = {}
    for r in rows:
        text = item_text(r.item_title, r.summary, r.body)
        members.setdefault(r.event_id, []).append(
            (r.published_at.timestamp(), vectors[r.id], terms(text), is_roundup(text), text)
        )
        titles[r.event_id] = r.title
        publishers.setdefault(r.event_id, set()).add(r.source_name)
    return [sketch(e, m, titles[e], publishers[e]) for e, m in members.items()]


def _first_events(conn: Connection, recent) -> dict[int, int]:
    """Each event of a story with an event in `recent` -> the story's first event."""
    rows = conn.execute(
        select(story_events.c.story_id, events.c.id)
        .join(events, events.c.id == story_events.c.event_id)
        .where(story_events.c.story_id.in_(select(story_events.c.story_id).where(story_events.c.event_id.in_(recent))))
        .order_by(story_events.c.story_id, events.c.first_published_at, events.c.id)
    ).all()
    first: dict[int, int] = {}
    out = {}
    for r in rows:
        out[r.id] = first.setdefault(r.story_id, r.id)
    return out


def _apply(conn: Connection, links: list[Link], now: datetime, stats: StoryStats) -> set[int]:
    """Write the links, in order: each follow-up takes the story of the event it follows."""
    touched: set[int] = set()

    def story_of(event_id) -> int | None:
        return conn.execute(select(story_events.c.story_id).where(story_events.c.event_id == event_id)).scalar()

    for link in links:
        mine, theirs = story_of(link.event), story_of(link.follows)
        if theirs is None:
            # The event followed up begins a story: a new one, or the one this follow-up began.
            theirs = mine
            if theirs is None:
                theirs = conn.execute(
                    insert(stories).values(
                        title=link.name,  # what threads it ("GPT-5.4", "Seedance 2.0"), not its first headline
                        first_published_at=now,
                        last_published_at=now,
                        event_count=0,
                        updated_at=now,
                    )
                ).inserted_primary_key[0]
                stats.stories_opened += 1
            conn.execute(insert(story_events).values(event_id=link.follows, story_id=theirs, linked_at=now))
        elif mine is not None and mine != theirs:  # the follow-up already began a story: it joins this one
            conn.execute(update(story_events).where(story_events.c.story_id == mine).values(story_id=theirs))
            conn.execute(delete(stories).where(stories.c.id == mine))
            stats.stories_merged += 1
        values = {
            "story_id": theirs,
            "follows_event_id": link.follows,
            "score": link.score,
            "reason": link.reason[:2000],
            "linked_at": now,
        }
        if mine is None:
            conn.execute(insert(story_events).values(event_id=link.event, **values))
        else:
            conn.execute(update(story_events).where(story_events.c.event_id == link.event).values(**values))
        stats.linked += 1
        touched.add(theirs)
    return touched


def _refresh_stories(conn: Connection, story_ids: set[int], now: datetime) -> None:
    """A story's title, dates and size from its events (written only when they changed)."""
    ids = sorted(story_ids)
    for i in range(0, len(ids), 500):
        chunk = ids[i : i + 500]
        rows = conn.execute(
            select(
                story_events.c.story_id,
                events.c.id,
                events.c.title,
                events.c.first_published_at,
                events.c.last_published_at,
            )
            .join(events, events.c.id == story_events.c.event_id)
            .where(story_events.c.story_id.in_(chunk))
            .order_by(story_events.c.story_id, events.c.first_published_at, events.c.id)
        ).all()
        current = {r.id: r for r in conn.execute(select(stories).where(stories.c.id.in_(chunk)))}
        by_story: dict[int, list] = {}
        for r in rows:
            by_story.setdefault(r.story_id, []).append(r)
        for story_id, evs in by_story.items():
            facts = {
                "first_published_at": evs[0].first_published_at,
                "last_published_at": max(e.last_published_at for e in evs),
                "event_count": len(evs),
            }
            old = current.get(story_id)
            if old is None or any(getattr(old, k) != v for k, v in facts.items()):
                conn.execute(update(stories).where(stories.c.id == story_id).values(**facts, updated_at=now))


@contextmanager
def _exclusive(conn: Connection):
    """One linker at a time per store: two would each open a story for the same thread.

    PostgreSQL: a session advisory lock (other workers wait). SQLite allows one writer anyway.
    """
    if conn.dialect.name != "postgresql":
        yield
        return
    with advisory_lock(conn, "newsdesk.stories"):
        yield


# --- reading -----------------------------------------------------------------------------


# Built once: every event page asks it for its one event (building it cost more than running it).
_STORY_OF = select(story_events.c.event_id, story_events.c.story_id).where(
    story_events.c.event_id.in_(bindparam("ids", expanding=True))
)


def story_threads(conn: Connection, event_ids: list[int]) -> dict[int, dict]:
    """For each of these events that is in a story: {story_id, title, follows_event_id, events},
    `events` the story's events in time order: {event_id, title, first_published_at, follows_event_id}.
    Two queries per 500 events, whatever the history."""
    out: dict[int, dict] = {}
    ids = list(dict.fromkeys(event_ids))
    for i in range(0, len(ids), 500):
        chunk = ids[i : i + 500]
        story_of = dict(conn.execute(_STORY_OF, {"ids": chunk}).all())
        if not story_of:
            continue
        threads = story_timelines(conn, sorted(set(story_of.values())))
        for event_id, story_id in story_of.items():
            thread = threads[story_id]
            follows = next(e["follows_event_id"] for e in thread["events"] if e["event_id"] == event_id)
            out[event_id] = {**thread, "follows_event_id": follows}
    return out


def story_timelines(conn: Connection, story_ids: list[int]) -> dict[int, dict]:
    """{story_id: {story_id, title, first_published_at, last_published_at, event_count, events}}."""
    out = {
        r.id: {
            "story_id": r.id,
            "title": r.title,
            "first_published_at": r.first_published_at,
            "last_published_at": r.last_published_at,
            "event_count": r.event_count,
            "events": [],
        }
        for r in conn.execute(select(stories).where(stories.c.id.in_(story_ids)))
    }
    rows = conn.execute(
        select(
            story_events.c.story_id,
            story_events.c.follows_event_id,
            events.c.id,
            events.c.title,
            events.c.first_published_at,
            events.c.last_published_at,
        )
        .join(events, events.c.id == story_events.c.event_id)
        .where(story_events.c.story_id.in_(story_ids))
        .order_by(story_events.c.story_id, events.c.first_published_at, events.c.id)
    ).all()
    for r in rows:
        out[r.story_id]["events"].append(
            {
                "event_id": r.id,
                "title": r.title,
                "first_published_at": r.first_published_at,
                "last_published_at": r.last_published_at,
                "follows_event_id": r.follows_event_id,
            }
        )
    return out
