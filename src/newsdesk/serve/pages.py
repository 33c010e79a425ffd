"""What every page of the web app shares: its templates, the context each is rendered with, the
read cache for pages every reader is shown alike, and who may write.

create_app (serve/app.py) makes one Pages per app and keeps it in app.state; the page routers
(serve/pages_reading.py, pages_editions.py, pages_operator.py, pages_account.py) take it with
`kit(request)`. Nothing here knows SQL: the routers read through serve/queries.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qsl, quote, quote_plus, urlencode, urlsplit
from zoneinfo import ZoneInfo

from fastapi import HTTPException, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from jinja2 import ChoiceLoader, Environment, FileSystemLoader, PackageLoader
from sqlalchemy.engine import Engine
from starlette.exceptions import HTTPException as StarletteHTTPException

from newsdesk.core.config import Settings
from newsdesk.core.labels import UI_LANGUAGES, Labels
from newsdesk.editions.feed_cards import web_environment
from newsdesk.ingest.poll import short
from newsdesk.publish.outputs import KINDS
from newsdesk.publish.site import paragraphs
from newsdesk.search.index import SearchIndex
from newsdesk.serve import auth
from newsdesk.serve.cache import ReadCache
from newsdesk.text import html as render
from newsdesk.text.language import detect_language

HERE = Path(__file__).parent


def local_path(target: str | None) -> str:
    """Only same-site paths are followed after login or a language switch (no open redirect)."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/"
    return target


def ui_lang(request: Request) -> str:
    lang = request.query_params.get("ui") or request.cookies.get("ui_lang") or "zh"
    return lang if lang in UI_LANGUAGES else "zh"


# A feed page is kept once for every query that asks for the same day, tab and page ("/?day=D" and
# "/?day=D&tab=all", as its links name it): what differs between them is only where the page names
# itself (`here`, the `next` of its language and login links), so it is kept rendered with this mark
# there, cut around it, and each answer puts in its own address (`filled`): byte for byte the page that
# rendering it for that query gives. Private-use characters: no page text holds them.
HERE_MARK = "\ue001here\ue001"
_MARK = quote_plus(HERE_MARK).encode()  # as the templates write it: urlencode({'next': here})
_FEED_PARAMS = {"day", "tab", "page", "ui"}
_PAGE_NO = re.compile("[0-9]{1,6}")


def here(request: Request) -> str:
    """The page's own address, as its links back to it name it."""
    return request.url.path + (f"?{request.url.query}" if request.url.query else "")


def feed_params(query: str) -> tuple | None:
    """(day, tab, page) as the feed page's route reads them from `query`, when it holds nothing else
    (each at most once, the page a plain number); None: the page is kept under the query as written."""
    pairs = parse_qsl(query, keep_blank_values=True)
    names = [name for name, _ in pairs]
    found = dict(pairs)
    if len(found) != len(names) or not set(found) <= _FEED_PARAMS:
        return None
    page = found.get("page", "1")
    if not _PAGE_NO.fullmatch(page):
        return None
    return (found.get("day"), found.get("tab", "all"), int(page))


def filled(kept: bytes | tuple, request: Request) -> bytes:
    """A kept page as the bytes for this request: one kept with HERE_MARK gets the request's own address."""
    if isinstance(kept, bytes):
        return kept
    return quote_plus(here(request)).encode().join(kept)


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


def environment(tz: ZoneInfo) -> Environment:
    """The pages' templates and filters."""
    # The event card's template is shared with the published site; it lives with the card builder.
    loader = ChoiceLoader([FileSystemLoader(HERE / "templates"), PackageLoader("newsdesk.editions", "templates")])
    # The settings, the card's filters and event_url are the ones the daily stage renders the feed's
    # cards with (editions/feed_cards.py): a stored card is the card this environment would render.
    env = web_environment(loader)
    env.filters.update(
        clean=render.clean_html,
        text=render.plain_text,
        paragraphs=paragraphs,
        snippet=render.snippet,
        finding=render.finding,
        when=lambda v, fmt="%Y-%m-%d %H:%M": render.local_time(v, tz, fmt),
        pct=lambda v: f"{v * 100:.1f}%",
        duration=short,
        written=detect_language,  # a text's language, for the marks on parts in another language
    )
    env.globals["edition_kinds"] = KINDS  # the menu links each kind's pages
    return env


@dataclass
class Pages:
    engine: Engine
    settings: Settings
    index: SearchIndex
    reads: ReadCache
    tz: ZoneInfo
    throttle: auth.Throttle  # wrong tokens, shared by the login form, the API and the MCP endpoint
    env: Environment = field(init=False)

    def __post_init__(self):
        self.env = environment(self.tz)

    def page(self, request: Request, template: str, status: int = 200, shared: bool = False, **context) -> HTMLResponse:
        lang = ui_lang(request)
        own = context.pop("here", None) or here(request)
        context.update(
            request=request,
            t=Labels(lang),
            ui=lang,
            user=auth.current_user(request),
            csrf=LazyCsrf(request, shared=shared),
            writes_enabled=bool(self.settings.web_token),
            writes_off=auth.WRITES_OFF[lang],
            flash=request.session.pop("flash", None),
            site_name=self.settings.site_name,
            here=own,
            urlencode=urlencode,
        )
        context.setdefault("error", None)
        return HTMLResponse(self.env.get_template(template).render(**context), status_code=status)

    @staticmethod
    def reader_page_key(request: Request) -> tuple | None:
        """What names a page every reader is shown alike (no login, no flash message in the session),
        as kept in the read cache once rendered; None for a personal page, which is never kept."""
        session = request.scope["session"]  # not request.session: asking is no use of the session
        if session.get("login") or session.get("flash"):
            return None
        path, query = request.url.path, request.url.query
        params = feed_params(query) if path == "/" else None
        return ("page", path, query if params is None else params, ui_lang(request))

    def reader_page(self, request: Request, template: str, read) -> Response:
        """`template` filled with read()'s context; for a reader, rendered once per version of the
        store and kept, so CachedPages answers the next ask for it from memory."""
        request.session  # noqa: B018 -- the page depends on it: SessionMiddleware then says `Vary: Cookie`
        key = self.reader_page_key(request)
        if key is None:
            return self.page(request, template, **read())
        marked = isinstance(key[2], tuple)  # kept for several queries: cut where it names itself

        def render() -> bytes | tuple:
            body = bytes(self.page(request, template, shared=True, here=HERE_MARK if marked else None, **read()).body)
            return tuple(body.split(_MARK)) if marked else body

        return HTMLResponse(filled(self.reads.get(key, render), request))

    def page_data(self, request: Request, key: tuple, read):
        """What a page reads, kept under key for personal pages (the operator's, one with a flash
        message); a reader's page is kept whole once rendered, so what it read need not be too (a
        day's feed is ~1 MB of Python objects, its page 0.4 MB of bytes, which the cache can count)."""
        return read() if self.reader_page_key(request) is not None else self.reads.get(key, read)

    def require_writer(self, request: Request, csrf: str | None) -> str:
        """The logged-in user allowed to write, after the CSRF check; raises otherwise."""
        self._writes_on(request)
        auth.check_csrf(request, csrf)
        return self.require_login(request)

    def require_operator(self, request: Request) -> str:
        """The logged-in user, on a page only the operator sees (its forms check CSRF when sent)."""
        self._writes_on(request)
        return self.require_login(request)

    @staticmethod
    def require_login(request: Request) -> str:
        user = auth.current_user(request)
        if not user:
            raise HTTPException(401, Labels(ui_lang(request)).login_to_write)
        return user

    def _writes_on(self, request: Request) -> None:
        if not self.settings.web_token:
            raise HTTPException(403, auth.WRITES_OFF[ui_lang(request)])


def kit(request: Request) -> Pages:
    """The app's Pages, for a page's route."""
    return request.app.state.pages


async def http_error(request: Request, exc: StarletteHTTPException):
    """An error as a page (the API's as JSON); a page that needs a login sends to the login form."""
    if request.url.path.startswith("/api/") or request.url.path == "/openapi.json":
        return await http_exception_handler(request, exc)
    if exc.status_code == 401:
        # Back to the page the form was on once logged in.
        back = urlsplit(request.headers.get("referer", "")) if request.method == "POST" else request.url
        target = back.path + (f"?{back.query}" if back.query else "") if back.path else "/"
        return RedirectResponse(f"/login?next={quote(local_path(target))}", 303)
    message = exc.detail if exc.status_code != 404 or exc.detail != "Not Found" else Labels(ui_lang(request)).not_found
    return kit(request).page(request, "message.html", status=exc.status_code, message=message)
