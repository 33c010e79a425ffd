"""/{segment} (the newest) and /{segment}/{key} for every kind of edition (publish/outputs.py), with
the kind's archive beside it. The routes are made from the kind table when the app is built, so a
kind added to it has its pages with no edit here."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse

from newsdesk.publish.outputs import BY_SEGMENT
from newsdesk.serve import queries
from newsdesk.serve.pages import kit, ui_lang


def edition_page(request: Request, segment: str, key: str | None, lang: str | None):
    pages = kit(request)
    kind, language = BY_SEGMENT[segment].name, lang or ui_lang(request)
    body = BY_SEGMENT[segment].body

    def read():
        with pages.engine.connect() as conn:
            archive = queries.edition_keys(conn, kind)
            chosen = key or (archive[0]["key"] if archive else None)
            return archive, chosen, queries.edition(conn, kind, chosen, language) if chosen else None

    def context():
        archive, chosen, shown = pages.page_data(request, ("edition", kind, key, language), read)  # readers' meta only
        if chosen and shown is None:
            raise HTTPException(404, f"no {kind} edition {chosen!r}")
        shown_body = body(shown) if shown else ""  # its Markdown, as the site's page and file give it
        return {"kind": kind, "segment": segment, "archive": archive, "edition": shown, "body": shown_body}

    return pages.reader_page(request, "edition.html", context)


def editions_router() -> APIRouter:
    """The pages of every kind in the table now."""
    router = APIRouter()
    for segment in BY_SEGMENT:

        def latest(request: Request, lang: str | None = None, _segment=segment):
            return edition_page(request, _segment, None, lang)

        def one(request: Request, key: str, lang: str | None = None, _segment=segment):
            return edition_page(request, _segment, key, lang)

        router.add_api_route(
            f"/{segment}", latest, methods=["GET"], response_class=HTMLResponse, include_in_schema=False
        )
        router.add_api_route(
            f"/{segment}/{{key}}", one, methods=["GET"], response_class=HTMLResponse, include_in_schema=False
        )
    return router
