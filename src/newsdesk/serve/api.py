"""The JSON API: the same data as the pages, typed, so /openapi.json documents it.

Reads are open. Writes need `Authorization: Bearer <token>` (the operator's
NEWSDESK_WEB_TOKEN); a header a browser never sends by itself, so no CSRF token is needed.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Annotated
from zoneinfo import ZoneInfo

from fastapi import APIRouter, HTTPException, Path, Query, Request
from sqlalchemy.engine import Engine

from newsdesk.core.config import Settings
from newsdesk.publish.outputs import EDITION_KINDS, kind_names
from newsdesk.push import subscriptions as push
from newsdesk.run.pipeline import STAGE_NAMES
from newsdesk.search.index import SearchIndex
from newsdesk.serve import auth, queries
from newsdesk.serve.queries import MAX_ID
from newsdesk.serve.shapes import (
    Created,
    Edition,
    EditionRef,
    EventDetail,
    FeedbackIn,
    FeedPage,
    SearchResults,
    SourceEnabled,
    SourceIn,
    SourceRow,
    Status,
    Story,
    Subscription,
    SubscriptionIn,
    Unit,
    Usage,
)
from newsdesk.store.days import latest_day, neighbour_days
from newsdesk.store.stage_runs import polling, stage_status
from newsdesk.stories.timelines import story_page

MAX_PAGE = 100_000
# Days a newsroom can have: the neighbours of day 1 or day 9999-12-31 would overflow date arithmetic.
FIRST_DAY, LAST_DAY = date(1970, 1, 1), date(2200, 12, 31)


def parse_day(value: str | None) -> date | None:
    """A `day` parameter (YYYY-MM-DD) for pages and the API alike."""
    if not value:
        return None
    try:
        day = date.fromisoformat(value)
    except ValueError:
        raise HTTPException(400, f"day {value!r} is not a date; use YYYY-MM-DD") from None
    if not FIRST_DAY <= day <= LAST_DAY:
        raise HTTPException(400, f"day {value!r} is out of range; use a day from {FIRST_DAY} to {LAST_DAY}")
    return day


def check_id(event_id: int) -> int:
    """An event id that could exist, else 404 (an id past 64 bits cannot)."""
    if not 1 <= event_id <= MAX_ID:
        raise HTTPException(404, f"event {event_id} does not exist")
    return event_id


def run_status(conn) -> dict:
    """The operator's view: each stage's runs and each source's polling (store/stage_runs.py), and the
    workers' units of work per stage (run/claims.py)."""
    from newsdesk.run.claims import board, listed

    order = {name: n for n, name in enumerate(STAGE_NAMES)}
    fields = list(Unit.model_fields)
    units = {
        "stages": sorted(board(conn), key=lambda b: order.get(b["stage"], len(order))),
        "running": [{k: u[k] for k in fields} for u in listed(conn, "running")],
        "failed": [{k: u[k] for k in fields} for u in listed(conn, "failed")],
    }
    return {"stages": stage_status(conn, STAGE_NAMES), "sources": polling(conn), "units": units}


def _edition_routes(api: APIRouter, engine: Engine, operator) -> None:
    """/editions/{kind} and /editions/{kind}/{key}: the kinds are the registry's (publish/outputs.py)."""

    def known(kind: str) -> str:
        if kind not in EDITION_KINDS:  # the schema lists them too
            raise HTTPException(404, f"no edition kind {kind!r}; use {kind_names()}")
        return kind

    @api.get(
        "/editions/{kind}", response_model=list[EditionRef], summary="The archive of one kind of edition, newest first"
    )
    def edition_archive(kind: Annotated[str, Path(json_schema_extra={"enum": list(EDITION_KINDS)})]):
        with engine.connect() as conn:
            return queries.edition_keys(conn, known(kind))

    @api.get("/editions/{kind}/{key}", response_model=Edition, summary="One edition in one language")
    def edition(
        kind: Annotated[str, Path(json_schema_extra={"enum": list(EDITION_KINDS)})],
        key: str,
        request: Request,
        lang: str = "zh",
    ):
        with engine.connect() as conn:
            # The operator's token adds the writer's notes (a corrected quote, a dropped sentence) to meta.
            found = queries.edition(conn, known(kind), key, lang, operator=operator(request))
        if found is None:
            raise HTTPException(404, f"no {kind} edition {key!r}")
        return found


def endpoints_index(request: Request) -> dict:
    """`GET /api`: where the endpoints are described and what they are, for whoever opens the API's
    address (docs/commands.md gives it) rather than one endpoint's."""
    app = request.app
    paths = [path for path in app.openapi()["paths"] if path.startswith("/api/")]  # FastAPI builds it once
    return {"docs": app.docs_url, "openapi": app.openapi_url, "endpoints": sorted(paths)}


class TokenCheck:
    """The operator's token on an API call (`Authorization: Bearer`), wrong ones throttled."""

    def __init__(self, settings: Settings, throttle: auth.Throttle):
        self.settings, self.throttle = settings, throttle

    def writer(self, request: Request) -> None:
        if not self.settings.web_token:
            raise HTTPException(403, auth.WRITES_OFF["en"])
        self.throttle.check(request)
        if not auth.token_matches(self.settings.web_token, auth.bearer(request)):
            self.throttle.wrong(request)
            raise HTTPException(401, "send the operator's token as 'Authorization: Bearer <NEWSDESK_WEB_TOKEN>'")

    def operator(self, request: Request) -> bool:
        """Whether a read comes with the operator's token; a wrong one counts as writer() counts it."""
        if not self.settings.web_token or auth.bearer(request) is None:
            return False
        self.throttle.check(request)
        if auth.token_matches(self.settings.web_token, auth.bearer(request)):
            return True
        self.throttle.wrong(request)
        return False


def build_api(
    engine: Engine, settings: Settings, index: SearchIndex, tz: ZoneInfo, throttle: auth.Throttle
) -> APIRouter:
    api = APIRouter()
    api.add_api_route("", endpoints_index, include_in_schema=False)
    tokens = TokenCheck(settings, throttle)
    _event_routes(api, engine, tz, tokens)
    _edition_routes(api, engine, tokens.operator)
    _source_routes(api, engine, tokens.writer)
    _subscription_routes(api, engine, tokens.writer)
    _usage_and_search_routes(api, engine, tz, index)
    return api


def _event_routes(api: APIRouter, engine: Engine, tz: ZoneInfo, tokens: TokenCheck) -> None:
    """A day's feed, an event, a story, feedback on an event."""

    @api.get("/events", response_model=FeedPage, summary="The feed of one day, one tab")
    def feed(day: str | None = None, tab: str = "all", page: int = Query(1, ge=1, le=MAX_PAGE), lang: str = "zh"):
        with engine.connect() as conn:
            chosen = parse_day(day) or latest_day(conn, tz) or date.today()
            data = queries.feed(conn, chosen, tab, tz, page, lang)
            data["previous_day"], data["next_day"] = neighbour_days(conn, chosen, tz)
        return data

    @api.get(
        "/events/{event_id}", response_model=EventDetail, summary="One event: coverage, analyses, checks, score parts"
    )
    def event(request: Request, event_id: int, lang: str = "zh"):
        check_id(event_id)
        with engine.connect() as conn:
            # The clusterer's reasons (why each member joined) are the operator's, like the writer's notes.
            detail = queries.event_detail(conn, event_id, tz, lang, operator=tokens.operator(request))
        if detail is None:
            raise HTTPException(404, f"event {event_id} does not exist")
        return detail

    @api.get(
        "/stories/{story_id}",
        response_model=Story,
        summary="One story: its events in time order",
        responses={404: {"description": "no such story"}},
    )
    def story(story_id: int, lang: str = "zh"):
        if not 1 <= story_id <= MAX_ID:
            raise HTTPException(404, f"story {story_id} does not exist")
        with engine.connect() as conn:
            found = story_page(conn, story_id, lang, tz)
        if found is None:
            raise HTTPException(404, f"story {story_id} does not exist")
        return found

    @api.post(
        "/events/{event_id}/feedback", response_model=Created, status_code=201, summary="Leave feedback on an event"
    )
    def feedback(event_id: int, body: FeedbackIn, request: Request):
        tokens.writer(request)
        check_id(event_id)
        try:
            with engine.begin() as conn:
                new_id = queries.add_feedback(conn, event_id, body.kind, body.note, body.user)
        except LookupError as exc:
            raise HTTPException(404, str(exc)) from None
        return {"id": new_id}


def _source_routes(api: APIRouter, engine: Engine, writer: Callable[[Request], None]) -> None:
    """The sources (adding one, switching one on or off) and how the runs went."""

    @api.get("/sources", response_model=list[SourceRow], summary="Every source with its health")
    def sources():
        with engine.connect() as conn:
            return queries.sources_table(conn)

    @api.post("/sources", response_model=Created, status_code=201, summary="Add a source")
    def add_source(body: SourceIn, request: Request):
        writer(request)
        try:
            with engine.begin() as conn:
                return {"id": queries.add_source(conn, body.model_dump())}
        except queries.InputError as exc:
            raise HTTPException(400, str(exc)) from None

    @api.patch("/sources/{source_id}", response_model=SourceEnabled, summary="Enable or disable a source")
    def set_enabled(source_id: str, body: SourceEnabled, request: Request):
        writer(request)
        try:
            with engine.begin() as conn:
                queries.set_source_enabled(conn, source_id, body.enabled)
        except LookupError as exc:
            raise HTTPException(404, str(exc)) from None
        return body

    @api.get(
        "/status",
        response_model=Status,
        summary="Each stage's last run, problem, queue and next due; each source's polling",
    )
    def status():
        with engine.connect() as conn:
            return run_status(conn)


def _subscription_routes(api: APIRouter, engine: Engine, writer: Callable[[Request], None]) -> None:
    """Push subscriptions are the operator's: their targets hold channel credentials, so even the
    list (masked) needs the token."""

    @api.get(
        "/subscriptions", response_model=list[Subscription], summary="Push subscriptions with their health (token)"
    )
    def subscriptions(request: Request):
        writer(request)
        with engine.connect() as conn:
            return push.list_subscriptions(conn)

    @api.post("/subscriptions", response_model=Created, status_code=201, summary="Add a push subscription (token)")
    def add_subscription(body: SubscriptionIn, request: Request):
        writer(request)
        try:
            with engine.begin() as conn:
                return {"id": push.add_subscription(conn, body.model_dump())}
        except push.SubscriptionError as exc:
            raise HTTPException(400, str(exc)) from None

    @api.delete(
        "/subscriptions/{name_or_id}", status_code=204, summary="Remove a push subscription and its deliveries (token)"
    )
    def remove_subscription(name_or_id: str, request: Request):
        writer(request)
        try:
            with engine.begin() as conn:
                push.remove_subscription(conn, name_or_id)
        except push.UnknownSubscription as exc:
            raise HTTPException(404, str(exc)) from None


def _usage_and_search_routes(api: APIRouter, engine: Engine, tz: ZoneInfo, index: SearchIndex) -> None:
    @api.get("/usage", response_model=Usage, summary="Model calls, tokens, cached share and cost per day and output")
    def usage(days: int = Query(30, ge=1, le=366)):
        with engine.connect() as conn:
            return queries.usage(conn, tz, days)

    @api.get("/search", response_model=SearchResults, summary="Search events and items (Chinese and English)")
    def search(q: str = Query(..., min_length=1, max_length=200), lang: str = "zh"):
        hits = index.search(q)
        with engine.connect() as conn:
            found = queries.search_results(conn, hits, lang)
        return {"query": q, **found}
