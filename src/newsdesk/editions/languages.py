"""Whether each edition is in its own language: every card's headline and lead is written in the
edition's language, or carries the mark of the language it is in (editions/cards.py language_mark).

    defects = unmarked_parts(card, "en")      # ["headline"]: a Chinese headline shown in the en edition unmarked
    counts = edition_languages(cards, "en")   # the shares benchmarks/edition_languages.py prints

The languages are read again from the text as published, not from the card's own fields, so an
edition stored before the marks existed is measured the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

from newsdesk.text.language import detect_language

PARTS = ("headline", "lead")


def card_text(card: dict) -> dict[str, str]:
    """The headline and lead a reader sees on a card: a compact card's lead is its excerpt."""
    lead = card.get("excerpt") if card.get("compact") and card.get("excerpt") else None
    if lead is None:
        lead = (card.get("analysis") or {}).get("body") or card.get("summary") or ""
    return {"headline": card.get("headline") or "", "lead": lead}


def unmarked_parts(card: dict, language: str) -> list[str]:
    """The parts of a card shown in another language than `language` with no mark saying so. A lead
    in the headline's language is covered by the headline's mark (one mark per language)."""
    text = card_text(card)
    written = {part: detect_language(text[part]) if text[part].strip() else "" for part in PARTS}
    marks = card.get("language_mark") or {}
    out = []
    for part in PARTS:
        if not written[part] or written[part] == language or marks.get(part):
            continue
        if part == "lead" and marks.get("headline") and written["lead"] == written["headline"]:
            continue
        out.append(part)
    return out


def has_material_in(card: dict, language: str) -> bool:
    """Whether the card's event has a report in `language`: a member whose headline is written in it
    (read from the text, as the English card chooses: write/extractive/english.py)."""
    return any(detect_language(m.get("title") or "") == language for m in card.get("members") or [])


@dataclass
class EditionLanguages:
    language: str
    cards: int = 0
    headline_own: int = 0  # headline in the edition's language
    lead_own: int = 0  # lead in the edition's language (of the cards with a lead)
    leads: int = 0
    marked: int = 0  # cards with a part marked as another language
    unmarked: int = 0  # cards with a part in another language and no mark: what must be 0
    # The main list: every card but those folded at the end (the English edition's "Reported in Chinese")
    # and those not about AI (其他 / Other).
    main: int = 0
    main_both_own: int = 0  # headline and lead in the edition's language (a card with no lead: its headline)
    with_material: int = 0  # cards whose event has a report in the edition's language
    with_material_headline_own: int = 0
    folded: int = 0

    def line(self) -> str:
        def share(n: int, of: int) -> str:
            return f"{n}/{of} ({n / of:.0%})" if of else "0/0"

        return (
            f"{self.language}: {self.cards} cards; headline in {self.language} {share(self.headline_own, self.cards)}, "
            f"lead in {self.language} {share(self.lead_own, self.leads)}, marked other-language "
            f"{share(self.marked, self.cards)}, other-language unmarked {share(self.unmarked, self.cards)}; "
            f"main list {self.main} ({self.folded} folded), headline and lead in {self.language} "
            f"{share(self.main_both_own, self.main)}; with material in {self.language}: headline in "
            f"{self.language} {share(self.with_material_headline_own, self.with_material)}"
        )


def edition_languages(cards: list[dict], language: str, into: EditionLanguages | None = None) -> EditionLanguages:
    """Counts over one edition's cards (or added into `into`, over several days)."""
    out = into or EditionLanguages(language)
    for card in cards:
        text = card_text(card)
        out.cards += 1
        out.headline_own += detect_language(text["headline"]) == language
        if text["lead"].strip():
            out.leads += 1
            out.lead_own += detect_language(text["lead"]) == language
        marks = card.get("language_mark") or {}
        out.marked += any(marks.get(p) for p in PARTS)
        out.unmarked += bool(unmarked_parts(card, language))
        if card.get("folded"):
            out.folded += 1
        elif not card.get("other"):
            out.main += 1
            out.main_both_own += all(detect_language(t) == language for t in text.values() if t.strip())
        if has_material_in(card, language):
            out.with_material += 1
            out.with_material_headline_own += detect_language(text["headline"]) == language
    return out
