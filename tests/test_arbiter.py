"""The arbiter's request: what a small grammar-bound model needs to answer within its token cap."""

from __future__ import annotations

import json

from fakes import FakeEndpoint, completion

from newsdesk.cluster.arbiter import llm_arbiter
from newsdesk.core.config import Settings
from newsdesk.llm import open_llm


def test_the_arbiter_asks_for_a_short_reason_before_the_ruling(sqlite_engine):
    """The embedded model, asked for the verdict first and a free reason, ran past max_tokens and cut its JSON off
    (eval/clusters/arbiter.md): the schema now puts the reason first, with a length the token cap holds."""
    fake = FakeEndpoint(
        lambda req: completion(json.dumps({"reason": "a funding round, then a launch", "same_event": False}))
    )
    s = Settings()
    s.llm.backend, s.llm.base_url, s.llm.model, s.llm.timeout = "openai", fake.base_url, "m", 5.0
    try:
        ruling = llm_arbiter(open_llm(s, sqlite_engine))("Anthropic raises $30B", "Anthropic launches Claude Opus 4.6")
    finally:
        fake.close()
    assert ruling == (False, "a funding round, then a launch")
    asked = fake.requests[0]
    schema = asked["response_format"]["json_schema"]["schema"]
    assert list(schema["properties"]) == ["reason", "same_event"]
    # A Chinese character can take a whole token: even then the capped reason and the JSON around it fit the cap.
    assert schema["properties"]["reason"]["maxLength"] + 30 <= asked["max_tokens"]
    assert "EVENT (its first report):\nAnthropic raises $30B" in asked["messages"][1]["content"]
