"""A report dated before its maker announced what it reports: the feed's date is wrong, not news of that day.

"Opus 4.6 is now available in Windsurf" cannot come before Anthropic introduced Claude Opus 4.6,
yet a changelog feed dated the entry two days earlier (it dates entries by their version's branch,
and the same entry names GPT-5.3-Codex-Spark, released nine days after that date). The event then
led a day on which the model did not exist. Stored dates stay as the feed gave them; the ranking
reads the event as misdated: it keeps its day but never leads it (rank/score.py).

An event is misdated when a headline of it says a versioned product is out (a release word, no
rumour word), the product's maker (companies.toml `family`) said so in a headline of its own
channel only MIN_GAP days or more after the event's first report, and no outlet beyond the
event's own had named the product before the maker did. That last clause keeps an older product's
news: a store that opens after Opus 4.5 came out holds many outlets' reports of it before
Anthropic's next headline naming it. A rumour or leak names the product early by right and is
never misdated (text/headlines.py `is_rumour`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

from newsdesk.cluster.anchors import model_anchors, model_family
from newsdesk.rank.happenings import RELEASE
from newsdesk.text import lexicon
from newsdesk.text.headlines import is_rumour

MIN_GAP = 2  # local days: a day's difference is time zones and embargoes, not a wrong date

# A product family's maker, by companies.toml's key: "opus" -> anthropic.
MAKER = {word: c["key"] for c in lexicon.table("companies")["company"] for word in c.get("family", ())}


@dataclass(frozen=True)
class Dated:
    """One report as the check reads it: its event, its local day, its headline, whose voice it
    is (the source's owner, or the source) and the companies its source speaks for."""

    event_id: int
    day: date
    headline: str
    voice: str
    speaks_for: frozenset[str]
    outlet: str


def _launched(headline: str, named: set[str]) -> set[str]:
    """The versioned products (of those the headline names) it says are out: none for a rumour or a leak."""
    if not named or not RELEASE.search(headline) or is_rumour(headline):
        return set()
    return {m for m in named if model_family(m) in MAKER}


def misdated(reports: Iterable[Dated]) -> dict[int, str]:
    """{event id: why its date is doubtful} for the events dated before their product's maker spoke."""
    reports = list(reports)
    names = [model_anchors(r.headline) for r in reports]
    said = [(r, _launched(r.headline, named)) for r, named in zip(reports, names, strict=True)]
    maker_said: dict[str, Dated] = {}  # product -> the maker's first headline saying it is out
    for r, products in said:
        for m in products:
            first = maker_said.get(m)
            if MAKER[model_family(m)] in r.speaks_for and (first is None or r.day < first.day):
                maker_said[m] = r
    named_before: dict[str, set[str]] = defaultdict(set)  # product -> voices naming it before its maker
    for r, named in zip(reports, names, strict=True):
        for m in named & maker_said.keys():
            if r.day < maker_said[m].day:
                named_before[m].add(r.voice)
    first_day: dict[int, date] = {}
    voices: dict[int, set[str]] = defaultdict(set)
    for r in reports:
        first_day[r.event_id] = min(first_day.get(r.event_id, r.day), r.day)
        voices[r.event_id].add(r.voice)
    out: dict[int, str] = {}
    for r, products in said:
        for m in sorted(products & maker_said.keys()):
            maker = maker_said[m]
            gap = (maker.day - first_day[r.event_id]).days
            if gap >= MIN_GAP and named_before[m] <= voices[r.event_id] and r.event_id not in out:
                out[r.event_id] = (
                    f"dated {first_day[r.event_id]:%Y-%m-%d}, {gap} days before {maker.outlet} announced it "
                    f"(“{maker.headline}”, {maker.day:%Y-%m-%d}): the feed's date is doubtful"
                )
    return out
