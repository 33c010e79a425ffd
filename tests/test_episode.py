"""Episode digest (Output C): transcript views, quote verification, naming, structure, storage.

EpisodeFake (tests/fakes.py) is a deterministic stand-in for the model that reads the prompt it is given and
answers from the transcript lines in it, including the faults a real model makes (a quote
slightly off, a quote made up, too few sections) so the code's repairs are exercised. One
test at the end runs the real embedded model.
"""

from __future__ import annotations

import re
import time

import pytest
from fakes import EpisodeFake
from sqlalchemy import select

from newsdesk.core.model import Turn
from newsdesk.editions.episode import build_episode
from newsdesk.ingest.transcripts import parse_transcript
from newsdesk.store.schema import checks, editions
from newsdesk.write.digest import (
    Bullet,
    Digest,
    DigestFormatError,
    Section,
    parse_digest,
)
from newsdesk.write.episode_plan import EpisodeOptions, plan_sections
from newsdesk.write.speakers import (
    mark_uncertain,
    name_speakers,
    speakers,
    uncertain_names,
)
from newsdesk.write.transcript import (
    TranscriptIndex,
    find_quotes,
    passages,
    transcript_lines,
    verify_quotes,
)


def normalized(text: str) -> str:
    """The test's own, independent notion of 'the same words': letters and digits only."""
    text = re.sub(r"\{[a-z_]+\}", " ", text)
    return "".join(c for c in text.casefold() if c.isalnum())


def qmsum_turns(fixtures, n: int) -> list[Turn]:
    line = (fixtures / "transcripts/qmsum-val.jsonl").read_text(encoding="utf-8").splitlines()[n]
    fmt, turns = parse_transcript(line, name=f"qmsum-val.jsonl line {n + 1}")
    assert fmt == "json"
    return turns


def parsed_quotes_in_transcript(text: str, turns: list[Turn]) -> list[str]:
    """Quotes in text that are NOT in any single turn (an empty list is the pass)."""
    spoken = [normalized(t.text) for t in turns]
    return [q for _, _, q in find_quotes(text) if not any(normalized(q) in s for s in spoken)]


# --- transcript views -----------------------------------------------------------------


def test_passages_fit_the_budget_and_cut_only_between_lines(fixtures):
    turns = qmsum_turns(fixtures, 31)  # the longest meeting: 134k characters
    lines = transcript_lines(turns, 150)
    chunks = passages(lines, 1000)
    assert len(chunks) > 20
    assert [ln.id for chunk in chunks for ln in chunk] == list(range(len(lines)))
    from newsdesk.write.transcript import estimate_tokens

    assert all(sum(estimate_tokens(ln.render()) for ln in c) <= 1000 for c in chunks)
    # A turn longer than the line budget is cut at sentence ends; its pieces keep the turn index.
    long_turn = max(range(len(turns)), key=lambda i: len(turns[i].text))
    pieces = [ln for ln in lines if ln.turn == long_turn]
    assert len(pieces) > 1 and all(estimate_tokens(p.text) <= 170 for p in pieces)
    assert not any("{vocalsound}" in ln.text or " ," in ln.text for ln in lines)


def test_plan_sections_enforces_order_count_and_size(fixtures):
    lines = transcript_lines(qmsum_turns(fixtures, 33), 400)
    # The model proposed junk: out of range, duplicates, unordered, too few.
    spans = plan_sections(lines, [999, 40, 40, -3, 10], min_sections=5, max_sections=9, max_tokens=800)
    assert len(spans) >= 5
    assert spans[0][0] == 0 and spans[-1][1] == len(lines) - 1
    assert all(a[1] + 1 == b[0] for a, b in zip(spans, spans[1:]))
    many = plan_sections(lines, list(range(1, len(lines))), min_sections=5, max_sections=9, max_tokens=10_000)
    assert 5 <= len(many) <= 9


# --- quotes -------------------------------------------------------------------------------


def test_quotes_are_kept_corrected_unquoted_or_dropped():
    turns = [
        Turn("Grad A", "So the new recogniser , um , halves the error rate on the far-field mics ."),
        Turn("Professor B", "I'm not sure it generalises beyond the meeting room {vocalsound} data we have ."),
    ]
    index = TranscriptIndex(transcript_lines(turns, 500))
    text = (
        "Grad A说“the new recogniser, um, halves the error rate”。"  # tokenizer spacing differs: found as is
        "Professor B提醒“I'm not sure it generalizes beyond the meeting room data”。"  # one word off: corrected
        "他称之为“远场”。"  # a two-character term: unquoted, sentence kept
        "他还说“we shipped it to every customer last week already”。最后一句保留。"  # made up: sentence dropped
    )
    fixed, report = verify_quotes(text, index)
    assert (report.kept, report.corrected, report.unquoted, report.dropped) == (1, 1, 1, 1)
    assert "“I'm not sure it generalises beyond the meeting room data”" in fixed
    assert "customer" not in fixed and "最后一句保留。" in fixed and "他称之为远场。" in fixed
    assert all(index.contains(q) for _, _, q in find_quotes(fixed))
    # A quote may not run across two speakers' turns.
    assert not index.contains("far-field mics I'm not sure")


def test_speakers_named_in_full_once_then_by_given_name_and_misheard_names_marked():
    turns = [
        Turn("Zheng Boyuan", "We built SeeAct last year. Boyuan here, by the way."),
        Turn("Host", "Tell us about SeaAct and the Tesla demo."),
        Turn("Zheng Boyuan", "SeeAct booked a Tesla test drive. Then SkillWeaver came later."),
    ]
    people = speakers(turns)
    assert [(p.full, p.short) for p in people] == [("Zheng Boyuan", "Boyuan"), ("Host", "Host")]
    texts = ["Boyuan认为“We built SeeAct last year.”", "Zheng Boyuan又说SeeAct和Tesla。", "Boyuan补充。"]
    named = name_speakers(texts, people)
    assert named[0].startswith("Zheng Boyuan认为") and named[1].startswith("Boyuan又说") and named[2] == "Boyuan补充。"
    names = uncertain_names(transcript_lines(turns, 500))
    assert {"SeeAct", "SeaAct", "SkillWeaver"} <= set(names) and "Tesla" not in names
    marked = mark_uncertain(named, names, "zh")
    # Not inside the quote (verbatim stays verbatim); first mention outside it, once.
    assert "“We built SeeAct last year.”" in marked[0]
    assert marked[1].count("SeeAct（音）") == 1 and "（音）" not in marked[2]


# --- text shape -----------------------------------------------------------------------------


def test_render_and_parse_back():
    d = Digest(
        "Kickoff meeting",
        "12",
        ["论点一。 证据“x y z”。", "论点二。 证据。"],
        [
            Section("开场", "目标设定", [Bullet("正文一", "要点"), Bullet("正文二")]),
            Section("预算", "", [Bullet("正文三")]),
        ],
    )
    text = d.render()
    assert text.splitlines()[:4] == ["12. Kickoff meeting", "", "摘要", ""]
    assert "1. 开场：目标设定" in text and "• 要点：正文一" in text and "2. 预算" in text
    back = parse_digest(text)
    assert (back.number, back.title, len(back.summary), [len(s.bullets) for s in back.sections]) == (
        "12",
        "Kickoff meeting",
        2,
        [2, 1],
    )
    with pytest.raises(DigestFormatError, match="line"):
        parse_digest(text.replace("2. 预算", "3. 预算"))
    with pytest.raises(DigestFormatError):
        parse_digest(text.replace("精读", "Deep"))


# --- the whole digest -------------------------------------------------------------------------


def test_qmsum_meeting_digest_has_the_digest_form(fixtures, sqlite_engine):
    turns = qmsum_turns(fixtures, 3)
    llm = EpisodeFake(section_count=3)  # the model proposes too few sections: code must split
    result = build_episode(
        sqlite_engine, None, llm, turns, title="Remote control design: functional meeting", number=7, key="qmsum-3"
    )
    digest = parse_digest(result.text, "zh")
    assert result.text.startswith("7. Remote control design: functional meeting\n")
    assert 5 <= len(digest.summary) <= 9
    assert len(digest.sections) >= 5
    assert all(1 <= len(s.bullets) <= 4 for s in digest.sections)
    assert parsed_quotes_in_transcript(result.text, turns) == []
    assert "quantum teleporter" not in result.text  # the invented quote was dropped
    assert result.quotes.corrected > 0 and result.quotes.dropped > 0
    # Sections follow the conversation: their line spans ascend and cover it.
    spans = [(s.first_line, s.last_line) for s in result.digest.sections]
    assert spans == sorted(spans) and all(a[1] + 1 == b[0] for a, b in zip(spans, spans[1:]))
    with sqlite_engine.connect() as conn:
        row = conn.execute(select(editions).where(editions.c.key == "qmsum-3")).mappings().one()
        check_rows = conn.execute(select(checks).where(checks.c.output == "episode")).mappings().all()
    assert row["language"] == "zh" and row["body"] == result.text and row["status"] == result.status
    assert row["meta"]["sections"] == len(digest.sections) and len(check_rows) == 1
    assert check_rows[0]["passed"] == (result.status == "clean")


def test_rerun_with_same_transcript_makes_no_model_call(fixtures, engine):
    turns = qmsum_turns(fixtures, 33)
    llm = EpisodeFake()
    first = build_episode(engine, None, llm, turns, title="Kick-off", number=1)
    calls = len(llm.calls)
    again = build_episode(engine, None, llm, turns, title="Kick-off", number=1)
    assert len(llm.calls) == calls and again.reused and again.text == first.text
    changed = build_episode(engine, None, llm, turns[:-5], title="Kick-off", number=1)
    assert len(llm.calls) > calls and not changed.reused
    with engine.connect() as conn:
        assert conn.execute(select(editions.c.id).where(editions.c.kind == "episode")).all().__len__() == 1


def test_too_few_summary_bullets_are_asked_again_then_flagged(fixtures, sqlite_engine):
    class Terse(EpisodeFake):
        summaries = 0

        def _summary(self, user):
            self.summaries += 1
            return {"bullets": super()._summary(user)["bullets"][:3]}

    llm = Terse()
    result = build_episode(sqlite_engine, None, llm, qmsum_turns(fixtures, 3), title="Design", key="terse")
    assert llm.summaries == 2  # asked once more, then flagged
    assert result.status == "flagged" and len(result.digest.summary) == 3
    assert any("summary has 3 bullets" in f for f in result.findings)
    with sqlite_engine.connect() as conn:
        row = conn.execute(select(checks).where(checks.c.subject_id == "terse")).mappings().one()
        stored = conn.execute(select(editions.c.status).where(editions.c.key == "terse")).scalar_one()
    assert row["passed"] is False and stored == "flagged"


def test_a_summary_with_nothing_usable_falls_back_to_the_sections_and_is_flagged(fixtures, sqlite_engine):
    class Mute(EpisodeFake):
        def _summary(self, user):
            return {"bullets": [{"thesis": "<thesis>", "evidence": "<evidence>"}]}  # the prompt's placeholder, twice

    result = build_episode(sqlite_engine, None, Mute(), qmsum_turns(fixtures, 3), title="Design", key="mute")
    digest = parse_digest(result.text, "zh")
    assert result.status == "flagged" and digest.summary
    assert [b.split("：")[0] for b in digest.summary] == [s.topic for s in result.digest.sections][
        : len(digest.summary)
    ]
    assert any("sections' openings stand in" in f for f in result.findings)


@pytest.mark.slow
def test_real_embedded_model_writes_a_parseable_digest(fixtures, sqlite_engine, tmp_path):
    from newsdesk.core.config import load_settings
    from newsdesk.editions.episode import build_translation
    from newsdesk.llm.client import open_llm

    # Generous per-call timeout: two shared cores may be busy with other work.
    settings = load_settings(env={"NEWSDESK_LLM_BACKEND": "embedded", "NEWSDESK_LLM_TIMEOUT": "600"})
    llm = open_llm(settings, sqlite_engine)
    turns = [t for t in qmsum_turns(fixtures, 33)[:40] if len(t.text.split()) > 3][:12]
    options = EpisodeOptions(
        passage_tokens=700,
        min_sections=2,
        max_sections=2,
        summary_min=2,
        summary_max=3,
        summary_target=2,
        max_bullets=2,
        max_tokens=240,
    )
    started = time.monotonic()
    zh = build_episode(sqlite_engine, settings, llm, turns, title="Kick-off meeting", number=1, options=options)
    en = build_translation(sqlite_engine, settings, llm, zh, turns, original_title="Kick-off meeting", options=options)
    elapsed = time.monotonic() - started
    d_zh, d_en = parse_digest(zh.text, "zh"), parse_digest(en.text, "en")
    assert len(d_zh.sections) >= 2 and len(d_zh.summary) >= 1
    assert (len(d_en.summary), [len(s.bullets) for s in d_en.sections]) == (
        len(d_zh.summary),
        [len(s.bullets) for s in d_zh.sections],
    )
    assert parsed_quotes_in_transcript(zh.text, turns) == [] and parsed_quotes_in_transcript(en.text, turns) == []
    calls = llm.calls
    assert build_episode(
        sqlite_engine, settings, llm, turns, title="Kick-off meeting", number=1, options=options
    ).reused
    assert llm.calls == calls
    print(f"\nembedded model: {calls} calls, {elapsed:.0f}s, zh {zh.status}, en {en.status}\n{zh.text}\n{en.text}")


# --- the command -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "arg, expected",
    [
        ("missing.vtt", "missing.vtt: no such transcript file"),
        ("{jsonl}#99", "has 35 lines; pick one with"),
        ("{bad}", "no spoken text found"),
    ],
)
def test_episode_command_bad_input_is_one_clear_line(fixtures, tmp_path, monkeypatch, arg, expected):
    from typer.testing import CliRunner

    from newsdesk import cli

    bad = tmp_path / "notes.vtt"
    bad.write_text("WEBVTT\n\n", encoding="utf-8")
    arg = arg.format(jsonl=fixtures / "transcripts/qmsum-val.jsonl", bad=bad)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NEWSDESK_DATABASE_URL", f"sqlite:///{tmp_path / 'nd.db'}")
    cli._state.clear()
    result = CliRunner().invoke(cli.app, ["episode", arg])
    cli._state.clear()
    assert result.exit_code == 2
    message = " ".join(result.output.split())
    assert expected in message and "Traceback" not in result.output


def test_misattributed_quote_is_named():
    from newsdesk.write.speakers import attribution_problems

    turns = [
        Turn("Ann Lee", "We deployed twenty thousand sandboxes on the cloud."),
        Turn("Bob Stone", "We used Kubernetes for ours."),
    ]
    index = TranscriptIndex(transcript_lines(turns, 500))
    people = speakers(turns)
    assert attribution_problems("Bob说“We deployed twenty thousand sandboxes on the cloud.”", index, people)
    assert attribution_problems("Ann Lee说“We deployed twenty thousand sandboxes on the cloud.”", index, people) == []
    assert attribution_problems("有人说“We used Kubernetes for ours.”", index, people) == []
    # One person under two labels (a parliament transcript adds the riding) is still one person.
    turns = [
        Turn("Hon. Ann Lee", "Thank you."),
        Turn("Hon. Ann Lee (Carleton, CPC)", "We deployed twenty thousand sandboxes."),
    ]
    index, people = TranscriptIndex(transcript_lines(turns, 500)), speakers(turns)
    assert attribution_problems("Hon. Ann Lee说“We deployed twenty thousand sandboxes.”", index, people) == []


def test_a_long_meeting_is_sectioned_in_windows_that_fit_the_context(fixtures, sqlite_engine):
    turns = qmsum_turns(fixtures, 31)  # 134k characters, ~35k tokens: far over one 8k context
    llm = EpisodeFake(section_count=4)
    options = EpisodeOptions(passage_tokens=700)
    result = build_episode(sqlite_engine, None, llm, turns, title="Committee", key="long", options=options)
    sectioning = [c for c in llm.prompts if "divide a long conversation" in c]
    assert len(sectioning) > 1
    from newsdesk.write.transcript import estimate_tokens

    assert max(estimate_tokens(p) for p in llm.prompts) < 3 * 700  # instructions + at most two passages' worth
    d = parse_digest(result.text, "zh")
    assert len(d.sections) >= 10 and 5 <= len(d.summary) <= 9
    assert parsed_quotes_in_transcript(result.text, turns) == []


def test_episode_command_reports_an_unreachable_transcript_url(tmp_path, monkeypatch):
    import http.server
    import threading

    from typer.testing import CliRunner

    from newsdesk import cli

    class Missing(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(404)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Missing)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NEWSDESK_DATABASE_URL", f"sqlite:///{tmp_path / 'nd.db'}")
    monkeypatch.setenv("NEWSDESK_FETCH_ALLOW_PRIVATE", "1")
    monkeypatch.setenv("NEWSDESK_FETCH_RETRIES", "1")
    cli._state.clear()
    try:
        result = CliRunner().invoke(cli.app, ["episode", f"http://127.0.0.1:{server.server_port}/ep1.vtt"])
    finally:
        cli._state.clear()
        server.shutdown()
    assert result.exit_code == 2 and "404" in result.output and "Traceback" not in result.output
