"""The LLM client against a loopback fake endpoint: retries, repair, cache, ledger, budget, errors."""

from __future__ import annotations

import time

import pytest
from fakes import FakeEndpoint, completion
from sqlalchemy import func, select

from newsdesk.core.config import Settings
from newsdesk.llm import BudgetExhausted, LLMError, LLMUnavailable, open_llm
from newsdesk.llm.client import in_parallel
from newsdesk.llm.usage import PriceTable
from newsdesk.store.schema import llm_cache, llm_usage

MESSAGES = [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "Say hi."}]
SCHEMA = {
    "type": "object",
    "required": ["verdict", "score"],
    "properties": {"verdict": {"type": "string", "minLength": 1}, "score": {"type": "number"}},
}


@pytest.fixture
def fake():
    f = FakeEndpoint()
    yield f
    f.close()


def make_settings(fake: FakeEndpoint, **llm) -> Settings:
    s = Settings()
    s.llm.backend = "openai"
    s.llm.base_url = fake.base_url
    s.llm.model = "fake-model"
    s.llm.timeout = 1.0
    s.llm.backoff_base = 0.05
    for k, v in llm.items():
        setattr(s.llm, k, v)
    return s


def usage_rows(engine):
    with engine.connect() as conn:
        return [dict(r) for r in conn.execute(select(llm_usage).order_by(llm_usage.c.id)).mappings()]


def test_reply_ledger_and_cache_hit_makes_no_request(fake, engine):
    fake.steps.append(("reply", completion("hi", prompt_tokens=120, completion_tokens=3, cached_tokens=100)))
    llm = open_llm(make_settings(fake), engine, run_id="r1")
    r = llm.chat(MESSAGES, output="test")
    assert (r.text, r.prompt_tokens, r.cached_tokens, r.cache_hit) == ("hi", 120, 100, False)
    again = open_llm(make_settings(fake), engine, run_id="r2").chat(MESSAGES, output="test")
    assert again.text == "hi" and again.cache_hit
    assert len(fake.requests) == 1  # the re-run paid nothing
    rows = usage_rows(engine)
    assert [(x["run_id"], x["cache_hit"], x["prompt_tokens"], x["cached_tokens"]) for x in rows] == [
        ("r1", False, 120, 100),
        ("r2", True, 0, 0),
    ]
    # Different parameters are a different request.
    llm.chat(MESSAGES, output="test", max_tokens=7)
    assert len(fake.requests) == 2 and fake.requests[-1]["max_tokens"] == 7


def test_timeout_then_success_is_retried(fake, engine):
    fake.steps.extend([("sleep", 2.0), ("reply", completion("late but here"))])
    llm = open_llm(make_settings(fake, timeout=0.5), engine)
    assert llm.chat(MESSAGES, output="test").text == "late but here"
    rows = usage_rows(engine)
    assert "timed out" in rows[0]["error"] and rows[1]["error"] is None


def test_429_waits_for_retry_after(fake, engine):
    fake.steps.extend([("status", 429, {"Retry-After": "1"}), ("reply", completion("after the wait"))])
    llm = open_llm(make_settings(fake), engine)
    started = time.monotonic()
    assert llm.chat(MESSAGES, output="test").text == "after the wait"
    assert time.monotonic() - started >= 0.95  # honoured Retry-After, not the 0.05 s backoff
    assert "429" in usage_rows(engine)[0]["error"]


def test_500s_retried_then_give_up_with_one_line(fake, engine):
    fake.steps.extend([("status", 500), ("status", 502), ("reply", completion("third time"))])
    llm = open_llm(make_settings(fake), engine)
    assert llm.chat(MESSAGES, output="test").text == "third time"
    fake.steps.extend([("status", 503)] * 4)
    with pytest.raises(LLMUnavailable) as exc:
        llm.chat(MESSAGES + [{"role": "user", "content": "again"}], output="test")
    assert "server error 503" in str(exc.value) and "\n" not in str(exc.value)
    assert len(fake.requests) == 3 + 4  # retries = 3: four attempts in all


def test_invalid_json_is_repaired_once(fake, engine):
    fake.steps.extend(
        [("reply", completion("verdict: fine")), ("reply", completion('{"verdict": "fine", "score": 0.8}'))]
    )
    llm = open_llm(make_settings(fake), engine)
    r = llm.chat(MESSAGES, output="test", schema=SCHEMA)
    assert r.data == {"verdict": "fine", "score": 0.8}
    repair = fake.requests[1]["messages"]
    assert (
        repair[-2] == {"role": "assistant", "content": "verdict: fine"}
        and "not parseable JSON" in repair[-1]["content"]
    )
    assert fake.requests[0]["response_format"]["type"] == "json_schema"
    # Still wrong after the repair: one clear error, no third call.
    fake.steps.extend([("reply", completion('{"verdict": ""}')), ("reply", completion('{"score": "high"}'))])
    with pytest.raises(LLMError, match="after one repair"):
        llm.chat(MESSAGES + [{"role": "user", "content": "x"}], output="test", schema=SCHEMA)
    assert len(fake.requests) == 4


def test_truncated_reply_is_reported(fake, engine):
    fake.steps.append(("reply", completion("这条消息的重点不是", finish_reason="length")))
    r = open_llm(make_settings(fake), engine).chat(MESSAGES, output="test")
    assert r.truncated


def test_budget_stops_before_the_next_call(fake, engine):
    fake.default = lambda req: completion("x" * 5, prompt_tokens=600, completion_tokens=100)
    llm = open_llm(make_settings(fake, budget_tokens=1000), engine)
    llm.chat(MESSAGES, output="test")
    llm.chat(MESSAGES + [{"role": "user", "content": "2"}], output="test")  # 700 spent < 1000: allowed
    with pytest.raises(BudgetExhausted, match="llm.budget_tokens"):
        llm.chat(MESSAGES + [{"role": "user", "content": "3"}], output="test")
    assert len(fake.requests) == 2
    # Cached answers stay free after the budget is spent.
    assert llm.chat(MESSAGES, output="test").cache_hit


def test_money_budget_uses_the_price_table(fake, engine, tmp_path):
    prices = tmp_path / "prices.toml"
    prices.write_text('[[model]]\nmatch = "fake-*"\ninput = 1000\ncached_input = 100\noutput = 2000\n')
    fake.default = lambda req: completion("y", prompt_tokens=1000, completion_tokens=500, cached_tokens=800)
    llm = open_llm(make_settings(fake, budget_usd=1.0, prices_file=str(prices)), engine)
    llm.chat(MESSAGES, output="test")
    # 200 fresh * 1000/1e6 + 800 cached * 100/1e6 + 500 out * 2000/1e6 = 0.2 + 0.08 + 1.0
    assert usage_rows(engine)[0]["cost_usd"] == pytest.approx(1.28)
    with pytest.raises(BudgetExhausted, match="budget_usd"):
        llm.chat(MESSAGES + [{"role": "user", "content": "more"}], output="test")
    assert PriceTable.load().price("qwen2.5-0.5b-instruct-q4_k_m").output == 0


def test_unreachable_endpoint_and_missing_key_are_one_line(engine, monkeypatch):
    s = Settings()
    s.llm.backend, s.llm.base_url, s.llm.model = "openai", "http://127.0.0.1:9/v1", "m"
    with pytest.raises(LLMUnavailable) as exc:
        open_llm(s, engine).chat(MESSAGES, output="test")
    assert "http://127.0.0.1:9/v1: connection refused; check llm.base_url or start the server" in str(exc.value)
    monkeypatch.delenv("NEWSDESK_TEST_KEY", raising=False)
    s.llm.base_url, s.llm.api_key_env = "https://api.example.invalid/v1", "NEWSDESK_TEST_KEY"
    with pytest.raises(LLMError, match="NEWSDESK_TEST_KEY"):
        open_llm(s, engine)
    s.llm.backend = "nonsense"
    with pytest.raises(LLMError, match="llm.backend"):
        open_llm(s, engine)


def slow_answers(fake: FakeEndpoint) -> list[int]:
    """Make each request take 0.2 s and echo its last message; returns [most requests in flight at once]."""
    import threading

    active, peak, lock = [0], [0], threading.Lock()

    def answer(req):
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        time.sleep(0.2)
        with lock:
            active[0] -= 1
        return completion("answer " + req["messages"][-1]["content"])

    fake.default = answer
    return peak


def test_concurrency_limit_holds(fake, engine):
    import threading

    peak = slow_answers(fake)
    llm = open_llm(make_settings(fake, concurrency=2), engine)
    threads = [
        threading.Thread(
            target=llm.chat, args=(MESSAGES + [{"role": "user", "content": str(i)}],), kwargs={"output": "test"}
        )
        for i in range(6)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert peak[0] == 2 and len(fake.requests) == 6
    with engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(llm_cache)).scalar_one() == 6


def test_in_parallel_overlaps_calls_and_keeps_order(fake, engine):
    peak = slow_answers(fake)
    llm = open_llm(make_settings(fake, concurrency=3), engine)
    texts = in_parallel(
        llm, lambda i: llm.chat(MESSAGES + [{"role": "user", "content": str(i)}], output="test").text, range(7)
    )
    assert texts == [f"answer {i}" for i in range(7)] and peak[0] == 3


def test_in_parallel_raises_the_first_error_and_starts_nothing_more():
    import threading

    class Two:
        concurrency = 2

    ran, lock = [], threading.Lock()

    def work(i):
        with lock:
            ran.append(i)
        if i == 0:
            raise LLMUnavailable("endpoint gone")
        time.sleep(0.1)
        return i

    with pytest.raises(LLMUnavailable, match="endpoint gone"):
        in_parallel(Two(), work, range(20))
    assert len(ran) <= 4  # what was running or picked up before the error was seen; the rest never started
    assert in_parallel(object(), lambda i: i * 2, range(3)) == [0, 2, 4]  # no concurrency attribute: one at a time


def test_a_200_whose_body_is_not_json_is_one_line_naming_the_endpoint_and_what_it_answered(fake, engine):
    page = b"<html><head><title>Welcome to nginx!</title></head><body>" + b"<p>hello</p>" * 50 + b"</body></html>"
    fake.steps.append(("garbage", page))
    with pytest.raises(LLMUnavailable) as exc:
        open_llm(make_settings(fake), engine, run_id="r1").chat(MESSAGES, output="test")
    line = str(exc.value)
    assert "\n" not in line and line.startswith(
        f"model endpoint {fake.base_url}: answered HTTP 200 with a body "
        "that is not JSON ('<html><head><title>Welcome to nginx!"
    )
    assert "…'); set llm.base_url to the root of an OpenAI-compatible API" in line and len(line) < 300
    assert len(fake.requests) == 1  # every try would get the same page: not retried
    assert usage_rows(engine)[-1]["error"] == line  # the ledger says what happened too
