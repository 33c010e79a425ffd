"""A headline as a reader sees it on a day's card or in the weekly: without its column's label.

    shown_headline("[AINews] Nano Banana 2 aka Gemini 3.1 Flash Image Preview")  # "Nano Banana 2 aka …"

A newsletter files its issues under a label in brackets ("[AINews] …", "【速递】…"): the outlet's
furniture, not the news. A bracketed part opening or closing the headline is taken off only when it is
a column's word (lexicon/column-labels.txt: "[AINews] …", "… [Podcast]"), with the dash or colon that
set it off; else it is the headline's own words ("【GPT-5.4发布】三大亮点一览": the subject).
A headline that is its label alone stays as it is.

    is_rumour("OpenAI reportedly in talks to raise $40B")  # True: a rumour, leak or report of plans
"""

from __future__ import annotations

import re

from newsdesk.text import lexicon

_BRACKETED = r"(?:\[([^\[\]\n]{1,30})\]|【([^【】\n]{1,30})】|［([^［］\n]{1,30})］)"
_OPENING = re.compile(r"^\s*" + _BRACKETED + r"[\s—–\-:：|｜]*")
_CLOSING = re.compile(r"\s*" + _BRACKETED + r"\s*$")


def _is_label(match: re.Match[str] | None) -> bool:
    word = next((group for group in match.groups() if group), "") if match else ""
    return word.strip().lower() in lexicon.words("column-labels")


def shown_headline(headline: str) -> str:
    """The headline without a bracketed column label at its start or end (see the module)."""
    text = (headline or "").strip()
    opening = _OPENING.match(text)
    rest = text[opening.end() :] if opening and _is_label(opening) else text
    closing = _CLOSING.search(rest)
    if closing and _is_label(closing):
        rest = rest[: closing.start()]
    return rest.strip() or text


# lexicon/happenings.toml `rumour`: words that make a headline a rumour, a leak or a report of plans.
RUMOUR = re.compile("|".join(lexicon.table("happenings")["rumour"]), re.IGNORECASE)


def is_rumour(headline: str) -> bool:
    """A rumour, leak or report of plans: its own happening, not the launch it foretells."""
    return bool(RUMOUR.search(headline))


# Where a cut title may end instead: after a sentence it closed, else before a clause's comma, semicolon,
# colon or dash (ASCII and full-width).
_SENTENCE_END = re.compile(r"[.!?。！？](?=\s)")
_CLAUSE_BREAK = re.compile(r"\s*(?:[,;:，；：]|\s[—–-])\s")
_MIN_WORDS = 4  # what a mended title keeps at least: fewer words name nothing


def mended(title: str, text: str) -> str:
    """A title that is its own text's opening cut inside a word (an X post's feed title, a newsletter
    line's: "The result drew unusually strong validation from mathematicians and adjacent researchers.
    Timothy Go") ends where the text's words let it: after its last whole sentence, else at its last
    clause break with "…", else at its last whole word with "…". Any other title as it is: one that
    ends on a whole word is read as whole (a podcast's long title its summary repeats is one)."""
    shown = " ".join((title or "").split())
    flat = " ".join((text or "").split())
    if not shown or len(flat) <= len(shown) or not flat.startswith(shown):
        return title
    if not (shown[-1].isalnum() and flat[len(shown)].isalnum()):
        return title
    for pattern, tail in ((_SENTENCE_END, ""), (_CLAUSE_BREAK, "…")):
        ends = [m.start() + (1 if tail == "" else 0) for m in pattern.finditer(shown)]
        end = ends[-1] if ends else 0
        if end and len(shown[:end].split()) >= _MIN_WORDS:
            return shown[:end].rstrip(" .。") + tail
    words = shown.rsplit(" ", 1)[0] if " " in shown else ""
    return words + "…" if len(words.split()) >= _MIN_WORDS else title
