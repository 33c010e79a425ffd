"""Who writes each output, chosen once from `[write] by`: the model, or code choosing from the material.

    w = writers(settings, llm)                  # ModelWriters(llm) or ExtractiveWriters()
    w.cards(engine, settings, limit=N)          # every due event's analysis (a WriteStats)
    w.card(engine, settings, brief, "zh")       # one event's, if due (a worker's analysis unit)
    w.weekly(engine, settings, "2025-W09")      # the weekly report (a WeeklyStats, its parts in .editions)
    w.episode(engine, settings, turns, title=…) # the episode digest and its translation (EpisodeResults)

Both make the same rows (cards as analyses; the weekly's parts and the episode's digests, which
editions/weekly.py and editions/episode.py store as their editions), so the editions, site, feeds and web app never ask who wrote it. A model-written part that fails its checks after its rewrite is never
published: write.failed.stand_in() keeps its draft and publishes the extractive part in its
place, for every output. `llm` is asked for nothing unless the model writes (a LazyLLM
stays closed).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Protocol

from sqlalchemy.engine import Engine

from newsdesk.core.config import Settings
from newsdesk.core.model import Turn
from newsdesk.llm.chat import ChatModel

if TYPE_CHECKING:  # the writers themselves load on first use: choosing one imports nothing heavy
    from newsdesk.write.analysis import WriteStats
    from newsdesk.write.episode_result import EpisodeResult
    from newsdesk.write.weekly import WeeklyParts, WeeklyStats

Progress = Callable[[str], None] | None
Counted = Callable[[int, int], None] | None


class Writers(Protocol):
    by: str  # "model" | "extractive": what the run's closing lines and commands say

    def cards(
        self,
        engine: Engine,
        settings: Settings,
        *,
        limit: int | None = None,
        progress: Progress = None,
        counted: Counted = None,
    ) -> WriteStats: ...

    def card(self, engine: Engine, settings: Settings, brief: dict, language: str) -> bool: ...

    def weekly(self, engine: Engine, settings: Settings, week: str | None = None, **caps) -> WeeklyStats: ...

    def episode(
        self, engine: Engine, settings: Settings, turns: list[Turn], *, title: str, number: str | int | None = None
    ) -> Iterable[EpisodeResult]: ...  # each language's digest, handed on as it is done


class ModelWriters:
    """The model writes; every part is checked, rewritten once, and replaced by its extractive version if
    it still fails. An endpoint that cannot answer (a mistyped base_url, a server down) hands the rest
    of the run to the extractive writer: readers get cards chosen from the material, never "No
    analysis yet.", and `unavailable` says why for the run's summary and the stages' problems."""

    by = "model"

    def __init__(self, llm: ChatModel):
        self.llm = llm
        self.unavailable: str | None = None  # the endpoint's error, once a call found it cannot answer
        self.stood_in: list[str] = []  # the parts the extractive writer wrote in the model's place, in order

    def cards(self, engine, settings, *, limit=None, progress=None, counted=None) -> WriteStats:
        from newsdesk.write.analysis import WriteStats, write_analyses
        from newsdesk.write.extractive.checked import store_cards
        from newsdesk.write.translate import translate_cards

        if self.unavailable:
            stats = WriteStats(stopped=self.unavailable, unavailable=True)
        else:
            stats = write_analyses(engine, settings, self.llm, limit=limit, progress=progress, counted=counted)
        if stats.unavailable:
            self.unavailable = stats.stopped
            # Events the model did not reach and that have no card yet get their extractive card now;
            # a card the model wrote before stays until the model can write again.
            stored = store_cards(engine, settings, limit=limit, missing_only=True)
            stats.fallback = stored.written
            stats.written += stored.written
            stats.clean += stored.written - stored.flagged
            stats.flagged += stored.flagged
            self.stood_in += [f"{stats.fallback} event cards"] if stats.fallback else []
        elif not stats.stopped:  # an extractive card with no material in its edition's language, translated
            stats.translated = translate_cards(engine, settings, self.llm)
        return stats

    def card(self, engine, settings, brief, language) -> bool:
        from newsdesk.write.analysis import analysis_key, due, stored_analysis, system_prompt, write_analysis

        system = system_prompt(language, settings)
        stored = stored_analysis(engine, brief["event_id"], language)
        if not due(stored, analysis_key(language, system, self.llm.model), brief):
            return False
        write_analysis(engine, self.llm, brief, language, system)
        return True

    def weekly(self, engine, settings, week=None, **caps) -> WeeklyStats:
        from newsdesk.write.extractive.checked import stand_in_weekly
        from newsdesk.write.weekly import write_weekly

        if self.unavailable:  # no call that cannot return: the extractive weekly, as with no model
            stats = ExtractiveWriters().weekly(engine, settings, week, **caps)
            self.stood_in += [f"weekly {stats.week}"] if stats.built else []
            return stats
        stats = write_weekly(engine, settings, self.llm, week, **caps)
        if stats.status == "flagged":  # never published as written: the failed parts' extracts stand in
            stats.replaced, stats.editions[0] = stand_in_weekly(
                engine, settings, stats.editions[0], model=self.llm.model
            )
        stats.editions += other_editions(engine, settings, stats.week, **caps)  # the model writes the Chinese one
        return stats

    def episode(self, engine, settings, turns, *, title, number=None) -> Iterable[EpisodeResult]:
        from newsdesk.llm.errors import LLMUnavailable
        from newsdesk.write.episode import episode_digests

        done: set[str] = set()
        if not self.unavailable:
            try:
                for result in episode_digests(engine, settings, self.llm, turns, title=title, number=number):
                    done.add(result.language)
                    yield result
                return
            except LLMUnavailable as exc:
                self.unavailable = str(exc)
        for result in ExtractiveWriters().episode(engine, settings, turns, title=title, number=number):
            if result.language not in done:
                self.stood_in.append(f"episode {result.key} ({result.language})")
                yield result


class ExtractiveWriters:
    """No model: every part is chosen from the material by code (write/extractive), checked and stored."""

    by = "extractive"

    def cards(self, engine, settings, *, limit=None, progress=None, counted=None) -> WriteStats:
        from newsdesk.write.analysis import WriteStats
        from newsdesk.write.extractive.checked import store_cards

        stored = store_cards(engine, settings, limit=limit)
        return WriteStats(written=stored.written, clean=stored.written - stored.flagged, flagged=stored.flagged)

    def card(self, engine, settings, brief, language) -> bool:
        from newsdesk.write.analysis import stored_analysis
        from newsdesk.write.extractive.checked import card_days, store_card

        stored = stored_analysis(engine, brief["event_id"], language)
        with engine.connect() as conn:
            days = card_days(conn, brief, settings.timezone)
        return store_card(engine, brief, language, stored_key=stored.material_key if stored else None, days=days)

    def weekly(self, engine, settings, week=None, **caps) -> WeeklyStats:
        from newsdesk.write.extractive.checked import checked_weekly
        from newsdesk.write.weekly import WeeklyStats, latest_week

        if week is None:
            with engine.connect() as conn:
                week = latest_week(conn, settings.timezone)
        zh = checked_weekly(engine, settings, week, **caps)
        editions = ([zh] if zh else []) + other_editions(engine, settings, week, **caps)
        return WeeklyStats(week=week, status=zh.status if zh else "unchanged", built=bool(editions), editions=editions)

    def episode(self, engine, settings, turns, *, title, number=None) -> Iterable[EpisodeResult]:
        from newsdesk.write.extractive.checked import checked_episode

        return [
            checked_episode(engine, turns, title=title, number=number, language=language)
            for language in edition_languages(settings)
        ]


def edition_languages(settings: Settings) -> list[str]:
    """The languages every edition (daily, weekly, episode) is built in: zh, and en when configured."""
    return ["zh"] + (["en"] if "en" in settings.languages else [])


def other_editions(engine: Engine, settings: Settings, week: str | None, **caps) -> list[WeeklyParts]:
    """The weekly's editions after the Chinese one (the English weekly), chosen from the material in
    their own language: a week's events told by their material in that language first. Returns
    the parts of those whose material changed."""
    from newsdesk.write.extractive.checked import checked_weekly

    if week is None:
        return []
    built = [
        checked_weekly(engine, settings, week, language=language, **caps)
        for language in edition_languages(settings)[1:]
    ]
    return [parts for parts in built if parts is not None]


def writers(settings: Settings, llm: ChatModel) -> Writers:
    """The run's writers, from `[write] by`; `llm` (a LazyLLM, opened on first use) writes when the model does."""
    return ModelWriters(llm) if settings.write.by == "model" else ExtractiveWriters()
