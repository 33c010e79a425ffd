"""`newsdesk eval editorial`: the published day pages and weekly of a labelled week, against an editor.

An editorial file (eval/editorial/, the shared editorial guide) gives each event of a labelled
week a tier (3 lead event, 2 front-page line, 1 routine, 0 noise) and, for tiers 2-3, a rank
within its `day` (the date of its earliest item). Its events are those of a cluster label file
(eval/clusters/), whose items say which event each article belongs to.

Cards folded under 其他 / Other (rank/score.py's off-topic events) are not part of the page order.

The week is replayed as a reader would meet it: its items (taken from the harvest they came
from, found by id = `adh-` + SHA-1 of the canonical link) go through the real stages on a fresh
temporary store (ingest → cluster → stories → rank → write → daily, then the weekly of each week,
all extractive), and the published editions are read back: each day's cards in page order, each
card mapped to a labelled event by its member items (the event most of them belong to; a card
whose members belong to two labelled events is glue). Measures, per day and per week:

    placement   tier ≥ 2 events with a card (their majority event) on their first day's page
    ndcg@10     the page order, gain 2^tier − 1 for a card of an event of that day (a second card
                of one event, or a card of another day's event, gains nothing), ideal = the day's
                labelled events by tier; a day whose events all share one tier is left out
    glue@10     top-ten cards whose members belong to two or more labelled events
    split@10    top-ten cards whose event already has a card higher on the page
    noise@10    top-ten cards whose event is tier 0
    featured    cards in the featured tab; precision = those of a tier-3 event of that day;
                days with a tier-2/3 event and no featured card. Beside it, on the guide's days
                without a tier-3 event (where a featured card cannot be right by that measure):
                precision on days with a tier-3 event only, and "top tier" = featured cards of
                the best tier the day has (tier 3, else tier 2 on a day without a lead event);
                and the ceiling: the best precision any page can reach on these labels while
                featuring at least one event on every day with events (exactly the tier-3 events
                on a day that has some, one event on any other day), pooled over the week alike
    about       share of the zh edition's cards whose first sentence describes the article
                ("本文…", "深度解读…", "介绍了…", "this post explores…") instead of the news
    weekly      share of the week's tier-3 events in a theme, anywhere in the weekly (themes or
                briefs), and share of themed events that are tier 0-1

Reference points on the same days: a random order of the day's true events (its expected NDCG@10)
and "most reports first" (events by their number of items, ties in random order, expected).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import re
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from newsdesk.core.config import Settings
from newsdesk.core.errors import EvalFileError
from newsdesk.eval.clusters import EvalItem, read_eval_file
from newsdesk.ingest.normalize import canonical_url

TOP = 10
DAILY_STAGES = ["ingest", "cluster", "stories", "rank", "write", "daily"]


@dataclass(frozen=True)
class Label:
    event: str
    day: date
    tier: int
    rank: int | None
    title: str


def harvest_id(link: str) -> str:
    """The id the labelled sets give an item: `adh-` + SHA-1 of its canonical link."""
    return "adh-" + hashlib.sha1(canonical_url(link).encode("utf-8")).hexdigest()[:10]


def _rows(path: Path) -> list[tuple[int, dict]]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise EvalFileError(f"{path}: cannot read ({exc.strerror}); give an editorial JSON Lines file") from None
    except UnicodeDecodeError as exc:
        raise EvalFileError(f"{path}: not UTF-8 text (bad byte at {exc.start}); save it as UTF-8") from None
    out = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise EvalFileError(f"{path}:{n}: not valid JSON ({exc.msg}); one JSON object per line") from None
        if not isinstance(row, dict):
            raise EvalFileError(f"{path}:{n}: expected a JSON object {{event, day, tier, rank, title, reason}}")
        out.append((n, row))
    return out


def label_problems(path: Path, first_day: dict[str, date]) -> list[str]:
    """Everything wrong with an editorial file, one line each, given each cluster-labelled event's
    first day: unknown events, wrong days, tiers outside 0-3, ranks on tiers 0-1 or missing on
    2-3, ranks of a day not 1..n, an event of a labelled day left without a tier."""
    found = []
    labelled: set[str] = set()
    ranks: dict[str, list[int]] = defaultdict(list)
    for n, row in _rows(path):
        event, day, tier, rank = str(row.get("event") or ""), row.get("day"), row.get("tier"), row.get("rank")
        if not row.get("title") or not row.get("reason"):
            found.append(f"line {n}: title and reason are required")
        if event in labelled:
            found.append(f"line {n}: event {event} labelled twice")
        labelled.add(event)
        if event not in first_day:
            found.append(f"line {n}: event {event} is in no cluster label file")
        elif day != first_day[event].isoformat():
            found.append(f"line {n}: day {day}, but {event}'s earliest item is {first_day[event]}")
        if tier not in (0, 1, 2, 3) or isinstance(tier, bool):
            found.append(f"line {n}: tier {tier!r} is not 0-3")
        elif (tier >= 2) != (isinstance(rank, int) and not isinstance(rank, bool)):
            found.append(f"line {n}: rank {rank!r} for tier {tier} (tiers 2-3 rank, 0-1 do not)")
        elif tier >= 2 and isinstance(rank, int):
            ranks[str(day)].append(rank)
    for day, got in sorted(ranks.items()):
        if sorted(got) != list(range(1, len(got) + 1)):
            found.append(f"{day}: ranks {sorted(got)} are not 1..{len(got)}")
    days = {first_day[e].isoformat() for e in labelled if e in first_day}
    missing = sorted(e for e, d in first_day.items() if d.isoformat() in days and e not in labelled)
    if missing:
        found.append(f"events of the labelled days without a tier: {', '.join(missing)}")
    return found


def first_days(items: list[EvalItem]) -> dict[str, date]:
    """Each event's first day: the UTC date of its earliest item (the sets' `published` are dates)."""
    out: dict[str, date] = {}
    for item in items:
        day = _day(item)
        if item.event not in out or day < out[item.event]:
            out[item.event] = day
    return out


def _day(item: EvalItem) -> date:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(item.ts, UTC).date()


def read_labels(path: Path, cluster_items: list[EvalItem]) -> list[Label]:
    problems = label_problems(path, first_days(cluster_items))
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise EvalFileError(f"{path}: {problems[0]}{more}; fix the labels by the editorial guide")
    return [
        Label(row["event"], date.fromisoformat(row["day"]), row["tier"], row["rank"], str(row["title"]))
        for _, row in _rows(path)
    ]


def cluster_label_items(files: list[Path]) -> list[EvalItem]:
    items: list[EvalItem] = []
    for f in files:
        items += read_eval_file(f)
    return items


# --- the article-describing opening ------------------------------------------------------

# A sentence about the piece, not the happening: its subject is the article, or its verb is a
# reader's guide's (introduces, explores, takes stock). Written for this measure alone, apart
# from any rule the writers apply, so a writer cannot pass it by sharing its blind spots.
_ABOUT_ZH = re.compile(
    r"本文|该文|此文|这篇|文章|笔者|本期|本篇|全文|撰写|一文(?:读懂|看懂|说清|带你)"
    # the piece's writer telling, not a writer the news is about ("人类作者的智力创造", "原始作者认为
    # 无权重新许可") nor a word holding the characters ("知识工作者"): "作者认为…", "该作者…", "作者：…"
    r"|^作者|(?:该|本文|文章|原文)作者|(?:^|[，,。；;：:\s])作者(?:认为|指出|提出|介绍|分享|总结|回顾|探讨|主张|表示|称"
    r"|写道|强调|坦言|[：:])"
    r"|深度(?:解读|解析|剖析|分析|探讨|拆解|复盘|盘点|辨析)|全解读|解读了?|详解|详细(?:介绍|解析|讲解|梳理)"
    r"|介绍了?|探讨了?|盘点了?|梳理了?|综述|科普|评测了|实测了|报道了|分析了|剖析了?|揭秘了?|复盘了?"
    r"|分享(?:了|其|自己|他的|她的)|^分享|总结了|回顾了|讲述了|记录了|系统(?:整理|梳理)|汇总了?|提出了.{0,12}(?:框架|观点|思考)"
    r"|涵盖|访谈|对谈|指南|案例分享|的案例|详情|^通过"
    # a sentence with no subject, opening on the guide's verb ("解析 DeepSeek 新论文…", "警示…")
    r"|^(?:深度|详细|系统|全面)?(?:解析|分析|对比|辨析|揭示|揭露|警示|展示|拆解|还原|评测|实测|推演|整理|汇总)"
)
_ABOUT_EN = re.compile(
    r"\b(?:this|the|our|today's) (?:post|article|piece|essay|episode|video|newsletter|issue|write-?up|guide)\b"
    r"|(?<!\bto )\b(?:explores?|discuss(?:es)?|examines?|walks? (?:you )?through|dives? into|takes? a look|looks? at|recaps?"
    r"|rounds? up|we (?:look|explore|discuss|cover))\b",
    re.I,
)
_SENTENCE_END = re.compile(r"(?<=[。！？!?])|(?<=\.)\s")


def first_sentence(text: str) -> str:
    for line in (text or "").splitlines():
        line = line.strip()
        if re.fullmatch(r"([*_]).+\1", line):  # a note set in italics above the text, not its opening
            continue
        line = line.lstrip("#>*-• ").strip()
        if line:
            return _SENTENCE_END.split(line, maxsplit=1)[0].strip()
    return ""


# A title the sentence quotes ("《一文读懂GPT-5.4…》", “…”): another piece's words, not the sentence's own.
_QUOTED_TITLE = re.compile(r"《[^《》]*》|“[^“”]*”")


def describes_article(sentence: str) -> bool:
    """Whether a card's first sentence is about the article ("本文介绍…") rather than the news; a title
    it quotes is not what it says (an update card's "X 也有报道（《一文读懂…》）")."""
    own = _QUOTED_TITLE.sub("“”", sentence)
    return bool(_ABOUT_ZH.search(own) or _ABOUT_EN.search(own))


def card_opening(card: dict) -> str:
    """The first sentence a reader reads under a card's headline: its analysis, else its summary."""
    analysis = card.get("analysis") or {}
    return first_sentence(analysis.get("body") or card.get("summary") or "")


# --- measures ----------------------------------------------------------------------------


def gain(tier: int) -> float:
    return 2.0**tier - 1


def dcg(gains: list[float]) -> float:
    return sum(g / math.log2(k + 2) for k, g in enumerate(gains[:TOP]))


def card_events(card: dict, item_event: dict[str, str]) -> list[str]:
    """The labelled events of a card's members, one per member, lead first."""
    out = []
    for m in card.get("members") or []:
        event = item_event.get(harvest_id(m.get("url") or "")) if m.get("url") else None
        if event is not None:
            out.append(event)
    return out


def majority(events: list[str]) -> str | None:
    """The event most members belong to; on a tie, the lead's (listed first)."""
    if not events:
        return None
    counts = Counter(events)
    top = max(counts.values())
    return next(e for e in events if counts[e] == top)


@dataclass
class DayScore:
    day: date
    cards: int = 0
    placed: int = 0  # tier >= 2 events of the day with a card that day
    placeable: int = 0  # tier >= 2 events of the day
    ndcg: float | None = None  # None: every event of the day has one tier (any order is ideal)
    top: int = 0  # cards among the top ten (<= 10)
    glue: int = 0
    split: int = 0
    noise: int = 0
    featured: int = 0
    featured_right: int = 0
    featured_top: int = 0  # featured cards of the day's best labelled tier (3, else 2)
    has_tier3: bool = False
    tier3: int = 0  # the day's tier-3 events
    events: int = 0  # the day's labelled events
    needs_featured: bool = False  # the day has a tier-2/3 event
    zh_cards: int = 0
    zh_about: int = 0
    random_ndcg: float | None = None
    reports_ndcg: float | None = None
    about_examples: list[str] = field(default_factory=list)


def score_day(
    day: date,
    cards: list[dict],
    zh_cards: list[dict] | None,
    labels: dict[str, Label],
    item_event: dict[str, str],
    reports: dict[str, int],
) -> DayScore:
    """One day's measures from its published cards (page order) and the labels."""
    s = DayScore(day, cards=len(cards))
    # Cards under 其他 / Other (not about AI, rank/score.py) are folded at the page's end: a reader
    # scanning the page never meets them in its order, so they hold no place in it.
    cards = [c for c in cards if not c.get("other")]
    todays = [lab for lab in labels.values() if lab.day == day]
    s.placeable = sum(lab.tier >= 2 for lab in todays)
    s.needs_featured = s.placeable > 0
    s.tier3 = sum(lab.tier == 3 for lab in todays)
    s.events = len(todays)
    s.has_tier3 = s.tier3 > 0
    best = 3 if s.has_tier3 else 2
    seen: set[str] = set()
    gains = []
    for n, card in enumerate(cards):
        events = card_events(card, item_event)
        event = majority(events)
        label = labels.get(event) if event else None
        repeat = event in seen
        if n < TOP:
            s.top += 1
            s.glue += len(set(events)) > 1
            s.split += repeat
            s.noise += label is not None and label.tier == 0
        today = label if label is not None and label.day == day else None  # an event of this day
        gains.append(gain(today.tier) if today and not repeat else 0.0)
        if today and not repeat and today.tier >= 2:
            s.placed += 1
        if card.get("tab") == "featured":
            s.featured += 1
            s.featured_right += bool(today and today.tier == 3)
            s.featured_top += bool(today and today.tier >= best)
        if event:
            seen.add(event)
    ideal_gains = sorted((gain(lab.tier) for lab in todays), reverse=True)
    ideal = dcg(ideal_gains)
    # A day whose events share one tier scores 1.0 in any order: it measures nothing, so it is
    # left out of the week's mean (shown as n/a) rather than lifting it.
    if ideal > 0 and len(set(ideal_gains)) > 1:
        s.ndcg = dcg(gains) / ideal
        s.random_ndcg = expected_dcg([[gain(lab.tier) for lab in todays]]) / ideal
        by_reports: dict[int, list[float]] = defaultdict(list)
        for lab in todays:
            by_reports[reports.get(lab.event, 0)].append(gain(lab.tier))
        s.reports_ndcg = expected_dcg([by_reports[k] for k in sorted(by_reports, reverse=True)]) / ideal
    for card in zh_cards or []:
        s.zh_cards += 1
        opening = card_opening(card)
        if describes_article(opening):
            s.zh_about += 1
            s.about_examples.append(opening)
    return s


def expected_dcg(groups: list[list[float]]) -> float:
    """Expected DCG@10 of an order that puts the groups one after another, each in random order:
    every position a group fills has, in expectation, the group's mean gain."""
    total, position = 0.0, 0
    for group in groups:
        if not group:
            continue
        mean = sum(group) / len(group)
        for _ in group:
            if position < TOP:
                total += mean / math.log2(position + 2)
            position += 1
    return total


def _share(days: list[DayScore], part: str, whole: str) -> float | None:
    num, den = (sum(getattr(d, part) for d in days), sum(getattr(d, whole) for d in days))
    return num / den if den else None


@dataclass
class WeekScore:
    week: str
    days: list[DayScore]
    tier3: int = 0
    tier3_themed: int = 0
    tier3_anywhere: int = 0
    themed: int = 0  # labelled events the themes carry
    themed_routine: int = 0  # of those, tier 0-1
    weekly_status: str = ""  # clean | flagged | none (no weekly built)

    def share(self, part: str, whole: str) -> float | None:
        return _share(self.days, part, whole)

    def featured_ceiling(self) -> float | None:
        """The best featured precision reachable on these labels with at least one featured event on
        every day that has events: the tier-3 events where a day has some (all right), one event on
        each other day (a miss by the guide's measure), pooled as featured precision is."""
        right = sum(d.tier3 for d in self.days)
        shown = sum(d.tier3 if d.tier3 else 1 for d in self.days if d.events)
        return right / shown if shown else None

    def mean(self, name: str) -> float | None:
        values = [getattr(d, name) for d in self.days if getattr(d, name) is not None]
        return sum(values) / len(values) if values else None

    def summary(self) -> dict[str, float | int | None]:
        featured = sum(d.featured for d in self.days)
        return {
            "placement": self.share("placed", "placeable"),
            "ndcg@10": self.mean("ndcg"),
            "glue@10": self.share("glue", "top"),
            "split@10": self.share("split", "top"),
            "noise@10": self.share("noise", "top"),
            "featured": featured,
            "featured precision": self.share("featured_right", "featured"),
            "featured precision, tier-3 days": _share(
                [d for d in self.days if d.has_tier3], "featured_right", "featured"
            ),
            "featured top tier": self.share("featured_top", "featured"),
            "featured precision ceiling": self.featured_ceiling(),
            "days without featured": sum(d.needs_featured and not d.featured for d in self.days),
            "zh about-the-article": self.share("zh_about", "zh_cards"),
            "weekly clean": 1.0 if self.weekly_status == "clean" else 0.0,  # a flagged weekly is not published
            "weekly tier-3 in themes": self.tier3_themed / self.tier3 if self.tier3 else None,
            "weekly tier-3 anywhere": self.tier3_anywhere / self.tier3 if self.tier3 else None,
            "weekly themed tier 0-1": self.themed_routine / self.themed if self.themed else None,
            "random ndcg@10": self.mean("random_ndcg"),
            "most-reports ndcg@10": self.mean("reports_ndcg"),
        }


def score_weekly(
    week: WeekScore, meta: dict | None, status: str, labels: dict[str, Label], store_event: dict[int, str]
) -> None:
    """The weekly's measures from its stored meta (sections' and briefs' event ids)."""
    lead = {e for e, lab in labels.items() if lab.tier == 3 and _iso_week(lab.day) == week.week}
    week.tier3, week.weekly_status = len(lead), status
    if not meta:
        return
    themed = {store_event.get(i) for s in meta.get("sections") or [] for i in s.get("events") or []} - {None}
    briefed = {store_event.get(b.get("event_id")) for b in meta.get("briefs") or []} - {None}
    week.tier3_themed = len(lead & themed)
    week.tier3_anywhere = len(lead & (themed | briefed))
    themed_labels = [labels[e] for e in themed if e in labels]
    week.themed = len(themed_labels)
    week.themed_routine = sum(lab.tier <= 1 for lab in themed_labels)


def _iso_week(day: date) -> str:
    year, week, _ = day.isocalendar()
    return f"{year}-W{week:02d}"


# --- the replay ----------------------------------------------------------------------------


def harvest_lines(harvest: Path, wanted: set[str]) -> dict[str, dict]:
    """The harvest's lines for the wanted item ids (last line wins, as the import does; a last line
    without a date keeps the one an earlier line of the link gave, as the store keeps a stored date)."""
    found: dict[str, dict] = {}
    try:
        with harvest.open(encoding="utf-8") as fh:
            for raw in fh:
                if not raw.strip():
                    continue
                try:
                    row = json.loads(raw)
                except json.JSONDecodeError:
                    continue  # the import reports its own bad lines; here only the wanted ones count
                link = row.get("link") if isinstance(row, dict) else None
                if isinstance(link, str) and link.strip():
                    item_id = harvest_id(link)
                    if item_id in wanted:
                        earlier = found.get(item_id) or {}
                        if not row.get("pub_date") and earlier.get("pub_date"):
                            row = {**row, "pub_date": earlier["pub_date"]}
                        found[item_id] = row
    except OSError as exc:
        raise EvalFileError(
            f"{harvest}: cannot read ({exc.strerror}); give --harvest the JSON Lines the items came from"
        ) from None
    return found


def replay_settings(base: Settings, folder: Path) -> Settings:
    """The user's settings on a fresh store in `folder`, every part extractive (no model call)."""
    return dataclasses.replace(
        base,
        data_dir=str(folder),
        database_url="",
        site_dir=str(folder / "site"),
        write=dataclasses.replace(base.write, by="extractive"),  # whoever writes for the user
        llm=dataclasses.replace(base.llm, arbitrate_merges=False),  # and no model rules on a merge
    )


@dataclass
class Replay:
    pages: dict[str, dict[date, list[dict]]]  # language -> day -> cards in page order
    weeklies: dict[str, tuple[str, dict | None]]  # ISO week -> (status, meta)
    store_event: dict[int, str]  # store event id -> its majority labelled event
    problems: list[str]
    members: dict[int, list[str]] = field(default_factory=dict)  # store event id -> its members' labels
    # store event id -> {day (its first report's local day), importance, tab, score_parts, context
    # (rank/context.py: novelty, growth, the day's outlets)}: what rank gave it, for measures and learning over the ranking alone (eval/external.py, eval/train_ranker.py)
    events: dict[int, dict] = field(default_factory=dict)


def replay(lines: list[dict], settings: Settings, weeks: list[str], item_event: dict[str, str]) -> Replay:
    """Run the real stages over `lines` (harvest-form JSON objects) on a fresh temporary store."""
    from sqlalchemy import select

    from newsdesk.editions.weekly import build_extractive_weekly
    from newsdesk.rank.context import event_context
    from newsdesk.run.pipeline import run_pipeline
    from newsdesk.store import open_store
    from newsdesk.store.days import local_time
    from newsdesk.store.schema import editions, event_members, events, items
    from newsdesk.write.weekly import LANGUAGE

    with tempfile.TemporaryDirectory(prefix="newsdesk-eval-editorial-") as tmp:
        folder = Path(tmp)
        s = replay_settings(settings, folder)
        source = folder / "items.jsonl"
        source.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in lines), encoding="utf-8")
        engine = open_store(s.database)
        try:
            report = run_pipeline(engine, s, stages=DAILY_STAGES, source=source)
            problems = list(report.problems)
            weeklies: dict[str, tuple[str, dict | None]] = {}
            for week in weeks:
                try:
                    build_extractive_weekly(engine, s, week)
                except Exception as exc:  # noqa: BLE001 - a week without a weekly is measured as such
                    problems.append(f"weekly {week}: {exc}")
            with engine.connect() as conn:
                pages: dict[str, dict[date, list[dict]]] = defaultdict(dict)
                for row in conn.execute(
                    select(editions.c.key, editions.c.language, editions.c.meta).where(editions.c.kind == "daily")
                ):
                    pages[row.language][date.fromisoformat(row.key)] = (row.meta or {}).get("cards") or []
                for row in conn.execute(
                    select(editions.c.key, editions.c.status, editions.c.meta).where(
                        editions.c.kind == "weekly", editions.c.language == LANGUAGE
                    )
                ):
                    weeklies[row.key] = (row.status, row.meta)
                members = conn.execute(
                    select(event_members.c.event_id, items.c.url).join(items, items.c.id == event_members.c.item_id)
                ).all()
                known = event_context(conn, s.timezone)
                ranked = {
                    r.id: {
                        "day": local_time(r.first_published_at, s.timezone).date(),
                        "importance": r.importance,
                        "tab": r.tab,
                        "score_parts": dict(r.score_parts or {}),
                        "context": known.get(r.id, {}),
                    }
                    for r in conn.execute(
                        select(
                            events.c.id,
                            events.c.first_published_at,
                            events.c.importance,
                            events.c.tab,
                            events.c.score_parts,
                        )
                    )
                }
        finally:
            engine.dispose()
    by_event: dict[int, list[str]] = defaultdict(list)
    for m in members:
        event = item_event.get(harvest_id(m.url or ""))
        if event:
            by_event[m.event_id].append(event)
    return Replay(
        dict(pages), weeklies, {e: majority(v) or "" for e, v in by_event.items()}, problems, dict(by_event), ranked
    )


def evaluate(
    file: Path, settings: Settings, *, harvest: Path, clusters: list[Path]
) -> tuple[list[WeekScore], list[str]]:
    """Replay the labelled week(s) of one editorial file; a score per ISO week, and the replay's problems."""
    cluster_items = cluster_label_items(clusters)
    labels = {lab.event: lab for lab in read_labels(file, cluster_items)}
    labelled = [it for it in cluster_items if it.event in labels]
    item_event = {it.id: it.event for it in labelled}
    found = harvest_lines(harvest, set(item_event))
    missing = sorted(set(item_event) - set(found))
    if missing:
        raise EvalFileError(
            f"{harvest}: {len(missing)} labelled items are not in it (first: {missing[0]}); "
            "give --harvest the JSON Lines file the cluster labels were made from"
        )
    reports = Counter(it.event for it in labelled)
    weeks = sorted({_iso_week(lab.day) for lab in labels.values()})
    run = replay([found[i] for i in sorted(found)], settings, weeks, item_event)
    first = settings.languages[0] if settings.languages else "zh"
    scores = []
    for week in weeks:
        days = sorted({lab.day for lab in labels.values() if _iso_week(lab.day) == week})
        ws = WeekScore(
            week,
            [
                score_day(
                    d,
                    run.pages.get(first, {}).get(d, []),
                    run.pages.get("zh", {}).get(d, []),
                    labels,
                    item_event,
                    reports,
                )
                for d in days
            ],
        )
        status, meta = run.weeklies.get(week, ("none", None))
        score_weekly(ws, meta, status, labels, run.store_event)
        scores.append(ws)
    return scores, run.problems


# --- report --------------------------------------------------------------------------------


def _fmt(value) -> str:
    if value is None:
        return "  n/a"
    return f"{value:5.3f}" if isinstance(value, float) else f"{value:5d}"


def day_lines(ws: WeekScore) -> list[str]:
    out = [f"{'day':10s}  cards  placed  ndcg@10  random  reports  glue  split  noise  featured (tier 3)  zh about"]
    for d in ws.days:
        out.append(
            f"{d.day.isoformat():10s}  {d.cards:5d}  {d.placed:2d}/{d.placeable:<3d}  {_fmt(d.ndcg)}    "
            f"{_fmt(d.random_ndcg)}   {_fmt(d.reports_ndcg)}  {d.glue:4d}  {d.split:5d}  {d.noise:5d}  "
            f"{d.featured:8d} ({d.featured_right}){'  none on a day with news' if d.needs_featured and not d.featured else ''}"
            f"  {d.zh_about}/{d.zh_cards}"
        )
    return out


def week_lines(ws: WeekScore) -> list[str]:
    m = ws.summary()
    return [
        f"placement {_fmt(m['placement'])}  ndcg@10 {_fmt(m['ndcg@10'])}  glue@10 {_fmt(m['glue@10'])}  "
        f"split@10 {_fmt(m['split@10'])}  noise@10 {_fmt(m['noise@10'])}",
        f"featured {m['featured']} (precision vs tier 3 {_fmt(m['featured precision'])}, on days with a tier-3 "
        f"event {_fmt(m['featured precision, tier-3 days'])}, of the day's best tier {_fmt(m['featured top tier'])}; "
        f"ceiling on these labels {_fmt(m['featured precision ceiling'])}), "
        f"{m['days without featured']} days with news and no featured event; "
        f"zh cards opening about the article {_fmt(m['zh about-the-article'])}",
        f"weekly ({ws.weekly_status}): tier-3 events in themes {_fmt(m['weekly tier-3 in themes'])}, anywhere "
        f"{_fmt(m['weekly tier-3 anywhere'])} (of {ws.tier3}); themed events of tier 0-1 {_fmt(m['weekly themed tier 0-1'])}"
        f" (of {ws.themed})",
        f"reference ndcg@10: random order {_fmt(m['random ndcg@10'])}, most reports first {_fmt(m['most-reports ndcg@10'])}",
    ]


FOLD_MEASURES = [
    "placement",
    "ndcg@10",
    "glue@10",
    "split@10",
    "noise@10",
    "featured",
    "featured precision",
    "featured precision, tier-3 days",
    "featured top tier",
    "featured precision ceiling",
    "days without featured",
    "zh about-the-article",
    "weekly clean",
    "weekly tier-3 in themes",
    "weekly tier-3 anywhere",
    "weekly themed tier 0-1",
    "random ndcg@10",
    "most-reports ndcg@10",
]


def fold_lines(weeks: list[WeekScore]) -> list[str]:
    """One column per week (each a held-apart fold: nothing is tuned on it here), then their mean."""
    summaries = [w.summary() for w in weeks]
    out = [f"{'measure':32s}" + "".join(f"{w.week:>10s}" for w in weeks) + f"{'mean':>10s}"]
    for name in FOLD_MEASURES:
        values = [s[name] for s in summaries]
        known = [v for v in values if v is not None]
        mean = sum(known) / len(known) if known else None
        cells = "".join(f"{_fmt(v):>10s}" for v in values)
        out.append(f"{name:32s}{cells}{_fmt(float(mean) if mean is not None else None):>10s}")
    return out


def as_record(ws: WeekScore) -> dict:
    """One week as JSON: its measures and each day's counts (for tuning scripts)."""
    days = []
    for d in ws.days:
        day = dataclasses.asdict(d)
        day["day"] = d.day.isoformat()
        days.append(day)
    return {
        "week": ws.week,
        **ws.summary(),
        "weekly_status": ws.weekly_status,
        "tier3": ws.tier3,
        "themed": ws.themed,
        "days": days,
    }
