"""`newsdesk eval clusters`: score the clusterer against a file of items with gold event ids.

The file is JSON Lines, one item a line: {id, text | title (+ summary), lang, published, event}
with `published` in epoch seconds or ISO 8601. The same Clusterer as the store stage runs
over it in memory, in (published, id) order. With `story` ids (empty for a standalone event),
the story linker (stories.py) runs over the events found and is scored too.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import Counter
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from itertools import combinations, product
from pathlib import Path

from newsdesk.cluster.embed import Embedder, item_text
from newsdesk.cluster.events import ClusterConfig, Clusterer, Doc
from newsdesk.core.errors import EvalFileError


@dataclass
class EvalItem:
    id: str
    text: str
    lang: str
    ts: float
    event: str
    story: str = ""  # the gold story id, "" for a standalone event
    source: str | None = None  # the outlet, where the file names one


def _timestamp(value, where: str) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        try:
            dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            pass
        else:
            return (dt if dt.tzinfo else dt.replace(tzinfo=UTC)).timestamp()
    raise EvalFileError(f"{where}: 'published' = {value!r} is not epoch seconds or an ISO 8601 time")


def read_eval_file(path: str | Path) -> list[EvalItem]:
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise EvalFileError(f"{path}: cannot read ({exc.strerror}); give a JSON Lines file") from None
    except UnicodeDecodeError as exc:
        raise EvalFileError(f"{path}: not UTF-8 text (bad byte at {exc.start}); give a JSON Lines file") from None
    out = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{path}:{n}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise EvalFileError(f"{where}: not valid JSON ({exc.msg}); one JSON object per line") from None
        if not isinstance(row, dict):
            raise EvalFileError(f"{where}: expected a JSON object")
        for name in ("text", "title", "summary"):
            if row.get(name) is not None and not isinstance(row[name], str):
                raise EvalFileError(f"{where}: '{name}' must be a string")
        text = row.get("text") or item_text(row.get("title") or "", row.get("summary"))
        for name, value in (("id", row.get("id")), ("text or title", text), ("event", row.get("event"))):
            if value in (None, ""):
                raise EvalFileError(
                    f"{where}: missing '{name}'; each line needs id, text|title, lang, published, event"
                )
        out.append(
            EvalItem(
                str(row["id"]),
                text,
                str(row.get("lang") or "other"),
                _timestamp(row.get("published"), where),
                str(row["event"]),
                str(row.get("story") or ""),
                str(row["source"]) if row.get("source") else None,
            )
        )
    if not out:
        raise EvalFileError(f"{path}: no items")
    return out


# --- metrics -------------------------------------------------------------------------


def bcubed(pred: list, gold: list) -> tuple[float, float, float]:
    """B-cubed precision, recall, F1 (Bagga & Baldwin): per-item overlap of its cluster and its gold event."""
    cp, cg, both = Counter(pred), Counter(gold), Counter(zip(pred, gold))
    n = len(gold)
    p = sum(both[(a, b)] / cp[a] for a, b in zip(pred, gold)) / n
    r = sum(both[(a, b)] / cg[b] for a, b in zip(pred, gold)) / n
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def pairwise(pred: list, gold: list) -> tuple[float, float]:
    """Precision and recall over item pairs placed together / belonging together."""

    def c2(n):
        return n * (n - 1) // 2

    together = sum(c2(n) for n in Counter(pred).values())
    same = sum(c2(n) for n in Counter(gold).values())
    both = sum(c2(n) for n in Counter(zip(pred, gold)).values())
    return (both / together if together else 1.0), (both / same if same else 1.0)


def cross_lingual_recall(pred: list, gold: list, langs: list, a: str = "zh", b: str = "en") -> float | None:
    """Share of same-event (a, b)-language pairs placed in one event; None when there are none."""
    total = hit = 0
    for i, j in combinations(range(len(gold)), 2):
        if gold[i] == gold[j] and {langs[i], langs[j]} == {a, b}:
            total += 1
            hit += pred[i] == pred[j]
    return hit / total if total else None


# --- running -------------------------------------------------------------------------


def cluster_items(rows: list[EvalItem], vectors, config: ClusterConfig | None = None, arbiter=None) -> list:
    """Event key for each row (rows in any order; processed in (published, id) order)."""
    return cluster_docs([eval_doc(r, vectors[i]) for i, r in enumerate(rows)], config, arbiter)


def eval_doc(row: EvalItem, vector) -> Doc:
    return Doc(row.id, row.text, row.lang, row.ts, vector, source=row.source)


def cluster_docs(docs: list[Doc], config: ClusterConfig | None = None, arbiter=None) -> list:
    order = sorted(range(len(docs)), key=lambda i: (docs[i].ts, str(docs[i].key)))
    clusterer = Clusterer(config, arbiter=arbiter)
    assigned: list = [None] * len(docs)
    for i in order:
        assigned[i] = clusterer.add(docs[i]).event
    return assigned


def evaluate(rows: list[EvalItem], embedder: Embedder, config: ClusterConfig | None = None) -> dict:
    """Embed, cluster and score; returns the metrics and each item's event."""
    embedder.embed([rows[0].text])  # load the model outside the clock: items/s is the steady rate
    start = time.perf_counter()
    vectors = embedder.embed([r.text for r in rows])
    embedded = time.perf_counter()
    pred = cluster_items(rows, vectors, config)
    done = time.perf_counter()
    return {
        **scores(pred, rows),
        "items_per_s": len(rows) / (done - start),
        "cluster_items_per_s": len(rows) / max(done - embedded, 1e-9),
        "assigned": {x.id: e for x, e in zip(rows, pred)},
    }


# --- cross-validation ------------------------------------------------------------------

# The thresholds `--folds` tunes, and the values it tries.
GRID = {
    "same_language": (0.65, 0.70, 0.75),
    "cross_language": (0.40, 0.50),
    "term_weight": (0.0, 0.25, 0.5),
}


def folds_by_event(rows: list[EvalItem], k: int) -> list[int]:
    """Fold of each row: whole events go to one fold, dealt round-robin in a fixed order."""
    events = sorted({r.event for r in rows}, key=lambda e: hashlib.sha1(e.encode()).hexdigest())
    fold_of = {e: n % k for n, e in enumerate(events)}
    return [fold_of[r.event] for r in rows]


def _objective(pred: list, gold: list) -> float:
    # B-cubed alone rewards leaving everything apart when most events are single items; pair F1
    # alone is ruled by the largest events. Tune for both.
    pp, pr = pairwise(pred, gold)
    return (bcubed(pred, gold)[2] + (2 * pp * pr / (pp + pr) if pp + pr else 0.0)) / 2


def cross_validate(
    rows: list[EvalItem], vectors, k: int, base: ClusterConfig | None = None, grid: dict | None = None
) -> tuple[list, list[dict]]:
    """Each fold clustered with the thresholds that scored best on the other k-1 folds.

    Returns the held-apart predictions for every row (event keys never shared across folds) and
    the thresholds chosen per fold.
    """
    base = base or ClusterConfig()
    grid = GRID if grid is None else grid
    names = list(grid)
    configs = [replace(base, **dict(zip(names, values))) for values in product(*(grid[n] for n in names))]
    docs = [eval_doc(r, vectors[i]) for i, r in enumerate(rows)]  # words and anchors once
    fold = folds_by_event(rows, k)
    pred: list = [None] * len(rows)
    chosen = []
    for f in range(k):
        train = [i for i in range(len(rows)) if fold[i] != f]
        test = [i for i in range(len(rows)) if fold[i] == f]
        gold = [rows[i].event for i in train]
        best = max(configs, key=lambda c: _objective(cluster_docs([docs[i] for i in train], c), gold))
        chosen.append({n: getattr(best, n) for n in names})
        for i, e in zip(test, cluster_docs([docs[i] for i in test], best)):
            pred[i] = (f, e)
    return pred, chosen


def scores(pred: list, rows: list[EvalItem]) -> dict:
    gold = [r.event for r in rows]
    p, r, f = bcubed(pred, gold)
    pp, pr = pairwise(pred, gold)
    return {
        "items": len(rows),
        "gold_events": len(set(gold)),
        "events": len(set(pred)),
        "bcubed_precision": p,
        "bcubed_recall": r,
        "bcubed_f1": f,
        "pairwise_precision": pp,
        "pairwise_recall": pr,
        "pairwise_f1": 2 * pp * pr / (pp + pr) if pp + pr else 0.0,
        "cross_lingual_recall": cross_lingual_recall(pred, gold, [x.lang for x in rows]),
    }


# --- stories ---------------------------------------------------------------------------

# The story linker's thresholds `--folds` tunes, and the values it tries.
STORY_GRID = {
    "threshold": (0.5, 0.6, 0.7, 0.8),
    "name_weight": (0.5, 1.0),
    "min_cosine": (0.3, 0.4),
    "min_name_idf": (1.0, 2.0, 3.0),
}


def has_stories(rows: list[EvalItem]) -> bool:
    return any(r.story for r in rows)


def _gold_story(r: EvalItem) -> str:
    return f"story:{r.story}" if r.story else f"event:{r.event}"


def story_scores(pred_story: list, rows: list[EvalItem]) -> dict:
    """Story-level pairwise precision / recall over items, and over the pairs of items from two
    different gold events (what the linker adds: a follow-up in its launch's story)."""

    def c2(counter):
        return sum(n * (n - 1) // 2 for n in counter.values())

    gold_story = [_gold_story(r) for r in rows]
    gold_event = [r.event for r in rows]
    pp, pr = pairwise(pred_story, gold_story)
    together = c2(Counter(pred_story)) - c2(Counter(zip(pred_story, gold_event)))
    same = c2(Counter(gold_story)) - c2(Counter(gold_event))
    both = c2(Counter(zip(pred_story, gold_story))) - c2(Counter(zip(pred_story, gold_event)))
    ap, ar = (both / together if together else 1.0), (both / same if same else 1.0)
    return {
        "gold_stories": len({r.story for r in rows if r.story}),
        "story_pairwise_precision": pp,
        "story_pairwise_recall": pr,
        "story_pairwise_f1": 2 * pp * pr / (pp + pr) if pp + pr else 0.0,
        "followup_pairs": same,
        "followup_precision": ap,
        "followup_recall": ar,
        "followup_f1": 2 * ap * ar / (ap + ar) if ap + ar else 0.0,
    }


def link_scores(links: list, events: list, rows: list[EvalItem]) -> dict:
    """The follow-up links as a reader sees them ("B, follow-up of A"), each found event read as
    the gold event most of its items belong to. A link is right when both ends are in one gold
    story; a link between two parts of one gold event (the clusterer split it) is neither right
    nor wrong, and counted apart. Recall: right links over the links each gold story needs (its
    events less one)."""
    votes: dict = {}
    for row, e in zip(rows, events):
        votes.setdefault(e, Counter())[row.event] += 1
    gold = {e: c.most_common(1)[0][0] for e, c in votes.items()}
    story = {row.event: row.story for row in rows}
    right = wrong = split = 0
    for link in links:
        a, b = gold[link.event], gold[link.follows]
        if a == b:
            split += 1
        elif story[a] and story[a] == story[b]:
            right += 1
        else:
            wrong += 1
    needed = sum(len(evs) - 1 for evs in _gold_story_events(rows).values())
    p, r = (right / (right + wrong) if right + wrong else 1.0), (right / needed if needed else 1.0)
    return {
        "links": len(links),
        "links_right": right,
        "links_needed": needed,
        "links_split": split,
        "link_precision": p,
        "link_recall": r,
        "link_f1": 2 * p * r / (p + r) if p + r else 0.0,
    }


def _gold_story_events(rows: list[EvalItem]) -> dict[str, set]:
    out: dict[str, set] = {}
    for r in rows:
        if r.story:
            out.setdefault(r.story, set()).add(r.event)
    return out


def _sketches(docs: list[Doc], events: list) -> list:
    from newsdesk.stories.threads import sketch

    members: dict = {}
    titles: dict = {}
    for d, e in sorted(zip(docs, events), key=lambda de: (de[0].ts, str(de[0].key))):
        members.setdefault(e, []).append((d.ts, d.vector, d.terms, d.roundup, d.text))
        titles.setdefault(e, d.text.split("\n", 1)[0])  # the store titles an event by its first report
    return [sketch(e, ds, titles[e]) for e, ds in members.items()]


def _story_of(sketches: list, config) -> tuple[dict, list]:
    """Each event's story (the key of its first event) and the links."""
    from newsdesk.stories.threads import StoryLinker, story_keys

    links = StoryLinker(config).run(sketches)
    return story_keys([s.key for s in sketches], links), links


def evaluate_stories(
    rows: list[EvalItem], vectors, k: int = 0, event_config: ClusterConfig | None = None, grid: dict | None = None
) -> tuple[dict, list[dict]]:
    """Story scores of the linker over the events the clusterer finds (default thresholds).

    k = 0: the default story thresholds on the whole file. k >= 2: folds split by gold story (a
    story's events stay in one fold); each fold's events linked with the thresholds that scored
    best (F0.5 of the links) on the other k-1 folds. Returns the scores (item pairs, and links:
    link_scores, summed over the folds) and the thresholds chosen per fold.
    """
    from newsdesk.stories.threads import StoryConfig

    docs = [eval_doc(r, vectors[i]) for i, r in enumerate(rows)]
    if not k:
        events = cluster_docs(docs, event_config)
        root, links = _story_of(_sketches(docs, events), StoryConfig())
        return {**story_scores([root[e] for e in events], rows), **link_scores(links, events, rows)}, []
    grid = STORY_GRID if grid is None else grid
    names = list(grid)
    configs = [StoryConfig(**dict(zip(names, values))) for values in product(*(grid[n] for n in names))]
    groups = sorted({_gold_story(r) for r in rows}, key=lambda g: hashlib.sha1(g.encode()).hexdigest())
    fold_of = {g: n % k for n, g in enumerate(groups)}
    fold = [fold_of[_gold_story(r)] for r in rows]
    pred: list = [None] * len(rows)
    chosen = []
    counts: Counter = Counter()
    for f in range(k):
        train = [i for i in range(len(rows)) if fold[i] != f]
        test = [i for i in range(len(rows)) if fold[i] == f]
        train_docs = [docs[i] for i in train]
        train_events = cluster_docs(train_docs, event_config)
        train_sketches = _sketches(train_docs, train_events)
        train_rows = [rows[i] for i in train]

        def objective(config, sketches=train_sketches, events=train_events, gold=train_rows):
            # F0.5 of the links: a wrong "follow-up of" misleads a reader more than a missing one.
            root, links = _story_of(sketches, config)
            s = link_scores(links, events, gold)
            p, r = s["link_precision"], s["link_recall"]
            return (1.25 * p * r / (0.25 * p + r) if p + r else 0.0), -s["links"]

        best = max(configs, key=objective)
        chosen.append({n: getattr(best, n) for n in names})
        test_docs = [docs[i] for i in test]
        test_events = cluster_docs(test_docs, event_config)
        root, links = _story_of(_sketches(test_docs, test_events), best)
        for i, e in zip(test, test_events):
            pred[i] = (f, root[e])
        fold_links = link_scores(links, test_events, [rows[i] for i in test])
        counts.update({n: fold_links[n] for n in ("links", "links_right", "links_needed", "links_split")})
    judged = counts["links"] - counts["links_split"]
    p = counts["links_right"] / judged if judged else 1.0
    r = counts["links_right"] / counts["links_needed"] if counts["links_needed"] else 1.0
    linked = {
        **counts,
        "link_precision": p,
        "link_recall": r,
        "link_f1": 2 * p * r / (p + r) if p + r else 0.0,
    }
    return {**story_scores(pred, rows), **linked}, chosen
