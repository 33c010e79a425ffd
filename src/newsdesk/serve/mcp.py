"""The newsroom for AI assistants, over the Model Context Protocol.

`newsdesk mcp` serves it over stdio (an assistant on the same machine starts it);
`newsdesk serve` mounts it at /mcp over streamable HTTP, behind the operator's token.
Tools read through the same functions as the JSON API (serve/queries.py) and answer in
the API's own models, so a tool and its API route always agree. Editions are also
resources (`newsdesk://editions/{kind}/{key}/{language}`).

A wrong argument is a tool error that names the fix, never a crash: the assistant reads
the message and calls again.
"""

from __future__ import annotations

import inspect
from typing import Annotated, Literal
from zoneinfo import ZoneInfo

from fastapi import HTTPException
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError
from mcp.server.transport_security import TransportSecuritySettings
from mcp_types import Resource
from pydantic import Field
from sqlalchemy.engine import Engine
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import Receive, Scope, Send

from newsdesk.core.config import Settings
from newsdesk.publish.outputs import EDITION_KINDS, KINDS, EditionKind, kind_names
from newsdesk.search.index import SearchIndex
from newsdesk.serve import auth, queries
from newsdesk.serve.shapes import Created, Edition, EditionRef, EventDetail, SearchResults, SourceRow

Language = Literal["zh", "en"]
_URI = "newsdesk://editions/{kind}/{key}/{language}"


class NewsdeskMCP(MCPServer):
    """An MCPServer whose resource list is the store's editions, read when asked."""

    def __init__(self, engine: Engine, **kwargs):
        super().__init__(**kwargs)
        self._engine = engine

    async def list_resources(self) -> list[Resource]:
        with self._engine.connect() as conn:
            refs = [(kind.name, ref) for kind in KINDS for ref in queries.edition_keys(conn, kind.name)]
        return [
            Resource(
                uri=_URI.format(kind=kind, key=ref["key"], language=lang),
                name=f"{kind} {ref['key']} ({lang})",
                title=ref["titles"].get(lang),
                mime_type="text/markdown",
            )
            for kind, ref in refs
            for lang in ref["languages"]
        ] + await super().list_resources()


def _edition(engine: Engine, kind: EditionKind, key: str | None, language: str) -> dict:
    if key is not None and (problem := kind.key.problem(key)):
        raise ToolError(problem)
    with engine.connect() as conn:
        archive = queries.edition_keys(conn, kind.name)
        if not archive:
            raise ToolError(
                f"no {kind.name} edition is stored yet; build one with `newsdesk run --stage {kind.name}` (or `newsdesk run`)"
            )
        key = key or archive[0]["key"]
        found = queries.edition(conn, kind.name, key, language)
    if found is None:
        known = ", ".join(a["key"] for a in archive[:10])
        raise ToolError(
            f"no {kind.name} edition {key!r}; stored ones (newest first): {known}. Pass one of them, e.g. {kind.key.example}"
        )
    return found


def _add_edition_tool(server: MCPServer, engine: Engine, kind: EditionKind) -> None:
    """The kind's tool (daily_edition, weekly_report, …): one edition as markdown, its key argument
    named as the kind names it (date, week, key)."""

    def tool(language: Language = "zh", **key: str | None) -> Edition:
        return Edition.model_validate(_edition(engine, kind, key.get(kind.key.name), language))

    # The SDK builds the tool's arguments from the signature: give it the kind's own key argument.
    param = inspect.Parameter.KEYWORD_ONLY
    tool.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [
            inspect.Parameter(
                kind.key.name, param, default=None, annotation=Annotated[str | None, Field(description=kind.key.help)]
            ),
            inspect.Parameter("language", param, default="zh", annotation=Language),
        ],
        return_annotation=Edition,
    )
    server.tool(name=kind.tool, description=kind.about)(tool)


def build_server(engine: Engine, settings: Settings, index: SearchIndex | None = None) -> NewsdeskMCP:
    """The MCP server over one store. `index` is shared with the web app when mounted there."""
    tz = ZoneInfo(settings.timezone)
    index = index or SearchIndex(engine)
    server = NewsdeskMCP(
        engine,
        name="newsdesk",
        title=f"{settings.site_name} newsroom",
        instructions=(
            "An AI-industry newsroom. Events merge every outlet's coverage of one happening; each has members "
            "(outlet, headline, link, material level), how many outlets covered it and how many independently, "
            "and an analysis that passed its checks (written, or extractive: chosen from the material by code, "
            "also in place of a draft that failed). search_events finds events; get_event shows one; "
            f"{', '.join(k.tool for k in KINDS[:-1])} and {KINDS[-1].tool} return the published editions as markdown."
        ),
    )

    _event_tools(server, engine, tz, index)
    for kind in KINDS:
        _add_edition_tool(server, engine, kind)
    _list_tools(server, engine)
    if settings.web_token:
        # Writing is offered only where the operator enabled it; over HTTP the token guards the whole endpoint.
        _feedback_tool(server, engine)
    _edition_resource(server, engine)
    return server


def _event_tools(server: NewsdeskMCP, engine: Engine, tz: ZoneInfo, index: SearchIndex) -> None:
    @server.tool()
    def search_events(
        query: Annotated[str, Field(min_length=1, max_length=200, description="words in Chinese or English")],
        language: Language = "zh",
        limit: Annotated[int, Field(ge=1, le=50)] = 10,
    ) -> SearchResults:
        """Search events and items by words (Chinese is segmented); events come first, best match first."""
        if not query.strip():
            raise ToolError("query is blank; give one or more words, e.g. 'GPT-4.5' or '融资'")
        hits = index.search(query)
        with engine.connect() as conn:
            found = queries.search_results(conn, hits, language)
        return SearchResults(query=query, events=found["events"][:limit], items=found["items"][:limit])

    @server.tool()
    def get_event(event_id: Annotated[int, Field(ge=1, le=queries.MAX_ID)], language: Language = "zh") -> EventDetail:
        """One event: its members (outlet, headline, link, time, material level), outlets and independent
        outlets, the analysis in each language with its check status and findings, and why it ranks."""
        with engine.connect() as conn:
            detail = queries.event_detail(conn, event_id, tz, language)
        if detail is None:
            raise ToolError(f"event {event_id} does not exist; find event ids with search_events or daily_edition")
        return detail


def _list_tools(server: NewsdeskMCP, engine: Engine) -> None:
    @server.tool()
    def list_editions(
        kind: Annotated[str, Field(json_schema_extra={"enum": list(EDITION_KINDS)})],
    ) -> list[EditionRef]:
        """The archive of one kind of edition: each key with its languages and titles, newest first."""
        if kind not in EDITION_KINDS:
            raise ToolError(f"edition kind {kind!r}: use {kind_names()}")
        with engine.connect() as conn:
            return queries.edition_keys(conn, kind)

    @server.tool()
    def list_sources() -> list[SourceRow]:
        """Every source with its health: last success, last error, items in 7 days, consecutive failures, stale."""
        with engine.connect() as conn:
            return queries.sources_table(conn)


def _feedback_tool(server: NewsdeskMCP, engine: Engine) -> None:
    @server.tool()
    def leave_feedback(
        event_id: Annotated[int, Field(ge=1, le=queries.MAX_ID)],
        kind: Literal["up", "down", "star"],
        note: Annotated[str, Field(max_length=2000)] = "",
    ) -> Created:
        """Leave feedback on an event (up, down or star); ranking reads it on the next run."""
        try:
            with engine.begin() as conn:
                return {"id": queries.add_feedback(conn, event_id, kind, note, "mcp")}
        except queries.InputError as exc:
            raise ToolError(str(exc)) from None
        except LookupError:
            raise ToolError(f"event {event_id} does not exist; find event ids with search_events") from None


def _edition_resource(server: NewsdeskMCP, engine: Engine) -> None:
    """Every stored edition as a resource (_URI: newsdesk://editions/{kind}/{key}/{language})."""

    def read_edition(kind: str, key: str, language: str) -> str:
        if kind not in EDITION_KINDS:
            raise ResourceNotFoundError(f"edition kind {kind!r}: use {kind_names()}")
        with engine.connect() as conn:
            found = queries.edition(conn, kind, key, language)
        if found is None or found["language"] != language:
            raise ResourceNotFoundError(
                f"no {kind} edition {key!r} in {language!r}; list the resources to see what is stored"
            )
        return found["body"]

    server.resource(
        _URI,
        name="edition",
        description=f"One edition ({kind_names()}) in one language, as markdown",
        mime_type="text/markdown",
    )(read_edition)


class TokenGate:
    """The streamable HTTP transport for `newsdesk serve`, answering only the operator's token.

    Run `server.session_manager.run()` in the web app's lifespan. The SDK's DNS-rebinding
    guard (Host must be localhost) is off: it protects endpoints without credentials, and a
    page in a browser cannot send our bearer token, while the guard would refuse a server
    bound to a public name. (A class, not a function: Starlette routes a class instance as
    a raw ASGI app.)
    """

    def __init__(self, server: NewsdeskMCP, settings: Settings, throttle: auth.Throttle):
        self.token = settings.web_token
        self.throttle = throttle  # wrong tokens here count with the login form's and the API's
        self.inner = server.streamable_http_app(
            streamable_http_path="/mcp",
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            if not self.token:
                refusal = JSONResponse(
                    {
                        "detail": "MCP over HTTP is off: set NEWSDESK_WEB_TOKEN and restart "
                        "`newsdesk serve` (or run `newsdesk mcp` locally over stdio)"
                    },
                    403,
                )
                return await refusal(scope, receive, send)
            request = Request(scope)
            try:
                self.throttle.check(request)
            except HTTPException as exc:
                return await JSONResponse({"detail": exc.detail}, exc.status_code, headers=exc.headers)(
                    scope, receive, send
                )
            if not auth.token_matches(self.token, auth.bearer(request)):
                self.throttle.wrong(request)
                refusal = JSONResponse(
                    {"detail": "send the operator's token as 'Authorization: Bearer <NEWSDESK_WEB_TOKEN>'"},
                    401,
                    headers={"WWW-Authenticate": "Bearer"},
                )
                return await refusal(scope, receive, send)
        await self.inner(scope, receive, send)
