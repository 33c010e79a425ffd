"""`newsdesk serve`: the newsroom in a browser, server-rendered, readable without JavaScript.

create_app(engine, settings) builds the whole application (HTML pages, the JSON API
under /api, /openapi.json); the CLI and the tests share it. The pages are routers by
concern: serve/pages_reading.py (the feed, an event, search), pages_editions.py (every
kind of edition), pages_operator.py (sources, status, usage, feedback, subscriptions,
drafts) and pages_account.py (login, the interface language), over serve/pages.py's
templates and read cache. Pages read the store through serve/queries.py; nothing here knows SQL.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import shutil
import tempfile
import threading
import time
from contextlib import asynccontextmanager
from pathlib import Path
from urllib.parse import parse_qsl, urlencode
from zoneinfo import ZoneInfo

from fastapi import FastAPI, Request
from fastapi.responses import Response
from fastapi.staticfiles import StaticFiles
from secure import (
    MULTI_OK,
    ContentSecurityPolicy,
    CrossOriginOpenerPolicy,
    PermissionsPolicy,
    ReferrerPolicy,
    Secure,
    StrictTransportSecurity,
    XContentTypeOptions,
    XFrameOptions,
)
from sqlalchemy.engine import Engine
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.sessions import SessionMiddleware

from newsdesk.core.config import Settings
from newsdesk.core.labels import UI_LANGUAGES
from newsdesk.search.index import SearchIndex, segment
from newsdesk.serve import auth, pages_account, pages_operator, pages_reading
from newsdesk.serve.api import build_api
from newsdesk.serve.cache import MAX_PAGE_BYTES, CachedPages, ClearOnWrite, ReadCache
from newsdesk.serve.mcp import TokenGate, build_server
from newsdesk.serve.pages import Pages, filled, http_error
from newsdesk.serve.pages_editions import editions_router
from newsdesk.store.days import day_events, event_dates, keep_days

HERE = Path(__file__).parent
log = logging.getLogger(__name__)
CDN = "https://cdn.jsdelivr.net"  # where FastAPI's Swagger UI page loads its script and styles


def security_headers(settings: Settings, *, docs: bool = False) -> Secure:
    """CSP, nosniff, frame and referrer policies for every response. The pages run no script at all;
    the API docs page (Swagger UI) loads its script and styles from jsDelivr and starts with an inline script."""
    csp = (
        ContentSecurityPolicy()
        .default_src("'self'")
        .img_src("'self'", "data:")
        .object_src("'none'")
        .base_uri("'none'")
        .form_action("'self'")
        .frame_ancestors("'none'")
    )
    if docs:
        csp = (
            csp.script_src("'self'", "'unsafe-inline'", CDN)
            .style_src("'self'", CDN)
            .img_src("'self'", "data:", "https:")
        )
    else:
        csp = csp.script_src("'none'").style_src("'self'")
    return Secure(
        csp=csp,
        hsts=StrictTransportSecurity().max_age(31536000) if settings.site_url.startswith("https://") else None,
        referrer=ReferrerPolicy().strict_origin_when_cross_origin(),
        xcto=XContentTypeOptions(),
        xfo=XFrameOptions().deny(),
        coop=CrossOriginOpenerPolicy().same_origin(),
        permissions=PermissionsPolicy().geolocation().microphone().camera(),
    )


class SecurityHeaders:
    """ASGI middleware: the docs page's headers on the docs page, the pages' everywhere else.
    Plain ASGI, so streamed responses (the MCP endpoint's) pass through untouched.

    What secure's own middleware (SecureASGIMiddleware) means to do to a response's headers (without
    its stale-index bug, see _with_headers), with each configuration's headers encoded once here rather
    than serialized again for every response: that was ~0.2 ms of the event loop's time a request,
    every kept page included. tests/test_web_hardening.py checks the headers sent."""

    def __init__(self, app, *, pages: Secure, docs: Secure, docs_path: str | None):
        self.app = app
        self.pages, self.docs = _encoded(pages), _encoded(docs)
        self.docs_path = docs_path

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        chosen = self.docs if scope.get("path") == self.docs_path else self.pages

        async def send_wrapper(message):
            if message["type"] == "http.response.start":
                message["headers"] = _with_headers(message.get("headers", []), chosen)
            await send(message)

        await self.app(scope, receive, send_wrapper)


def _encoded(secure: Secure) -> list[tuple[bytes, bytes, bytes, bool]]:
    """Each header secure sets: its name, the name as compared, its value, and whether it may repeat."""
    multi = {name.strip().lower().encode("ascii") for name in MULTI_OK}
    encoded = [(name.encode("ascii"), value.encode("latin-1")) for name, value in secure.headers.items()]
    return [(name, name.strip().lower(), value, name.strip().lower() in multi) for name, value in encoded]


def _with_headers(raw, chosen: list[tuple[bytes, bytes, bytes, bool]]) -> list[tuple[bytes, bytes]]:
    """A response's headers with secure's: the response's own of a name secure sets (case and spaces
    aside) are dropped unless that header may repeat, then secure's are added in its order. Filtering
    first: secure's middleware tracks positions that go stale once it removes one (a route's
    Referrer-Policy and X-Frame-Options lost Cross-Origin-Opener-Policy and sent X-Frame-Options twice)."""
    replaced = {norm for _name, norm, _value, multi in chosen if not multi}
    kept = [(k, v) for k, v in raw if k.strip().lower() not in replaced]
    return kept + [(name, value) for name, _norm, value, _multi in chosen]


# Documents indexed before serving: about two seconds of segmentation on this kind of machine.
WARM_DOCUMENTS = 2000
# Days whose feed page (the newest first, each in every interface language) is rendered before it
# is asked, and the newest day's top events whose pages are: at the start and when the store changes.
WARM_DAYS = 3
WARM_EVENTS = 5
# At the start only, before the first reader: more days' feed pages (newest first, in every interface
# language), for at most this long and at most this share of the read cache's bytes. The server
# processes warm side by side and so are ready together (uvicorn's processes take connections once
# their start is done: one ready long before the other would get every first reader).
START_WARM_SECONDS = 10.0
START_WARM_SHARE = 0.75
# uvicorn's processes take connections from one socket, each once its own start is done, and a
# reader's kept-alive connection stays with the process that took it: 200 readers arriving while one
# process was still warming went 200 / 0, and one core answered them all (once both were up, 103 / 97).
# So the processes of one start take connections together: each, warm, marks itself in a folder
# serve_app makes and waits, up to this long, until every one has (a process started again later,
# after one died, finds them all there and does not wait).
START_TOGETHER_SECONDS = 60.0
START_GROUP = "NEWSDESK_SERVE_START_GROUP"  # "<folder>:<processes>", set by serve_app for its processes


def create_app(engine: Engine, settings: Settings) -> FastAPI:
    """The app: its pages (one router per concern), the JSON API under /api, the MCP endpoint."""
    tz = ZoneInfo(settings.timezone)
    index = SearchIndex(engine)
    app_ref: list[FastAPI] = []

    def warm() -> None:
        keep_days(engine, tz)  # the navigation days, kept for this version of the store
        # The segmenter's dictionary loaded and the search's statements compiled now, not on the
        # first Chinese search (nothing is kept: the answer is not a page anyone asked for).
        segment("预热")
        index.search("预热")

    reads = ReadCache(engine, warm=warm, prefill=lambda: prefill_pages(app_ref[0], WARM_DAYS))
    mcp = build_server(engine, settings, index)
    throttle = auth.Throttle()
    pages = Pages(engine, settings, index, reads, tz, throttle)

    @asynccontextmanager
    async def lifespan(_app: FastAPI):
        # The newest documents are indexed before the first reader is served (a search then finds
        # today's news from the first request, whatever the machine's load); a larger backlog (a
        # store that was never served) is indexed in the background, newest first. Then the read
        # cache is warmed: the days kept, the segmenter loaded, the newest days' pages rendered.
        await asyncio.to_thread(index.catch_up, WARM_DOCUMENTS)
        threading.Thread(target=index.catch_up, name="search-index", daemon=True).start()
        await asyncio.to_thread(reads.start)
        await asyncio.to_thread(warm_days, app_ref[0], START_WARM_SECONDS)
        await asyncio.to_thread(start_together, START_TOGETHER_SECONDS)
        await asyncio.to_thread(reads.look)  # the first readers' kept pages then come from memory at once
        try:
            async with mcp.session_manager.run():
                yield
        finally:
            reads.close()

    app = FastAPI(
        lifespan=lifespan,
        title=f"{settings.site_name} API",
        version="1",
        description="Events, analyses, editions, sources, model usage, search and feedback of a newsdesk store. "
        "Reading is open; writes need `Authorization: Bearer <NEWSDESK_WEB_TOKEN>`.",
        docs_url="/api/docs",
        redoc_url=None,
    )
    app.state.engine, app.state.settings, app.state.index, app.state.tz, app.state.reads = (
        engine,
        settings,
        index,
        tz,
        reads,
    )
    app.state.pages = pages
    app_ref.append(app)
    _add_middleware(app, settings, reads)
    # The reader's pages first: a request is matched against the routes in order, and a cold event
    # page went through every API route's pattern before its own (~0.3 ms of the event loop's time).
    # No other route can match their paths ("/", "/events/{id}", "/search").
    app.include_router(pages_reading.router)
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    app.include_router(build_api(engine, settings, index, tz, throttle), prefix="/api")
    app.add_route(
        "/mcp", TokenGate(mcp, settings, throttle), methods=["GET", "POST", "DELETE"], include_in_schema=False
    )
    app.exception_handler(StarletteHTTPException)(http_error)
    for router in (editions_router(), pages_operator.router, pages_account.router):
        app.include_router(router)
    app.add_api_route("/healthz", healthz, methods=["GET"], include_in_schema=False)
    return app


def _add_middleware(app: FastAPI, settings: Settings, reads: ReadCache) -> None:
    """Outermost last: security headers, then clearing the read cache on a write, the session, and
    the reader pages kept whole (answered before the session is read)."""
    app.add_middleware(
        CachedPages,
        cache=reads,
        key=lambda scope: Pages.reader_page_key(Request(scope)),
        fill=lambda kept, scope: filled(kept, Request(scope)),
    )
    # Without a configured secret, sessions last as long as the process: safe, if forgetful. The cookie
    # carries a login's secret; the login itself is in the store (serve/auth.py), which logout ends.
    app.add_middleware(
        SessionMiddleware,
        secret_key=settings.web_secret or secrets.token_urlsafe(32),
        session_cookie="newsdesk_session",
        max_age=int(auth.idle_limit(settings).total_seconds()),  # re-sent with each response: an idle window
        same_site="lax",
        https_only=settings.site_url.startswith("https://"),
    )
    app.add_middleware(ClearOnWrite, cache=reads)
    app.add_middleware(
        SecurityHeaders,
        pages=security_headers(settings),
        docs=security_headers(settings, docs=True),
        docs_path=app.docs_url,
    )


def healthz() -> Response:
    return Response("ok", media_type="text/plain")


def prefill_pages(app: FastAPI, days: int) -> None:
    """Render the feed page of the newest `days` days with news into the read cache, in every
    interface language, as a first reader without a cookie of their own would ask for it: the front
    page (/), and each day as its links name it (day and tab); then the pages of the newest day's
    top WARM_EVENTS events. Every template is compiled first."""
    pages: Pages = app.state.pages
    for name in pages.env.list_templates():  # compiled once per process: a first page waited ~1 s for it
        pages.env.get_template(name)
    with pages.engine.connect() as conn:
        newest = event_dates(conn, pages.tz)[-days:]
        top = [e.id for e in day_events(conn, newest[-1], pages.tz)[:WARM_EVENTS]] if newest else []
    asked = [""] + [urlencode({"day": d.isoformat(), "tab": "all"}) for d in reversed(newest)]
    for lang in UI_LANGUAGES:
        for query in asked:
            pages_reading.feed_page(reader_request(app, "/", query, lang), page_no=1, **dict(parse_qsl(query)))
        for event_id in top:
            pages_reading.event_page(reader_request(app, f"/events/{event_id}", "", lang), event_id)


def warm_days(app: FastAPI, seconds: float) -> int:
    """Render the feed pages of the days with news, newest first, each in every interface language,
    into the read cache (those prefill_pages rendered are found there) until `seconds` have passed or
    the kept pages fill START_WARM_SHARE of the cache; returns how many were asked for."""
    pages: Pages = app.state.pages
    deadline = time.monotonic() + seconds
    try:
        with pages.engine.connect() as conn:
            days = event_dates(conn, pages.tz)
    except Exception as exc:  # noqa: BLE001 - the server starts; its pages say what the store says
        log.warning("could not warm the feed pages (%s)", exc)
        return 0
    asked = 0
    for day in reversed(days):
        for lang in UI_LANGUAGES:
            if time.monotonic() > deadline or pages.reads.page_bytes() > MAX_PAGE_BYTES * START_WARM_SHARE:
                return asked
            query = urlencode({"day": day.isoformat(), "tab": "all"})  # as its links name it
            try:
                pages_reading.feed_page(reader_request(app, "/", query, lang), day.isoformat(), "all", page_no=1)
            except Exception as exc:  # noqa: BLE001
                log.warning("could not warm the feed page of %s (%s)", day, exc)
                return asked
            asked += 1
    return asked


def start_together(seconds: float) -> bool:
    """Mark this process warm in its start's folder (START_GROUP) and wait up to `seconds` until every
    process of the start has; True when they all have (or the process is not one of several)."""
    group = os.environ.get(START_GROUP)
    if not group:
        return True
    folder, _, processes = group.rpartition(":")
    try:
        Path(folder, str(os.getpid())).touch()
        deadline = time.monotonic() + seconds
        while len(os.listdir(folder)) < int(processes):
            if time.monotonic() > deadline:
                log.warning("the other server processes are not warm after %.0f s; taking readers now", seconds)
                return False
            time.sleep(0.02)
    except (OSError, ValueError) as exc:
        log.warning("could not wait for the other server processes (%s)", exc)
        return False
    return True


def reader_request(app: FastAPI, path: str, query: str, lang: str) -> Request:
    """A GET of path?query by a reader with no session, in interface language lang (its cookie)."""
    return Request(
        {
            "type": "http",
            "method": "GET",
            "scheme": "http",
            "server": ("localhost", 80),
            "path": path,
            "raw_path": path.encode(),
            "root_path": "",
            "query_string": query.encode(),
            "headers": [(b"cookie", f"ui_lang={lang}".encode())],
            "session": {},
            "app": app,
        }
    )


# --- serving: several processes --------------------------------------------------------


def default_workers(database_url: str) -> int:
    """Server processes `newsdesk serve` starts: one per CPU, 2 to 4, when every process can read the
    store at once (PostgreSQL, or an SQLite file: WAL lets readers in beside the one writer); one for an
    in-memory SQLite store, which each process would open empty."""
    if database_url.startswith("sqlite") and (
        ":memory:" in database_url or database_url in ("sqlite://", "sqlite:///")
    ):
        return 1
    return max(2, min(4, os.cpu_count() or 1))


def app_from_environment() -> FastAPI:
    """The app as each server process builds it: settings from NEWSDESK_CONFIG and NEWSDESK_* (uvicorn's
    factory; `uvicorn --factory newsdesk.serve.app:app_from_environment` runs it too)."""
    from newsdesk.core.config import load_settings
    from newsdesk.store import open_store

    settings = load_settings()
    return create_app(open_store(settings.database), settings)


def serve_app(target: str, *, host: str, port: int, workers: int, log_level: str = "info") -> None:
    """Run uvicorn with `workers` processes, each building its app with the factory named by `target`.

    Every process must sign session cookies with one key, or a login made on one would be unknown to
    the next: without web_secret one random key is made here, for this run of the server, and handed
    to the processes in the environment (logins still end on restart, as with one process).
    """
    import uvicorn

    from newsdesk.core.config import load_settings

    if not load_settings().web_secret:
        os.environ["NEWSDESK_WEB_SECRET"] = secrets.token_urlsafe(32)
    folder = tempfile.mkdtemp(prefix="newsdesk-start-") if workers > 1 else None
    if folder:  # the processes of this start take readers together (start_together)
        os.environ[START_GROUP] = f"{folder}:{workers}"
    try:
        # proxy_headers: X-Forwarded-For / -Proto are believed from FORWARDED_ALLOW_IPS only (default 127.0.0.1).
        uvicorn.run(
            target, factory=True, host=host, port=port, workers=workers, log_level=log_level, proxy_headers=True
        )
    finally:
        if folder:
            os.environ.pop(START_GROUP, None)
            shutil.rmtree(folder, ignore_errors=True)
