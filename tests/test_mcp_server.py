"""The MCP server driven by the SDK's own client: over stdio (`newsdesk mcp` as a subprocess)
and over streamable HTTP (mounted in the web app, served by uvicorn on loopback), on the demo store."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import httpx2
import pytest
from conftest import DEMO_TOKEN
from loopback import serve_app
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from sqlalchemy import select

from newsdesk.core.config import Settings
from newsdesk.serve.app import create_app
from newsdesk.store.schema import analyses, feedback

ROOT = Path(__file__).resolve().parents[1]
TOKEN = DEMO_TOKEN
TOOLS = {
    "search_events",
    "get_event",
    "daily_edition",
    "weekly_report",
    "episode_digest",
    "list_editions",
    "list_sources",
    "leave_feedback",
}


def _data(result) -> dict | list:
    assert not result.is_error, result.content[0].text
    return result.structured_content.get("result", result.structured_content)


async def _exercise(client: Client, engine) -> None:
    """List the tools and resources, call every tool on the demo store, and call with wrong arguments."""
    tools = {t.name for t in (await client.list_tools()).tools}
    assert tools == TOOLS

    found = _data(await client.call_tool("search_events", {"query": "Claude", "language": "en"}))
    assert found["events"], "the demo week has Claude events"
    event_id = found["events"][0]["id"]

    daily = _data(await client.call_tool("daily_edition", {}))
    assert daily["kind"] == "daily" and f"全部 · {daily['key']}" in daily["body"]
    cards = daily["meta"]["cards"]
    dated = _data(await client.call_tool("daily_edition", {"date": daily["key"], "language": "en"}))
    assert dated["key"] == daily["key"] and dated["language"] == "en"

    assert cards and all(c["event_id"] for c in cards)
    with engine.connect() as conn:  # the demo writes an analysis for its most important event only
        featured = conn.execute(select(analyses.c.event_id)).scalar()
    event = _data(await client.call_tool("get_event", {"event_id": featured}))
    assert event["members"] and all(m["outlet"] and m["url"] for m in event["members"])
    assert event["outlets"] >= event["independent_outlets"] >= 1
    assert event["analyses"]
    assert {a["status"] for a in event["analyses"].values()} <= {"clean", "flagged"}
    assert event["checks"] and all(isinstance(c["passed"], bool) for c in event["checks"])
    assert _data(await client.call_tool("get_event", {"event_id": event_id, "language": "en"}))["event_id"] == event_id

    weekly = _data(await client.call_tool("weekly_report", {}))
    assert weekly["kind"] == "weekly" and weekly["key"].startswith("2025-W")
    assert _data(await client.call_tool("weekly_report", {"week": weekly["key"]}))["body"] == weekly["body"]

    episodes = _data(await client.call_tool("list_editions", {"kind": "episode"}))
    assert episodes and set(episodes[0]["languages"]) == {"zh", "en"}
    digest = _data(await client.call_tool("episode_digest", {"key": episodes[0]["key"], "language": "en"}))
    assert "Summary" in digest["body"]

    sources = _data(await client.call_tool("list_sources", {}))
    assert sources and {"last_success", "consecutive_failures", "stale"} <= set(sources[0])

    created = _data(await client.call_tool("leave_feedback", {"event_id": featured, "kind": "star", "note": "via mcp"}))
    with engine.connect() as conn:
        row = conn.execute(select(feedback).where(feedback.c.id == created["id"])).one()
    assert (row.event_id, row.kind, row.note) == (featured, "star", "via mcp")

    # Wrong arguments: a tool error that names the fix, and the server goes on.
    for name, args, fix in (
        ("daily_edition", {"date": "27/02/2025"}, "YYYY-MM-DD"),
        ("daily_edition", {"date": "1999-01-01"}, daily["key"]),
        ("weekly_report", {"week": "week 9"}, "YYYY-Www"),
        ("get_event", {"event_id": 999999}, "search_events"),
        ("get_event", {"event_id": "first"}, "event_id"),
        ("get_event", {}, "event_id"),
        ("search_events", {"query": "Claude", "language": "fr"}, "'zh' or 'en'"),
        ("list_editions", {"kind": "monthly"}, "'daily', 'weekly' or 'episode'"),
        ("leave_feedback", {"event_id": featured, "kind": "love"}, "'up', 'down' or 'star'"),
        ("episode_digest", {"key": "no-such-episode"}, episodes[0]["key"]),
    ):
        result = await client.call_tool(name, args)
        assert result.is_error, (name, args)
        assert fix in result.content[0].text, (name, args, result.content[0].text)
    assert _data(await client.call_tool("list_editions", {"kind": "daily"}))  # still serving

    # Editions as resources: one per kind, key and language; read back as markdown.
    resources = {str(r.uri): r for r in (await client.list_resources()).resources}
    uri = f"newsdesk://editions/weekly/{weekly['key']}/zh"
    assert uri in resources and f"newsdesk://editions/daily/{daily['key']}/en" in resources
    assert (await client.read_resource(uri)).contents[0].text == weekly["body"]


def test_over_stdio(demo, tmp_path):
    s, engine = demo
    env = {"PYTHONPATH": str(ROOT / "src"), "NEWSDESK_DATA_DIR": s.data_dir, "NEWSDESK_WEB_TOKEN": TOKEN}
    params = StdioServerParameters(command=sys.executable, args=["-m", "newsdesk", "mcp"], env=env, cwd=str(tmp_path))

    async def main():
        with (tmp_path / "stderr.log").open("w") as errlog:
            async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=60) as client:
                await _exercise(client, engine)

    anyio.run(main)


@pytest.fixture
def served(demo):
    s, engine = demo
    app = create_app(engine, s)
    with serve_app(app) as url:
        yield f"{url}/mcp", engine


def test_over_http_behind_the_token(served):
    url, engine = served

    async def main():
        async with (
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=60) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            await _exercise(client, engine)
        async with httpx2.AsyncClient(timeout=10) as bare:
            for headers in ({}, {"Authorization": "Bearer wrong"}):
                r = await bare.post(url, headers=headers, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
                assert r.status_code == 401 and "NEWSDESK_WEB_TOKEN" in json.loads(r.text)["detail"]

    anyio.run(main)


def test_http_refused_and_no_feedback_tool_without_a_token(demo):
    from fastapi.testclient import TestClient

    from newsdesk.serve.mcp import build_server

    s, engine = demo
    open_settings = Settings(data_dir=s.data_dir)
    with TestClient(create_app(engine, open_settings)) as c:
        r = c.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert r.status_code == 403 and "NEWSDESK_WEB_TOKEN" in r.json()["detail"]

    async def main():
        async with Client(build_server(engine, open_settings)) as client:
            assert {t.name for t in (await client.list_tools()).tools} == TOOLS - {"leave_feedback"}

    anyio.run(main)
