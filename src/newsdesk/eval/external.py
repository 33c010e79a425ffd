"""`newsdesk eval external`: the published day pages against two outside editors who never saw newsdesk.

The editors (eval/external/, issue 29): Juya AI Daily (zh; every item ranked `#N`, the day's top
stories marked 要闻) and smol.ai AINews (en; the issue's title names the day's lead event, its
items come in topic groups). Their items of a day range are replayed as newsdesk would meet
them, both editors together, through the real stages on a fresh temporary store (ingest →
cluster → stories → rank → write → daily, extractive: eval/editorial.py's replay), and each
day's published page (first language, cards under 其他 / Other left out as in `eval editorial`)
is read against each editor.

An editor's item becomes one JSON Lines item: its title, its summary (Juya) or text (AINews),
the day of its news as `pub_date` (AINews: the issue's date; Juya, a morning digest of the
day before: the issue's date less one day, as the cross-language pairs say: 93 of 118 pairs
have the Juya item one day after the AINews item, none before), an address of its own (the issue's page and the item's place,
so two editors citing one page stay two reports for the clusterer to join), and as outlet the
outlet of the first address it cites (an x.com post: its account; a Reddit post: its
subreddit; else the host without `www.`), or the editor's name when it cites none.

Units the measures count. Juya: each item (the editor ranks items). AINews: each topic group of
a day (its bullets are one story told by several posts), except "Top tweets" groups, whose
bullets are separate stories (each its own unit). A card holds a unit when one of its members
is one of the unit's items.

Relevance (NDCG gain 2^rel − 1). Juya: 要闻 (or 精选 on the first days) 3, the rest of the day's
first half by rank 2, the others 1. AINews: the lead's group 3, the next two Twitter groups as
listed 2, every other unit 1. A card gains the best unit of that editor's day it is the first to
hold; the ideal orders the day's units by gain.

AINews's lead group: the issue's title (its `lead`) against each group's heading and the titles
of its bullets, in words (lower case, 3+ letters or holding a digit, without common words): the
group sharing most words, at least two, or one that holds a digit (a version, an amount); a tie
goes to the group listed first. A lead no group shares enough words with is left unfound (the
day counts for no lead measure).

Measures, per editor: top story first (Juya: the day's #1 item is on the day's first card),
leads in the top 5 (Juya: 要闻 items; AINews: the lead), NDCG@10 (weekdays, and all days;
a random order of the same cards beside it), the lead in the top 3 (AINews), featured
precision (featured cards holding a top story of that day, on days the editor marks one), glue@10
(top-ten cards holding two units of one editor's day), and the cross-language pairs
(pairs_juya_ainews) whose two items both were replayed: joined (one event) or split.

Held out: no day of 2026-04-06 … 2026-05-03 is replayed or read; asking for one is refused.
"""

from __future__ import annotations

import gzip
import json
import math
import re
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from urllib.parse import urlsplit

from newsdesk.core.config import Settings
from newsdesk.core.errors import EvalFileError
from newsdesk.eval.editorial import TOP, Replay, card_events, dcg, expected_dcg, harvest_id, replay
from newsdesk.text import lexicon

HELD_OUT = (date(2026, 4, 6), date(2026, 5, 3))
JUYA, AINEWS = "juya", "ainews"
EDITOR_NAMES = {JUYA: "Juya AI Daily", AINEWS: "smol.ai AINews"}
TOP_TWEETS = re.compile(r"^top tweets", re.I)


def held_out(day: date) -> bool:
    return HELD_OUT[0] <= day <= HELD_OUT[1]


def parse_days(spec: str) -> list[date]:
    """'2026-03-02..2026-03-06,2026-05-11' → those days; any day of the held-out window is refused."""
    out: set[date] = set()
    for part in (p.strip() for p in spec.split(",")):
        if not part:
            continue
        try:
            if ".." in part:
                a, b = (date.fromisoformat(x.strip()) for x in part.split("..", 1))
            else:
                a = b = date.fromisoformat(part)
        except ValueError:
            raise EvalFileError(
                f"--days {part!r}: not YYYY-MM-DD or YYYY-MM-DD..YYYY-MM-DD; give days as such"
            ) from None
        if b < a:
            raise EvalFileError(f"--days {part!r}: the range ends before it starts; give FIRST..LAST")
        if a <= HELD_OUT[1] and b >= HELD_OUT[0]:
            raise EvalFileError(
                f"--days {part!r} reaches into 2026-04-06…2026-05-03, held out for measuring newsdesk; "
                "pick days outside it"
            )
        out.update(a + timedelta(n) for n in range((b - a).days + 1))
    return sorted(out)


def _read_gz(path: Path) -> list[dict]:
    try:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            return [json.loads(line) for line in fh if line.strip()]
    except OSError as exc:
        raise EvalFileError(f"{path}: cannot read ({exc}); give the eval/external/data folder") from None
    except json.JSONDecodeError as exc:
        raise EvalFileError(f"{path}: not JSON Lines ({exc.msg}); rebuild it by eval/external/README.md") from None


@dataclass
class Unit:
    """One thing an editor counts once: a Juya item, an AINews topic group (or a top-tweets bullet)."""

    editor: str
    day: date
    key: str
    rel: int
    title: str
    top: bool = False  # Juya 要闻 / AINews lead group
    first: bool = False  # Juya's #1 item of its issue


@dataclass
class EditorDays:
    lines: list[dict] = field(default_factory=list)  # JSON Lines import rows
    item_unit: dict[str, str] = field(default_factory=dict)  # harvest_id(link) -> unit key
    units: dict[str, Unit] = field(default_factory=dict)
    juya_item: dict[tuple[str, int], str] = field(default_factory=dict)  # (date, rank) -> item id
    ainews_item: dict[tuple[str, int], str] = field(default_factory=dict)  # (date, index) -> item id
    lead_found: dict[date, bool] = field(default_factory=dict)  # AINews days naming a lead: found?


def outlet(links: list[str], editor: str) -> str:
    """The outlet of an item's first cited address (see the module docstring)."""
    for link in links:
        try:
            parts = urlsplit(link)
        except ValueError:
            continue
        host = (parts.hostname or "").lower().removeprefix("www.")
        if not host:
            continue
        path = [p for p in parts.path.split("/") if p]
        if host in ("x.com", "twitter.com") and path:
            return path[0]
        if host.endswith("reddit.com") and len(path) >= 2 and path[0] == "r":
            return f"r/{path[1]}"
        return host
    return EDITOR_NAMES[editor]


_STOP = lexicon.words("stop-lead-match")


def words(text: str) -> set[str]:
    found = re.findall(r"[a-z0-9][a-z0-9.\-]*[a-z0-9]|[a-z0-9]", (text or "").lower())
    return {w for w in found if w not in _STOP and (len(w) >= 3 or any(c.isdigit() for c in w))}


def lead_group(lead: str, groups: list[tuple[str, str]]) -> str | None:
    """The group the lead title tells (module docstring). groups: [(group, its heading and bullet titles)]."""
    want = words(lead)
    best, best_n = None, 0
    for group, text in groups:
        shared = want & words(text)
        n = len(shared)
        if (n >= 2 or any(any(c.isdigit() for c in w) for w in shared)) and n > best_n:
            best, best_n = group, n
    return best


def _plain(text: str) -> str:
    return re.sub(r"[*`]", "", text or "")


def editor_days(data: Path, days: list[date]) -> EditorDays:
    """Both editors' items of `days` as import rows, with their units. Never a held-out day."""
    wanted = {d for d in days if not held_out(d)}
    out = EditorDays()
    juya = [r for r in _read_gz(data / "juya.jsonl.gz") if date.fromisoformat(r["date"]) in wanted]
    by_day: dict[str, list[dict]] = defaultdict(list)
    for r in juya:
        by_day[r["date"]].append(r)
    for iso, rows in by_day.items():
        half = math.ceil(len(rows) / 2)
        news_day = date.fromisoformat(iso) - timedelta(days=1)  # a morning digest of yesterday's news
        for r in rows:
            link = f"https://github.com/imjuya/juya-ai-daily/blob/master/BACKUP/{iso}.md?item={r['rank']}"
            rel = 3 if r.get("is_top") else 2 if r["rank"] <= half else 1
            key = f"juya:{iso}:{r['rank']}"
            out.units[key] = Unit(JUYA, news_day, key, rel, r["title"], bool(r.get("is_top")), r["rank"] == 1)
            item_id = harvest_id(link)
            out.item_unit[item_id] = key
            out.juya_item[(iso, r["rank"])] = item_id
            out.lines.append(
                {
                    "title": r["title"],
                    "link": link,
                    "source": outlet(r.get("links") or [], JUYA),
                    "pub_date": news_day.isoformat(),
                    "summary": _plain(r.get("summary") or ""),
                }
            )
    for issue in _read_gz(data / "ainews.jsonl.gz"):
        day = date.fromisoformat(issue["date"])
        if day not in wanted:
            continue
        iso = issue["date"]
        items = issue.get("items") or []
        texts: dict[str, list[str]] = defaultdict(list)
        for it in items:
            if not TOP_TWEETS.match(it.get("group") or ""):
                texts[it["group"]].append(it.get("title") or "")
        order = list(texts)
        lead = (
            lead_group(issue["lead"], [(g, g + " " + " ".join(t)) for g, t in texts.items()])
            if issue.get("lead")
            else None
        )
        if issue.get("lead"):
            out.lead_found[day] = lead is not None
        twitter = [g for g in order if any(it["group"] == g and it["source"] == "twitter" for it in items)]
        second = [g for g in twitter if g != lead][:2]
        for n, it in enumerate(items):
            group = it.get("group") or ""
            if TOP_TWEETS.match(group):
                key, rel = f"ainews:{iso}:#{n}", 1
            else:
                key = f"ainews:{iso}:{group}"
                rel = 3 if group == lead else 2 if group in second else 1
            if key not in out.units:
                out.units[key] = Unit(AINEWS, day, key, rel, group or it.get("title") or "", group == lead)
            link = f"https://news.smol.ai/issues/{iso}?item={n}"
            item_id = harvest_id(link)
            out.item_unit[item_id] = key
            out.ainews_item[(iso, n)] = item_id
            out.lines.append(
                {
                    "title": it.get("title") or group,
                    "link": link,
                    "source": outlet(it.get("links") or [], AINEWS),
                    "pub_date": iso,
                    "summary": _plain(it.get("text") or ""),
                }
            )
    return out


# --- measures ----------------------------------------------------------------------------


@dataclass
class DayScore:
    editor: str
    day: date
    cards: int = 0
    has_top: bool = False
    has_first: bool = False  # Juya: the day has its #1 item
    top_first: bool = False  # Juya: the #1 item on the first card
    tops: int = 0
    tops_in_5: int = 0
    lead_in_3: bool | None = None  # AINews: None on a day without a found lead
    ndcg: float | None = None
    random_ndcg: float | None = None
    top10: int = 0
    glue: int = 0
    featured: int = 0
    featured_right: int = 0


def score_day(editor: str, day: date, cards: list[dict], units: dict[str, Unit], item_unit: dict[str, str]) -> DayScore:
    """One editor's measures of one day's page (cards in page order, Other folded away)."""
    cards = [c for c in cards if not c.get("other")]
    mine = {k: u for k, u in units.items() if u.editor == editor and u.day == day}
    s = DayScore(editor, day, cards=len(cards))
    if not mine:
        return s
    tops = {k for k, u in mine.items() if u.top}
    s.has_top, s.tops = bool(tops), len(tops)
    first = next((k for k, u in mine.items() if u.first), None)
    credited: set[str] = set()
    gains: list[float] = []
    place: dict = {}
    for n, card in enumerate(cards):
        held = [k for k in dict.fromkeys(card_events(card, item_unit)) if k in mine]
        for k in held:
            place.setdefault(k, n)
        if n < TOP:
            s.top10 += 1
            s.glue += len(held) > 1
        fresh = [k for k in held if k not in credited]
        gains.append(max((2.0 ** mine[k].rel - 1 for k in fresh), default=0.0))
        credited.update(held)
        if card.get("tab") == "featured" and tops:
            s.featured += 1
            s.featured_right += bool(set(held) & tops)
    if first is not None:
        s.has_first = True
        s.top_first = place.get(first) == 0
    s.tops_in_5 = sum(place.get(k, TOP) < 5 for k in tops)
    if editor == AINEWS and tops:
        s.lead_in_3 = any(place.get(k, TOP) < 3 for k in tops)
    ideal_gains = sorted((2.0**u.rel - 1 for u in mine.values()), reverse=True)
    ideal = dcg(ideal_gains)
    if ideal > 0 and len(set(ideal_gains)) > 1:
        s.ndcg = dcg(gains) / ideal
        s.random_ndcg = expected_dcg([gains]) / ideal  # the same cards in a random order
    return s


@dataclass
class EditorScore:
    editor: str
    days: list[DayScore]
    pairs: int = 0
    pairs_joined: int = 0

    def _mean(self, values: list) -> float | None:
        values = [float(v) for v in values if v is not None]
        return sum(values) / len(values) if values else None

    def _share(self, num: int, den: int) -> float | None:
        return num / den if den else None

    def summary(self) -> dict[str, float | int | None]:
        days = [d for d in self.days if d.cards]
        weekdays = [d for d in days if d.day.weekday() < 5]
        return {
            "days": len(days),
            "top story first": self._mean([d.top_first for d in days if d.has_first]) if self.editor == JUYA else None,
            "leads in top 5": self._share(sum(d.tops_in_5 for d in days), sum(d.tops for d in days)),
            "lead in top 3": self._mean([d.lead_in_3 for d in days]),
            "ndcg@10 weekdays": self._mean([d.ndcg for d in weekdays]),
            "ndcg@10 all days": self._mean([d.ndcg for d in days]),
            "random ndcg@10": self._mean([d.random_ndcg for d in days]),
            "featured": sum(d.featured for d in days),
            "featured precision": self._share(sum(d.featured_right for d in days), sum(d.featured for d in days)),
            "glue@10": self._share(sum(d.glue for d in days), sum(d.top10 for d in days)),
            "pairs joined": self._share(self.pairs_joined, self.pairs),
            "pairs split": self._share(self.pairs - self.pairs_joined, self.pairs),
        }


def pair_counts(data: Path, ed: EditorDays, run: Replay) -> tuple[int, int]:
    """(pairs whose two items were both replayed, of those joined in one event)."""
    event_of: dict[str, int] = {}
    for event_id, ids in run.members.items():  # the replay labels each item by its own id
        for item_id in ids:
            event_of[item_id] = event_id
    seen = joined = 0
    for p in _read_gz(data / "pairs_juya_ainews.jsonl.gz"):
        a = ed.juya_item.get((p["juya_date"], p["juya_rank"]))
        b = ed.ainews_item.get((p["ainews_date"], p["ainews_item"]))
        if a is None or b is None or a not in event_of or b not in event_of:
            continue
        seen += 1
        joined += event_of[a] == event_of[b]
    return seen, joined


def default_days(data: Path) -> list[date]:
    """Every allowed day Juya has (the pairs and the ranks are Juya's), AINews's of those days with it."""
    return sorted({date.fromisoformat(r["date"]) for r in _read_gz(data / "juya.jsonl.gz")} - set(_held()))


def _held() -> list[date]:
    return [HELD_OUT[0] + timedelta(n) for n in range((HELD_OUT[1] - HELD_OUT[0]).days + 1)]


def evaluate(data: Path, settings: Settings, days: list[date]) -> tuple[list[EditorScore], Replay, EditorDays]:
    """Replay both editors' `days` and measure each editor's days."""
    bad = [d for d in days if held_out(d)]
    if bad:
        raise EvalFileError(
            f"{bad[0]} is in 2026-04-06…2026-05-03, held out for measuring newsdesk; pick days outside it"
        )
    ed = editor_days(data, days)
    if not ed.lines:
        raise EvalFileError(f"no editor's item on {days[0]}…{days[-1]}; pick days of eval/external/README.md")
    run = replay(ed.lines, settings, [], {i: i for i in ed.item_unit})
    first = settings.languages[0] if settings.languages else "zh"
    page = run.pages.get(first, {})
    scores = []
    for editor in (JUYA, AINEWS):
        editor_days_ = sorted({u.day for u in ed.units.values() if u.editor == editor})
        scores.append(
            EditorScore(editor, [score_day(editor, d, page.get(d, []), ed.units, ed.item_unit) for d in editor_days_])
        )
    seen, joined = pair_counts(data, ed, run)
    for s in scores:
        s.pairs, s.pairs_joined = seen, joined
    return scores, run, ed


def _fmt(value) -> str:
    if value is None:
        return "  n/a"
    return f"{value:5.3f}" if isinstance(value, float) else f"{value:5d}"


def report_lines(scores: list[EditorScore]) -> list[str]:
    out = []
    for s in scores:
        m = s.summary()
        out.append(f"{EDITOR_NAMES[s.editor]} ({m['days']} days)")
        out.append(
            f"  top story first {_fmt(m['top story first'])}  leads in top 5 {_fmt(m['leads in top 5'])}  "
            f"lead in top 3 {_fmt(m['lead in top 3'])}"
        )
        out.append(
            f"  ndcg@10 weekdays {_fmt(m['ndcg@10 weekdays'])}  all days {_fmt(m['ndcg@10 all days'])}  "
            f"(random order of the same cards {_fmt(m['random ndcg@10'])})"
        )
        out.append(
            f"  featured {m['featured']} (precision {_fmt(m['featured precision'])})  glue@10 {_fmt(m['glue@10'])}"
        )
    if scores:
        m = scores[0].summary()
        out.append(
            f"cross-language pairs (Juya–AINews, both replayed: {scores[0].pairs}): joined {_fmt(m['pairs joined'])}  "
            f"split {_fmt(m['pairs split'])}"
        )
    return out
