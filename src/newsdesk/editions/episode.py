"""The episode digest as an edition: its stored row per language, from what its writers hand back
(write.episode_result.EpisodeResult: the text, the digest as data, its meta). The writers, write/
episode.py and write/translate.py with a model and write/extractive/ without, make the digest;
this stores it.

    episode_editions(engine, settings, writers, turns, title="…")   # every language, as [write] by says
    build_episode(engine, settings, llm, turns, title="…")          # the model's zh digest, stored as written
    build_translation(engine, settings, llm, zh, turns)             # its English edition, stored as written
    build_extractive_episode(engine, turns, title="…")              # the extractive digest, stored
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

from sqlalchemy.engine import Engine

from newsdesk.core.model import Turn
from newsdesk.llm.chat import ChatModel
from newsdesk.store import edition_rows as editions_store
from newsdesk.write.digest import Digest
from newsdesk.write.episode_result import EpisodeResult

if TYPE_CHECKING:
    from newsdesk.write.writers import Writers


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


def save_edition(engine: Engine, result: EpisodeResult) -> EpisodeResult:
    """`result` stored as its edition, unless it is the stored one read back (reused); returns it."""
    if result.reused:
        return result
    meta = result.meta
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
    return result


def episode_editions(
    engine: Engine,
    settings,
    writers: Writers,
    turns: list[Turn],
    *,
    title: str,
    number: str | int | None = None,
    aired: datetime | None = None,
) -> list[EpisodeResult]:
    """The episode's digest in every edition language, by whoever writes (write/writers.py), each
    stored as soon as it is written (a translation that fails leaves the Chinese edition stored).
    `aired`, the episode's own date, dates the digest (publish/outputs.py), not the time it was built."""
    results = writers.episode(engine, settings, turns, title=title, number=number)
    return [save_edition(engine, _aired(r, aired)) for r in results]


def _aired(result: EpisodeResult, aired: datetime | None) -> EpisodeResult:
    if aired is not None:
        result.meta["aired"] = (aired if aired.tzinfo else aired.replace(tzinfo=UTC)).isoformat()
    return result


def build_episode(engine: Engine, settings, llm: ChatModel, turns: list[Turn], **options) -> EpisodeResult:
    """The model-written Chinese digest (write.episode.write_episode), stored as written."""
    from newsdesk.write.episode import write_episode

    return save_edition(engine, write_episode(engine, settings, llm, turns, **options))


def build_translation(
    engine: Engine, settings, llm: ChatModel, zh: EpisodeResult, turns: list[Turn], **options
) -> EpisodeResult:
    """The English edition of `zh` (write.translate.translate_episode), stored as written."""
    from newsdesk.write.translate import translate_episode

    return save_edition(engine, translate_episode(engine, settings, llm, zh, turns, **options))


def build_extractive_episode(engine: Engine, turns: list[Turn], **options) -> EpisodeResult:
    """The extractive digest (write.extractive.checked.checked_episode), stored."""
    from newsdesk.write.extractive.checked import checked_episode

    return save_edition(engine, checked_episode(engine, turns, **options))
