"""`newsdesk eval cards`: a reader's lint over the published daily editions, both languages.

    report = lint_store(engine, day=None)   # every daily edition in the store (or one day's)
    for line in report_lines(report): print(line)

It reads what was published (the editions table: each card as the day's page shows it, and the
edition's Markdown), never the writers' inputs, and counts, with examples, the cards a reader
would stop at:

    blank           the card says nothing under its headline though a report had a summary or text
    title unsaid    a title-only card that does not say only the headline is known
    repeated fact   two sentences of the lead state the same figure, or one sentence again
    dangling        the lead opens on a list marker ("③", "1.", "•") or on a word pointing back
                    ("这…", "此外…", "It …") to something the card does not show
    about article   the lead opens on a sentence about the article ("本文介绍…", "this post explores"):
                    eval/editorial.py's measure, written apart from the writers' rule
    other language  the headline or lead is in another language than the edition's, unmarked
    headline/lead   the headline and the lead's first sentence share no word, name or figure: they
                    tell different events (judged only where both can be compared: one language,
                    or shared Latin names)
    later report    the headline or lead comes from a report published after the edition's day
    update repeats  an update card's lead is an earlier day's lead of the same event again
    counts          a count that disagrees with the links shown ("3 outlets" over 2 outlets' links)
                    or a plural that disagrees with its number ("1 outlets", "2 event")

What must hold is zero in every class; tests/test_eval_cards.py holds the demo there.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.engine import Engine

from newsdesk.editions.languages import card_text, unmarked_parts
from newsdesk.eval.editorial import describes_article
from newsdesk.store.schema import editions
from newsdesk.text import lexicon
from newsdesk.text.html import plain_text
from newsdesk.text.sentences import dangling_opening, figures, is_cjk, length, sentences, shingles, terms

CLASSES = (
    "blank",
    "title unsaid",
    "repeated fact",
    "dangling",
    "about article",
    "other language",
    "headline/lead",
    "later report",
    "update repeats",
    "counts",
)
EXAMPLES = 3  # per class and language
MATERIAL = ("full", "summary", "paywalled")  # a member with text beyond its headline
# A title-only card's line, as the extractive card writes it in either language.
_HEADLINE_ONLY = re.compile(r"只有标题|仅有标题|headline only|only the headline|headline alone", re.I)
# An update's line when its day's reports add nothing: it names their outlets under the card's headline (one
# of those reports), and tells no event of its own to compare with the headline.
_NOTHING_NEW = re.compile(r"没有超出此前报道的新内容|adding nothing beyond the earlier reports")
# A lead sentence's outlet after it, as extractive cards write it: "…。（量子位）", "…. (The Verge)".
_ATTRIBUTION = re.compile(r"(?<=[。！？.!?”’\"'])\s*(?:（[^（）\n]{1,80}）|\((?:[^()\n]|\([^()\n]*\)){1,80}\))")
# English counts as the pages print them: "1 outlets" and "3 outlet" are errors.
_COUNTED = r"(?:event|outlet|source|report|link|item|stor(?:y|ies)|independent)"
_PLURAL = re.compile(
    rf"(?<![\d.,])\b1 {_COUNTED}s\b|(?<![\d.,])\b(?:[02-9]|\d{{2,}}) (?:event|outlet|source|report|link|item|story)\b(?!s)"
)
_NOT_NAMES = lexicon.words("not-names")  # capitalised words that name nothing (AI, API), as the checker reads them
_ZH_OUTLETS = re.compile(r"(\d+) 个来源")
_EN_OUTLETS = re.compile(r"(\d+) outlets")


@dataclass
class Finding:
    kind: str
    day: str
    language: str
    number: int  # the card's place on the day's page, from 1
    headline: str
    detail: str

    def line(self) -> str:
        return f"{self.day} {self.language} #{self.number} {self.headline[:60]!r}: {self.detail[:160]}"


@dataclass
class CardsReport:
    editions: int = 0
    pages: int = 0  # site pages read (lint_site)
    cards: Counter = field(default_factory=Counter)  # language -> cards read
    findings: list[Finding] = field(default_factory=list)

    def count(self, kind: str, language: str | None = None) -> int:
        return sum(1 for f in self.findings if f.kind == kind and language in (None, f.language))

    def total(self) -> int:
        return len(self.findings)


def lead_sentences(lead: str) -> list[str]:
    """The sentences of a card's lead, each without the outlet the extractive card names after it."""
    return [s for s in sentences(_ATTRIBUTION.sub("\n", lead or "")) if s.strip()]


def repeated_fact(said: list[str]) -> str:
    """Two sentences of a lead stating one fact: a shared figure, most of one sentence again, or most of
    one's content words in the other (a fragment of a few words, such as an excerpt's cut end, is no
    statement)."""
    said = [s for s in said if length(s) >= 4]
    for i, a in enumerate(said):
        for b in said[i + 1 :]:
            shared = figures(a) & figures(b)
            sa, sb = shingles(a), shingles(b)
            ta, tb = set(terms(a)), set(terms(b))
            if (
                shared
                or len(sa & sb) >= 0.6 * max(1, min(len(sa), len(sb)))
                or len(ta & tb) >= 0.6 * max(1, min(len(ta), len(tb)))  # the same claim in other words
            ):
                return f"{a} | {b}"
    return ""


def _latin(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[A-Za-z][A-Za-z0-9\-.]*[A-Za-z0-9]|[A-Za-z]", text) if len(w) > 1}


def _names(text: str) -> set[str]:
    """The things a text names in Latin letters: "GPT-4.5", "OpenAI", "GLM-5", "OCR" (a digit, or a
    capital after the first letter), not the words the checker never takes for names ("AI")."""
    found = re.findall(r"[A-Za-z][A-Za-z0-9\-.]*[A-Za-z0-9]", text)
    return {w.lower() for w in found if re.search(r"\d|.[A-Z]", w) and w not in _NOT_NAMES}


# A column's label on a headline, not the event's: a leading tag ("[AINews] …") and a trailing issue
# or outlet name after a bar ("…？ ｜MindCode周报No.62").
_TAG = re.compile(r"^\s*[\[【][^\]】\n]{1,30}[\]】]\s*")
_TRAILER = re.compile(r"\s*[｜|]\s*([^｜|\n]{1,40})$")
_ISSUE = re.compile(r"周报|日报|月报|周刊|\bNo\.\s?\d|\bVol\.\s?\d|第\s?\d+\s?期|\bEP\s?\d|\bIssue\s?#?\d", re.I)


_VERSION = re.compile(r"v?\d+(?:\.\d+)+(?:[-+.]?[A-Za-z0-9]+)?", re.I)


def event_headline(headline: str, outlets: list[str] | tuple[str, ...] = ()) -> str:
    """The headline without its column's label: a leading tag, a trailer naming the outlet or the issue."""
    rest = _TAG.sub("", headline, count=1) or headline
    trailer = _TRAILER.search(rest)
    if trailer and trailer.start() > 0:
        label = trailer.group(1).lower()
        if _ISSUE.search(label) or any(o and o.lower() in label for o in outlets):
            rest = rest[: trailer.start()]
    return rest.strip() or headline


def tells_other_event(headline: str, first: str) -> bool:
    """The headline names something (a name in Latin letters, a figure) and the lead's first sentence
    shares none of its words, names or figures, where the two can be compared (one language, or names
    on both sides). A headline that names nothing ("世界是快的") is not judged, nor its column's label
    (event_headline: "[AINews]", "｜MindCode周报No.62")."""
    if not headline.strip() or not first.strip() or not (_names(headline) or figures(headline)):
        return False
    if _VERSION.fullmatch(headline.strip()):  # a changelog's "v2.1.114": the release its lines tell, nothing to compare
        return False
    if set(terms(headline)) & set(terms(first)) or _latin(headline) & _latin(first):
        return False
    if figures(headline) & figures(first):
        return False
    return is_cjk(headline) == is_cjk(first) or bool(_latin(headline) and _latin(first))


def _outlet_counts(card: dict, language: str) -> list[str]:
    """Counts on the card (its outlets badge, its notes) that disagree with the outlets of the links shown."""
    shown = len({m.get("outlet") for m in card.get("members") or []})
    out = []
    if (card.get("outlets") or 0) > shown or (card.get("outlets") or 0) < 1 and shown:
        out.append(f"{card.get('outlets')} outlets over {shown} outlets' links")
    badge_text = " ".join(b.get("text", "") for b in card.get("badges") or [] if b.get("kind") == "outlets")
    counted = _ZH_OUTLETS.findall(badge_text) if language == "zh" else _EN_OUTLETS.findall(badge_text)
    out += [f"badge says {n} outlets over {shown} outlets' links" for n in counted if int(n) != shown]
    return out


def lint_card(card: dict, language: str, day: str, earlier: dict[int, str]) -> list[tuple[str, str]]:
    """(class, detail) of each defect a reader meets on one card of the `day` edition in `language`;
    `earlier`: the leads this event's cards had on earlier days, by event id. A folded card (the
    English edition's "Reported in Chinese") is its original headline and a link, and so is a roundup (a
    newsletter's issue, shown as one line): no lead to read."""
    if card.get("folded") or card.get("roundup"):
        return []
    text = card_text(card)
    headline, lead = text["headline"], text["lead"].strip()
    said = lead_sentences(lead)
    members = card.get("members") or []
    out: list[tuple[str, str]] = []
    if not lead:
        material = any(m.get("material_level") in MATERIAL for m in members)
        out.append(("blank", "no lead, a report has text") if material else ("title unsaid", "no line at all"))
    elif (
        all(m.get("material_level") not in MATERIAL for m in members)
        and not _HEADLINE_ONLY.search(lead)
        and (not said or said[0].strip() == headline.strip())
    ):  # its lead only says the headline again
        out.append(("title unsaid", lead))
    if said and not _HEADLINE_ONLY.search(said[0]):  # the card's own line on a title-only card is no opening
        first = said[0]
        if reason := dangling_opening(first):
            out.append(("dangling", f"{reason}: {first}"))
        if describes_article(first):
            out.append(("about article", first))
        if not _NOTHING_NEW.search(first) and tells_other_event(
            event_headline(headline, [m.get("outlet") or "" for m in members]), first
        ):
            out.append(("headline/lead", first))
    if repeated := repeated_fact(said):
        out.append(("repeated fact", repeated))
    out += [("other language", f"{part} unmarked") for part in unmarked_parts(card, language)]
    out += _later(card, headline, lead, day)
    if card.get("update") and lead and earlier.get(card["event_id"]) == lead:
        out.append(("update repeats", lead))
    out += [("counts", d) for d in _outlet_counts(card, language)]
    return out


def _later(card: dict, headline: str, lead: str, day: str) -> list[tuple[str, str]]:
    """The headline or a lead sentence's outlet from a report published after the edition's day."""
    members = card.get("members") or []
    out = []
    later = [m for m in members if (m.get("published_at") or "")[:10] > day]
    if any(m.get("title") == headline for m in later) and not any(
        m.get("title") == headline for m in members if m not in later
    ):
        out.append(("later report", f"headline from a report of {later[0]['published_at'][:10]}"))
    on_day = {m.get("outlet") for m in members if m not in later}
    for found in _ATTRIBUTION.finditer(lead):
        outlet = found.group(0).strip()[1:-1]
        if outlet in {m.get("outlet") for m in later} and outlet not in on_day:
            out.append(("later report", f"lead sentence from {outlet}, a later report"))
    return out


def lint_edition(report: CardsReport, day: str, language: str, meta: dict, body: str, earlier: dict) -> None:
    cards = meta.get("cards") or []
    report.editions += 1
    report.cards[language] += len(cards)
    for number, card in enumerate(cards, 1):
        for kind, detail in dict(reversed(lint_card(card, language, day, earlier))).items():  # one per class
            report.findings.append(Finding(kind, day, language, number, card.get("headline") or "", detail))
    _remember(earlier, cards)
    if language == "en":  # the page's own words: "1 outlets" in the headline list, "2 event" anywhere
        for found in _PLURAL.finditer(body or ""):
            context = (body or "")[max(0, found.start() - 40) : found.end() + 10].replace("\n", " ")
            report.findings.append(Finding("counts", day, language, 0, "", f"plural: {context}"))


def _remember(earlier: dict[int, str], cards: list[dict]) -> None:
    """Each card's lead, for the updates of later days to be compared with: the first day's, and an
    update's own where it said something new."""
    for card in cards:
        lead = card_text(card)["lead"].strip()
        if lead:
            earlier[card["event_id"]] = lead


def lint_store(engine: Engine, day: str | None = None, last: str | None = None) -> CardsReport:
    """Every daily edition in the store, oldest first, both languages; only `day`'s, or those of
    `day` … `last`, when given."""
    last = last or day
    with engine.connect() as conn:
        query = select(editions.c.key, editions.c.language, editions.c.meta, editions.c.body).where(
            editions.c.kind == "daily"
        )
        rows = conn.execute(query.order_by(editions.c.key, editions.c.language)).all()
    report = CardsReport()
    earlier: dict[str, dict[int, str]] = {}  # language -> event id -> its lead on an earlier day
    for r in rows:
        if last is not None and r.key > last:
            break
        seen = earlier.setdefault(r.language, {})
        if day is not None and r.key < day:  # read only for the leads an update of the day may repeat
            _remember(seen, (r.meta or {}).get("cards") or [])
            continue
        lint_edition(report, r.key, r.language, r.meta or {}, r.body or "", seen)
    return report


def lint_site(report: CardsReport, site: Path) -> None:
    """The published site's English pages, read as text, for counts whose plural disagrees with their
    number ("1 events" beside a day with one card, "1 outlets"): the pages' own words, not the cards'."""
    for page in sorted((site / "en").rglob("*.html")) if (site / "en").is_dir() else []:
        text = " ".join(plain_text(page.read_text(encoding="utf-8", errors="replace")).split())
        for found in _PLURAL.finditer(text):
            context = text[max(0, found.start() - 40) : found.end() + 10]
            report.findings.append(Finding("counts", str(page.relative_to(site)), "en", 0, "", f"plural: {context}"))
        report.pages += 1


def report_lines(report: CardsReport, examples: int = EXAMPLES) -> list[str]:
    """The counts per class and language, then examples of each class found."""
    languages = sorted(report.cards)
    out = [
        f"{sum(report.cards.values())} cards in {report.editions} daily editions "
        + "("
        + ", ".join(f"{lang} {report.cards[lang]}" for lang in languages)
        + ")"
        + (f"; {report.pages} English site pages" if report.pages else ""),
        f"{'class':16s} " + " ".join(f"{lang:>5s}" for lang in languages) + "    all",
    ]
    for kind in CLASSES:
        out.append(
            f"{kind:16s} "
            + " ".join(f"{report.count(kind, lang):5d}" for lang in languages)
            + f"  {report.count(kind):5d}"
        )
    out.append(f"{'total':16s} " + " " * (6 * len(languages)) + f"{report.total():5d}")
    for kind in CLASSES:
        found = [f for f in report.findings if f.kind == kind]
        if not found:
            continue
        out.append(f"{kind}:")
        for lang in languages:
            out += ["  " + f.line() for f in [f for f in found if f.language == lang][:examples]]
    return out
