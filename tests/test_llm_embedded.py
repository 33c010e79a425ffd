"""The real embedded model (Qwen2.5-0.5B through llama.cpp) on loopback, through the same HTTP client."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from newsdesk.core.config import Settings
from newsdesk.llm import LLMError, embedded, open_llm
from newsdesk.store.schema import llm_usage

pytestmark = pytest.mark.slow

PREFIX = ("You are a news desk assistant. Answer in one short sentence. " * 15).strip()


def test_a_file_that_does_not_hash_right_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(embedded, "MODEL_SHA256", "0" * 64)
    with pytest.raises(LLMError, match="refusing to load"):
        embedded.ensure_model_file(tmp_path)
    assert list(tmp_path.iterdir()) == []  # nothing half-written is left to be loaded later


def test_embedded_model_over_http_reuses_the_prefix_and_the_cache(sqlite_engine):
    path = embedded.ensure_model_file()
    assert path.stat().st_size == 491400064
    s = Settings()
    s.llm.backend = "embedded"
    llm = open_llm(s, sqlite_engine, run_id="slow")
    assert llm.backend.base_url.startswith("http://127.0.0.1:")  # the OpenAI-compatible path, on loopback
    first = llm.chat(
        [{"role": "system", "content": PREFIX}, {"role": "user", "content": "Name a colour."}],
        output="test",
        max_tokens=8,
        temperature=0,
    )
    second = llm.chat(
        [{"role": "system", "content": PREFIX}, {"role": "user", "content": "Name a fruit."}],
        output="test",
        max_tokens=8,
        temperature=0,
    )
    assert first.text.strip() and second.text.strip()
    assert second.cached_tokens >= 0.8 * first.prompt_tokens  # the shared system prefix was not processed again
    data = llm.chat(
        [{"role": "user", "content": 'Reply with a JSON object {"colour": <a colour name>}.'}],
        output="test",
        max_tokens=20,
        temperature=0,
        schema={"type": "object", "required": ["colour"], "properties": {"colour": {"type": "string"}}},
    )
    assert isinstance(data.data, dict) and data.data["colour"]
    calls = llm.calls
    again = llm.chat(
        [{"role": "system", "content": PREFIX}, {"role": "user", "content": "Name a colour."}],
        output="test",
        max_tokens=8,
        temperature=0,
    )
    assert again.cache_hit and again.text == first.text and llm.calls == calls
    with sqlite_engine.connect() as conn:
        ledger = [dict(r) for r in conn.execute(select(llm_usage)).mappings()]
    assert [r["cache_hit"] for r in ledger] == [False, False, False, True]
    assert {r["model"] for r in ledger} == {embedded.MODEL_NAME} and {r["backend"] for r in ledger} == {"embedded"}
