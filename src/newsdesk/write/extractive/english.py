"""The English edition's extractive card: an event told in English from its English material alone.

    card = english_card(event_brief(conn, event_id))   # an ExtractiveCard, language "en"

An English-only reader keeps the English edition only if its cards are English. An event with
English material (members whose headline is written in English) gets its lead from the English
member whose own text (body, source summary, feed summary) gives English sentences, else the lead
report, else the best read; its headline from the same member, or from the lead report when the lead
tells what that headline names (the lab's "Introducing GPT-5.4" over a partner's changelog line).
Only English sentences are taken: a harvest item under an English headline is summarised in Chinese, and that summary stays in the Chinese edition. When no English sentence
exists the lead says so in one line, never a Chinese paragraph under an English headline.

An event with no English material is card.py's card as before: in Chinese, translated by a model
when one is configured (write/translate.py), else folded by the English edition into its
"Reported in Chinese" list (editions/cards.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from newsdesk.core.labels import Labels
from newsdesk.text.language import detect_language
from newsdesk.text.sentences import key_numbers, terms
from newsdesk.write.extractive.card import (
    LEVEL_RANK,
    ExtractiveCard,
    LeadSentence,
    extractive_card,
    lead_sentences,
    member_text,
    only_line,
    updates,
)

LANGUAGE = "en"
# The one line an English card leads with when its English material is the headline alone and the
# coverage's text is in another language (a title-only event is card.py's: its disclosure says so).
HEADLINE_ONLY = "Only the headline is in English: the report's summary is in {language}."
HEADLINE_ONLY_MANY = "Only the headline is in English: the reports' summaries are in {language}."


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


def _english_lead(member: dict, names: set[str]) -> list[LeadSentence]:
    """Up to card.MAX_LEAD English sentences from one member's own text, its headline's facts first."""
    chosen = lead_sentences([member], LANGUAGE, set(terms(member["title"])), names)
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
    # The member with English sentences first (headline and lead from one report), then the lead report,
    # then the best material.
    best = min(
        own,
        key=lambda m: (
            not leads[m["item_id"]],
            m.get("role") != "lead",
            LEVEL_RANK.get(m.get("material_level") or "", 9),
        ),
    )
    lead = leads[best["item_id"]]
    # The lead report names the event (the lab's "Introducing GPT-5.4", not a partner's changelog) when
    # the sentences chosen tell the same thing; else headline and lead come from one report.
    named = next((m for m in own if m.get("role") == "lead"), best)
    if named is not best and not _same_story(named["title"], lead, names):
        named = best
    headline = named["title"].strip()
    source = best.get("source_name") or best.get("source_id") or ""
    replaced = ("headline", "headline_item_id", "lead", "numbers", "headline_only", "only_line", "updates", "facts")
    fields = {k: v for k, v in vars(base).items() if k not in replaced}
    note = "" if lead else _headline_only(members)
    # Later days' paragraphs say what their reports add beyond this card's own lead, not card.py's.
    told = [m for m in members if m.get("role") != "duplicate"]
    key_terms = set(terms(" ".join(m.get("title") or "" for m in told)))
    updated = updates(told, LANGUAGE, key_terms, names, growth or {}, [s.text for s in lead or []])
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
    """HEADLINE_ONLY in the language the coverage's text is written in; "" when there is no text, or
    when it is English with no sentence to lead with (a summary about the article: card.py's case)."""
    texts = [text for m in members if m.get("role") != "duplicate" and (text := member_text(m).strip())]
    written = detect_language("\n".join(texts)) if texts else LANGUAGE
    if written == LANGUAGE:
        return ""
    t = Labels(LANGUAGE)
    line = HEADLINE_ONLY if len(texts) == 1 else HEADLINE_ONLY_MANY
    return line.format(language=t["lang_" + written] if written in ("zh", "en") else t.lang_other)
