"""A headline as a reader sees it on a day's card or in the weekly: without its column's label.

    shown_headline("[AINews] Nano Banana 2 aka Gemini 3.1 Flash Image Preview")  # "Nano Banana 2 aka …"

A newsletter files its issues under a label in brackets ("[AINews] …", "【速递】…"): the outlet's
furniture, not the news. A bracketed part opening the headline is always such a label; one closing it
is taken off when it is a column's word (lexicon/column-labels.txt: "… [Podcast]"), else it may be
the headline's own words. A headline that is its label alone stays as it is.
"""

from __future__ import annotations

import re

from newsdesk.text import lexicon

_OPENING = re.compile(r"^\s*(?:\[[^\[\]\n]{1,30}\]|【[^【】\n]{1,30}】)\s*")
_CLOSING = re.compile(r"\s*(?:\[([^\[\]\n]{1,30})\]|【([^【】\n]{1,30})】)\s*$")


def shown_headline(headline: str) -> str:
    """The headline without a bracketed column label at its start or end (see the module)."""
    text = (headline or "").strip()
    rest = _OPENING.sub("", text, count=1)
    closing = _CLOSING.search(rest)
    if closing and (closing.group(1) or closing.group(2)).strip().lower() in lexicon.words("column-labels"):
        rest = rest[: closing.start()]
    return rest.strip() or text
