"""The episode digest as an edition: its key (the episode's slug), its stored row per
language, and a stored digest read back when its material is unchanged. The writers
(write/episode.py, write/translate.py, write/extractive/) make the digest; this stores it.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass, field

from sqlalchemy.engine import Engine

from newsdesk.ingest.normalize import detect_language
from newsdesk.labels import UI_LANGUAGES, Labels
from newsdesk.model import Turn
from newsdesk.store import edition_rows as editions_store
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


def front_summary(digest: Digest, extractive: bool) -> str:
    """The edition's one-paragraph summary (front matter `summary`, the feeds' description). A
    written digest's first summary bullet is its thesis; an extractive one names what the
    episode covers, its sections' topics, then its first quoted claim."""
    first = digest.summary[0] if digest.summary else ""
    if not extractive:
        return first
    fallback = ("其余讨论", "Further discussion")  # extractive/episode.py's heading where a section has no topic
    seen = list(dict.fromkeys(s.topic for s in digest.sections if s.topic and s.topic not in fallback))
    if not seen:
        return first
    if digest.language == "zh":
        return f"本期谈到：{'、'.join(seen)}。{first}".strip()
    covered = seen[0] if len(seen) == 1 else f"{', '.join(seen[:-1])} and {seen[-1]}"
    return f"On {covered}. {first}".strip()


def save_edition(engine: Engine, result: EpisodeResult, meta: dict) -> None:
    meta = {**meta, "summary": meta.get("summary") or front_summary(result.digest, bool(meta.get("extractive")))}
    with engine.begin() as conn:
        editions_store.store_edition(
            conn,
            kind="episode",
            key=result.key,
            language=result.language,
            title=result.digest.title,
            body=result.text,
            meta=meta,
            status=result.status,
            material_key=result.material_key,
        )


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
    )
