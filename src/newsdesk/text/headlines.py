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
