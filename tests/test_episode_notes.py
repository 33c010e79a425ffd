"""The writer's repair notes are the operator's, never a reader's.

The scripted episode writer (EpisodeFake, tests/fakes.py) has every section quote a line nobody said;
the writer drops that sentence, notes it ("quote not in the transcript, sentence dropped: “…”"),
and the digest passes. The note stays in the stored edition; no published file, no public GET
route of the web app and its API, and no MCP tool or resource carries it. The operator's token
gets it from the API.
"""

from __future__ import annotations

import json

import anyio
from conftest import DEMO_TOKEN as TOKEN
from fastapi.testclient import TestClient
from mcp import Client
from sqlalchemy import select
from test_published_clean import reader_view

from newsdesk.serve.app import create_app
from newsdesk.serve.mcp import build_server
from newsdesk.store.schema import editions

NOTE = "quote not in the transcript"
DROPPED = "we will ship the quantum teleporter on Tuesday morning"  # EpisodeFake's made-up quote


def _episodes(engine) -> list:
    with engine.connect() as conn:
        return conn.execute(select(editions).where(editions.c.kind == "episode")).all()


def test_a_repaired_digest_is_published_and_its_notes_are_stored(demo):
    _, engine = demo
    zh = next(r for r in _episodes(engine) if r.language == "zh")
    assert zh.status == "clean" and zh.meta.get("extractive") is None  # the model's digest, after the repair
    assert any(NOTE in n and DROPPED[:40] in n for n in zh.meta["quote_notes"])
    assert zh.meta["quotes"]["dropped"] > 0
    assert DROPPED not in zh.body  # the repair itself: the sentence is gone from the digest


def test_no_reader_sees_the_notes(demo):
    s, engine = demo
    texts, answers = reader_view(s, engine)
    with TestClient(create_app(engine, s)) as client:
        for r in _episodes(engine):
            texts[f"web /episodes/{r.key}?lang={r.language}"] = client.get(f"/episodes/{r.key}?lang={r.language}").text
    everything = "\n".join(texts.values()) + json.dumps(answers, ensure_ascii=False)
    assert any(p.endswith(".md") and "/episodes/" in p for p in texts)  # the Markdown with its front matter
    assert NOTE not in everything and DROPPED not in everything
    for url, answer in answers.items():
        if url.startswith("/api/editions/episode/"):
            assert "quote_notes" not in answer["meta"] and "quotes" not in answer["meta"], url

    async def mcp() -> str:
        async with Client(build_server(engine, s)) as client:
            said = []
            for r in _episodes(engine):
                got = await client.call_tool("episode_digest", {"key": r.key, "language": r.language})
                assert not got.is_error, got.content[0].text
                said.append(json.dumps(got.structured_content, ensure_ascii=False))
                resource = await client.read_resource(f"newsdesk://editions/episode/{r.key}/{r.language}")
                said += [c.text for c in resource.contents]
            return "\n".join(said)

    told = anyio.run(mcp)
    assert "摘要" in told and NOTE not in told and DROPPED not in told


def test_the_operator_token_gets_the_notes(demo):
    s, engine = demo
    zh = next(r for r in _episodes(engine) if r.language == "zh")
    with TestClient(create_app(engine, s)) as client:
        url = f"/api/editions/episode/{zh.key}?lang=zh"
        operator = client.get(url, headers={"Authorization": f"Bearer {TOKEN}"}).json()
        wrong = client.get(url, headers={"Authorization": "Bearer not-the-token"}).json()
    assert operator["meta"]["quote_notes"] == zh.meta["quote_notes"] and NOTE in json.dumps(
        operator, ensure_ascii=False
    )
    assert "quote_notes" not in wrong["meta"]
