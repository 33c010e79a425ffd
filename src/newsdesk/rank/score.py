"""Rank events like an editor: importance from what the happening is (rank/happenings.py: a major company's
release or statement, money with an amount, policy or legal action, an incident, a versioned
release, a paper with results; routine kinds ranked down; off-topic below everything), who
reported it (independent outlets, the company itself, source authority), engagement and reader
feedback; recency orders the live feed. Every part is stored in `events.score_parts` so the
operator's "why it ranks" shows each one.

An event's tab (featured / p1 / all: the feed tab it shows in) comes from importance alone, its
own and that of the other events of its day, not recency: featured holds the few a day must show,
the events whose probability of being the day's lead event (a calibration learned from editors'
leads, rank/model/lead-v1.json) passes its threshold, at least the day's best news. So an event
keeps its tab when an old daily edition is rebuilt. Off-topic, routine, undated (every report
dated by when newsdesk first saw it) and misdated events (dated before the maker announced what
they report, rank/chronology.py) are never featured or p1 on their own; a reader's star always
features.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from types import SimpleNamespace
from zoneinfo import ZoneInfo

from sqlalchemy import select, update
from sqlalchemy.engine import Engine

from newsdesk.rank.adjust import Adjustment, current
from newsdesk.rank.chronology import Dated, misdated
from newsdesk.rank.happenings import (
    AMOUNT,
    DEAL,
    FIRST_PARTY_CATEGORIES,
    MONEY,
    NEWS_KINDS,
    Kinds,
    event_kinds,
    material_of,
)
from newsdesk.rank.learned import Ranker, learned_parts, shipped, shipped_lead
from newsdesk.store.days import UPDATES, back_catalogue, growth_days
from newsdesk.store.schema import event_members, events, feedback, items, sources
from newsdesk.text.companies import companies_named, first_party_name

HALF_LIFE_HOURS = 36.0
P1 = 2.5
FEEDBACK_WEIGHT = {"up": 1.0, "star": 2.0, "down": -2.0}


def _engagement(e: dict) -> float:
    """HN points, Reddit score, likes; comments count double (a discussion, not a click)."""
    if not isinstance(e, dict):
        return 0.0
    reach = max(float(e.get(k) or 0) for k in ("points", "score", "likes", "stars", "upvotes", "reactions", "x"))
    return reach + 2.0 * float(e.get("comments") or e.get("num_comments") or 0)


# What the happening is worth, by kind (rank/happenings.py), and what a routine kind costs. Read from one
# labelled week's misses and checked on the other (eval/editorial/); see docs/ranking.md.
KIND_WEIGHT = {
    "major": 0.6,
    "release": 0.6,
    "money": 0.8,
    "policy": 0.5,
    "incident": 0.4,
    "versioned": 0.3,
    "paper": 0.3,
}
ROUTINE_WEIGHT = {
    "changelog": -1.0,
    "marketing": -1.0,
    "roundup": -0.6,
    "how-to": -0.6,
    "recap": -0.5,
    "opinion": -0.5,
    "explainer": -0.4,
}
OFF_TOPIC = -3.0  # below every on-topic event: shown under 其他 / Other, never featured or p1
FIRST_PARTY = 0.5  # the company itself says so: its blog, its channel
UNDATED = -0.5  # every report's time is when newsdesk first saw it: no date of its own
UNREAD = -0.8  # a headline alone from one outlet: a reader opening the page's top finds nothing to read
MISDATED = -0.5  # dated before the maker announced what it reports (rank/chronology.py): not that day's news


TITLE_ONLY = ("title", "failed")  # material levels that give a reader nothing past the headline


def text_facts(reports: list[tuple[str, str]], without: frozenset[str] = frozenset()) -> dict:
    """The kinds of an event from its original reports [(headline, material)], lead first.

    without: parts of importance to leave out (benchmarks/rank_ablation.py measures what each
    adds); a kind left out also stops deciding the tab (a routine kind, off-topic)."""
    if not reports:
        return {"kinds": Kinds()}
    kinds = event_kinds(reports[0], reports[1:])
    # A headline that states a sum raised, paid or earned, or an acquisition, tells the news whole.
    told_whole = any(
        (MONEY.search(headline) and AMOUNT.search(headline)) or DEAL.search(headline) for headline, _ in reports
    )
    if "kind" in without:
        kinds = replace(kinds, **dict.fromkeys(NEWS_KINDS, False))
    if "routine" in without:
        kinds = replace(kinds, routine="")
    if "off_topic" in without:
        kinds = replace(kinds, on_topic=True)
    return {"kinds": kinds, "told_whole": bool(told_whole)}


def importance_parts(facts: dict) -> dict:
    """Each part of an event's importance, rounded, plus their sum as `importance`. Facts:
    independent_outlets, outlets, best_authority, engagement, feedback, kinds (happenings.Kinds),
    first_party, undated, title_only, misdated, and `without` (parts to leave out, see text_facts).
    A part that is zero is left out of the stored parts, except the first five."""
    kinds = facts.get("kinds") or Kinds()
    parts = {
        # One origin repackaged by five desks is one confirmation: independent outlets carry the weight.
        "coverage": round(math.log2(1 + facts["independent_outlets"]), 3),
        "echo": round(0.2 * math.log2(1 + max(0, facts["outlets"] - facts["independent_outlets"])), 3),
        "authority": round(min(2.0, facts["best_authority"]), 3),
        "engagement": round(0.5 * math.log10(1 + facts["engagement"]), 3),
        "feedback": round(max(-4.0, min(4.0, facts["feedback"])) * 0.5, 3),
        "kind": round(sum(w for k, w in KIND_WEIGHT.items() if getattr(kinds, k)), 3),
        "routine": ROUTINE_WEIGHT.get(kinds.routine, 0.0),
        "first_party": FIRST_PARTY if facts.get("first_party") else 0.0,
        "off_topic": 0.0 if kinds.on_topic else OFF_TOPIC,
        "undated": UNDATED if facts.get("undated") else 0.0,
        "unread": UNREAD if unread(facts) else 0.0,
        "misdated": MISDATED if facts.get("misdated") else 0.0,
    }
    parts = {k: v for k, v in parts.items() if (v or k in ALWAYS_SHOWN) and k not in facts.get("without", ())}
    parts["importance"] = round(sum(parts.values()), 3)
    return parts


ALWAYS_SHOWN = ("coverage", "echo", "authority", "engagement", "feedback")


def unread(facts: dict) -> bool:
    """Every report is a headline alone and no second outlet confirms it: the card can say nothing
    past its title (Anthropic's statements, whose feed gives no summary), so it never leads a day
    as its featured news on its own; it can still be p1. A headline that states a sum raised,
    paid or earned ("Anthropic raises $30 billion … at $380 billion post-money valuation") or an
    acquisition ("Anthropic acquires Vercept to advance Claude's computer use capabilities") is
    the news read whole, and is not unread."""
    return bool(facts.get("title_only")) and facts["independent_outlets"] < 2 and not facts.get("told_whole")


def score_event(
    facts: dict, now: datetime, ranker: Ranker | None = None, adjustment: Adjustment | None = None
) -> tuple[float, dict, str]:
    """(score, parts, tab) for one event's facts: those of importance_parts, and last_published_at.
    ranker: the learned model (rank/learned.py) over the same parts, instead of their hand-weighted sum.
    adjustment: the installation's own, learned from its readers' votes (rank/adjust.py), added on top."""
    parts = importance_parts(facts)
    p1_at = P1
    kinds = facts.get("kinds") or Kinds()
    if kinds.names():  # what the rules read, in words, beside the numbers
        parts["kinds"] = ", ".join(kinds.names())
    hand = dict(parts)
    if ranker is not None:
        parts = learned_parts(ranker, hand)
        p1_at = math.inf  # the model's p1 is its day's (lead_tabs)
        if "kinds" in hand:
            parts["kinds"] = hand["kinds"]
    if adjustment is not None:
        yours = adjustment.contributions(hand)
        parts.update(yours)
        parts["importance"] = round(parts["importance"] + sum(yours.values()), 3)
    importance = parts["importance"]
    if unread(facts):
        parts["material"] = "title only, one outlet: not featured on its own"
    if facts.get("misdated"):
        parts["dated"] = facts["misdated"]
    age_h = max(0.0, (now - facts["last_published_at"]).total_seconds() / 3600)
    parts["recency"] = round(0.5 ** (age_h / HALF_LIFE_HOURS), 4)
    score = round(importance * parts["recency"], 4)
    starred = facts.get("starred", False)
    if starred:
        tab = "featured"
    elif not kinds.on_topic or facts.get("undated") or facts.get("misdated") or kinds.routine:
        tab = "all"  # off-topic, undated, misdated or routine: never the day's news on its own
    elif importance >= p1_at and facts["feedback"] >= 0:
        tab = "p1"
    else:
        tab = "all"
    return score, parts, tab


def lead_tabs(ranked: list[dict], ranker: Ranker, p1_by_probability: bool = False) -> None:
    """One day's featured tab, as a model's lead-story probability reads it (rank/learned.py): the
    news events whose probability passes its threshold, at most five (FEATURED_PER_DAY), and the day's
    best news event when none does; a reader's star always features. Under the learned ranking
    (p1_by_probability) p1 is news at half the threshold; under the hand ranking p1 stays
    score_event's. `ranked`: the day's events as {importance, tab, eligible, starred, parts, and
    happening (default true)}, changed in place; each event's parts get its probability.

    A day that has a happening (a kind of news, rank/happenings.py) or an event two independent
    outlets confirm features among those: a lone post that tells neither (a lab's research note,
    one outlet, authority and first party alone) leads only a day without them."""
    best = max(e["importance"] for e in ranked)
    told = any(e["eligible"] and e.get("happening", True) for e in ranked)
    eligible = [e["eligible"] and (e.get("happening", True) or not told) for e in ranked]
    chosen = ranker.featured([(e["importance"], ok) for e, ok in zip(ranked, eligible, strict=True)])
    for e, featured in zip(ranked, chosen, strict=True):
        probability = ranker.lead_probability(e["importance"], best)
        e["parts"]["lead probability"] = round(probability, 3)
        if e["starred"] or featured:
            e["tab"] = "featured"
        elif p1_by_probability and e["eligible"] and probability >= ranker.threshold / 2:
            e["tab"] = "p1"


def rank_events(
    engine: Engine, settings=None, *, now: datetime | None = None, without: frozenset[str] = frozenset()
) -> int:
    """Score every event; writes only rows whose score, parts or tab changed. Returns events ranked.
    without: parts of importance to leave out, for measuring what each adds (text_facts)."""
    now = now or datetime.now(UTC)
    # The learned model (settings.ranking = "learned") weighs the same parts and sets its own p1;
    # under either ranking the featured tab is a learned lead-story probability (lead_tabs).
    ranker = shipped() if settings is not None and settings.ranking == "learned" else None
    adjustment = current(settings.data_dir, settings.ranking) if settings is not None else None
    tz = ZoneInfo(settings.timezone if settings is not None else "Asia/Shanghai")
    with engine.begin() as conn:
        scored, by_day = [], defaultdict(list)
        members = _member_facts(conn, tz)
        # A feed's back catalogue is listed on no day (store/days.py): it takes no day's featured place.
        archive = back_catalogue(conn)
        for ev, facts, day in event_facts(conn, settings, without, members):
            entry = _scored(ev, facts, now, ranker, adjustment)
            scored.append(entry)
            if ev.id not in archive:
                by_day[day].append(entry)
        for day_events in by_day.values():
            lead_tabs(day_events, ranker or shipped_lead(), p1_by_probability=ranker is not None)
        grown = growth_days(conn, tz)
        for e in scored:
            if e["row"].id in grown:
                e["parts"][UPDATES] = {
                    later.isoformat(): members.update_importance(new, without)
                    for later, new in grown[e["row"].id].items()
                }
        _store_changed(conn, scored)
    return len(scored)


def event_facts(conn, settings=None, without: frozenset[str] = frozenset(), members=None) -> list[tuple]:
    """(event row, its facts, its day) for every event: its day is that of its first report (store/days.py)."""
    tz = ZoneInfo(settings.timezone if settings is not None else "Asia/Shanghai")
    members = members if members is not None else _member_facts(conn, tz)
    votes, starred = _feedback_facts(conn)
    return [
        (ev, members.facts(ev, votes, starred, without), ev.first_published_at.astimezone(tz).date())
        for ev in conn.execute(select(*_EVENT_COLUMNS)).all()
    ]


_EVENT_COLUMNS = (
    events.c.id,
    events.c.outlets,
    events.c.independent_outlets,
    events.c.first_published_at,
    events.c.last_published_at,
    events.c.importance,
    events.c.score,
    events.c.score_parts,
    events.c.tab,
)


@dataclass
class _Members:
    """What an event's members say of it, per event id."""

    authority: dict[int, float] = field(default_factory=lambda: defaultdict(float))
    engagement: dict[int, float] = field(default_factory=lambda: defaultdict(float))
    reports: dict[int, list] = field(default_factory=lambda: defaultdict(list))  # the original reports, lead first
    first_party: set[int] = field(default_factory=set)
    undated: dict[int, bool] = field(default_factory=dict)
    title_only: dict[int, bool] = field(default_factory=dict)
    misdated: dict[int, str] = field(default_factory=dict)  # event id -> why its date is doubtful
    reported: dict[int, SimpleNamespace] = field(default_factory=dict)  # item id -> what it says, as one report

    def facts(self, ev, votes: dict[int, float], starred: set[int], without: frozenset[str]) -> dict:
        """The facts score_event reads of one event (a row of _EVENT_COLUMNS)."""
        return {
            "independent_outlets": ev.independent_outlets,
            "outlets": ev.outlets,
            "best_authority": self.authority.get(ev.id, 0.0),
            "engagement": self.engagement.get(ev.id, 0.0),
            "feedback": votes.get(ev.id, 0.0),
            "starred": ev.id in starred,
            **text_facts(self.reports.get(ev.id, []), without),
            "without": without,
            "first_party": ev.id in self.first_party,
            "undated": self.undated.get(ev.id, False),
            "title_only": self.title_only.get(ev.id, False),
            "misdated": self.misdated.get(ev.id, ""),
            "last_published_at": ev.last_published_at,
        }

    def update_importance(self, item_ids: list[int], without: frozenset[str]) -> float:
        """The importance of a later day's new reports (store/days.py growth_days: outlets new to the
        event) as if they were an event of their own: a lone changelog line or a how-to that joined
        yesterday's launch is routine news, whatever the launch was worth. No votes: a reader votes
        on the event, which its own importance holds."""
        new = [self.reported[i] for i in item_ids if i in self.reported]
        outlets = len({r.source_id for r in new})
        facts = {
            "independent_outlets": len({r.voice for r in new}),
            "outlets": outlets,
            "best_authority": max((r.authority for r in new), default=0.0),
            "engagement": sum(r.engagement for r in new),
            "feedback": 0.0,
            **text_facts([r.report for r in new], without),
            "without": without,
            "first_party": any(r.first_party for r in new),
            "undated": all(r.undated for r in new),
            "title_only": all(r.title_only for r in new),
        }
        return importance_parts(facts)["importance"]


def _member_facts(conn, tz: ZoneInfo) -> _Members:
    m = _Members()
    dated: list[Dated] = []
    rows = conn.execute(
        select(
            event_members.c.event_id,
            event_members.c.role,
            items.c.id,
            items.c.source_id,
            sources.c.tier,
            sources.c.weight,
            sources.c.category,
            sources.c.name,
            sources.c.owner,
            items.c.engagement,
            items.c.title,
            items.c.summary,
            items.c.body,
            items.c.extra,
            items.c.dated_by,
            items.c.material_level,
            items.c.published_at,
        )
        .join(items, items.c.id == event_members.c.item_id)
        .join(sources, sources.c.id == items.c.source_id)
        .order_by(event_members.c.event_id, event_members.c.role != "lead", items.c.published_at, items.c.id)
    )
    for r in rows:
        # tier 1 with weight 1.0 = 1.0; tier 2 = 0.5; a weight of 2 doubles it.
        authority = (r.weight or 1.0) / max(1, r.tier or 2)
        engagement = _engagement(r.engagement or {})
        m.authority[r.event_id] = max(m.authority[r.event_id], authority)
        m.engagement[r.event_id] += engagement
        undated = r.dated_by == "first_seen"
        if r.role in ("lead", "member"):
            report = (r.title or "", material_of(r.summary, r.body, r.extra))
            first_party = r.category in FIRST_PARTY_CATEGORIES or bool(first_party_name(r.name or ""))
            title_only = r.material_level in TITLE_ONLY
            m.reports[r.event_id].append(report)
            if first_party:
                m.first_party.add(r.event_id)
            m.title_only[r.event_id] = m.title_only.get(r.event_id, True) and title_only
            voice = r.owner or r.source_id  # one company's channels are one voice (cluster/independence.py)
            if not undated:
                speaks_for = companies_named(r.owner or (r.name if first_party else ""))
                day = r.published_at.replace(tzinfo=r.published_at.tzinfo or UTC).astimezone(tz).date()
                dated.append(Dated(r.event_id, day, r.title or "", voice, frozenset(speaks_for), r.name or voice))
            m.reported[r.id] = SimpleNamespace(
                source_id=r.source_id,
                voice=voice,
                authority=authority,
                engagement=engagement,
                report=report,
                first_party=first_party,
                undated=undated,
                title_only=title_only,
            )
        m.undated[r.event_id] = m.undated.get(r.event_id, True) and undated
    m.misdated = misdated(dated)
    return m


def _feedback_facts(conn) -> tuple[dict[int, float], set[int]]:
    """Each event's feedback (the votes' weights summed) and the events starred."""
    votes: dict[int, float] = defaultdict(float)
    starred: set[int] = set()
    for r in conn.execute(select(feedback.c.event_id, feedback.c.kind)):
        votes[r.event_id] += FEEDBACK_WEIGHT.get(r.kind, 0.0)
        if r.kind == "star":
            starred.add(r.event_id)
    return votes, starred


def _scored(ev, facts: dict, now: datetime, ranker: Ranker | None, adjustment: Adjustment | None) -> dict:
    """One event's score, parts and tab, and whether it may be its day's featured event (lead_tabs)."""
    score, parts, tab = score_event(facts, now, ranker, adjustment)
    kinds = facts["kinds"]
    return {
        "row": ev,
        "score": score,
        "parts": parts,
        "tab": tab,
        "importance": parts["importance"],
        "starred": facts["starred"],
        "happening": any(getattr(kinds, k) for k in NEWS_KINDS) or facts["independent_outlets"] >= 2,
        "eligible": kinds.on_topic
        and not kinds.routine
        and not facts["undated"]
        and not facts.get("misdated")
        and not unread(facts)
        and facts["feedback"] >= 0,
    }


def _store_changed(conn, scored: list[dict]) -> None:
    for e in scored:
        ev = e["row"]
        if (e["score"], e["parts"], e["tab"]) != (ev.score, ev.score_parts, ev.tab):
            conn.execute(
                update(events)
                .where(events.c.id == ev.id)
                .values(importance=e["importance"], score=e["score"], score_parts=e["parts"], tab=e["tab"])
            )
