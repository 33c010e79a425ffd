"""The English edition's extractive card: an event told in English from its English material alone.

    card = english_card(event_brief(conn, event_id))   # an ExtractiveCard, language "en"

An English-only reader keeps the English edition only if its cards are English. An event with
English material (members whose headline is written in English) leads with the English statement
that best tells its news: an English member's own sentences (body, source summary, feed summary),
or another outlet's English headline that reads as a statement of the news ("OpenAI introduces
GPT-5.4 with more knowledge-work capability"), ranked by (_statements) whether it tells what the
card's headline names, whether it comes from the event's own party or an independent outlet rather
than a partner's channel (Windsurf's "GPT-5.4 is now available in Windsurf…": the catalog's category
and companies.toml tell whose channel speaks of whose product), a report's sentences before a
headline, then the lead report, the outlet's tier and the material. The card's headline is the lead
report's (the lab's "Introducing GPT-5.4") when the statement tells what it names, else the
statement's own report's. Only English sentences are taken: a harvest item under an English
headline is summarised in Chinese, and that summary stays in the Chinese edition. When no English
statement exists the lead says so in one line, never a Chinese paragraph under an English headline.

An event with no English material is card.py's card as before: in Chinese, translated by a model
when one is configured (write/translate.py), else folded by the English edition into its
"Reported in Chinese" list (editions/cards.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from newsdesk.core.labels import Labels
from newsdesk.rank.happenings import (
    DEAL,
    FIRST_PARTY_CATEGORIES,
    INCIDENT,
    MONEY,
    POLICY,
    RELEASE,
    RESULT,
    read_kinds,
)
from newsdesk.text.companies import first_party_name, names_outlet
from newsdesk.text.headlines import shown_headline
from newsdesk.text.language import detect_language
from newsdesk.text.sentences import (
    closed,
    dangling_opening,
    describes_article,
    is_complete,
    is_promotion,
    key_numbers,
    length,
    names_subject,
    near_duplicate,
    shingles,
    terms,
)
from newsdesk.write.extractive.card import (
    LEVEL_RANK,
    MAX_WORDS,
    MIN_WORDS,
    ExtractiveCard,
    LeadSentence,
    extractive_card,
    lead_sentences,
    member_headline,
    member_text,
    only_line,
    updates,
)

LANGUAGE = "en"
# The one line an English card leads with when its English material is the headline alone and the
# coverage's text is in another language (a title-only event is card.py's: its disclosure says so).
HEADLINE_ONLY = "Only the headline is in English: the report's summary is in {language}."
HEADLINE_ONLY_MANY = "Only the headline is in English: the reports' summaries are in {language}."
# The English reports are headlines alone and the coverage's text is another outlet's (Anthropic's
# titles over five Chinese reports): their summaries are not "the report's".
HEADLINE_ONLY_OTHER = "Only the headline is in English: the other report is in {language}."
HEADLINE_ONLY_OTHERS = "Only the headline is in English: the other reports are in {language}."


@dataclass
class EnglishCard(ExtractiveCard):
    note: str = ""  # HEADLINE_ONLY when no English sentence was found but other text was, else ""

    def body(self) -> str:
        text = super().body()
        return f"{self.note}\n\n{text}" if self.note else text


def english_members(members: list[dict]) -> list[dict]:
    """The members an English card may quote: those whose headline is written in English (read from
    the text: an English catalog entry's podcast may title an episode in German), duplicates left out."""
    return [m for m in members if m.get("role") != "duplicate" and detect_language(m.get("title") or "") == LANGUAGE]


def told_only_in_chinese(brief: dict, headline: str) -> bool:
    """An event the English edition lists apart, under "Reported in Chinese": no English report, and
    its headline (as its English card shows it) written in Chinese. The one rule of the fold: the English
    weekly (weekly.py) asks it of an event, editions/cards.py of a day's card (brief {"members": the
    day's reports})."""
    return detect_language(headline) == "zh" and not english_members(brief.get("members") or [])


def _in_english(text: str) -> bool:
    return detect_language(text) == LANGUAGE


def _english_lead(member: dict, names: set[str]) -> list[LeadSentence]:
    """Up to card.MAX_LEAD English sentences from one member's own text, its headline's facts first,
    none its headline again: a post whose feed title is its text's first 100 characters (an X post, a
    newsletter's line) led its card with the same words twice, and the checker held the card back."""
    headline = shown_headline(member["title"])
    chosen = lead_sentences([member], LANGUAGE, set(terms(member["title"])), names, headline=headline)
    return [s for s in chosen if detect_language(s.text) == LANGUAGE and s.text.strip() != member["title"].strip()]


def english_card(
    brief: dict, *, until: datetime | None = None, growth: dict[str, list[int]] | None = None
) -> ExtractiveCard:
    """The event's card for the English edition (see the module's docstring); `until` and `growth`
    as card.extractive_card takes them (the headline and lead from the event's first day)."""
    base = extractive_card(brief, LANGUAGE, until=until, growth=growth)
    members = brief.get("members") or []
    # The first day's English reports: an English report of a later day is told on its day, as an update.
    own = english_members([m for m in members if until is None or m["published_at"] < until])
    if not own:
        return base  # no English material: folded, or translated by a model
    names = {a.split(":", 1)[1].lower() for a in brief.get("anchors") or [] if a.startswith("model:")}
    leads = {m["item_id"]: _english_lead(m, names) for m in own}
    # The report that names the event: the lead report, else the one with English sentences, then the
    # best material (the card's headline unless no statement tells what it names).
    named = min(
        own,
        key=lambda m: (
            m.get("role") != "lead",
            cut_title(m),
            not leads[m["item_id"]],
            LEVEL_RANK.get(m.get("material_level") or "", 9),
        ),
    )
    told = _statements(own, named, leads, names)
    best, lead = told[0] if told else (named, [])
    # The lead report names the event (the lab's "Introducing GPT-5.4", not a partner's changelog) when
    # the statement chosen tells the same thing; else headline and lead come from one report.
    if best is not named and not _same_story(named["title"], lead, names):
        named = best
    headline = member_headline(named)  # without its column's label ("[AINews] …"), a cut title mended
    source = best.get("source_name") or best.get("source_id") or ""
    replaced = ("headline", "headline_item_id", "lead", "numbers", "headline_only", "only_line", "updates", "facts")
    fields = {k: v for k, v in vars(base).items() if k not in replaced}
    # What the day's own reports are written in: a later day's Chinese report is no summary of this one.
    note = "" if lead else _headline_only([m for m in members if until is None or m["published_at"] < until])
    # Later days' paragraphs say what their English reports add beyond this card's own lead, in their
    # English sentences: a day of Chinese reports only is told on the Chinese card (the replayed Opus 4.6
    # page's English analysis carried "Update (2026-02-06): Claude Opus 4.6在多项关键评测…").
    reports = english_members(members)
    key_terms = set(terms(" ".join(m.get("title") or "" for m in reports)))
    said = [s.text for s in lead or []]
    updated = updates(reports, LANGUAGE, key_terms, names, growth or {}, said, keep=_in_english)
    facts = [f for f in base.facts if not f.startswith("update ")] + [f"update {day}" for day, _ in updated]
    if note:  # a fact code computed, as the coverage line's counts: the checker reads it as material
        facts.append(note)
    fields["facts"], fields["updates"] = facts, updated
    return EnglishCard(
        **fields,
        headline=headline,
        headline_item_id=named["item_id"],
        # A headline-only card's lead is its headline, which body() leaves out (the card shows it).
        lead=lead or [LeadSentence(headline, best["item_id"], source)],
        numbers=list(dict.fromkeys(key_numbers(headline) + [n for s in lead for n in key_numbers(s.text)])),
        note=note,
        headline_only=not lead,
        # No English sentence and no other language's text to point at: card.py's one line says so.
        only_line="" if lead or note else only_line([best], LANGUAGE),
    )


def cut_title(member: dict) -> bool:
    """The report's title is its own text's first characters cut off, not a headline written for it:
    an X post's or a newsletter line's feed title ("Anthropic launched Claude Opus 4.8, describing it as
    an Opus 4.7 update with “s"), cut inside a word or past 80 characters. Such a title heads the card
    only where no report has a headline (a cut quote is an unbalanced one, and the checker holds it)."""
    title = " ".join((member.get("title") or "").split()).removesuffix("…").removesuffix("...").rstrip()
    text = " ".join((member.get("summary") or member.get("body") or "").split())
    if not title or len(text) <= len(title) or not text.startswith(title):
        return False
    return len(title) >= 80 or (title[-1].isalnum() and text[len(title)].isalnum())


def _statements(
    own: list[dict], named: dict, leads: dict[int, list[LeadSentence]], names: set[str]
) -> list[tuple[dict, list[LeadSentence]]]:
    """What may lead the card, best first: each English report's own sentences, and another outlet's
    headline where it states the news of the card's headline (`named`'s), a partner's never. A statement that tells
    that news goes first; then one from the event's own party or an independent outlet before a
    partner's (Windsurf's "GPT-5.4 is now available in Windsurf…" under OpenAI's "Introducing GPT-5.4":
    an availability notice, where Ars Technica's "OpenAI introduces GPT-5.4 with more knowledge-work
    capability" states the news); a report's sentences before a headline, which says less; then the
    lead report, the stronger outlet (its catalog tier) and the better material."""
    found: list[tuple[dict, list[LeadSentence], bool]] = [(m, leads[m["item_id"]], False) for m in own]
    for m in own:
        title = m["title"].strip()
        if (
            m.get("source_id") != named.get("source_id")
            and states_news(title)
            and not near_duplicate(shingles(title), shingles(named["title"]))
        ):
            found.append((m, [LeadSentence(closed(title), m["item_id"], m.get("source_name") or "")], True))
    # The event's subject, as the lead report names it: whose channel is the event's own party.
    subject = " ".join([named["title"], *names])

    def rank(c: tuple[dict, list[LeadSentence], bool]) -> tuple:
        m, lead, headline = c
        return (
            m is not named and not _same_story(named["title"], lead, names),
            _partner(m, named, subject),
            headline,
            m.get("role") != "lead",
            m.get("outlet_tier") or 9,
            LEVEL_RANK.get(m.get("material_level") or "", 9),
        )

    # A headline is taken only where it tells the card's news (it never leads a story of its own), and
    # never a partner's: its headline is the notice itself ("Claude Sonnet 4.6 is now available in
    # Windsurf" under Anthropic's "Introducing Claude Sonnet 4.6").
    found = [c for c in found if c[1] and not (c[2] and (rank(c)[0] or rank(c)[1]))]
    return [(m, lead) for m, lead, _ in sorted(found, key=rank)]


def states_news(title: str) -> bool:
    """A headline that reads as a statement of news: it opens on its subject ("OpenAI introduces
    GPT-5.4 with…", not "Introducing GPT-5.4"), says what happened after it in a happening's words
    (rank/happenings.py: a release, money, a deal, a ruling, an incident, a result), asks nothing,
    is no how-to, opinion, explainer or roundup (the happenings' routine kinds), and is a sentence's
    length; no series or byline after a "|", no "[Newsletter]" label first."""
    s = title.strip()
    if not re.match(r"[A-Z0-9]", s) or "?" in s or "|" in s or not names_subject(s):
        return False
    if read_kinds(s, "").routine or not MIN_WORDS <= length(s) <= MAX_WORDS:
        return False
    said = closed(s)
    if not is_complete(said) or describes_article(said) or is_promotion(said) or dangling_opening(said):
        return False
    first = re.match(r"\S+\s*", s)
    rest = s[first.end() :] if first else ""
    return any(p.search(rest) for p in (RELEASE, MONEY, DEAL, POLICY, INCIDENT, RESULT))


def _partner(member: dict, named: dict, subject: str) -> bool:
    """A company's or lab's own channel telling of another's product (a partner's availability notice,
    an integration's changelog): not the lead report's outlet, and its company not named by the
    event's subject. A media outlet is independent, and the event's own party speaks for itself."""
    outlet = member.get("source_name") or ""
    own_channel = member.get("outlet_category") in FIRST_PARTY_CATEGORIES or first_party_name(outlet)
    if not own_channel or member.get("source_id") == named.get("source_id"):
        return False
    return not names_outlet(subject, outlet)


def _same_story(title: str, lead: list[LeadSentence], names: set[str]) -> bool:
    """The lead's sentences tell what the headline names: a model name of the event's or a versioned
    name of the headline ("GPT-5.4") in both, or two of the headline's terms in them."""
    said = " ".join(s.text for s in lead).lower()
    versioned = {w.strip(".,:;!?()\"'") for w in title.lower().split()}
    versioned = {w for w in versioned if any(c.isdigit() for c in w) and any(c.isalpha() for c in w)}
    if any(n in title.lower() and n in said for n in names) or any(v in said for v in versioned):
        return True
    return len(set(terms(title)) & set(terms(said))) >= 2


def _headline_only(members: list[dict]) -> str:
    """HEADLINE_ONLY in the language the coverage's text is written in (HEADLINE_ONLY_OTHER when the
    English reports are headlines alone and the text is the other reports'); "" when there is no
    text, or when it is English with no sentence to lead with (a summary about the article: card.py's case)."""
    members = [m for m in members if m.get("role") != "duplicate"]
    english = {m["item_id"] for m in english_members(members)}
    own = [text for m in members if m["item_id"] in english and (text := member_text(m).strip())]
    others = [text for m in members if m["item_id"] not in english and (text := member_text(m).strip())]
    texts = own + others
    written = detect_language("\n".join(texts)) if texts else LANGUAGE
    if written == LANGUAGE:
        return ""
    t = Labels(LANGUAGE)
    if own:
        line = HEADLINE_ONLY if len(texts) == 1 else HEADLINE_ONLY_MANY
    else:
        line = HEADLINE_ONLY_OTHER if len(others) == 1 else HEADLINE_ONLY_OTHERS
    return line.format(language=t["lang_" + written] if written in ("zh", "en") else t.lang_other)
