"""Event analyses end to end against a loopback fake endpoint: check, regenerate once, flag, store, skip unchanged."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from fakes import FakeEndpoint, completion
from sqlalchemy import insert, select

from newsdesk.cluster import event_brief, refresh_event
from newsdesk.core.config import Settings
from newsdesk.core.model import Item, Source
from newsdesk.llm import open_llm
from newsdesk.store.items import sync_sources, upsert_item
from newsdesk.store.schema import analyses, checks, event_members, events, failed_drafts, items
from newsdesk.write.analysis import material_view, system_prompt, user_prompt, write_analyses

T0 = datetime(2026, 4, 23, 17, 0, tzinfo=UTC)

GPT_BODY = (
    "Today we're releasing GPT-5.5 in ChatGPT and Codex for Plus, Pro, Business and Enterprise users. "
    "GPT-5.5 scores 82.7% on Terminal-Bench 2.0, compared with 75.1% for GPT-5.4, and reaches 35.4% on "
    "FrontierMath Tier 4, up from 27.1%. Nearly 200 trusted early-access partners tested it. "
    "API access is coming very soon, with different safeguards."
)

GOOD_GPT = (
    "# OpenAI 发布 GPT-5.5：Terminal-Bench 2.0 官方称 82.7%\n\n"
    "OpenAI 官方称 GPT-5.5 在 Terminal-Bench 2.0 上是 82.7%，GPT-5.4 是 75.1%；FrontierMath Tier 4 从 27.1% 涨到 35.4%。"
    "我的判断很直接：这是一次官方主导的发布，分数是厂商自报。\n\n"
    "两个来源里，The Verge 这条现在材料只有 RSS 摘要级别，只是复述官方口径，不是独立验证。\n\n"
    "正文未披露 API 价格、上下文窗口和限速。如果后续第三方评测复现这些分数，判断可以上调。"
)

GOOD_INTEL = (
    "# Intel 指引带动股价涨 20%，材料只有标题\n\n"
    "FT 标题给出的唯一硬数字是股价涨 20%。我的判断很直接：这是估值喘息，不是 AI 回归。"
    "正文被 FT 订阅墙挡住，Bloomberg 这条也只有标题，收入区间和毛利率都没有。\n\n"
    "如果后续财报正文给出数据中心收入增长和具体客户，判断可以上调。"
)


def _add_event(conn, members: list[tuple[str, Item]]) -> int:
    ids = []
    for _, item in members:
        upsert_item(conn, item, now=T0)
        ids.append(conn.execute(select(items.c.id).where(items.c.guid == item.guid)).scalar_one())
    event_id = conn.execute(
        insert(events).values(title=members[0][1].title, first_published_at=T0, last_published_at=T0, updated_at=T0)
    ).inserted_primary_key[0]
    for (role, _), item_id in zip(members, ids):
        conn.execute(insert(event_members).values(item_id=item_id, event_id=event_id, role=role, joined_at=T0))
    refresh_event(conn, event_id, now=T0)
    return event_id


def build_two_events(engine) -> tuple[int, int]:
    """A multi-source release with full text, and a paywalled / title-only earnings story."""
    with engine.begin() as conn:
        sync_sources(
            conn,
            [
                Source("openai-blog", "OpenAI Blog", "https://openai.com/news/rss.xml", tier=1, category="lab"),
                Source("the-verge", "The Verge", "https://www.theverge.com/rss/index.xml"),
                Source("ft", "Financial Times", "https://www.ft.com/rss"),
                Source("bloomberg", "Bloomberg", "https://www.bloomberg.com/feed"),
            ],
        )
        gpt = _add_event(
            conn,
            [
                (
                    "lead",
                    Item(
                        "openai-blog",
                        "gpt55",
                        "https://openai.com/index/introducing-gpt-5-5/",
                        "Introducing GPT-5.5",
                        summary="A new class of intelligence for real work.",
                        body=GPT_BODY,
                        language="en",
                        published_at=T0,
                        material_level="full",
                    ),
                ),
                (
                    "member",
                    Item(
                        "the-verge",
                        "verge-gpt55",
                        "https://www.theverge.com/gpt-5-5",
                        "OpenAI's GPT-5.5 is more efficient and better at coding",
                        summary="OpenAI says GPT-5.5 matches GPT-5.4 per-token latency.",
                        language="en",
                        published_at=T0,
                        material_level="summary",
                    ),
                ),
            ],
        )
        intel = _add_event(
            conn,
            [
                (
                    "lead",
                    Item(
                        "ft",
                        "ft-intel",
                        "https://www.ft.com/content/intel",
                        "Intel shares jump 20% as chipmaker predicts revenue surge from AI data centres",
                        language="en",
                        published_at=T0,
                        material_level="paywalled",
                    ),
                ),
                (
                    "member",
                    Item(
                        "bloomberg",
                        "bbg-intel",
                        "https://www.bloomberg.com/intel",
                        "Intel Gives Strong AI-Fueled Outlook, Sending Shares Higher",
                        language="en",
                        published_at=T0,
                        material_level="title",
                    ),
                ),
            ],
        )
    return gpt, intel


@pytest.fixture
def two_events(engine):
    return build_two_events(engine)


def _answer(req) -> dict:
    user = req["messages"][-1]["content"]
    return completion(GOOD_GPT if "GPT-5.5" in user else GOOD_INTEL, prompt_tokens=900, completion_tokens=200)


@pytest.fixture
def fake():
    f = FakeEndpoint(default=_answer)
    yield f
    f.close()


def make_settings(fake, languages=("zh",), **llm) -> Settings:
    s = Settings()
    s.languages = list(languages)
    s.llm.backend, s.llm.base_url, s.llm.model = "openai", fake.base_url, "fake-model"
    s.llm.timeout, s.llm.backoff_base = 2.0, 0.01
    for k, v in llm.items():
        setattr(s.llm, k, v)
    return s


def rows(engine, table):
    with engine.connect() as conn:
        return [dict(r) for r in conn.execute(select(table).order_by(table.c.id)).mappings()]


def test_prompt_layout_shares_a_byte_identical_prefix(engine, two_events):
    with engine.connect() as conn:
        views = [material_view(event_brief(conn, e)) for e in two_events]
    assert system_prompt("zh") == system_prompt("zh") and system_prompt("zh") != system_prompt("en")
    assert "编辑方针" in system_prompt("zh") and "Write in English" in system_prompt("en")
    gpt, intel = (user_prompt(v) for v in views)
    assert "材料：全文" in gpt and "材料：只有摘要" in gpt and "82.7%" in gpt
    assert "材料：订阅墙（只有标题）" in intel and "材料：只有标题" in intel
    assert "2 个来源" in intel


def test_clean_analyses_stored_and_rerun_makes_no_call(engine, two_events, fake):
    settings = make_settings(fake)
    stats = write_analyses(engine, settings, open_llm(settings, engine))
    assert (stats.written, stats.clean, stats.flagged, stats.stopped) == (2, 2, 0, None)
    stored = rows(engine, analyses)
    assert {r["status"] for r in stored} == {"clean"} and {r["attempts"] for r in stored} == {1}
    gpt = next(r for r in stored if r["event_id"] == two_events[0])  # events are written side by side: any order
    assert gpt["headline"].startswith("OpenAI 发布 GPT-5.5") and not gpt["body"].startswith("#")
    assert [c["passed"] for c in rows(engine, checks)] == [True, True]
    system = {r["messages"][0]["content"] for r in fake.requests}
    assert len(system) == 1  # one shared prefix for both events
    before = len(fake.requests)
    again = write_analyses(engine, settings, open_llm(settings, engine))
    assert (again.written, again.unchanged) == (0, 2)
    assert len(fake.requests) == before  # unchanged material: zero model calls


def test_invented_number_is_regenerated_once_then_kept_for_the_operator_and_the_extractive_card_published(
    engine, two_events, fake
):
    invented = GOOD_GPT.replace("82.7%", "87.2%")
    fake.default = lambda req: completion(invented if "GPT-5.5" in req["messages"][-1]["content"] else GOOD_INTEL)
    settings = make_settings(fake)
    stats = write_analyses(engine, settings, open_llm(settings, engine), event_ids=[two_events[0]])
    assert (stats.written, stats.flagged) == (1, 1)
    assert len(fake.requests) == 2
    assert "number not in the material: 87.2%" in fake.requests[1]["messages"][-1]["content"]
    row = rows(engine, analyses)[0]
    # What readers get: the event's own lead sentence, chosen by code, clean; never the failed draft.
    assert (row["status"], row["model"], row["flags"]) == ("clean", "extractive", [])
    assert "87.2%" not in row["body"] and "82.7%" in row["body"]
    draft = rows(engine, failed_drafts)[0]
    assert (draft["output"], draft["subject_id"], draft["material_key"]) == (
        "analysis",
        f"{two_events[0]}:zh",
        row["material_key"],
    )
    assert "87.2%" in draft["text"] and draft["model"] == "fake-model"
    assert any(f["kind"] == "number" and f["span"] == "87.2%" for f in draft["findings"])
    assert [(c["attempt"], c["passed"]) for c in rows(engine, checks)] == [(1, False), (2, False), (3, True)]
    before = len(fake.requests)
    again = write_analyses(engine, settings, open_llm(settings, engine), event_ids=[two_events[0]])
    assert (again.written, again.unchanged, len(fake.requests)) == (0, 1, before)  # the model is not asked again


def test_invented_then_fixed_is_clean_on_the_second_attempt(engine, two_events, fake):
    fake.steps.append(("reply", completion(GOOD_GPT.replace("75.1%", "71.5%"))))
    settings = make_settings(fake)
    write_analyses(engine, settings, open_llm(settings, engine), event_ids=[two_events[0]])
    row = rows(engine, analyses)[0]
    assert (row["status"], row["attempts"], row["flags"]) == ("clean", 2, [])


def test_truncated_reply_and_silent_title_only_are_caught(engine, two_events, fake):
    cut = GOOD_GPT[:120]
    silent = GOOD_INTEL.replace("正文被 FT 订阅墙挡住，Bloomberg 这条也只有标题，", "")
    fake.default = lambda req: (
        completion(cut, finish_reason="length") if "GPT-5.5" in req["messages"][-1]["content"] else completion(silent)
    )
    settings = make_settings(fake)
    write_analyses(engine, settings, open_llm(settings, engine))
    flags = {
        int(r["subject_id"].split(":")[0]): {f["kind"] for f in r["findings"]} for r in rows(engine, failed_drafts)
    }
    assert "truncated" in flags[two_events[0]] and "disclosure" in flags[two_events[1]]
    assert {(r["status"], r["model"]) for r in rows(engine, analyses)} == {("clean", "extractive")}


def test_budget_stops_cleanly_and_the_next_run_finishes(engine, two_events, fake):
    # One call at a time: with more, the calls already in flight when the budget runs out still finish.
    settings = make_settings(fake, budget_tokens=1000, concurrency=1)  # one call of 1,100 tokens spends it
    stats = write_analyses(engine, settings, open_llm(settings, engine))
    assert stats.written == 1 and "llm.budget_tokens" in stats.stopped
    assert len(rows(engine, analyses)) == 1
    stats = write_analyses(engine, settings, open_llm(settings, engine))
    assert (stats.written, stats.unchanged) == (1, 1) and stats.stopped is None
    assert len(rows(engine, analyses)) == 2


def test_english_edition_when_configured(engine, two_events, fake):
    settings = make_settings(fake, languages=("zh", "en"))
    stats = write_analyses(engine, settings, open_llm(settings, engine), event_ids=[two_events[1]])
    assert stats.written == 2
    assert sorted(r["language"] for r in rows(engine, analyses)) == ["en", "zh"]
    assert sum("Write in English" in r["messages"][0]["content"] for r in fake.requests) == 1


def test_unreachable_endpoint_stops_the_run_and_loses_nothing(engine, two_events, fake):
    settings = make_settings(fake)
    write_analyses(engine, settings, open_llm(settings, engine), event_ids=[two_events[0]])
    settings.llm.base_url = "http://127.0.0.1:9/v1"
    stats = write_analyses(engine, settings, open_llm(settings, engine))
    assert "connection refused" in stats.stopped
    assert len(rows(engine, analyses)) == 1  # the analysis written before is still there


def test_cli_write_then_rerun(tmp_path, fake, monkeypatch):
    from typer.testing import CliRunner

    from newsdesk import cli
    from newsdesk.store import open_store

    url = f"sqlite:///{tmp_path / 'nd.db'}"
    build_two_events(open_store(url))
    for k, v in {
        "NEWSDESK_DATABASE_URL": url,
        "NEWSDESK_LANGUAGES": "zh",
        "NEWSDESK_WRITE_BY": "model",
        "NEWSDESK_LLM_BACKEND": "openai",
        "NEWSDESK_LLM_BASE_URL": fake.base_url,
        "NEWSDESK_LLM_MODEL": "fake-model",
        "NEWSDESK_CONFIG": str(tmp_path / "absent.toml"),
    }.items():
        monkeypatch.setenv(k, v)
    (tmp_path / "absent.toml").write_text("")
    monkeypatch.setattr(cli, "_state", {})
    first = CliRunner().invoke(cli.app, ["write"])
    assert first.exit_code == 0, first.output
    assert (
        "2 analyses written (2 clean, 0 failed their checks: extractive card published, draft kept for the "
        "operator), 0 unchanged, 0 failed; 2 model calls"
    ) in " ".join(first.output.split())
    monkeypatch.setattr(cli, "_state", {})
    second = CliRunner().invoke(cli.app, ["write"])
    out = " ".join(second.output.split())
    assert "0 analyses written" in out and "2 unchanged" in out and "0 model calls" in out
    monkeypatch.setattr(cli, "_state", {})
    monkeypatch.setenv("NEWSDESK_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("NEWSDESK_LLM_MODEL", "other-model")
    down = CliRunner().invoke(cli.app, ["write"])
    assert down.exit_code == 2
    assert "connection refused; check llm.base_url or start the server" in " ".join(down.output.split())


def test_cli_eval_checker(eval_sets, monkeypatch):
    from typer.testing import CliRunner

    from newsdesk import cli

    monkeypatch.setattr(cli, "_state", {})
    result = CliRunner().invoke(cli.app, ["eval", "checker", str(eval_sets / "faithfulness/summac-xsumfaith.json")])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert "485 pairs, 435 labelled inconsistent" in lines[0]
    assert "baseline" in lines[1] and "checker" in lines[2]
    bad = CliRunner().invoke(cli.app, ["eval", "checker", "/nonexistent/summac.json"])
    assert bad.exit_code == 2 and "file not found" in bad.output
