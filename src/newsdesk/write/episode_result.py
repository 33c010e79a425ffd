"""What an episode digest's writers (write/episode.py, write/translate.py, write/extractive/) hand
back: an EpisodeResult, keyed by the episode's slug, with the line on the episode's language, and a
stored digest read back when its material is unchanged. editions/episode.py stores the results.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass, field

from sqlalchemy.engine import Engine

from newsdesk.core.labels import UI_LANGUAGES, Labels
from newsdesk.core.model import Turn
from newsdesk.store import edition_rows as editions_store
from newsdesk.text.language import detect_language
from newsdesk.write.digest import Digest, parse_digest
from newsdesk.write.transcript import QuoteReport


def spoken_language(turns: list[Turn]) -> str:
    """The language an episode is spoken in (zh, en or other), from turns across the whole transcript."""
    step = max(1, len(turns) // 40)
    return detect_language(" ".join(turn.text for turn in turns[::step])[:4000])


def language_note(turns: list[Turn], language: str, *, quotes_as_spoken: bool = False) -> str:
    """The line a digest in `language` opens with when its episode is spoken in another language
    ("This episode is in Chinese."), and, for a digest that quotes it verbatim, that its quotes are
    untranslated; "" when the episode is in the digest's language."""
    spoken = spoken_language(turns)
    if spoken == language:
        return ""
    t = Labels(language)
    note = t.episode_in.format(language=t["lang_" + (spoken if spoken in UI_LANGUAGES else "other")])
    return note + (("" if language == "zh" else " ") + t.quotes_as_spoken if quotes_as_spoken else "")


@dataclass
class EpisodeResult:
    key: str
    language: str
    text: str
    digest: Digest
    status: str  # clean | flagged
    findings: list[str]
    material_key: str
    reused: bool = False  # the stored edition was current: nothing written, no model call
    quotes: QuoteReport = field(default_factory=QuoteReport)
    meta: dict = field(default_factory=dict)  # what its edition stores beside the text (editions/episode.py)


def episode_slug(title: str, number: str | int | None) -> str:
    words = re.findall(r"[a-z0-9]+", unicodedata.normalize("NFKD", title).lower())
    base = "-".join(words)[:60].strip("-")
    digest = hashlib.sha1(title.encode()).hexdigest()[:8]
    parts = [str(number)] if number not in (None, "") else []
    parts.append(base or digest)
    return "-".join(parts)[:80]


def stored_edition(engine: Engine, key: str, language: str) -> dict | None:
    with engine.connect() as conn:
        return editions_store.stored_edition(conn, "episode", key, language)


def reuse(row: dict, language: str) -> EpisodeResult:
    meta = row.get("meta") or {}
    digest = parse_digest(row["body"], language)
    for section, span in zip(digest.sections, meta.get("section_lines", [])):
        section.first_line, section.last_line = span  # which transcript lines each section covers
    return EpisodeResult(
        key=row["key"],
        language=language,
        text=row["body"],
        digest=digest,
        status=row["status"],
        findings=list(meta.get("findings", [])),
        material_key=row["material_key"],
        reused=True,
        meta=meta,
    )
