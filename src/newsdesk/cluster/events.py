"""Incremental event clustering, in memory. The store stage and `newsdesk eval clusters` both use it.

Each item, taken in publish order, either joins the best-matching open event or opens a new
one. Only events seen within `window_days` of the item are open: they live in a fixed-size
matrix of per-language centroids, and older ones are evicted as time moves on, so the cost of
placing an item depends on how busy the window is, never on how long the history is.

How an item is matched to an event:
0. A roundup (an item listing several stories) stands alone, and nothing joins it; it points at the
   open events it lists (`Placement.links`).
1. Dedup first (dedup.py): a copy of an item already in an event joins that event; so does an
   item under a near-identical headline, up to `sweep_days` back (an outlet reposting an article).
2. Cosine to the event's centroid **in each language it has**, against a threshold for that
   language pair: a multilingual encoder puts translations much closer than unrelated texts,
   but not as close as two same-language reports (USE: zh–en translations ≈0.5–0.7, same-
   language reports of one happening ≥0.8), so one threshold cannot serve both.
3. Anchors (anchors.py): a shared anchor adds weight, divided by how many open events carry
   it (a name every item this week mentions proves nothing); two different versions of one
   product family with no versioned name in common never join.
3b. A name only the item and the event use in the whole window (AlphaGenome, in two outlets'
   words the day it came out; or two Chinese words no other report uses) adds `name_bonus` to a same-language pair that is already close
   (`name_cosine`) within `name_days` of the event's first report. Across languages (zh–en) it counts
   only for a Latin name of the item's headline that a headline of the event's reports in the other
   language writes too (FlashMLA, DeepGEMM: Chinese AI news writes a product's own name in Latin
   letters), at `name_cross_cosine`, within `name_cross_days` (a Chinese outlet reports an English
   announcement the next day); a word any headline may use (headline-words.txt) is no name, nor a word
   of an English headline over a Chinese summary.
4. Rare words (terms.py): the share of the item's IDF-weighted words that the event's members
   use adds up to `term_weight`.
4b. Evidence beyond a topic (`_unsupported`): an item or event with little material (a title,
   a line) joins only on a shared anchor or the same release; a cross-language join where both
   sides name things in Latin letters needs an anchor, the release, a name of its own (3b) or rare
   shared words unless its cosine reaches `bare_cross_language`; a versioned name counts there only
   where one side's headline and summary both name it (`_cross_evidence`: a compiler built with Opus
   4.6 and a piece on the day's launches both name it in passing). A shared product word ("Codex",
   "Claude Code") is a topic, not a happening.
5. A score just around the threshold may be put to an arbiter (an LLM), within a budget. Its
   split stands: that item, and any copy of it, is never placed into that event afterwards
   (`Placement.ruling`; the store keeps rulings and hands them back through `rule_apart`).
"""

from __future__ import annotations

import heapq
import itertools
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from newsdesk.cluster.anchors import (
    ANCHOR_WEIGHT,
    MONEY_PATTERNS,
    anchor_kind,
    extract_anchors,
    number_anchors,
    same_release,
    subjects,
    version_conflict,
)
from newsdesk.cluster.dedup import Deduper
from newsdesk.cluster.pairs import candidates, explain, rows
from newsdesk.cluster.terms import FAMILY, TermWindow, headline, is_roundup, terms
from newsdesk.text import lexicon
from newsdesk.text.headlines import is_rumour

DAY = 86400.0

# keep (True) or split (False), and why: an LLM asked "is this item about this event?"
Arbiter = Callable[[str, str], tuple[bool, str] | None]


@dataclass
class ClusterConfig:
    window_days: float = 7.0  # an event stays open this long after its latest member
    same_language: float = 0.70  # cosine to join an event's centroid in the item's own language
    cross_language: float = 0.40  # cosine to join across languages (zh–en), only while the event has none in the item's
    decay_per_day: float = 0.01  # the threshold rises with days since the event's last report in that language
    anchor_bonus_cap: float = 0.20
    syndication_jaccard: float = 0.8
    arbiter_band: float = 0.05  # scores within ± this of the threshold may be arbitrated
    arbiter_budget: int = 20  # arbiter calls per run
    term_weight: float = 0.30  # rare shared words: this times their IDF cosine to the event joins the score
    headline_jaccard: float = 0.8  # near-identical headlines (character pairs) join; 0 turns it off
    sweep_days: float = 30.0  # how far back a near-identical headline still finds its event
    roundups: bool = True  # roundups (multi-topic lists) stand alone
    launch_days: float = 1.5  # a release's launch coverage: this long after the event's first report
    subject_bonus: float = (
        0.25  # the item and a member are about one release (named in headline and summary), at launch
    )
    roundup_link: float = 0.4  # share of an event's headline rarity a roundup must carry to point at it
    # Evidence beyond a shared topic (Clusterer._unsupported). Set from the replayed real week 2026-W09
    # (its glued cards), not from the dev sets, whose scores they leave unchanged (eval/clusters/glue.md).
    bare_cross_language: float = 0.60  # a cross-language join on cosine alone needs this much
    evidence_words: float = 0.15  # rare shared words are evidence from this share of the item's rarity on
    thin_words: int = 10  # an item saying fewer words than this beyond its headline has little material
    lead_slack: float = 0.10  # a joiner may fall this far below the threshold to the event's first report
    amount_bonus: float = 0.25  # both headlines state one specific amount (681亿美元), at launch
    name_bonus: float = 0.15  # both name a word no other item in the window uses (AlphaGenome), the same day
    name_cosine: float = 0.50  # ... when their texts are this close at least
    name_days: float = 0.75  # ... within this long of the event's first report (a series' next post is another day)
    name_cjk_words: int = 2  # Chinese words only the pair uses count as names from this many (one is chance)
    name_cross_cosine: float = 0.40  # across languages: a Latin name in both headlines, when their texts are this close
    name_cross_days: float = 1.5  # ... within this long of its first report (a Chinese report comes a day later)
    # The learned same-happening scorer (pairs.py, pair_model.py): a shipped model's name, a path to a
    # model file, or a PairModel; "" matches by the rules above. It joins an item to its most probable
    # candidate event when the probability reaches the model's threshold (or `pair_threshold`).
    pair_model: object = ""
    pair_threshold: float | None = None
    arbiter_p_band: float = 0.10  # probabilities within ± this of the threshold may be arbitrated


_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LATIN_WORD = re.compile(r"[A-Za-z]+")
_LATIN_TERM = re.compile(r"^[a-z]")
# Words any headline may use ("agent", "sota", "open"): two headlines sharing one are not one happening.
_HEADLINE_WORDS = lexicon.words("headline-words")


def _words(text: str) -> int:
    """Words a text says: Latin words and numbers, and a word per two Chinese characters."""
    return len(_CJK.findall(text)) // 2 + len(re.findall(r"[A-Za-z0-9]+", text))


def words_said(summary: str | None, body: str | None) -> int:
    """Words of an item's material beyond its headline: its summary, else its body."""
    return _words((summary or "").strip() or (body or "").strip())


def text_language(text: str, declared: str = "other") -> str:
    """The language the compared text is written in (zh / en), which can differ from the source's.

    A feed item may carry an English headline and a Chinese summary; what the encoder sees is
    mostly Chinese then, and it must be compared with the Chinese threshold.
    """
    cjk = len(_CJK.findall(text))
    latin_words = len(_LATIN_WORD.findall(text))
    # A Chinese character carries about a word; a Chinese summary under an English headline still
    # makes the text Chinese to the encoder, so a little Chinese is enough.
    if cjk >= 10 or (cjk and cjk >= latin_words):
        return "zh"
    if latin_words:
        return "en"
    return declared or "other"


@dataclass
class Doc:
    """One item as the clusterer sees it."""

    key: object  # item id in the store, the file's id in an evaluation
    text: str
    lang: str
    ts: float  # publish time, epoch seconds
    vector: np.ndarray  # L2-normalized
    url: str | None = None
    guid: str | None = None
    anchors: frozenset[str] | None = None
    terms: frozenset[str] | None = None
    # Words of material beyond the headline (the store counts the summary or body). Unset: the
    # lines after the first; None for a one-line text (an evaluation file's statement is the report itself).
    said: int | None = None
    source: str | None = None  # the outlet: one outlet reports one happening once

    def __post_init__(self):
        self.lang = text_language(self.text, self.lang)
        if self.anchors is None:
            self.anchors = frozenset(extract_anchors(self.text))
        if self.terms is None:
            self.terms = terms(self.text)
        self.headline = headline(self.text)
        self.headline_terms = terms(self.text.split("\n", 1)[0])
        # An outlet may head a Chinese summary with the English original's title (Simon Willison's feed).
        # A headline with any Chinese in it is Chinese, however many Latin names it writes
        # ("Claude Code 新增 Remote Control"): text_language would call such a headline English.
        first = self.text.split("\n", 1)[0]
        self.headline_lang = "zh" if _CJK.search(first) else text_language(first, self.lang)
        if self.said is None and "\n" in self.text:
            self.said = _words(self.text.split("\n", 1)[1])
        self.subjects = subjects(self.text)
        self.roundup = is_roundup(self.text)
        # Both read on the headline as written: the normalized one has no spaces, dots or currency
        # signs, so "rumors" never stands as a word in it and "$68.1 billion" is no amount.
        self.amounts = headline_amounts(first)
        self.rumour = is_rumour(first)


_SIGNIFICANT = re.compile(r"[1-9](?:[\d,.]*[1-9])?")


def headline_amounts(headline_text: str) -> frozenset[str]:
    """The specific amounts a headline states, as money anchors: "营收681亿美元" and "$68.1B" are
    one figure. A round one ($1B, 20亿) is in many stories of a week and is left out."""
    found = set()
    for m in (m for rx in MONEY_PATTERNS for m in rx.finditer(headline_text)):
        digits = _SIGNIFICANT.search(m.group(1).replace(",", "").replace(".", ""))
        if digits and len(digits.group(0)) >= 2:
            found |= {a for a in number_anchors(m.group(0)) if anchor_kind(a) == "money"}
    return frozenset(found)


def _thin(doc: Doc, cfg: ClusterConfig) -> bool:
    return doc.said is not None and doc.said < cfg.thin_words


@dataclass
class Placement:
    key: object
    event: object
    role: str  # member | syndicated | duplicate (the store picks the lead afterwards)
    opened: bool  # this item opened the event
    origin: object | None = None
    similarity: float | None = None
    reason: str = ""
    ruling: tuple[object, bool, str] | None = None  # (event weighed, same event?, the arbiter's reason)
    links: list[tuple[object, float]] = field(default_factory=list)  # a roundup's listed events, with scores


@dataclass
class _Event:
    key: object
    first_ts: float
    last_ts: float
    text: str  # the first member's text: what an arbiter reads as "the event"
    slots: dict[str, int] = field(default_factory=dict)  # language -> row in the centroid matrix
    sums: dict[str, np.ndarray] = field(default_factory=dict)
    lang_last: dict[str, float] = field(default_factory=dict)  # latest member per language
    anchors: Counter = field(default_factory=Counter)
    terms: Counter = field(default_factory=Counter)  # word -> members using it
    subjects: set = field(default_factory=set)  # the releases members are about
    amounts: set = field(default_factory=set)  # the specific amounts members' headlines state
    size: int = 0
    thin: bool = True  # every member has little material (a title, a line): its centroid is a headline's
    roundup: bool = False  # a roundup's own event: nothing else joins it
    headline_terms: frozenset[str] = frozenset()  # the first member's headline words: what a roundup names it by
    headline_latin: dict = field(default_factory=dict)  # headline language -> Latin words those headlines use
    lead: tuple[str, np.ndarray] | None = None  # the first member's language and vector: what a joiner must agree with
    vectors: list = field(default_factory=list)  # the first MAX_MEMBER_VECTORS members' vectors (pairs.features)
    sources: Counter = field(default_factory=Counter)  # outlet -> members
    rumour: bool = False  # its first report is a rumour, a leak or a report of plans


# A report that is no rumour this long after a rumour event's first report tells what the rumour
# foretold as done: it opens its own event (Clusterer._foretold). Half a day: the same day's
# "reportedly" and "announced" are often one happening told twice by time zones.
FORETOLD_DAYS = 0.5
_FORETOLD = "what event {} foretold as a rumour or a plan, told as done on a later day"
MAX_MEMBER_VECTORS = 16  # enough to find a member close to a joiner; bounded, so the cost per item is too


class _Centroids:
    """Normalized centroids of open events, one row per (event, language), in a reusable matrix."""

    def __init__(self, dim: int, capacity: int = 256):
        self.m = np.zeros((capacity, dim), dtype=np.float32)
        self.event: list[object] = [None] * capacity
        self.lang: list[str | None] = [None] * capacity
        self.free = list(range(capacity - 1, -1, -1))
        self.used = np.zeros(capacity, dtype=bool)

    def put(self, row: int | None, event, lang: str, vec: np.ndarray) -> int:
        if row is None:
            if not self.free:
                self._grow()
            row = self.free.pop()
            self.used[row], self.event[row], self.lang[row] = True, event, lang
        n = float(np.linalg.norm(vec))
        self.m[row] = vec / n if n else vec
        return row

    def drop(self, row: int) -> None:
        self.used[row], self.event[row], self.lang[row] = False, None, None
        self.m[row] = 0.0
        self.free.append(row)

    def _grow(self) -> None:
        old = len(self.event)
        self.m = np.vstack([self.m, np.zeros_like(self.m)])
        self.used = np.concatenate([self.used, np.zeros(old, dtype=bool)])
        self.event += [None] * old
        self.lang += [None] * old
        self.free.extend(range(2 * old - 1, old - 1, -1))


class Clusterer:
    """Places documents, in publish order, into events. Deterministic for a given input order."""

    def __init__(
        self,
        config: ClusterConfig | None = None,
        *,
        new_event: Callable[[Doc], object] | None = None,
        arbiter: Arbiter | None = None,
    ):
        self.config = config or ClusterConfig()
        counter = itertools.count(1)
        self._new_event = new_event or (lambda doc: next(counter))
        self.arbiter = arbiter
        self.arbiter_calls = 0
        self.dedup = Deduper(threshold=self.config.syndication_jaccard)
        self.events: dict[object, _Event] = {}
        self._event_of: dict[object, object] = {}  # doc key -> event key, for docs in the window
        self._doc_expiry: list[tuple[float, int, object]] = []
        self._event_expiry: list[tuple[float, int, object]] = []
        self._seq = itertools.count()
        self._df: Counter = Counter()  # anchor -> open events carrying it
        self.words = TermWindow()
        self._doc_terms: dict[object, frozenset[str]] = {}
        cfg = self.config
        self.headlines = Deduper(threshold=cfg.headline_jaccard or 0.9, shingle=2, min_chars=8)  # unused when off
        self._headline_event: dict[object, object] = {}  # doc key -> event key, for the sweep horizon
        self._headline_expiry: list[tuple[float, int, object]] = []
        self._centroids: _Centroids | None = None
        self.now = float("-inf")
        self._ruled_out: dict[object, set] = {}  # item key -> events the arbiter ruled it out of
        model = cfg.pair_model
        if isinstance(model, str) and model:
            from newsdesk.cluster.pair_model import load

            model = load(model)
        self.pair_model = model or None

    # --- the window ---------------------------------------------------------------

    def advance(self, ts: float) -> None:
        """Move the window's end to `ts`, evicting what fell out of it."""
        if ts <= self.now:
            return
        self.now = ts
        cutoff = ts - self.config.window_days * DAY
        while self._event_expiry and self._event_expiry[0][0] < cutoff:
            last, _, key = heapq.heappop(self._event_expiry)
            ev = self.events.get(key)
            if ev is None or ev.last_ts != last:
                continue  # it grew since; a later entry covers it
            for row in ev.slots.values():
                self._centroids.drop(row)
            for a in ev.anchors:
                self._df[a] -= 1
                if self._df[a] <= 0:
                    del self._df[a]
            del self.events[key]
        while self._doc_expiry and self._doc_expiry[0][0] < cutoff:
            _, _, key = heapq.heappop(self._doc_expiry)
            self._event_of.pop(key, None)
            self.words.remove(self._doc_terms.pop(key, frozenset()))
        self.dedup.evict(cutoff)
        horizon = ts - max(self.config.sweep_days, self.config.window_days) * DAY
        self.headlines.evict(horizon)
        while self._headline_expiry and self._headline_expiry[0][0] < horizon:
            _, _, key = heapq.heappop(self._headline_expiry)
            self._headline_event.pop(key, None)

    # --- placing ----------------------------------------------------------------------

    def add(self, doc: Doc) -> Placement:
        self.advance(doc.ts)
        out = set(self._ruled_out.get(doc.key, ()))  # the ruled-out events of this item and its copies
        placement = (
            self._dedup(doc, out) or self._roundup(doc) or self._same_headline(doc, out) or self._match(doc, out)
        )
        if out:
            self._ruled_out[doc.key] = out
        self._remember(doc, placement)
        return placement

    def rule_apart(self, item, event) -> None:
        """The arbiter ruled `item` out of `event`: neither it nor a copy of it ever joins that event."""
        self._ruled_out.setdefault(item, set()).add(event)

    def seed(self, doc: Doc, event, *, origin=None) -> None:
        """Put back a document already placed in `event` (resuming from the store); no matching."""
        self.advance(doc.ts)
        role = "member" if origin is None else "syndicated"
        self._remember(doc, Placement(doc.key, event, role, event not in self.events, origin))

    def _dedup(self, doc: Doc, out: set) -> Placement | None:
        hit = self.dedup.find(doc.url, doc.guid, doc.text)
        if hit is None:
            return None
        role, origin, sim = hit
        out |= self._ruled_out.get(origin, set())  # a copy of a ruled item is ruled with it
        event = self._event_of.get(origin)
        if event is None or event not in self.events or event in out:
            return None
        if role == "syndicated" and version_conflict(set(doc.anchors), set(self.events[event].anchors)):
            return None  # "Orion-3 is out" and "Orion-4 is out" differ by one character and are two releases
        why = "same link or guid as" if role == "duplicate" else f"near-identical text (Jaccard {sim:.2f}) to"
        return Placement(doc.key, event, role, False, origin, sim, f"{why} item {origin}")

    def _roundup(self, doc: Doc) -> Placement | None:
        if not (self.config.roundups and doc.roundup):
            return None
        placement = self._open(doc, None, "a roundup of several stories stands alone")
        placement.links = self._listed(doc)
        return placement

    def _listed(self, doc: Doc) -> list[tuple[object, float]]:
        """The open events a roundup names: most of the rarity of an event's headline words is in it."""
        found = []
        for key, ev in self.events.items():
            if ev.roundup or not ev.headline_terms:
                continue
            weights = self.words.weights(ev.headline_terms)
            total = sum(weights.values())
            share = sum(w for t, w in weights.items() if t in doc.terms) / total if total else 0.0
            if share >= self.config.roundup_link:
                found.append((key, round(share, 4)))
        return sorted(found, key=lambda x: (-x[1], str(x[0])))[:12]

    def _same_headline(self, doc: Doc, out: set) -> Placement | None:
        """One article reposted by another outlet under its headline, inside the window or the sweep."""
        if not self.config.headline_jaccard:
            return None
        hit = self.headlines.find(None, None, doc.headline)
        if hit is None:
            return None
        _, origin, sim = hit
        out |= self._ruled_out.get(origin, set())
        event = self._headline_event.get(origin)
        ev = self.events.get(event)
        if (
            event is None
            or event in out
            or (ev is not None and (ev.roundup or version_conflict(set(doc.anchors), set(ev.anchors))))
        ):
            return None
        where = "" if ev is not None else ", reopened from outside the window"
        return Placement(
            doc.key,
            event,
            "member",
            False,
            None,
            sim,
            f"near-identical headline (Jaccard {sim:.2f}) to item {origin}{where}",
        )

    def _threshold(self, a: str, b: str) -> float:
        known = ("zh", "en")
        if a != b and a in known and b in known:
            return self.config.cross_language
        return self.config.same_language

    def _match(self, doc: Doc, out: set) -> Placement:
        """The open event whose centroid, anchors and words best fit the document, if it clears the
        threshold (an arbiter rules on one close to it); else a new event."""
        if self.pair_model is not None:
            return self._match_learned(doc, out)
        best = None  # (score, event key, cosine, why)
        foretold = None  # (score, key): the best event whose rumour this item tells as done
        if self._centroids is not None and self.events:
            weights = self.words.weights(doc.terms)  # rare shared words are evidence even when they add no score
            reach = self._reach()
            for key, (margin, s, lang) in self._margins(doc, out).items():
                if margin < -reach:
                    continue
                scored = self._candidate(doc, key, margin, s, lang, weights)
                if scored is not None and self._foretold(doc, self.events[key]):
                    if foretold is None or scored[0] > foretold[0]:
                        foretold = (scored[0], key)
                    continue
                if scored is not None and (best is None or scored[0] > best[0]):
                    best = (scored[0], key, s, scored[1])
        if foretold is not None and foretold[0] >= 0 and (best is None or best[0] < 0):
            return self._open(doc, None, _FORETOLD.format(foretold[1]))
        if best is None:
            return self._open(doc, None, "no open event in the window")
        return self._decide(doc, *best)

    def _margins(self, doc: Doc, out: set) -> dict[object, tuple[float, float, str]]:
        """Each open event's best margin over its threshold (cosine to one of its language centroids,
        less the threshold and the centroid's age), with that cosine and language."""
        cfg = self.config
        c = self._centroids
        assert c is not None
        rows = np.flatnonzero(c.used)
        cos = c.m[rows] @ doc.vector.astype(np.float32)
        margins: dict[object, tuple[float, float, str]] = {}
        for row, s in zip(rows.tolist(), cos.tolist()):
            key, lang = c.event[row], c.lang[row]
            ev = self.events[key]
            if ev.roundup or key in out:
                continue  # a roundup's own event, or one the arbiter ruled this item out of
            if lang != doc.lang and doc.lang in ev.slots:
                continue  # like with like: the event's own-language centroid is the better witness
            age = max(0.0, doc.ts - ev.lang_last[lang]) / DAY
            margin = s - self._threshold(doc.lang, lang) - cfg.decay_per_day * age
            if key not in margins or margin > margins[key][0]:
                margins[key] = (margin, s, lang)
        return margins

    def _reach(self) -> float:
        """Anchors can move a score by at most the bonus cap; only events that close are worth a look."""
        cfg = self.config
        return (
            cfg.anchor_bonus_cap
            + cfg.term_weight
            + cfg.subject_bonus
            + cfg.amount_bonus
            + cfg.name_bonus
            + max(cfg.arbiter_band, 0.0)
        )

    def _candidate(self, doc: Doc, key, margin: float, s: float, lang: str, weights: dict) -> tuple[float, str] | None:
        """One open event's score for the document and why; None when it cannot be the same happening."""
        cfg = self.config
        ev = self.events[key]
        if version_conflict(set(doc.anchors), set(ev.anchors)):
            return None  # GPT-4.5 vs GPT-4o: two releases, however alike the texts
        if ev.first_ts > doc.ts + cfg.window_days * DAY:
            return None  # an event that begins after this item's window
        why = [f"cosine {s:.2f} to the {lang} centroid (threshold {self._threshold(doc.lang, lang):.2f})"]
        evidence: list[str] = []  # what says this is the same happening, beyond a like-sounding text
        score = self._evidence(doc, ev, lang, s, margin, weights, why, evidence)
        short = self._unsupported(doc, ev, lang, s, evidence, score - margin) if score > -abs(cfg.arbiter_band) else ""
        if short:
            why.append(short)
            score = min(score, -abs(cfg.arbiter_band) - 1e-6)  # below the threshold and out of the arbiter's band
        return score, "; ".join(why)

    def _evidence(
        self, doc: Doc, ev: _Event, lang: str, s: float, score: float, weights: dict, why: list, evidence: list
    ) -> float:
        """`score` raised by each thing the document shares with the event, in turn: anchors, the same
        release, a stated amount, a name of its own, rare words; `why` and `evidence` get each one."""
        cfg = self.config
        shared = self._shared_anchors(doc, ev)
        if shared:
            evidence.append("anchor")
            bonus = min(cfg.anchor_bonus_cap, sum(ANCHOR_WEIGHT[anchor_kind(a)] / max(1, self._df[a]) for a in shared))
            score += bonus
            why.append(f"shared anchors {', '.join(shared[:4])} (+{bonus:.2f})")
        named = sorted(a for a in doc.subjects if any(same_release(a, b) for b in ev.subjects))
        if named and cfg.subject_bonus and doc.ts - ev.first_ts <= cfg.launch_days * DAY:
            evidence.append("release")
            score += cfg.subject_bonus
            why.append(
                f"both about {named[0]}, within {cfg.launch_days:g} days of its first report (+{cfg.subject_bonus:.2f})"
            )
        # Two headlines stating one specific figure at launch report one happening (Nvidia's
        # quarter, 681亿美元, in two outlets' words), however differently they are worded.
        amount = sorted(doc.amounts & ev.amounts)
        if amount and cfg.amount_bonus and doc.ts - ev.first_ts <= cfg.launch_days * DAY:
            evidence.append("amount")
            score += cfg.amount_bonus
            why.append(f"both headlines state {amount[0]} (+{cfg.amount_bonus:.2f})")
        # A name only this event's reports use in the whole window (AlphaGenome, a person's
        # name) is this happening's own, where a product word every report names is a topic.
        own = self._named_together(doc, ev, lang, s)
        if own and cfg.name_bonus:
            evidence.append("name")
            score += cfg.name_bonus
            why.append(
                f"both name {', '.join(own[:3])}, which no other report in the window does (+{cfg.name_bonus:.2f})"
            )
        sim, words = self.words.similarity(weights, ev.terms, ev.size)
        if sim and cfg.term_weight:
            score += cfg.term_weight * sim
            why.append(f"rare words {', '.join(words[:4])} (+{cfg.term_weight * sim:.2f})")
        if sim >= cfg.evidence_words:
            evidence.append("words")
        return score

    def _decide(self, doc: Doc, score: float, key, s: float, why: str, band: float | None = None) -> Placement:
        """Join the best candidate when its score clears the threshold (score >= 0), else open a new event;
        one within the arbiter's band of it is the arbiter's to rule on, while its budget lasts (band: the
        rules' arbiter_band, or the pair model's arbiter_p_band in probability)."""
        cfg = self.config
        band = cfg.arbiter_band if band is None else band
        if abs(score) < band and self.arbiter and self.arbiter_calls < cfg.arbiter_budget:
            self.arbiter_calls += 1
            ruling = self.arbiter(self.events[key].text, doc.text)
            if ruling is not None:  # None: the arbiter could not rule; the score decides
                keep, verdict = ruling
                why += f"; arbiter: {'keep' if keep else 'split'} ({verdict})"
                if keep:
                    return Placement(doc.key, key, "member", False, None, round(s, 4), why, (key, True, verdict))
                self.rule_apart(doc.key, key)
                placement = self._open(doc, s, why)
                placement.ruling = (key, False, verdict)
                return placement
            why += "; arbiter gave no ruling"
        if score >= 0:
            return Placement(doc.key, key, "member", False, None, round(s, 4), why)
        return self._open(doc, s, f"best candidate below threshold: {why}")

    def _match_learned(self, doc: Doc, out: set) -> Placement:
        """Join the candidate event the pair model finds most probably the item's happening, when that
        probability reaches the threshold chosen on the training folds."""
        cfg = self.config
        model: Any = self.pair_model  # a PairModel (pair_model.py), loaded in __init__
        found = candidates(self, doc, out)
        foretold = [key for key, _, _ in found if self._foretold(doc, self.events[key])]
        found = [f for f in found if f[0] not in foretold]
        if not found:
            return self._open(doc, None, _FORETOLD.format(foretold[0]) if foretold else "no open event in the window")
        x = rows(self, doc, found)
        probs = model.probability(x)
        best = int(np.argmax(probs))  # ties: the closer candidate, listed first
        p, (key, s, lang) = float(probs[best]), found[best]
        threshold = model.threshold if cfg.pair_threshold is None else cfg.pair_threshold
        why = (
            f"same-happening probability {p:.2f} (join at {threshold:.2f}) to the event, cosine {s:.2f} to its "
            f"{lang} centroid; {explain(x[best], model.contributions(x[best]))}"
        )
        return self._decide(doc, p - threshold, key, s, why, band=cfg.arbiter_p_band)

    @staticmethod
    def _foretold(doc: Doc, ev: _Event) -> bool:
        """The event began as a rumour, a leak or a report of plans, and the item, no rumour, comes
        FORETOLD_DAYS or more after it: the launch or the deal the rumour foretold is a happening of
        its own, on its own day (issue 29: "据称 OpenAI 将发新图像模型" on 04-20 held gpt-image-2's
        launch, which then showed on its day as an update). The stories stage links the two."""
        return ev.rumour and not doc.rumour and doc.ts - ev.first_ts >= FORETOLD_DAYS * DAY

    def _unsupported(self, doc: Doc, ev: _Event, lang: str, cosine: float, evidence: list[str], bonus: float) -> str:
        """Why the join lacks evidence beyond a shared topic, or "" when it has it.

        A title or a one-line summary (either side) embeds as its topic: "Codex", "Claude Code",
        "agents" put unrelated posts side by side, so such an item joins only on a shared anchor
        or the same release (near-identical text and headlines are matched before this). Across
        languages the threshold is low (translations are not close to an encoder), so a
        cross-language join on cosine alone needs `bare_cross_language`, unless an anchor, the
        same release, a name of its own or rare words say it is one happening."""
        cfg = self.config
        specific = [e for e in evidence if e != "words"]
        if (_thin(doc, cfg) or ev.thin) and not specific:
            return "little material on one side and no shared anchor or release: not joined"
        cross = self._threshold(doc.lang, lang) == cfg.cross_language and doc.lang != lang
        # Only where words could have spoken: Chinese AI news names products and companies in Latin
        # letters, so a true pair shares a rare one; a text without Latin names (a translated news
        # blurb) has no word in common with its English version, and its silence proves nothing.
        named = any(_LATIN_TERM.match(t) for t in doc.terms) and any(_LATIN_TERM.match(t) for t in ev.terms)
        if cross and named and not self._cross_evidence(doc, ev, evidence) and cosine < cfg.bare_cross_language:
            return (
                f"across languages on cosine alone (below {cfg.bare_cross_language:.2f}), "
                "no shared anchor, release or rare words: not joined"
            )
        # A centroid drifts as members join; the event is still what its first report said. A joiner
        # close to a later member only would chain one happening onto another.
        if ev.size >= 2 and ev.lead is not None:
            lead_lang, lead_vec = ev.lead
            to_lead = float(lead_vec @ doc.vector.astype(np.float32))
            if to_lead + bonus < self._threshold(doc.lang, lead_lang) - cfg.lead_slack:
                return f"cosine {to_lead:.2f} to the event's first report: too far from what the event is about, not joined"
        return ""

    def _cross_evidence(self, doc: Doc, ev: _Event, evidence: list[str]) -> list[str]:
        """The evidence that holds a cross-language join below `bare_cross_language`: a versioned name
        counts only where a headline and its summary name it on one side at least (a subject): two
        pieces that mention Opus 4.6 in passing, a compiler built with it and a day's two launches,
        are two happenings."""
        if "anchor" not in evidence:
            return evidence
        shared = self._shared_anchors(doc, ev)
        subjects = doc.subjects | ev.subjects
        passing = all(anchor_kind(a) == "model" and a not in subjects for a in shared)
        return [e for e in evidence if e != "anchor"] if passing else evidence

    def _named_together(self, doc: Doc, ev: _Event, lang: str, s: float) -> list[str]:
        """The names of its own (`_own_names`) that make the item and the event one happening: in one
        language the same day (`name_days`), when their texts are close (`name_cosine`); across
        languages, a Latin name both the item's headline and the event's headlines in that language
        write (FlashMLA in a Chinese and an English headline), at `name_cross_cosine`, within
        `name_cross_days`, a translation's lag (a series' next post is another day in one language;
        across languages the Chinese report of an English announcement is). Elsewhere a shared Latin
        name is a product word across languages (`_unsupported`)."""
        cfg = self.config
        if lang == doc.lang:
            near = doc.ts - ev.first_ts <= cfg.name_days * DAY
            return self._own_names(doc, ev) if near and s >= cfg.name_cosine else []
        if s < cfg.name_cross_cosine or doc.ts - ev.first_ts > cfg.name_cross_days * DAY:
            return []
        if doc.headline_lang != doc.lang:
            return []  # an English headline over a Chinese summary: its words are English words, not names
        heads = ev.headline_latin.get(lang, ())
        return [
            t for t in self._own_names(doc, ev) if t in doc.headline_terms and t in heads and t not in _HEADLINE_WORDS
        ]

    def _own_names(self, doc: Doc, ev: _Event) -> list[str]:
        """Names that the item and the event use and no other report in the window does: Latin words
        of 5+ letters (not a big company or model family), and Chinese words when there are
        `name_cjk_words` of them (控诉, 蒸馏: Anthropic's distillation accusation in two outlets' words)."""
        own = [
            t
            for t in doc.terms or ()
            if t not in FAMILY and ev.terms.get(t, 0) > 0 and self.words.df.get(t, 0) <= ev.terms[t]
        ]
        latin = [t for t in own if _LATIN_TERM.match(t) and len(t) >= 5]
        cjk = [t for t in own if _CJK.match(t)]  # one such Chinese word is chance, two are the happening's
        return sorted(latin + (cjk if len(cjk) >= self.config.name_cjk_words else []))

    def _shared_anchors(self, doc: Doc, ev: _Event) -> list[str]:
        """The event's anchors the item names too. A versioned name counts only during the launch:
        a review or a guide days later names the release as well, and is another event of its story."""
        launch = doc.ts - ev.first_ts <= self.config.launch_days * DAY
        return sorted(a for a in doc.anchors if a in ev.anchors and (launch or anchor_kind(a) != "model"))

    def _open(self, doc: Doc, s: float | None, why: str) -> Placement:
        key = self._new_event(doc)
        return Placement(
            doc.key, key, "member", True, None, None if s is None else round(s, 4), f"opened a new event ({why})"
        )

    def _remember(self, doc: Doc, p: Placement) -> None:
        ev = self.events.get(p.event)
        if ev is None:
            ev = self.events[p.event] = _Event(p.event, doc.ts, doc.ts, doc.text, headline_terms=doc.headline_terms)
        ev.first_ts = min(ev.first_ts, doc.ts)
        if doc.ts > ev.last_ts or ev.size == 0:
            ev.last_ts = max(ev.last_ts, doc.ts)
        heapq.heappush(self._event_expiry, (ev.last_ts, next(self._seq), ev.key))
        ev.size += 1
        ev.thin = ev.thin and _thin(doc, self.config)
        ev.roundup = ev.roundup or (p.opened and self.config.roundups and doc.roundup)
        ev.terms.update(doc.terms)
        ev.subjects |= doc.subjects
        ev.amounts |= doc.amounts
        ev.headline_latin.setdefault(doc.headline_lang, set()).update(
            t for t in doc.headline_terms if _LATIN_TERM.match(t)
        )
        if self._centroids is None:
            self._centroids = _Centroids(doc.vector.shape[0])
        vec = doc.vector.astype(np.float32)
        if ev.lead is None:
            ev.lead = (doc.lang, vec)
            ev.rumour = doc.rumour
        if len(ev.vectors) < MAX_MEMBER_VECTORS:
            ev.vectors.append(vec)
        if doc.source:
            ev.sources[doc.source] += 1
        ev.lang_last[doc.lang] = max(ev.lang_last.get(doc.lang, doc.ts), doc.ts)
        ev.sums[doc.lang] = ev.sums[doc.lang] + vec if doc.lang in ev.sums else vec.copy()
        ev.slots[doc.lang] = self._centroids.put(ev.slots.get(doc.lang), ev.key, doc.lang, ev.sums[doc.lang])
        for a in doc.anchors:
            if ev.anchors[a] == 0:
                self._df[a] += 1
            ev.anchors[a] += 1
        self._event_of[doc.key] = ev.key
        if doc.key not in self._doc_terms:
            self._doc_terms[doc.key] = doc.terms
            self.words.add(doc.terms)
        if self.config.headline_jaccard and not ev.roundup:
            self.headlines.add(doc.key, None, None, doc.headline, doc.ts)
            self._headline_event[doc.key] = ev.key
            heapq.heappush(self._headline_expiry, (doc.ts, next(self._seq), doc.key))
        heapq.heappush(self._doc_expiry, (doc.ts, next(self._seq), doc.key))
        self.dedup.add(doc.key, doc.url, doc.guid, doc.text, doc.ts, origin=p.origin)
