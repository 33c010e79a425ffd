"""The major companies as outlets and headlines name them (text/lexicon/companies.toml): which one a
text names, and whether an outlet's name is a company's own channel ("OpenAI Blog") or a media
outlet named after its owner (腾讯科技). Read by the ranking (who speaks: rank/happenings.py,
rank/score.py), the English card (a partner's notice) and the import (whose channel an imported
outlet is: ingest/run.py)."""

from __future__ import annotations

import re

from newsdesk.text import lexicon


def pattern(*alternatives: str) -> re.Pattern:
    """One pattern of alternatives. A \\b at either end means "not inside a Latin word": Python's \\b
    would also refuse a boundary between "Claude" and the Chinese word that follows it."""

    def edges(a: str) -> str:
        a = "(?<![A-Za-z0-9])" + a[2:] if a.startswith(r"\b") else a
        return a[:-2] + "(?![A-Za-z0-9])" if a.endswith(r"\b") else a

    return re.compile("|".join(f"(?:{edges(a)})" for a in alternatives), re.IGNORECASE)


# Companies whose releases and statements are news by themselves (the guide's "major lab or
# big-tech company"), as headlines name them: companies.toml's `major`.
MAJOR = pattern(*(p for c in lexicon.table("companies")["company"] for p in c.get("major", ())))
# What a company's own channel adds to its name ("OpenAI Developer Blog", "Anthropic News", "Meta AI", "OpenAI YouTube").
_CHANNEL = re.compile(
    r"^(\s|[-·|:&]|blog|news|newsroom|developers?|research|engineering|ai|labs?|official|team|docs|changelog|"
    r"code|platform|youtube|cookbook|官方|博客|开发者|研究院?)*$",
    re.IGNORECASE,
)
# Each major company's own spellings (companies.toml's `major`), to tell which one a text names.
_MAJORS = {c["key"]: pattern(*c["major"]) for c in lexicon.table("companies")["company"] if c.get("major")}


def first_party_name(name: str) -> bool:
    """An outlet named as a major company's own channel (OpenAI Blog, Claude), not a media outlet
    named after its owner (腾讯科技 is Tencent's news site, not Tencent speaking)."""
    return bool(MAJOR.search(name)) and bool(_CHANNEL.match(MAJOR.sub(" ", name)))


def companies_named(text: str) -> set[str]:
    """The major companies a text names, by companies.toml's key: "GPT-5.4" and "OpenAI News" both openai."""
    return {key for key, pattern in _MAJORS.items() if pattern.search(text)}


def names_outlet(text: str, outlet: str) -> bool:
    """The text names the company whose channel the outlet is: a major company either names
    ("Introducing GPT-5.4" and "OpenAI Research News"), or a word of the outlet's name beyond its
    channel words ("Windsurf 1.9 ships" and "Windsurf Blog")."""
    if companies_named(text) & companies_named(outlet):
        return True
    said = {w.lower() for w in re.findall(r"[A-Za-z0-9]+", text)}
    own = [w.lower() for w in re.findall(r"[A-Za-z0-9]+", outlet) if not _CHANNEL.match(w)]
    return any(len(w) >= 3 and w in said for w in own)
