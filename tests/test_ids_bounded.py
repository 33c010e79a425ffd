"""Every integer id the MCP server and the JSON API take is bounded to what a store can hold (32 bits in
PostgreSQL, 64 in SQLite): MCP get_event with an id of 10**30 answered a bare "Error executing tool" and
logged a ~250-line OverflowError traceback, and on PostgreSQL /api/events/2147483648 answered 500."""

from __future__ import annotations

import logging

import anyio
import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client

from newsdesk.core.config import Settings
from newsdesk.serve import queries
from newsdesk.serve.app import create_app
from newsdesk.serve.mcp import build_server

# Past the 32 bits of a PostgreSQL id, past SQLite's 64, and below 1.
OUT_OF_RANGE = [2**31, 2**63 - 1, 10**30, 2**63, -1, 0, -(2**63) - 1]


def _tracebacks(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


def test_mcp_ids_out_of_range_are_a_bad_id_answer_not_a_traceback(engine, tmp_path, caplog):
    server = build_server(engine, Settings(data_dir=str(tmp_path), web_token="t"))

    async def main():
        async with Client(server) as client:
            for tool, extra in (("get_event", {}), ("leave_feedback", {"kind": "up"})):
                for event_id in OUT_OF_RANGE:
                    result = await client.call_tool(tool, {"event_id": event_id, **extra})
                    text = result.content[0].text
                    assert result.is_error and "event_id" in text, (tool, event_id, text)
                    assert "2147483647" in text or "greater than or equal to 1" in text, text
            # The largest id that can exist is looked up and not found, as any other.
            result = await client.call_tool("get_event", {"event_id": 2**31 - 1})
            assert result.is_error and "does not exist; find event ids with search_events" in result.content[0].text

    with caplog.at_level(logging.DEBUG):
        anyio.run(main)
    assert _tracebacks(caplog) == []


def test_api_ids_out_of_range_are_not_found(engine, tmp_path, caplog):
    app = create_app(engine, Settings(data_dir=str(tmp_path), web_token="t"))
    with caplog.at_level(logging.DEBUG), TestClient(app, raise_server_exceptions=False) as client:
        for event_id in OUT_OF_RANGE:
            for method, path, body in (
                ("get", f"/api/events/{event_id}", None),
                ("get", f"/api/stories/{event_id}", None),
                ("post", f"/api/events/{event_id}/feedback", {"kind": "up"}),
                ("get", f"/events/{event_id}", None),
            ):
                r = client.request(method, path, json=body, headers={"Authorization": "Bearer t"})
                assert r.status_code == 404 and "does not exist" in r.text, (path, r.status_code)
            if event_id > 0:  # a subscription is named by id or name: a negative number is a name
                r = client.delete(f"/api/subscriptions/{event_id}", headers={"Authorization": "Bearer t"})
                assert r.status_code == 404 and "does not exist" in r.text, (event_id, r.status_code)
    assert _tracebacks(caplog) == []


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(event_id=st.integers() | st.sampled_from(OUT_OF_RANGE))
def test_the_queries_take_any_integer(engine, event_id):
    from zoneinfo import ZoneInfo

    with engine.connect() as conn:
        assert queries.event_detail(conn, event_id, ZoneInfo("UTC")) is None
    with pytest.raises(LookupError), engine.begin() as conn:
        queries.add_feedback(conn, event_id, "up", "", "fuzz")
