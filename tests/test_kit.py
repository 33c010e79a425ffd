"""The checked-writing kit: the loop, the one stored shape of findings, the policy, the prompts."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from newsdesk.core.config import ConfigError, Settings
from newsdesk.core.findings import Finding, load_findings
from newsdesk.editions.cards import flag_lines
from newsdesk.store.schema import checks
from newsdesk.text.html import finding
from newsdesk.write.kit import (
    banned_phrases,
    checked,
    messages,
    policy,
    record_check,
    rule,
)


def _writer(drafts):
    """A writer that hands out `drafts` in turn and notes the errors it was shown."""
    shown = []

    def write(errors):
        shown.append([f.detail for f in errors])
        draft = drafts[len(shown) - 1]
        if isinstance(draft, Exception):
            raise draft
        return draft

    return write, shown


def check(draft: str) -> list[Finding]:
    return [rule(f"bad word {w}") for w in draft.split() if w.startswith("bad")]


def test_a_clean_first_draft_is_kept_with_one_call():
    write, shown = _writer(["fine text"])
    done = checked(write, check)
    assert (done.draft, done.status, done.attempts, shown) == ("fine text", "clean", 1, [[]])


def test_a_failing_draft_is_written_once_more_with_its_errors_then_flagged():
    recorded = []
    write, shown = _writer(["bad1 text", "bad2 bad3 text"])
    done = checked(write, check, record=lambda attempt, found: recorded.append((attempt, len(found))))
    assert shown == [[], ["bad word bad1"]]  # the rewrite is shown exactly the first draft's errors
    assert (done.draft, done.status, done.attempts) == ("bad2 bad3 text", "flagged", 2)  # keep="last"
    assert recorded == [(1, 1), (2, 2)]
    best = checked(_writer(["bad1 text", "bad2 bad3 text"])[0], check, keep="best")
    assert (best.draft, best.attempts) == ("bad1 text", 1)  # fewer errors wins
    fixed = checked(_writer(["bad1 text", "good text"])[0], check)
    assert (fixed.draft, fixed.status, fixed.attempts) == ("good text", "clean", 2)


def test_a_failed_rewrite_keeps_the_first_draft_only_when_salvaged():
    write, _ = _writer(["bad1 text", ValueError("endpoint gone")])
    done = checked(write, check, salvage=lambda exc: isinstance(exc, ValueError))
    assert done.draft == "bad1 text" and done.status == "flagged"
    assert [f.detail for f in done.errors] == ["bad word bad1", "the rewrite failed: endpoint gone"]
    with pytest.raises(ValueError):
        checked(_writer(["bad1 text", ValueError("endpoint gone")])[0], check)
    with pytest.raises(ValueError):  # a first draft that cannot be written is never salvaged
        checked(_writer([ValueError("endpoint gone")])[0], check, salvage=lambda exc: True)


def test_findings_of_every_stored_shape_decode_to_one(sqlite_engine):
    now = Finding("number", "number not in the material: 87.2%", "87.2%", part="section 2")
    old_weekly = {
        "part": "summary",
        "finding": {"kind": "quote", "detail": "quote not in the material: “x”", "span": "x", "severity": "error"},
    }
    old_weekly_line = {"part": "briefs 1", "finding": "event [2] has no brief"}
    old_episode = "section 3: the topic is empty"
    warn = {"kind": "name", "detail": "name not in the material: ASP", "span": "ASP", "severity": "warn"}
    loaded = load_findings([now.as_dict(), old_weekly, old_weekly_line, old_episode, warn])
    assert loaded[0] == now
    assert (loaded[1].kind, loaded[1].part, loaded[1].span) == ("quote", "summary", "x")
    assert (loaded[2].kind, loaded[2].part, loaded[2].detail) == ("", "briefs 1", "event [2] has no brief")
    assert loaded[3] == Finding("", old_episode)
    assert flag_lines([now.as_dict(), old_episode, warn]) == [
        "section 2: number not in the material: 87.2%",
        old_episode,
    ]
    assert finding(now.as_dict()) == "number: section 2: number not in the material: 87.2% «87.2%»"
    assert finding(old_episode) == old_episode and finding(warn).endswith("«ASP» (warn)")
    assert finding(old_weekly_line) == "briefs 1: event [2] has no brief"
    # What the kit records is the one shape, and passed follows the errors.
    assert record_check(sqlite_engine, "episode", "ep-1", 1, [now, Finding("name", "n", severity="warn")]) is False
    assert record_check(sqlite_engine, "episode", "ep-1", 2, [Finding("name", "n", severity="warn")]) is True
    with sqlite_engine.connect() as conn:
        stored = conn.execute(select(checks.c.findings).order_by(checks.c.id)).scalars().all()
    assert load_findings(stored[0])[0] == now and set(stored[0][0]) == {"kind", "detail", "span", "severity", "part"}


def test_the_policy_is_the_packaged_one_or_the_file_named_and_a_bad_file_is_one_clear_error(tmp_path):
    assert "编辑方针" in policy(Settings()) and "- 营销词" in banned_phrases(policy(Settings()))
    own = tmp_path / "mine.md"
    own.write_text("# mine\n\n## 禁用的写法\n\n- 不写：划时代。\n- 小标题、项目符号\n", encoding="utf-8")
    settings = Settings()
    settings.llm.policy_file = str(own)
    assert banned_phrases(policy(settings)) == "- 不写：划时代。"  # the bullets rule is the analysis's form, not a ban
    settings.llm.policy_file = str(tmp_path / "missing.md")
    with pytest.raises(ConfigError, match=r"llm.policy_file .*missing.md: cannot read it .*fix the path"):
        policy(settings)


def test_a_bad_policy_file_stops_every_writer_with_the_same_error(sqlite_engine, tmp_path):
    from newsdesk.core.model import Turn
    from newsdesk.editions.weekly import build_weekly
    from newsdesk.write.analysis import system_prompt
    from newsdesk.write.episode import write_episode

    settings = Settings()
    settings.llm.policy_file = str(tmp_path / "missing.md")
    with pytest.raises(ConfigError, match="missing.md"):
        system_prompt("zh", settings)
    with pytest.raises(ConfigError, match="missing.md"):
        write_episode(sqlite_engine, settings, None, [Turn("A", "hello there")], title="t")
    from test_weekly import (  # a week with events, so the weekly gets as far as its prompts
        HARVEST_WEEK,
        load_week,
    )

    load_week(sqlite_engine, __import__("conftest").FIXTURES, limit=5)
    with pytest.raises(ConfigError, match="missing.md"):
        build_weekly(sqlite_engine, settings, None, HARVEST_WEEK)


def test_a_chat_prompt_file_splits_into_system_and_user():
    asked = messages("arbitrate.md", event="E text", item="I text")
    assert [m["role"] for m in asked] == ["system", "user"]
    assert asked[0]["content"].startswith("You decide whether") and "=== user ===" not in asked[0]["content"]
    assert asked[1]["content"] == "EVENT (its first report):\nE text\n\nNEW REPORT:\nI text"
    with pytest.raises(Exception, match="item"):  # a value the caller forgot is an error, not an empty string
        messages("arbitrate.md", event="E text")


def test_the_docs_example_of_adding_an_output_runs(sqlite_engine):
    """docs/adding-an-output.md's prompt file and function, run as written: through the real
    LLM client, checker and checks table, with a scripted backend (an invented number, then a fix)."""
    import json
    import re
    from pathlib import Path

    import jinja2

    from newsdesk.llm import prompts
    from newsdesk.llm.chat import RawReply
    from newsdesk.llm.client import LLM

    page = Path(__file__).resolve().parents[1] / "docs" / "adding-an-output.md"
    section = page.read_text(encoding="utf-8").split("# Adding an output", 1)[1]
    prompt_file, code = re.findall(r"```(?:python)?\n(.*?)```", section, re.S)[:2]

    class Scripted:
        name, model = "fake", "scripted-1"
        asked: list = []

        def chat(self, messages, *, max_tokens, temperature, schema):
            self.asked.append(messages)
            post = (
                "OpenAI 称 GPT-5.5 在 Terminal-Bench 2.0 上得分 87.2%。"
                if len(self.asked) == 1
                else "OpenAI 称 GPT-5.5 在 Terminal-Bench 2.0 上得分 82.7%。"
            )
            return RawReply(
                text=json.dumps({"post": post}, ensure_ascii=False),
                finish_reason="stop",
                model=self.model,
                prompt_tokens=10,
                completion_tokens=10,
                cached_tokens=0,
                latency_ms=1,
            )

    env = prompts._environment()
    packaged = env.loader
    env.loader = jinja2.ChoiceLoader([jinja2.DictLoader({"post.md": prompt_file}), packaged])
    try:
        namespace: dict = {}
        exec(compile(code, str(page), "exec"), namespace)
        backend = Scripted()
        material = "OpenAI says GPT-5.5 scores 82.7% on Terminal-Bench 2.0, compared with 75.1% for GPT-5.4."
        post, status = namespace["write_post"](sqlite_engine, Settings(), LLM(backend, sqlite_engine), 7, material)
    finally:
        env.loader = packaged
    assert (post, status) == ("OpenAI 称 GPT-5.5 在 Terminal-Bench 2.0 上得分 82.7%。", "clean")
    first, second = backend.asked
    assert first[0] == second[0] and "营销词" in first[0]["content"]  # the shared prefix carries the policy
    assert "number not in the material: 87.2%" in second[-1]["content"]
    with sqlite_engine.connect() as conn:
        rows = conn.execute(select(checks).where(checks.c.output == "post")).mappings().all()
    assert [(r["attempt"], r["passed"]) for r in rows] == [(1, False), (2, True)]


def test_writers_share_only_public_names_and_no_function_runs_over_80_lines():
    import ast
    from pathlib import Path

    folder = Path(__file__).resolve().parents[1] / "src" / "newsdesk" / "write"
    private, long = [], []
    for path in sorted(folder.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("newsdesk."):
                private += [f"{path.name}: {node.module}.{a.name}" for a in node.names if a.name.startswith("_")]
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno >= 80:
                long.append(f"{path.name}: {node.name} ({node.end_lineno - node.lineno + 1} lines)")
    assert private == [] and long == []
