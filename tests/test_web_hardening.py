"""The web app under hostile input: security headers, a throttle on wrong tokens, no 500 on any request."""

from __future__ import annotations

import re
import tempfile
import time
from pathlib import Path

import httpx
import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from test_web_app import TOKEN, csrf_of, seed_store

from newsdesk.core.config import Settings
from newsdesk.serve.app import create_app
from newsdesk.store import open_store

AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def client(engine):
    seed_store(engine)
    with TestClient(create_app(engine, Settings(web_token=TOKEN))) as c:
        yield c


def test_every_response_carries_security_headers(client):
    for path in ("/", "/events/1", "/api/events", "/openapi.json", "/static/style.css", "/nope"):
        h = client.get(path).headers
        assert h["x-content-type-options"] == "nosniff", path
        assert h["x-frame-options"] == "DENY" and h["referrer-policy"] == "strict-origin-when-cross-origin"
        assert (
            "script-src 'none'" in h["content-security-policy"]
            and "frame-ancestors 'none'" in h["content-security-policy"]
        )
        assert "strict-transport-security" not in h  # a plain-http site must not pin HTTPS
    docs = client.get("/api/docs")
    assert docs.status_code == 200 and "cdn.jsdelivr.net" in docs.headers["content-security-policy"]


def test_security_headers_replace_the_responses_own_each_once():
    """SecurityHeaders (secure's headers encoded once): each security header of the path's policy is sent
    exactly once, replacing the response's own of that name (case and spaces aside); one that may repeat
    (the CSP) is added to the response's; the response's other headers stay, in their order. The docs
    page gets the docs policy, every other path the pages'. A copy of secure's index bookkeeping went
    stale after a removal: Referrer-Policy then X-Frame-Options from a route lost Cross-Origin-Opener-Policy
    and sent X-Frame-Options twice."""
    import asyncio

    from secure import MULTI_OK

    from newsdesk.serve.app import SecurityHeaders, security_headers

    site = Settings(site_url="https://news.example.com")
    policies = {"/": security_headers(site), "/api/docs": security_headers(site, docs=True)}
    assert policies["/"].headers["Content-Security-Policy"] != policies["/api/docs"].headers["Content-Security-Policy"]
    theirs = [
        [(b"content-type", b"text/html; charset=utf-8"), (b"vary", b"Cookie")],
        [(b"Referrer-Policy", b"no-referrer"), (b"X-Frame-Options", b"SAMEORIGIN")],
        [(b"X-Frame-Options", b"SAMEORIGIN"), (b"content-length", b"3"), (b"x-frame-options", b"ALLOW")],
        [(b" Content-Security-Policy ", b"default-src *"), (b"set-cookie", b"a=1"), (b"set-cookie", b"b=2")],
        [(b"cross-origin-opener-policy", b"unsafe-none"), (b"strict-transport-security", b"max-age=1")],
        [],
    ]

    def sent(path, headers):
        out = []

        async def app(scope, receive, send):
            await send({"type": "http.response.start", "status": 200, "headers": list(headers)})
            await send({"type": "http.response.body", "body": b"ok"})

        async def send(message):
            out.append(message)

        async def receive():
            return {"type": "http.request"}

        middleware = SecurityHeaders(app, pages=policies["/"], docs=policies["/api/docs"], docs_path="/api/docs")
        asyncio.run(middleware({"type": "http", "path": path}, receive, send))
        return [(k.decode().strip().lower(), v.decode()) for k, v in out[0]["headers"]]

    for path, policy in policies.items():
        ours = {name.lower(): value for name, value in policy.headers.items()}
        for headers in theirs:
            got = sent(path, headers)
            own = [(k.decode().strip().lower(), v.decode()) for k, v in headers]
            for name, value in ours.items():
                values = [v for k, v in got if k == name]
                if name in MULTI_OK:  # added to the response's own
                    assert values == [v for k, v in own if k == name] + [value], (path, name, got)
                else:
                    assert values == [value], (path, name, got)
            others = [(k, v) for k, v in own if k not in ours]
            assert [(k, v) for k, v in got if k not in ours] == others, (path, got)


def test_wrong_tokens_are_throttled_per_address(client):
    page = client.get("/login").text
    codes = [
        client.post("/login", data={"token": f"guess{i}", "csrf": csrf_of(page), "next": "/"}).status_code
        for i in range(12)
    ]
    assert codes[:10] == [401] * 10 and codes[10:] == [429, 429]
    # While throttled even the right token waits, so a guess cannot be confirmed by being let in.
    right = client.post("/login", data={"token": TOKEN, "csrf": csrf_of(page), "next": "/"}, follow_redirects=False)
    assert right.status_code == 429 and "try again" in right.text
    api = client.patch("/api/sources/jiqizhixin", json={"enabled": False}, headers=AUTH)
    assert api.status_code == 429 and int(api.headers["retry-after"]) >= 1


def test_api_bearer_guesses_are_throttled(client):
    codes = [
        client.patch("/api/sources/x", json={"enabled": False}, headers={"Authorization": f"Bearer g{i}"}).status_code
        for i in range(11)
    ]
    assert codes == [401] * 10 + [429]


def test_mcp_bearer_guesses_count_with_the_others(client):
    for i in range(9):
        assert (
            client.patch(
                "/api/sources/x", json={"enabled": False}, headers={"Authorization": f"Bearer g{i}"}
            ).status_code
            == 401
        )
    assert client.post("/mcp", json={}, headers={"Authorization": "Bearer wrong"}).status_code == 401
    refused = client.post("/mcp", json={}, headers={"Authorization": "Bearer wrong"})
    assert refused.status_code == 429 and "try again" in refused.json()["detail"]


@pytest.mark.parametrize(
    "path",
    [
        "/events/99999999999999999999999",
        "/api/events/99999999999999999999999",
        "/events/-1",
        "/?page=99999999999999999999999",
        "/?day=0001-01-01",
        "/?day=9999-12-31",
        "/api/events?day=0001-01-01",
        "/api/events?day=9999-12-31",
        "/api/events?page=99999999999999999999999",
    ],
)
def test_out_of_range_ids_pages_and_days_are_not_server_errors(client, path):
    r = client.get(path)
    # A page number past the end is the last page on the site, a client error in the API.
    expected = (200,) if path.startswith("/?page") else (400, 404, 422)
    assert r.status_code in expected, (path, r.status_code, r.text[:200])


def test_feedback_on_an_id_past_64_bits_is_not_found(client):
    r = client.post("/api/events/99999999999999999999999/feedback", json={"kind": "up"}, headers=AUTH)
    assert r.status_code == 404


# --- every operation in /openapi.json, generated requests, no 500 -----------------------------


def _api_app():
    """The app over a seeded SQLite store of its own (the schema is loaded when this module is)."""
    engine = open_store(f"sqlite:///{Path(tempfile.mkdtemp(prefix='newsdesk-api-')) / 'newsdesk.db'}")
    seed_store(engine)
    return create_app(engine, Settings(web_token=TOKEN))


API_APP = _api_app()
schema = schemathesis.openapi.from_dict(API_APP.openapi())  # read without starting the app


@pytest.fixture(scope="module")
def api_client():
    # One client, so the app's lifespan (search catch-up, MCP session manager) starts once, as in a server.
    with TestClient(API_APP) as client:
        yield client


@schema.parametrize()
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_generated_request_is_a_server_error(case, api_client):
    kwargs = case.as_transport_kwargs(base_url="http://testserver", headers=AUTH)
    response = api_client.request(**{k: v for k, v in kwargs.items() if k in REQUEST_ARGS})
    assert response.status_code < 500, (
        f"{case.method} {case.formatted_path}: {response.status_code} {response.text[:300]}"
    )
    case.validate_response(response, checks=[not_a_server_error])


REQUEST_ARGS = {"method", "url", "params", "headers", "cookies", "json", "data", "content", "files"}


def test_html_pages_survive_odd_query_strings(client):
    for query in ("tab=%00", "page=-5", "page=abc", "day=2026-02-30", "ui=xx", "days=99999999999999999999"):
        for path in ("/", "/usage", "/search?q=%00&"):
            r = client.get(f"{path}{'&' if '?' in path else '?'}{query}")
            assert r.status_code < 500, (path, query, r.status_code)
    assert re.search("<html", client.get("/?tab=nonsense").text)


def _logged_in(http: httpx.Client) -> str:
    """Log `http` in through the form; returns the session cookie it was given."""
    csrf = csrf_of(http.get("/login").text)
    r = http.post("/login", data={"token": TOKEN, "name": "alice", "csrf": csrf, "next": "/drafts"})
    assert r.status_code == 303 and http.get("/drafts").status_code == 200
    return http.cookies["newsdesk_session"]


def _opens_drafts(base: str, cookie: str) -> bool:
    with httpx.Client(base_url=base, cookies={"newsdesk_session": cookie}) as other:  # a copy of the cookie
        return other.get("/drafts").status_code == 200


def test_logout_a_new_token_and_idleness_end_a_login_for_every_copy_of_its_cookie(engine):
    """A cookie saved before logout opened /drafts for its whole 14 days after it. The login is now
    the store's: logout ends it for every copy, a restart with a new web_token ends every login,
    and web_session_idle without a request ends it too. Through a real server on loopback."""
    from loopback import serve_app

    seed_store(engine)
    secret = "a-secret-that-outlives-restarts-0123456789"
    with (
        serve_app(create_app(engine, Settings(web_token=TOKEN, web_secret=secret))) as base,
        httpx.Client(base_url=base, follow_redirects=False) as http,
    ):
        saved = _logged_in(http)
        assert _opens_drafts(base, saved)
        http.post("/logout", data={"csrf": csrf_of(http.get("/").text)})
        assert http.get("/drafts").status_code == 303
        assert not _opens_drafts(base, saved)  # the copy is worth nothing now
        kept = _logged_in(http)
    # The operator changes the token and restarts: logins opened with the old one end.
    with serve_app(create_app(engine, Settings(web_token="a-new-token", web_secret=secret))) as base:
        assert not _opens_drafts(base, kept)
    with (
        serve_app(create_app(engine, Settings(web_token=TOKEN, web_secret=secret, web_session_idle="1s"))) as base,
        httpx.Client(base_url=base, follow_redirects=False) as http,
    ):
        idle = _logged_in(http)
        time.sleep(1.5)
        assert not _opens_drafts(base, idle)


def test_web_session_idle_is_a_bounded_duration(tmp_path):
    from newsdesk.core.config import ConfigError, load_settings

    for wrong in ("0s", "31d", "forever"):
        (tmp_path / "newsdesk.toml").write_text(f'web_session_idle = "{wrong}"\n')
        with pytest.raises(ConfigError, match=f"web_session_idle = '{wrong}' is "):
            load_settings(tmp_path / "newsdesk.toml", env={})
