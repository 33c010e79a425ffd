"""The weekly's themes: the week's lead events, each with the events that share a specific name with it.

Both writers (write/weekly.py with a model, write/extractive/weekly.py without) take their themes here;
nothing in it depends on the edition's language but the words a heading is cut from.

1. Leads: the week's most important news by the day ranking's importance (rank/score.py, in
   events.score_parts): on topic, dated (not misdated), not routine unless the analysis of a happening (is_news:
   the week's report of it where no direct report came), a happening (money, policy, an incident,
   a major company's release) counted HARD_BONUS more than a big name alone and a small sum
   SMALL_COST less: those worth LEAD_FLOOR, at least MIN_LEADS, until there are MAX_LEADS themes.
   Every lead is in a theme.
2. Each event's names, from its headlines (the one shown and its reports' titles): versioned products
   (cluster/anchors.py), amounts and counts, Latin product and company names (a run of them by its
   first words: "Edit Banana" is not Banana), Chinese words; one spelling per company across
   languages (英伟达 = nvidia). Words every headline uses are left out, and venues (ICLR): two
   papers of one conference are two events.
3. Two events are tied by the names they share, each counted by how specific it is in the week: a
   name two events of the week hold counts 1, one that k hold 1/(k-1); a Chinese word (not a name
   jieba can tell apart from prose) counts WORD_WEIGHT of that. A tie needs TIE.
4. Each lead, most important first, starts a theme. The week's other important events (the pool: on
   topic and dated, worth POOL_FLOOR; a routine one too: the review of a launch goes with the launch) and the later leads join the lead they are tied to most, at
   most MAX_THEME to a theme, most important first. No chaining: a member joins through its lead.
5. Briefs (pick_briefs): the week's other news, the days' featured news first, then as leads are
   ordered.
6. A theme is named by what it shares: the name most of its events hold, with the clause (or two
   neighbouring clauses) of its lead headline that tells what happened and stands alone (jieba's
   parts of speech: not a bare amount, not cut on a particle or adverb; quote marks never part a
   clause), its subject before it ("谷歌320亿美元收购Wiz"); a lone lead by its own name and clause.
7. An edition that shows only some events (shown_themes: the English weekly, its events with English
   material) keeps each theme's shown ones, leaves out a theme of none, and names a theme again from
   the events it keeps where it was named from another or in another language.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field

from newsdesk.cluster.anchors import model_anchors, number_anchors
from newsdesk.rank.happenings import AMOUNT, DEAL, INCIDENT, MONEY, NEWS_KINDS, POLICY, RELEASE, read_kinds
from newsdesk.text import lexicon
from newsdesk.text.companies import MAJOR

# Chosen on the editorial dev weeks W05-W10 (eval/editorial/README.md says how, and gives each
# week's score under the setting chosen on the other five).
LEAD_FLOOR = 1.8  # importance a lead needs (rank/score.py's P1 is 2.5)
MIN_LEADS = 3
MAX_LEADS = 12
POOL_FLOOR = 1.8  # importance an event needs to join a lead's theme
MAX_THEME = 5
TIE = 1.0  # one name only the two events share, or two names three events share
PRODUCT_WEIGHT = 2.0
COMPANY_WEIGHT = 1.0
WORD_WEIGHT = 0.5  # a shared Chinese word: two rare ones make a tie, one does not
HARD_BONUS = 0.5  # how much a happening's importance counts more than a big name's, for a lead
LARGE_MONEY = 1e8  # a sum that is news in itself (in its currency: $100M, 1亿元)
SMALL_COST = 1.0  # what a small sum costs a lead (a seed round is not a week's story)

# One spelling per company or person across languages: what ties a Chinese and an English headline
# (companies.toml's `aliases` -> `key`, in its order).
ALIASES = {alias: c["key"] for c in lexicon.table("companies")["company"] for alias in c.get("aliases", ())}
# Venues: where a paper appeared, not which paper; two papers of one conference are two stories.
VENUES = lexicon.words("venues")
# Words any headline may use: they say what kind of news it is, not which (stop.txt, headline-words.txt).
GENERIC = lexicon.words("stop", "headline-words", "venues")
_VENUE_YEAR = re.compile(rf"^(?:{'|'.join(VENUES)})\s*'?\d{{2,4}}(?:\s*oral)?$", re.I)  # "ICLR 2026": no figure
# Headline clauses that are the outlet's cry, not the news.
_CRY = r"(?:\[?AINews\]?|刚刚|重磅|速递|独家|突发|炸裂|快讯|深度|太牛了|我看呆了|官宣|震撼|首发|实测|一文读懂|一文看懂|划重点)"
_HYPE = re.compile(rf"^{_CRY}\W*$", re.I)
_CRY_PREFIX = re.compile(rf"^{_CRY}\s*(?=\S)", re.I)  # "一文读懂GPT-5.4" tells GPT-5.4
# A clause that is only its subject's cry ("Anthropic 再出手", "美国网友酸了").
_HYPE_VERB = re.compile(
    r"^.{0,14}(?:再出手|又出手|出手了|放大招|开大了?|炸场|杀疯了|急了|酸了|火了|慌了|看呆了|赢麻了)$"
)
_LATIN = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[.\-+][A-Za-z0-9]+)*")
HEADING_CHARS = 40  # a reference weekly report's headings run to 24 characters; a headline's clause may need more


@dataclass
class ThemeEvent:
    id: int
    headline: str  # as the edition shows it
    importance: float
    titles: list[str] = field(default_factory=list)  # its reports' own titles, lead first
    eligible: bool = True  # news (is_news): may lead a theme, join one, be a brief
    joins: bool = True  # on topic and dated: may join a theme it is tied to, routine or not
    told: bool = True  # its material says more than its title
    hard: bool = False  # a happening (is_hard): money, policy, an incident, a major company's release
    featured: bool = False  # its day's featured news (rank/score.py's tab): what a reader of that day had to see
    small: bool = False  # a small sum is all it tells (is_small): a seed round, small-company PR

    @classmethod
    def of(cls, event_id: int, headline: str, parts: dict, tab: str = "", **kw) -> ThemeEvent:
        """An event as the themes read it, from its rank/score.py score parts and tab."""
        importance = float(parts.get("importance", kw.pop("importance", 0.0)) or 0.0)
        joins = not (parts.get("off_topic") or parts.get("undated"))
        news = is_news(parts)
        told = [headline, *kw.get("titles", [])[:3]]
        return cls(
            event_id, headline, importance, eligible=news, joins=joins, hard=is_hard(parts, told),
            featured=news and tab == "featured", small=is_small(parts, told), **kw,
        )  # fmt: skip


def in_language(text: str, language: str) -> bool:
    cjk = bool(re.search(r"[\u3400-\u9fff]", text))
    return cjk if language == "zh" else not cjk


@dataclass
class Named:
    events: list[int]  # most important first
    heading: str
    shared: str  # the name the theme is built on, as the lead headline writes it
    voice: int = 0  # the event it is named from (voice()), whose fact sums it up


def _chinese_words(text: str) -> list[str]:
    from newsdesk.text.sentences import terms

    return [t for t in terms(text) if re.fullmatch(r"[\u3400-\u9fff]{2,}", t)]


def names(text: str) -> dict[str, str]:
    """The names in one headline: key -> how the headline writes it."""
    found: dict[str, str] = {}
    for key in model_anchors(text) | {a for a in number_anchors(text) if not a.startswith("num:") or len(a) > 6}:
        found.setdefault(key, key.split(":", 1)[1])
    for run in _latin_runs(text):
        # A run of names is one product or company: its first words name it ("Claude Code Remote
        # Control" holds Claude Code and Claude), a later word alone does not ("Edit Banana" is not Banana).
        for n in range(1, len(run) + 1):
            low = " ".join(run[:n]).lower()
            found.setdefault(ALIASES.get(low, low), " ".join(run[:n]))
    companies = [alias for alias in ALIASES if alias in text and not alias.isascii()]
    for alias in companies:  # jieba may not split a company out ("英伟达业绩" -> 英, 伟达业绩)
        found.setdefault(ALIASES[alias], alias)
    for word in _chinese_words(text):
        if word not in GENERIC and not any(word in a or a in word for a in companies):
            found.setdefault(ALIASES.get(word, word), word)
    return found


def _latin_runs(text: str) -> list[list[str]]:
    """The Latin names of a headline, each run of them that only spaces part as one list."""
    runs: list[list[str]] = []
    end = -2
    for m in _LATIN.finditer(text):
        word = m.group(0)
        if len(word) < 2 or word.lower() in GENERIC or (word.islower() and not any(c.isdigit() for c in word)):
            end = -2  # a lower-case Latin word is prose, not a name; a generic one parts two names
            continue
        if runs and text[end : m.start()] == " ":
            runs[-1].append(word)
        else:
            runs.append([word])
        end = m.end()
    return runs


def weight(key: str, held: int) -> float:
    """What one name shared by two events ties them by, when `held` events of the week hold it: a
    product (a name that is not a big company's) counts double (FlashMLA in three events is one
    release), a big company once, a Chinese word half; each divided by the others that hold it."""
    if not is_name(key):
        return WORD_WEIGHT / (held - 1)
    company = key in ALIASES.values() or MAJOR.search(key.split(":", 1)[-1])
    return min(1.0, (COMPANY_WEIGHT if company else PRODUCT_WEIGHT) / (held - 1))


def is_name(key: str) -> bool:
    """A product, company, person or figure; not a Chinese word of the headline's prose."""
    return ":" in key or key.isascii() or key in ALIASES.values()


def shown_name(key: str, shown: str, headline: str) -> str:
    """How a headline writes a name: a versioned product as spelled there ("Nano Banana 2" for
    model:banana-2); an amount or count never names a theme ("")."""
    if not key.startswith("model:"):
        return "" if ":" in key else shown
    family, _, version = key.split(":", 1)[1].partition("-")
    version = version.split("-")[0]
    m = re.search(rf"(?:[A-Z][A-Za-z]+ )?{re.escape(family)}[ \-_]?{re.escape(version)}(?![\d.])", headline, re.I)
    return m.group(0) if m else ""


def event_names(e: ThemeEvent) -> dict[str, str]:
    """An event's names from its shown headline first, then its reports' titles."""
    out: dict[str, str] = {}
    for text in [e.headline, *e.titles[:3]]:
        for key, shown in names(text).items():
            out.setdefault(key, shown)
    return out


HARD_KINDS = frozenset(["money", "policy", "incident"])
ANALYSES = frozenset(["explainer", "opinion"])  # routine kinds that may be the week's report of a happening
HAPPENINGS = frozenset(NEWS_KINDS) - {"major"}  # rank/happenings.py's news kinds that say what happened
# The words of a happening a clause may hold alone (read_kinds wants a major name or an amount beside them).
HAPPENING = re.compile("|".join(p.pattern for p in (RELEASE, MONEY, DEAL, POLICY, INCIDENT)), re.I)


def kind_names(score_parts: dict) -> set[str]:
    """The kinds rank/score.py read in an event (score_parts["kinds"], happenings.Kinds.names())."""
    return {k.strip() for k in str(score_parts.get("kinds") or "").split(",") if k.strip()}


def is_hard(score_parts: dict, headlines: tuple[str, ...] | list[str] = ()) -> bool:
    """A happening of the kinds an editor leads a week with (the guide's tier 3): a large sum (a round,
    an acquisition, results), policy or legal action, an incident, a major company's release; not a
    big name alone, nor a seed round ("高通800万美元投资…": every amount its `headlines` give is under
    LARGE_MONEY)."""
    kinds = kind_names(score_parts)
    if (kinds & {"policy", "incident"}) or {"major", "release"} <= kinds:
        return True
    return "money" in kinds and not is_small(score_parts, headlines)


def is_small(score_parts: dict, headlines: tuple[str, ...] | list[str]) -> bool:
    """An event whose only news is a sum, every one its headlines give under LARGE_MONEY ("高通800万美元
    投资…", "Linq获2000万美元A轮融资"): small-company news, which the guide puts with the routine."""
    if kind_names(score_parts) & set(NEWS_KINDS) - {"money", "major"}:
        return False
    sums = [float(a.split(":", 1)[1]) for text in headlines for a in number_anchors(text) if a.startswith("money:")]
    return "money" in kind_names(score_parts) and bool(sums) and max(sums) < LARGE_MONEY


def is_news(score_parts: dict) -> bool:
    """Whether an event may lead or join a theme, or be a brief (rank/score.py's parts): on topic, dated, and
    not routine, unless it is the analysis of a happening, a kind of news beyond a big name ("The
    Pentagon's deal with OpenAI, explained"; an event led by its explainer, the launch report a
    member): the week's report of it where no direct report came; one that came leads, and the
    analysis joins it."""
    if score_parts.get("off_topic") or score_parts.get("undated") or score_parts.get("misdated"):
        return False  # a misdated event (rank/chronology.py) may join its launch's theme, not lead one
    kinds = kind_names(score_parts)
    routine = kinds - set(NEWS_KINDS) - {"off-topic"}
    return not score_parts.get("routine") or (bool(routine) and routine <= ANALYSES and bool(kinds & HAPPENINGS))


def lead_order(e: ThemeEvent) -> tuple:
    """The order leads are taken in: most important first, a happening counted HARD_BONUS more than
    a big name alone (most of a week's "OpenAI …" pieces are routine; its leads are releases,
    sums, rulings and outages)."""
    return (-lead_weight(e),)


def lead_weight(e: ThemeEvent) -> float:
    """What an event is worth as a lead: its importance, a happening's HARD_BONUS more."""
    return e.importance + HARD_BONUS * e.hard - SMALL_COST * e.small


def pick_briefs(events: list[ThemeEvent], themed: set[int], most: int) -> list[int]:
    """The week's briefs: its news outside the themes, the days' featured news first (what a reader
    of that day had to see), then as leads are ordered; at most `most`."""
    rest = [e for e in events if e.eligible and e.id not in themed]
    return [e.id for e in sorted(rest, key=lambda e: (not e.featured, *lead_order(e)))][:most]


def leads(events: list[ThemeEvent], most: int = MAX_LEADS) -> list[ThemeEvent]:
    """The week's lead events, most important first: its `most` best news worth LEAD_FLOOR. Each is
    in a theme, its own or an earlier lead's it is tied to (then a later lead may start one too)."""
    return sorted((e for e in events if e.eligible and lead_weight(e) >= LEAD_FLOOR), key=lead_order)[:most]


def build_themes(
    events: list[ThemeEvent], language: str = "zh", *, most: int = MAX_LEADS, per_theme: int = MAX_THEME
) -> list[Named]:
    """The week's themes from all its events (any order): at most `most` leads, each with the events
    tied to it, at most `per_theme` in all. A lead tied to an earlier one joins its theme. A thin
    week (fewer than MIN_LEADS themes so) takes its themes from all its news, whatever their importance."""
    keys = {e.id: event_names(e) for e in events}
    held = Counter(k for e in events for k in keys[e.id])

    def tie(a: ThemeEvent, b: ThemeEvent) -> float:
        shared = keys[a.id].keys() & keys[b.id].keys()
        return sum(weight(k, held[k]) for k in shared if held[k] > 1)

    for floor in (POOL_FLOOR, -math.inf):
        groups = _group(events, tie, floor, most, per_theme)
        if len(groups) >= MIN_LEADS:
            break
    return [name_theme(members, language, keys, held) for members in groups]


def shown_themes(named: list[Named], events: list[ThemeEvent], shown: set[int], language: str) -> list[Named]:
    """The themes as an edition that shows only the events in `shown` tells them (the English weekly:
    the events with English material; the others it lists apart, by their headlines). Each theme keeps
    its shown events, in order; one with none is left out. One that lost the event it was named from,
    or whose heading is in another language than the edition's (a Chinese lead's), is named again from
    the events it keeps, the week's names counted as build_themes counts them."""
    keys = {e.id: event_names(e) for e in events}
    held = Counter(k for e in events for k in keys[e.id])
    by_id = {e.id: e for e in events}
    out = []
    for n in named:
        kept = [i for i in n.events if i in shown]
        if not kept:
            continue
        if n.voice in kept and in_language(n.heading, language):
            out.append(Named(kept, n.heading, n.shared, n.voice))
        else:
            out.append(name_theme([by_id[i] for i in kept], language, keys, held))
    return out


def _group(events: list[ThemeEvent], tie, floor: float, most: int, per_theme: int) -> list[list[ThemeEvent]]:
    """The leads first, most important first: each starts a theme while there is room, unless it
    is tied to an earlier lead. Then the others, most important first: each joins the theme whose
    lead it is tied to most (a theme fills with its strongest members)."""
    lead_floor = LEAD_FLOOR if floor > -math.inf else -math.inf
    ranked = sorted((e for e in events if e.joins and e.importance >= floor), key=lambda e: -e.importance)
    groups: dict[int, list[ThemeEvent]] = {}

    def join(e: ThemeEvent) -> bool:
        ties = {i: tie(g[0], e) for i, g in groups.items() if len(g) < per_theme}
        best = max(ties, key=lambda i: ties[i], default=None)
        if best is not None and ties[best] >= TIE:
            groups[best].append(e)
            return True
        return False

    for e in sorted(ranked, key=lead_order):
        starts = e.eligible and (lead_weight(e) >= lead_floor or len(groups) < MIN_LEADS)
        if starts and not join(e) and len(groups) < most:
            groups[e.id] = [e]
    for g in groups.values():  # a theme's events most important first, whatever order they joined in
        g[1:] = sorted(g[1:], key=lambda e: -e.importance)
    for e in ranked:
        if not any(e in g for g in groups.values()):
            join(e)
    return list(groups.values())


def name_theme(
    members: list[ThemeEvent],
    language: str = "zh",
    keys: dict[int, dict[str, str]] | None = None,
    held: Counter | None = None,
) -> Named:
    """The theme's heading from its lead headline: the name most members hold (the rarest in the
    week on a tie) and the clause that says what happened to it. `keys` and `held`: every event's
    names and how many events of the week hold each (default: the members' own)."""
    keys = keys or {e.id: event_names(e) for e in members}
    held = held or Counter(k for e in members for k in keys[e.id])
    lead = voice(members, language)
    own = names(lead.headline) or keys[lead.id]
    shown = {k: shown_name(k, v, lead.headline) for k, v in own.items()}
    shown = {k: v for k, v in shown.items() if v}
    shared = ""
    if len(members) > 1 and shown:
        best = min(shown, key=lambda k: (-sum(k in keys[e.id] for e in members), held[k]))
        if sum(best in keys[e.id] for e in members) > 1:
            shared = shown[best]
    told = " ".join(clauses(lead.headline, cries=True))  # a company named only in a question does not head it
    company = shared or next((v for v in sorted(shown.values(), key=told.find) if v in told and MAJOR.search(v)), "")
    heading = theme_heading(lead.headline, shared, list(shown.values()), company, language)
    return Named([e.id for e in members], heading, shared, lead.id)


def voice(members: list[ThemeEvent], language: str) -> ThemeEvent:
    """The member a theme is named and summed up from: the most important one whose material says
    more than its title, in the edition's language first (a title-only post of the company, in
    English, does not head a Chinese theme its Chinese reports tell). Its day's featured news in
    the edition's language names it however little its card says ("Introducing Claude Opus 4.6",
    two headlines alone, heads the English theme, not a partner's "Opus 4.6 is now available in
    Windsurf" that says more)."""

    def order(e: ThemeEvent) -> tuple:
        if e.featured and in_language(e.headline, language):
            return (0, members.index(e))
        return (1, not e.told, not in_language(e.headline, language), members.index(e))

    return min(members, key=order)


_OPENS = {"“": "”", "「": "」", "『": "』", "《": "》"}
# Where a headline's clauses part; quote marks and title marks never: they hold a name inside a clause
# ("英伟达也要“养虾”": cut at the mark it read "英伟达也要", and a lone mark broke the page's check).
_SEPARATORS = frozenset("，,：:！!？?｜|；;。、[]【】()（）")


def _split(headline: str, separators: frozenset[str]) -> list[tuple[str, str]]:
    """(clause, what ends it) in order; separators inside a quoted or titled span do not part it."""
    out, start, closing = [], 0, ""
    straight = False
    i = 0
    while i < len(headline):
        ch = headline[i]
        dash = headline[i : i + 3] in (" - ", " — ", " – ") or headline[i : i + 2] == "——"
        if closing:
            closing = "" if ch == closing else closing
        elif ch == '"':
            straight = not straight
        elif ch in _OPENS:
            closing = _OPENS[ch]
        elif not straight and (ch in separators or dash):
            width = 2 if headline[i : i + 2] == "——" else 3 if dash else 1
            out.append((headline[start:i], headline[i : i + width]))
            start = i = i + width
            continue
        i += 1
    out.append((headline[start:], ""))
    return out


def clauses(headline: str, *, cries: bool = False) -> list[str]:
    """The headline's clauses that tell the news: not the outlet's cry ("刚刚", "Anthropic 再出手",
    kept with `cries`: it names who acted), not a question ("V4底座浮现？")."""
    # An English headline's commas join a list ("Hybrid reasoning, a $150 model and …"), not clauses;
    # unless each part opens on a capital: a newsletter's contents ("Claude Opus 4.6 Thinks Smarter,
    # xAI Joins SpaceX, …"), one story a part.
    listed = [p.strip() for p in headline.split(",")]
    contents = len(listed) >= 3 and all(re.match(r"\S*[A-Z0-9]", p) for p in listed)
    separators = _SEPARATORS if not headline.isascii() or contents else _SEPARATORS - {","}
    out = []
    for raw, end in _split(headline, separators):
        part = balanced(_CRY_PREFIX.sub("", raw.strip(" ·-—")))
        if (
            len(part) >= 2
            and not _HYPE.match(part)
            and (cries or not _HYPE_VERB.search(part))
            and "?" not in end
            and "？" not in end
        ):
            out.append(part)
    return out


def balanced(text: str) -> str:
    """The text with its quote marks paired: an unpaired mark is dropped, never published alone."""
    for a, b in (("“", "”"), ("「", "」"), ("『", "』"), ("《", "》")):
        if text.count(a) != text.count(b):
            text = text.replace(a, "").replace(b, "")
    return text.replace('"', "") if text.count('"') % 2 else text


def _cjk(text: str) -> bool:
    return bool(re.search(r"[\u3400-\u9fff]", text))


def tells(clause: str) -> tuple[int, bool]:
    """How a clause tells a happening, and whether it stands alone. 2: a kind of happening
    rank/happenings.py reads (a release, a sum, a deal, a ruling, an incident), 1: some other verb,
    0: none. Alone: not a bare amount ("10.3 亿美元"), not cut before its object ("英伟达也要",
    "吓坏网友的": it ends on a particle, an adverb, a preposition or a one-character verb)."""
    kinds = read_kinds(clause, "")
    happening = 2 if any(getattr(kinds, k) for k in HAPPENINGS) or HAPPENING.search(clause) else 0
    if not _cjk(clause):  # a clause that opens in lower case goes on from the one before it
        words = clause.split()
        return happening, len(words) >= 2 and not clause[0].islower() and not (
            words[-1].islower() and len(words[-1]) <= 3
        )
    from newsdesk.text.segment import tagged

    tags = [(w, t) for w, t in tagged(clause) if w.strip()]
    happening = happening or int(any(t.startswith("v") for _, t in tags))
    if not tags or all(t in ("m", "q", "x") for _, t in tags):
        return 0, False  # figures alone
    word, tag = tags[-1]
    cut = tag in _DANGLING or (tag == "v" and len(word) == 1 and not re.search(r"[A-Za-z0-9]", word))
    return happening, not cut


_DANGLING = frozenset(["uj", "ud", "uv", "uz", "ug", "d", "p", "c", "r"])  # jieba tags a clause does not end on


def theme_heading(headline: str, shared: str, found: list[str], company: str, language: str = "zh") -> str:
    """What the lead headline says, in whole clauses (no name is cut): its happening with its subject
    ("谷歌320亿美元收购Wiz", "Meta收购Moltbook"). The clause, or two neighbouring clauses, that tells a
    happening and stands alone, holding `shared` (else a name in `found`) first; a short clause with a
    figure after it; `company` before it when it does not name it."""
    parts = clauses(headline) or [balanced(headline.strip())]
    # A Latin clause takes about twice the characters of a Chinese one to say as much.
    most = HEADING_CHARS if _cjk(headline) else 2 * HEADING_CHARS
    sep = "，" if _cjk(headline) else ", "  # a curly apostrophe is not Chinese

    def holds(p: str, name: str) -> bool:
        return bool(name) and name.lower() in p.lower()

    spans = [(p, 0, i) for i, p in enumerate(parts)]
    spans += [(_both(headline, a, b, sep), 1, i) for i, (a, b) in enumerate(zip(parts, parts[1:]))]
    spans = [s for s in spans if len(s[0]) <= most] or spans[:1]

    def rank(span: tuple[str, int, int]) -> tuple:
        p, pair, at = span
        happening, whole = tells(p)
        named = holds(p, shared) if shared else any(holds(p, n) for n in found)
        return (not whole, -happening, not named, not holds(p, company), pair, at)

    head = min(spans, key=rank)[0]
    figure = [
        p
        for p in parts
        if re.search(r"\d", p) and not _VENUE_YEAR.match(p) and p not in head and not re.search(r"\d", head)
    ]
    if figure and len(head) + len(figure[0]) < most and tells(figure[0])[1]:
        head = f"{head}{sep}{figure[0]}"
    who, colon, what = head.partition("：")
    if colon and what and not tells(who)[0]:  # "谷歌：320亿美元收购Wiz" is "谷歌320亿美元收购Wiz"
        return _with_subject(what, who, language)
    return _with_subject(head, company, language)


def _both(headline: str, a: str, b: str, sep: str) -> str:
    """Two neighbouring clauses as the headline joins them ("Harness engineering: leveraging Codex")."""
    start = headline.find(a)
    end = headline.find(b, start + len(a))
    between = headline[start + len(a) : end] if start >= 0 and end >= 0 else ""
    if between.strip() in ("：", ":", ",", "，", "-", "—", "–"):
        return f"{a}{between.strip()}{' ' if between.strip().isascii() else ''}{b}"
    return f"{a}{sep}{b}"


def _with_subject(head: str, company: str, language: str) -> str:
    """`company` before a clause that does not name it: run into one that opens on what it did
    ("谷歌" + "320亿美元收购Wiz"), else as the heading's subject ("OpenAI：…")."""
    if not company or company.lower() in head.lower():
        return head
    # "320亿美元收购Wiz", "收购Moltbook" (not "83%任务…"); two figures or Latin words never run together.
    if language == "zh" and _cjk(head) and (AMOUNT.match(head) or HAPPENING.match(head)):
        space = " " if re.match(r"[A-Za-z0-9]", head) and re.search(r"[A-Za-z0-9.%]$", company) else ""
        return f"{company}{space}{head}"
    return f"{company}{'：' if language == 'zh' else ': '}{head}"
