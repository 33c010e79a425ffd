"""The checked-writing kit: what every writer in write/ shares.

    messages("episode_section.md", number=3, ...)   a prompt file rendered into chat messages
    ask_json(llm, asked, ...) / with_feedback(...)    a structured call; the same chat told what to fix
    policy(settings), banned_phrases(text)            the editorial policy (llm.policy_file or the packaged one)
    checked(write, check)                             write, check, write once more with the errors, keep
    checker_errors(text, material), rule(detail)      findings: the checker's, and a writer's own rules'
    record_check(engine, subject, subject_id, ...)    one row in `checks`, findings in their one stored shape
    material_key(...)                                 the hash that says whether an output is still current

Prompts are Jinja templates in write/prompts/ (llm/prompts.py renders them). A file with a line `=== user ===` is a whole
chat: the part above is the system message, the part below the user message. The system
part is what calls of one kind share byte for byte (a server's prefix cache then serves it);
whatever varies per call (material, findings) goes below.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Generic, TypeVar

from sqlalchemy import insert
from sqlalchemy.engine import Engine

from newsdesk.check.checker import check_output
from newsdesk.core.config import ConfigError
from newsdesk.core.findings import Finding
from newsdesk.llm.chat import ChatModel
from newsdesk.llm.client import BudgetExhausted, LLMError
from newsdesk.llm.prompts import messages, prompts_fingerprint, render
from newsdesk.store.edition_rows import material_key
from newsdesk.store.schema import checks

__all__ = [
    "Checked",
    "ask_json",
    "banned_phrases",
    "checked",
    "checker_errors",
    "material_key",
    "messages",
    "policy",
    "prompts_fingerprint",
    "record_check",
    "render",
    "rule",
    "with_feedback",
]

T = TypeVar("T")


# --- prompts ---------------------------------------------------------------------------


def with_feedback(asked: list[dict], problems: list[str]) -> list[dict]:
    """The same chat, with one more user message that lists what the answer got wrong (rewrite.md)."""
    return [*asked, {"role": "user", "content": render("rewrite.md", problems=problems)}]


def ask_json(llm: ChatModel, asked: list[dict], *, output: str, schema: dict, max_tokens: int) -> dict:
    """One structured call; a reply that is not a JSON object comes back as {} (callers
    treat missing fields as a failed attempt, never as content)."""
    try:
        reply = llm.chat(asked, output=output, schema=schema, max_tokens=max_tokens)
    except BudgetExhausted:
        raise
    except LLMError as exc:
        if "schema" not in str(exc):  # endpoint down, bad key: the user must see it
            raise
        return {}  # the model could not fit the schema even after the client's repair
    data = reply.data
    if data is None:
        m = re.search(r"\{.*\}", (reply.text or "").strip(), re.S)
        try:
            data = json.loads(m.group(0)) if m else None
        except json.JSONDecodeError:
            data = None
    return data if isinstance(data, dict) else {}


# --- the editorial policy ----------------------------------------------------------------


def policy(settings) -> str:
    """The editorial policy every writer follows: the file llm.policy_file names, else the packaged one.
    A file that cannot be read is a ConfigError naming it and the fix, whichever writer reads it."""
    path = getattr(getattr(settings, "llm", None), "policy_file", "") or ""
    if not path:
        return (resources.files("newsdesk") / "write" / "prompts" / "policy.md").read_text(encoding="utf-8")
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not UTF-8 text"
        raise ConfigError(
            f"llm.policy_file {path}: cannot read it ({reason}); fix the path in newsdesk.toml "
            "or leave it empty for the packaged policy"
        ) from None


def banned_phrases(policy_text: str) -> str:
    """The policy's banned phrases ('## 禁用…' section) as its '- ' lines: all a structured form
    (an episode digest, a weekly) takes from the policy, whose other parts shape an event analysis."""
    banned = re.search(r"^##\s*禁用[^\n]*\n(.*?)(?=^##\s|\Z)", policy_text, re.M | re.S)
    if not banned:
        return ""
    return "\n".join(ln for ln in banned.group(1).splitlines() if ln.startswith("- ") and "项目符号" not in ln)


# --- findings and the checks table ---------------------------------------------------------


def reports(brief: dict) -> int:
    """Original reports in an event: the lead and members; syndicated and duplicate copies do not count."""
    return sum(1 for m in brief["members"] if m.get("role") in ("lead", "member"))


def event_size(brief: dict) -> dict:
    """An analysis's record of the event it was written at: what write.analysis.due() and the workers'
    due filter compare, whoever wrote it."""
    return {"reports": reports(brief), "tab": brief.get("tab") or "all"}


def rule(detail: str, part: str = "") -> Finding:
    """A finding of a writer's own rule (structure, counts, translation), beside the checker's."""
    return Finding("rule", detail, part=part)


def checker_errors(text: str, material: list[str], language: str = "zh") -> list[Finding]:
    """The checker's errors for text written from full material (a transcript): numbers, quotes, names, hygiene."""
    return [
        f for f in check_output(text, material, levels=["full"], language=language).findings if f.severity == "error"
    ]


def record_check(engine: Engine, output: str, subject_id: str, attempt: int, findings: list[Finding]) -> bool:
    """One row in `checks` for one output (analysis, weekly, …) and which one; passed when no finding is an
    error. Returns passed."""
    passed = not any(f.severity == "error" for f in findings)
    with engine.begin() as conn:
        conn.execute(
            insert(checks).values(
                output=output,
                subject_id=subject_id[:80],
                attempt=attempt,
                passed=passed,
                findings=[f.as_dict() for f in findings],
                at=datetime.now(UTC),
            )
        )
    return passed


# --- the loop ------------------------------------------------------------------------------


@dataclass
class Checked(Generic[T]):
    """A draft and what its check found (errors fail it; warnings are only recorded)."""

    draft: T
    findings: list[Finding] = field(default_factory=list)
    attempts: int = 1

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]

    @property
    def passed(self) -> bool:
        return not self.errors

    @property
    def status(self) -> str:
        return "clean" if self.passed else "flagged"


def checked(
    write: Callable[[list[Finding]], T],
    check: Callable[[T], list[Finding]],
    *,
    record: Callable[[int, list[Finding]], object] | None = None,
    keep: str = "last",
    salvage: Callable[[Exception], bool] | None = None,
) -> Checked[T]:
    """Write a draft, check it; if it fails, write once more, shown the errors; then stop.

    write(errors)   a draft; errors is [] the first time, the first draft's errors the second
    check(draft)    its findings
    record          called with (attempt, findings) after each check (a `checks` row)
    keep            "last": the second draft stands, pass or fail; "best": the draft with fewer errors
    salvage(exc)    True: an exception while rewriting keeps the first draft, with a finding that says so
    The caller stores the result; a draft that still fails is stored flagged, never as clean.
    """
    kept: Checked[T] | None = None
    errors: list[Finding] = []
    for attempt in (1, 2):
        try:
            draft = write(errors)
        except Exception as exc:
            if kept is None or salvage is None or not salvage(exc):
                raise
            kept.findings.append(rule(f"the rewrite failed: {exc}"))
            return kept
        result = Checked(draft, check(draft), attempt)
        if record is not None:
            record(attempt, result.findings)
        if kept is None or keep == "last" or len(result.errors) < len(kept.errors):
            kept = result
        if result.passed:
            return result
        errors = result.errors
    assert kept is not None
    return kept
