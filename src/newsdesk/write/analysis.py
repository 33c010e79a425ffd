"""Event analyses: one per event and language, checked, regenerated once, stored.

    stats = write_analyses(engine, settings, llm)

For each event whose analysis is due (see due(): none yet, other instructions or model, the
event's reports doubled, or its tab rose; one more syndicated copy is not a reason): build the prompt from
the event brief (cluster.event_brief), ask the model, check the text against exactly what
the model was shown (check/checker.py), and if it fails ask once more with the findings.
A second failure is never published: the draft goes to `failed_drafts` with its findings
and the event's extractive card (write/extractive) is stored as its analysis instead.
Every check result goes into `checks`. An event whose analysis is not due is skipped before
any model call, so a second run costs nothing.

Prompt layout: the system message (policy + instructions + example) is byte-identical for
every event of one language, and the event's material comes last, so a server with a
prefix cache (llama.cpp, vLLM, OpenAI, DeepSeek) only processes the new tail.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from sqlalchemy import and_, desc, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Engine

from newsdesk.check.checker import check_output
from newsdesk.llm.chat import ChatModel
from newsdesk.llm.client import (
    BudgetExhausted,
    LLMError,
    LLMUnavailable,
    in_parallel,
)
from newsdesk.store.schema import analyses, events
from newsdesk.write.extractive.checked import card_values
from newsdesk.write.failed import Draft, stand_in
from newsdesk.write.kit import checked, event_size, material_key, policy, record_check, render, reports

MAX_MEMBERS = 12  # the lead and the first members; the rest are counted in the facts line
MAX_TEXT = 1500  # characters of body or summary shown per member
LEVELS = ("full", "summary", "title", "paywalled", "failed")  # material levels, in the order the prompt counts them
PROMPT_VERSION = "analysis-1"


@dataclass
class WriteStats:
    events: int = 0  # events looked at
    written: int = 0  # analyses stored this run (clean + flagged)
    clean: int = 0
    # drafts that failed after the rewrite: kept for the operator, the extractive card published; from the
    # extractive writer, cards that failed their checks: never published, the headline stands alone
    flagged: int = 0
    unchanged: int = 0  # analysis not due (see due()): skipped without a model call
    translated: int = 0  # extractive cards with no material in their language, translated (write/translate.py)
    failed: int = 0  # the model gave no answer; retried next run
    errors: list[str] = field(default_factory=list)
    stopped: str | None = None  # why the run stopped early: budget spent or endpoint unavailable
    unavailable: bool = False  # stopped because the endpoint cannot answer (an error, unlike a spent budget)
    fallback: int = 0  # of `written`: extractive cards stored because the endpoint could not answer


# --- prompts --------------------------------------------------------------------------


def system_prompt(language: str, settings=None) -> str:
    """The shared prefix for every analysis in `language`: identical bytes, call after call."""
    instructions = render("analysis_system.md", language_instruction=render(f"language_{language}.md").strip())
    return policy(settings).strip() + "\n\n" + instructions.strip() + "\n"


def _fmt_time(value) -> str:
    if isinstance(value, datetime):
        return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return str(value or "")


def _member_view(m: dict) -> dict:
    level = m.get("material_level") or "summary"
    body, summary = (m.get("body") or "").strip(), (m.get("summary") or "").strip()
    text, text_kind = "", ""
    if level == "full" and body:
        text, text_kind = body, "body"
    elif summary and level in ("full", "summary", "paywalled"):
        text, text_kind = summary, "summary" if level != "paywalled" else "lede"
    clipped = len(text) > MAX_TEXT
    if clipped:
        text = text[:MAX_TEXT].rstrip() + " ……"
    return {
        "source_name": m.get("source_name") or m.get("source_id") or "",
        "title": (m.get("title") or "").strip(),
        "url": m.get("url") or "",
        "published": _fmt_time(m.get("published_at")),
        "role": m.get("role") or "member",
        "level": level,
        "text": text,
        "text_kind": text_kind,
        "clipped": clipped,
    }


def material_view(brief: dict) -> dict:
    """What the writer is shown about an event (analysis_user.md words it); also what the checker looks numbers up in."""
    members = [_member_view(m) for m in brief["members"][:MAX_MEMBERS]]
    levels = [m["level"] for m in members]
    return {
        "outlets": brief.get("outlets", len(members)),
        "independent_outlets": brief.get("independent_outlets", len(members)),
        "languages": "/".join(brief.get("languages") or []),
        "first_seen": _fmt_time(brief.get("first_published_at")),
        "last_seen": _fmt_time(brief.get("last_published_at")),
        "anchors": "、".join(brief.get("anchors") or []),
        "members": members,
        "max_text": MAX_TEXT,
        "level_counts": [[lvl, levels.count(lvl)] for lvl in LEVELS if lvl in levels],
        "unlisted": max(0, len(brief["members"]) - MAX_MEMBERS),
    }


def user_prompt(view: dict, findings: list[str] | None = None) -> str:
    return render("analysis_user.md", findings=findings or [], **view).strip() + "\n"


def split_headline(text: str, fallback: str) -> tuple[str, str]:
    lines = text.strip().splitlines()
    if lines and lines[0].lstrip().startswith("#"):
        return lines[0].lstrip("# ").strip() or fallback, "\n".join(lines[1:]).strip()
    return fallback, text.strip()


# --- the stage ------------------------------------------------------------------------


def analysis_key(language: str, system: str, model: str) -> str:
    # The exact instructions and the model: a change in either means a new analysis. The material
    # is judged by due(): growth, not every new copy, pays for a rewrite.
    return material_key("analysis", PROMPT_VERSION, language, model, hashlib.sha256(system.encode()).hexdigest())


TAB_RANK = {"all": 0, "p1": 1, "featured": 2}


def due(stored, key: str, brief: dict) -> str | None:
    """Why an event's analysis must be written now, or None while the stored one still serves.

    Due: none yet; other instructions or model; the event's reports doubled since it was
    written; its tab rose (all -> p1 -> featured). One more syndicated copy, or a few more
    reports, is not worth a rewrite.
    """
    if stored is None:
        return "no analysis yet"
    if stored.material_key != key:
        return "other instructions or model"
    if stored.reports is None:
        return "written before its size was kept"
    if reports(brief) >= 2 * stored.reports:
        return f"reports doubled ({stored.reports} -> {reports(brief)})"
    if TAB_RANK.get(brief.get("tab") or "all", 0) > TAB_RANK.get(stored.tab or "all", 0):
        return f"tab rose ({stored.tab} -> {brief.get('tab')})"
    return None


def _store(engine: Engine, event_id: int, language: str, values: dict) -> None:
    with engine.begin() as conn:
        # An upsert: two workers that wrote the same event at once leave one row, never an error.
        ins = (postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert)(analyses)
        conn.execute(
            ins.values(event_id=event_id, language=language, **values).on_conflict_do_update(
                index_elements=["event_id", "language"], set_=values
            )
        )


def write_analysis(
    engine: Engine, llm: ChatModel, brief: dict, language: str, system: str, *, max_tokens: int | None = None
) -> dict:
    """Write, check and store one analysis; returns the stored row's values. Raises LLMError / BudgetExhausted."""
    view = material_view(brief)
    material = [user_prompt(view)]  # exactly what the writer saw, facts line included
    levels = [m["level"] for m in view["members"]]
    subject_id = f"{brief['event_id']}:{language}"

    def write(errors):
        messages = [
            {"role": "system", "content": system},
            {"role": "user", "content": user_prompt(view, [f.detail for f in errors])},
        ]
        reply = llm.chat(messages, output="analysis", max_tokens=max_tokens)
        return reply, *split_headline(reply.text, brief.get("title") or "")

    def check(draft):
        reply, headline, body = draft
        return check_output(
            headline + "\n\n" + body, material, levels=levels, language=language, finish_reason=reply.finish_reason
        ).findings

    done = checked(
        write, check, record=lambda attempt, found: record_check(engine, "analysis", subject_id, attempt, found)
    )
    reply, headline, body = done.draft
    key = analysis_key(language, system, llm.model)
    size = event_size(brief)  # what due() compares next run
    if done.status == "flagged":  # the extractive card stands in, under the same key: a re-run asks nothing

        def card() -> dict:
            values = {**card_values(engine, brief, language, attempt=done.attempts + 1), "material_key": key, **size}
            _store(engine, brief["event_id"], language, values)
            return {**values, "failed_draft": True}

        return stand_in(
            engine,
            Draft(
                "analysis",
                subject_id,
                language,
                brief.get("title") or "",
                f"# {headline}\n\n{body}",
                done.findings,
                reply.model,
                key,
            ),
            card,
        )
    values = {
        "headline": headline,
        "body": body,
        "status": done.status,
        "flags": [f.as_dict() for f in done.findings],
        "attempts": done.attempts,
        "model": reply.model,
        "material_key": key,
        **size,
        "created_at": datetime.now(UTC),
        "translated_from": None,
    }
    _store(engine, brief["event_id"], language, values)
    return {**values, "failed_draft": False}


def stored_analysis(engine: Engine, event_id: int, language: str):
    with engine.connect() as conn:
        return conn.execute(
            select(analyses.c.material_key, analyses.c.reports, analyses.c.tab).where(
                and_(analyses.c.event_id == event_id, analyses.c.language == language)
            )
        ).first()


def _due_jobs(
    engine: Engine,
    llm: ChatModel,
    systems: dict[str, str],
    stats: WriteStats,
    *,
    limit: int | None,
    event_ids: list[int] | None,
) -> list[tuple[dict, str]]:
    """(event brief, language) for each analysis not current, most important event first; counts
    the events looked at and the analyses kept into `stats`."""
    from newsdesk.cluster import event_brief

    with engine.connect() as conn:
        query = select(events.c.id).order_by(desc(events.c.importance), desc(events.c.last_published_at), events.c.id)
        if event_ids is not None:
            query = query.where(events.c.id.in_(event_ids))
        ids = [r.id for r in conn.execute(query)]
    todo: list[tuple[dict, str]] = []
    for event_id in ids:
        if limit is not None and stats.events >= limit:
            break
        with engine.connect() as conn:
            brief = event_brief(conn, event_id)
        if not brief.get("members"):
            continue
        stats.events += 1
        for language, system in systems.items():
            if (
                due(stored_analysis(engine, event_id, language), analysis_key(language, system, llm.model), brief)
                is None
            ):
                stats.unchanged += 1
            else:
                todo.append((brief, language))
    return todo


def write_analyses(
    engine: Engine,
    settings,
    llm: ChatModel,
    *,
    limit: int | None = None,
    progress: Callable[[str], None] | None = None,
    event_ids: list[int] | None = None,
    counted: Callable[[int, int], None] | None = None,
) -> WriteStats:
    """Analyses for every event (most important first) that lacks a current one, in every configured language.
    `progress` hears a line per analysis; `counted(done, total)` the analyses to write, for a bar's ETA.

    `limit` caps how many events (the most important ones) have analyses; an event whose
    analyses are current counts without costing a call, so a re-run stays within the same events.
    """
    languages = ["zh"] + (["en"] if "en" in settings.languages else [])
    systems = {language: system_prompt(language, settings) for language in languages}
    stats = WriteStats()
    todo = _due_jobs(engine, llm, systems, stats, limit=limit, event_ids=event_ids)

    stop = threading.Event()  # set when the endpoint is gone or the budget spent: the rest waits for the next run
    count = threading.Lock()
    done = 0
    if counted:
        counted(0, len(todo))

    def write_one(job: tuple[dict, str]):
        brief, language = job
        if stop.is_set():
            return None
        try:
            row = write_analysis(engine, llm, brief, language, systems[language])
        except (BudgetExhausted, LLMUnavailable) as exc:
            stop.set()
            return exc
        except LLMError as exc:
            row = exc
        if progress:
            progress(
                f"event {brief['event_id']} ({language}): "
                + (str(row) if isinstance(row, LLMError) else f"{row['status']} after {row['attempts']} attempt(s)")
            )
        if counted:
            nonlocal done
            with count:
                done += 1
                counted(done, len(todo))
        return row

    # Events are independent: their calls overlap up to llm.concurrency.
    for (brief, language), row in zip(todo, in_parallel(llm, write_one, todo)):
        if isinstance(row, (BudgetExhausted, LLMUnavailable)):
            stats.stopped = stats.stopped or str(row)
            stats.unavailable = stats.unavailable or isinstance(row, LLMUnavailable)
        elif isinstance(row, LLMError):
            stats.failed += 1
            stats.errors.append(f"event {brief['event_id']} ({language}): {row}")
        elif row is not None:
            stats.written += 1
            stats.clean += not row["failed_draft"]
            stats.flagged += row["failed_draft"]  # the extractive card stands in for it
    return stats
