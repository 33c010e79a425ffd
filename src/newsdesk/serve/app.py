"""`newsdesk serve`: the newsroom in a browser, server-rendered, readable without JavaScript.

create_app(engine, settings) builds the whole application (HTML pages, the JSON API
under /api, /openapi.json); the CLI and the tests share it. Pages read the store
through serve/queries.py; nothing here knows SQL.
"""

from __future__ import annotations

import os
import secrets
import threading
from contextlib import asynccontextmanager
from datetime import date
from pathlib import Path
from urllib.parse import quote, urlencode, urlsplit
from zoneinfo import ZoneInfo

from fastapi import FastAPI, Form, HTTPException, Query, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from jinja2 import ChoiceLoader, Environment, FileSystemLoader, PackageLoader, StrictUndefined
from secure import (
    ContentSecurityPolicy,
    CrossOriginOpenerPolicy,
    PermissionsPolicy,
    ReferrerPolicy,
    Secure,
    StrictTransportSecurity,
    XContentTypeOptions,
    XFrameOptions,
)
from secure.middleware.asgi import SecureASGIMiddleware
from sqlalchemy.engine import Engine
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.sessions import SessionMiddleware

from newsdesk.core.config import Settings
from newsdesk.core.labels import UI_LANGUAGES, Labels, text_only
from newsdesk.ingest.poll import short
from newsdesk.publish.outputs import BY_SEGMENT, KINDS
from newsdesk.publish.site import paragraphs
from newsdesk.push.send import push_test
from newsdesk.push.subscriptions import (
    SubscriptionError,
    add_subscription,
    list_subscriptions,
    remove_subscription,
    set_subscription_enabled,
)
from newsdesk.search.index import SearchIndex
from newsdesk.serve import auth, queries
from newsdesk.serve.api import MAX_PAGE, build_api, check_id, parse_day, run_status
from newsdesk.serve.cache import CachedPages, ClearOnWrite, ReadCache
from newsdesk.serve.mcp import TokenGate, build_server
from newsdesk.store.days import event_dates, neighbour_days
from newsdesk.text import html as render
from newsdesk.text.language import detect_language

HERE = Path(__file__).parent
CDN = "https://cdn.jsdelivr.net"  # where FastAPI's Swagger UI page loads its script and styles


def _local_path(target: str | None) -> str:
    """Only same-site paths are followed after login or a language switch (no open redirect)."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/"
    return target


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
    Plain ASGI, so streamed responses (the MCP endpoint's) pass through untouched."""

    def __init__(self, app, *, pages: Secure, docs: Secure, docs_path: str | None):
        self.pages = SecureASGIMiddleware(app, secure=pages)
        self.docs = SecureASGIMiddleware(app, secure=docs)
        self.docs_path = docs_path

    async def __call__(self, scope, receive, send):
        chosen = self.docs if scope.get("path") == self.docs_path else self.pages
        await chosen(scope, receive, send)


class LazyCsrf:
    """The session's CSRF token, made when a page shows a form with it and not before: a reader's
    page without a form sets no session cookie, and can be kept and shown to every reader. A page
    kept for every reader (`shared`) must never carry one: it would hand one session's token to all."""

    def __init__(self, request: Request, *, shared: bool = False):
        self.request = request
        self.shared = shared

    def __str__(self) -> str:
        if self.shared:
            raise RuntimeError("a page kept for every reader shows a form with a CSRF token; show it to users only")
        return auth.csrf_token(self.request)

    __html__ = __str__  # a URL-safe token: nothing to escape


def create_app(engine: Engine, settings: Settings) -> FastAPI:
    tz = ZoneInfo(settings.timezone)
    index = SearchIndex(engine)
    reads = ReadCache(engine)
    mcp = build_server(engine, settings, index)
    throttle = auth.Throttle()
    mcp_endpoint = TokenGate(mcp, settings, throttle)

    @asynccontextmanager
    async def lifespan(_app: FastAPI):
        # Items and events written while the server was down get indexed in the background.
        threading.Thread(target=index.catch_up, name="search-index", daemon=True).start()
        async with mcp.session_manager.run():
            yield

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
    app.add_middleware(CachedPages, cache=reads, key=lambda scope: reader_page_key(Request(scope)))
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
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    app.include_router(build_api(engine, settings, index, tz, throttle), prefix="/api")
    app.add_route("/mcp", mcp_endpoint, methods=["GET", "POST", "DELETE"], include_in_schema=False)
    app.add_middleware(ClearOnWrite, cache=reads)
    app.add_middleware(
        SecurityHeaders,
        pages=security_headers(settings),
        docs=security_headers(settings, docs=True),
        docs_path=app.docs_url,
    )

    # The event card's template is shared with the published site; it lives with the card builder.
    loader = ChoiceLoader([FileSystemLoader(HERE / "templates"), PackageLoader("newsdesk.editions", "templates")])
    # auto_reload off: templates are read once per process (a restart shows edited ones), not looked
    # up on disk again for every page (a fifth of a cached feed page's time went on those stat calls).
    env = Environment(loader=loader, autoescape=True, undefined=StrictUndefined, auto_reload=False, finalize=text_only)
    env.filters.update(
        clean=render.clean_html,
        text=render.plain_text,
        markdown=render.markdown_html,
        paragraphs=paragraphs,
        snippet=render.snippet,
        link=render.safe_url,
        finding=render.finding,
        when=lambda v, fmt="%Y-%m-%d %H:%M": render.local_time(v, tz, fmt),
        pct=lambda v: f"{v * 100:.1f}%",
        duration=short,
        written=detect_language,  # a text's language, for the marks on parts in another language
    )
    env.globals["event_url"] = lambda event_id: (
        f"/events/{event_id}"
    )  # the shared card and story templates link with it
    env.globals["edition_kinds"] = KINDS  # the menu links each kind's pages

    def ui_lang(request: Request) -> str:
        lang = request.query_params.get("ui") or request.cookies.get("ui_lang") or "zh"
        return lang if lang in UI_LANGUAGES else "zh"

    def page(request: Request, template: str, status: int = 200, shared: bool = False, **context) -> HTMLResponse:
        lang = ui_lang(request)
        context.update(
            request=request,
            t=Labels(lang),
            ui=lang,
            user=auth.current_user(request),
            csrf=LazyCsrf(request, shared=shared),
            writes_enabled=bool(settings.web_token),
            writes_off=auth.WRITES_OFF[lang],
            flash=request.session.pop("flash", None),
            site_name=settings.site_name,
            here=request.url.path + (f"?{request.url.query}" if request.url.query else ""),
            urlencode=urlencode,
        )
        context.setdefault("error", None)
        return HTMLResponse(env.get_template(template).render(**context), status_code=status)

    def reader_page_key(request: Request) -> tuple | None:
        """What names a page every reader is shown alike (no login, no flash message in the session),
        as kept in the read cache once rendered; None for a personal page, which is never kept."""
        session = request.scope["session"]  # not request.session: asking is no use of the session
        if session.get("login") or session.get("flash"):
            return None
        return ("page", request.url.path, request.url.query, ui_lang(request))

    def reader_page(request: Request, template: str, read) -> Response:
        """`template` filled with read()'s context; for a reader, rendered once per version of the
        store and kept, so CachedPages answers the next ask for it from memory."""
        request.session  # noqa: B018 -- the page depends on it: SessionMiddleware then says `Vary: Cookie`
        key = reader_page_key(request)
        if key is None:
            return page(request, template, **read())
        return HTMLResponse(reads.get(key, lambda: bytes(page(request, template, shared=True, **read()).body)))

    def page_data(request: Request, key: tuple, read):
        """What a page reads, kept under key for personal pages (the operator's, one with a flash
        message); a reader's page is kept whole once rendered, so what it read need not be too (a
        day's feed is ~1 MB of Python objects, its page 0.4 MB of bytes, which the cache can count)."""
        return read() if reader_page_key(request) is not None else reads.get(key, read)

    def require_writer(request: Request, csrf: str | None) -> str:
        """The logged-in user allowed to write, after the CSRF check; raises otherwise."""
        if not settings.web_token:
            raise HTTPException(403, auth.WRITES_OFF[ui_lang(request)])
        auth.check_csrf(request, csrf)
        user = auth.current_user(request)
        if not user:
            raise HTTPException(401, Labels(ui_lang(request)).login_to_write)
        return user

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException):
        if request.url.path.startswith("/api/") or request.url.path == "/openapi.json":
            return await http_exception_handler(request, exc)
        if exc.status_code == 401:
            # Back to the page the form was on once logged in.
            back = urlsplit(request.headers.get("referer", "")) if request.method == "POST" else request.url
            target = back.path + (f"?{back.query}" if back.query else "") if back.path else "/"
            return RedirectResponse(f"/login?next={quote(_local_path(target))}", 303)
        message = (
            exc.detail if exc.status_code != 404 or exc.detail != "Not Found" else Labels(ui_lang(request)).not_found
        )
        return page(request, "message.html", status=exc.status_code, message=message)

    # --- reading --------------------------------------------------------------------------

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def feed_page(request: Request, day: str | None = None, tab: str = "all", page_no: int = Query(1, alias="page")):
        lang, page_no = ui_lang(request), min(max(1, page_no), MAX_PAGE)

        def read():
            with engine.connect() as conn:
                # Every day with news is a scan of all events and their members: one per version of the store, not per day asked.
                dates = reads.get(("event dates",), lambda: event_dates(conn, tz))
                chosen = parse_day(day) or (dates[-1] if dates else None) or date.today()
                return queries.feed(conn, chosen, tab, tz, page_no, lang), *neighbour_days(conn, chosen, tz, dates)

        def context():
            data, prev_day, next_day = page_data(request, ("feed", day, tab, page_no, lang), read)
            return {"feed": data, "prev_day": prev_day, "next_day": next_day}

        return reader_page(request, "feed.html", context)

    @app.get("/events/{event_id}", response_class=HTMLResponse, include_in_schema=False)
    def event_page(request: Request, event_id: int):
        check_id(event_id)
        lang, operator = ui_lang(request), bool(auth.current_user(request))

        def read():
            with engine.connect() as conn:
                return queries.event_detail(conn, event_id, tz, lang, operator=operator)

        def context():
            detail = read()
            if detail is None:
                raise HTTPException(404, f"event {event_id} does not exist")
            return {"event": detail}

        # The operator's page carries the clusterer's reasons: read live, never shared.
        return page(request, "event.html", **context()) if operator else reader_page(request, "event.html", context)

    @app.get("/search", response_class=HTMLResponse, include_in_schema=False)
    def search_page(request: Request, q: str = ""):
        lang, query = ui_lang(request), q[:200]

        def read():
            hits = index.search(query)
            with engine.connect() as conn:
                return queries.search_results(conn, hits, lang)

        def context():
            results = page_data(request, ("search", query, lang), read) if q.strip() else {"events": [], "items": []}
            return {"q": q, "results": results}

        return reader_page(request, "search.html", context)

    _edition_pages(app, engine, page_data, ui_lang, reader_page)

    @app.get("/sources", response_class=HTMLResponse, include_in_schema=False)
    def sources_page(request: Request):
        with engine.connect() as conn:
            table = queries.sources_table(conn)
        return page(request, "sources.html", sources=table, form={})

    @app.get("/status", response_class=HTMLResponse, include_in_schema=False)
    def status_page(request: Request):
        with engine.connect() as conn:
            data = run_status(conn)
        return page(request, "status.html", run=data)

    @app.get("/usage", response_class=HTMLResponse, include_in_schema=False)
    def usage_page(request: Request, days: int = 30):
        with engine.connect() as conn:
            data = queries.usage(conn, tz, max(1, min(days, 366)))
        return page(request, "usage.html", usage=data)

    @app.get("/ui/{lang}", include_in_schema=False)
    def switch_language(lang: str, next: str = "/"):
        if lang not in UI_LANGUAGES:
            raise HTTPException(404, f"interface language {lang!r}: use one of {', '.join(UI_LANGUAGES)}")
        response = RedirectResponse(_local_path(next), 303)
        response.set_cookie("ui_lang", lang, max_age=365 * 86400, samesite="lax", httponly=True)
        return response

    # --- login ----------------------------------------------------------------------------

    @app.get("/login", response_class=HTMLResponse, include_in_schema=False)
    def login_form(request: Request, next: str = "/"):
        return page(request, "login.html", next=_local_path(next))

    @app.post("/login", response_class=HTMLResponse, include_in_schema=False)
    def login_submit(
        request: Request, token: str = Form(""), name: str = Form(""), csrf: str = Form(""), next: str = Form("/")
    ):
        if not settings.web_token:
            raise HTTPException(403, auth.WRITES_OFF[ui_lang(request)])
        auth.check_csrf(request, csrf)
        throttle.check(request)
        if not auth.token_matches(settings.web_token, token):
            throttle.wrong(request)
            return page(
                request, "login.html", status=401, next=_local_path(next), error=Labels(ui_lang(request)).bad_token
            )
        auth.login(request, (name.strip() or "operator")[:80])
        return RedirectResponse(_local_path(next), 303)

    @app.post("/logout", include_in_schema=False)
    def logout_submit(request: Request, csrf: str = Form("")):
        auth.check_csrf(request, csrf)
        auth.logout(request)
        return RedirectResponse("/", 303)

    # --- writing --------------------------------------------------------------------------

    @app.post("/events/{event_id}/feedback", include_in_schema=False)
    def feedback_submit(
        request: Request, event_id: int, kind: str = Form(""), note: str = Form(""), csrf: str = Form("")
    ):
        user = require_writer(request, csrf)
        check_id(event_id)
        try:
            with engine.begin() as conn:
                queries.add_feedback(conn, event_id, kind, note, user)
        except queries.InputError as exc:
            raise HTTPException(400, str(exc)) from None
        except LookupError as exc:
            raise HTTPException(404, str(exc)) from None
        request.session["flash"] = "feedback_saved"
        return RedirectResponse(f"/events/{event_id}#feedback", 303)

    @app.post("/sources", response_class=HTMLResponse, include_in_schema=False)
    async def source_add(request: Request):
        form = dict(await request.form())
        require_writer(request, form.get("csrf"))
        try:
            with engine.begin() as conn:
                queries.add_source(conn, form)
        except queries.InputError as exc:
            with engine.connect() as conn:
                table = queries.sources_table(conn)
            return page(request, "sources.html", status=400, sources=table, form=form, error=str(exc))
        request.session["flash"] = "source_added"
        return RedirectResponse("/sources", 303)

    @app.post("/sources/{source_id}/enabled", include_in_schema=False)
    def source_toggle(request: Request, source_id: str, enabled: str = Form(""), csrf: str = Form("")):
        require_writer(request, csrf)
        try:
            with engine.begin() as conn:
                queries.set_source_enabled(conn, source_id, enabled == "1")
        except LookupError as exc:
            raise HTTPException(404, str(exc)) from None
        request.session["flash"] = "source_updated"
        return RedirectResponse("/sources", 303)

    # --- push subscriptions (operator only: targets hold channel credentials) ---------------

    def subscriptions_page(request: Request, status: int = 200, form: dict | None = None, error: str | None = None):
        with engine.connect() as conn:
            rows = list_subscriptions(conn)
        return page(request, "subscriptions.html", status=status, subscriptions=rows, form=form or {}, error=error)

    @app.get("/subscriptions", response_class=HTMLResponse, include_in_schema=False)
    def subscriptions_list(request: Request):
        if not settings.web_token:
            raise HTTPException(403, auth.WRITES_OFF[ui_lang(request)])
        if not auth.current_user(request):
            raise HTTPException(401, Labels(ui_lang(request)).login_to_write)
        return subscriptions_page(request)

    # --- drafts that failed (operator only: never shown to readers) ---------------------------

    @app.get("/drafts", response_class=HTMLResponse, include_in_schema=False)
    def drafts_page(request: Request):
        if not settings.web_token:
            raise HTTPException(403, auth.WRITES_OFF[ui_lang(request)])
        if not auth.current_user(request):
            raise HTTPException(401, Labels(ui_lang(request)).login_to_write)
        with engine.connect() as conn:
            drafts = queries.failed_drafts_list(conn)
        return page(request, "drafts.html", drafts=drafts)

    @app.post("/subscriptions", response_class=HTMLResponse, include_in_schema=False)
    async def subscription_add(request: Request):
        form = dict(await request.form())
        require_writer(request, form.get("csrf"))
        try:
            with engine.begin() as conn:
                add_subscription(conn, form)
        except SubscriptionError as exc:
            return subscriptions_page(request, 400, form, str(exc))
        request.session["flash"] = "subscription_added"
        return RedirectResponse("/subscriptions", 303)

    @app.post("/subscriptions/{sub_id}/{action}", response_class=HTMLResponse, include_in_schema=False)
    def subscription_change(request: Request, sub_id: int, action: str, enabled: str = Form(""), csrf: str = Form("")):
        require_writer(request, csrf)
        try:
            if action == "test":
                _, problem = push_test(engine, settings, str(sub_id))
                if problem:
                    return subscriptions_page(request, 502, error=problem)
                request.session["flash"] = "test_sent"
            elif action == "enabled":
                with engine.begin() as conn:
                    set_subscription_enabled(conn, sub_id, enabled == "1")
                request.session["flash"] = "subscription_updated"
            elif action == "remove":
                with engine.begin() as conn:
                    remove_subscription(conn, sub_id)
                request.session["flash"] = "subscription_removed"
            else:
                raise HTTPException(404, f"no subscription action {action!r}; use test, enabled or remove")
        except LookupError as exc:
            raise HTTPException(404, str(exc)) from None
        return RedirectResponse("/subscriptions", 303)

    @app.get("/healthz", include_in_schema=False)
    def healthz() -> Response:
        return Response("ok", media_type="text/plain")

    return app


def _edition_pages(app: FastAPI, engine: Engine, page_data, ui_lang, reader_page) -> None:
    """/{segment} (the newest) and /{segment}/{key} for every kind of edition (publish/outputs.py), with
    the kind's archive beside it."""

    def edition_page(request: Request, segment: str, key: str | None, lang: str | None):
        kind, language = BY_SEGMENT[segment].name, lang or ui_lang(request)
        body = BY_SEGMENT[segment].body

        def read():
            with engine.connect() as conn:
                archive = queries.edition_keys(conn, kind)
                chosen = key or (archive[0]["key"] if archive else None)
                return archive, chosen, queries.edition(conn, kind, chosen, language) if chosen else None

        def context():
            archive, chosen, shown = page_data(request, ("edition", kind, key, language), read)  # readers' meta only
            if chosen and shown is None:
                raise HTTPException(404, f"no {kind} edition {chosen!r}")
            shown_body = body(shown) if shown else ""  # its Markdown, as the site's page and file give it
            return {"kind": kind, "segment": segment, "archive": archive, "edition": shown, "body": shown_body}

        return reader_page(request, "edition.html", context)

    for segment in BY_SEGMENT:

        def latest(request: Request, lang: str | None = None, _segment=segment):
            return edition_page(request, _segment, None, lang)

        def one(request: Request, key: str, lang: str | None = None, _segment=segment):
            return edition_page(request, _segment, key, lang)

        app.add_api_route(f"/{segment}", latest, methods=["GET"], response_class=HTMLResponse, include_in_schema=False)
        app.add_api_route(
            f"/{segment}/{{key}}", one, methods=["GET"], response_class=HTMLResponse, include_in_schema=False
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
    # proxy_headers: X-Forwarded-For / -Proto are believed from FORWARDED_ALLOW_IPS only (default 127.0.0.1).
    uvicorn.run(target, factory=True, host=host, port=port, workers=workers, log_level=log_level, proxy_headers=True)
