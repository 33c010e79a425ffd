"""The reader's pages: the day's feed, an event, search. Each is kept whole for readers once rendered
(Pages.reader_page), so a second reader of the same page costs no query."""

from __future__ import annotations

from datetime import date

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import HTMLResponse

from newsdesk.editions.feed_cards import card_signature
from newsdesk.serve import auth, queries
from newsdesk.serve.api import MAX_PAGE, check_id, parse_day
from newsdesk.serve.pages import kit, ui_lang
from newsdesk.store.days import event_dates, latest_day, neighbour_days

router = APIRouter()


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
def feed_page(request: Request, day: str | None = None, tab: str = "all", page_no: int = Query(1, alias="page")):
    pages = kit(request)
    lang, page_no = ui_lang(request), min(max(1, page_no), MAX_PAGE)

    def read():
        with pages.engine.connect() as conn:
            # Every day with news, as kept in news_days (store/days.py): once per version of the store.
            dates = pages.reads.get(("event dates",), lambda: event_dates(conn, pages.tz))
            # What the stored cards must have been built from to be shown (editions/feed_cards.py).
            signature = pages.reads.get(("card signature",), lambda: card_signature(conn))
            chosen = (
                parse_day(day)
                or pages.reads.get(("front day",), lambda: latest_day(conn, pages.tz, dates))
                or date.today()
            )
            return queries.feed(conn, chosen, tab, pages.tz, page_no, lang, signature), *neighbour_days(
                conn, chosen, pages.tz, dates
            )

    def context():
        data, prev_day, next_day = pages.page_data(request, ("feed", day, tab, page_no, lang), read)
        return {"feed": data, "prev_day": prev_day, "next_day": next_day}

    return pages.reader_page(request, "feed.html", context)


@router.get("/events/{event_id}", response_class=HTMLResponse, include_in_schema=False)
def event_page(request: Request, event_id: int):
    check_id(event_id)
    pages = kit(request)
    lang, operator = ui_lang(request), bool(auth.current_user(request))

    def read():
        with pages.engine.connect() as conn:
            return queries.event_detail(conn, event_id, pages.tz, lang, operator=operator)

    def context():
        detail = read()
        if detail is None:
            raise HTTPException(404, f"event {event_id} does not exist")
        return {"event": detail}

    # The operator's page carries the clusterer's reasons: read live, never shared.
    if operator:
        return pages.page(request, "event.html", **context())
    return pages.reader_page(request, "event.html", context)


@router.get("/search", response_class=HTMLResponse, include_in_schema=False)
def search_page(request: Request, q: str = ""):
    pages = kit(request)
    lang, query = ui_lang(request), q[:200]

    def read():
        hits = pages.index.search(query)
        with pages.engine.connect() as conn:
            return queries.search_results(conn, hits, lang)

    def context():
        results = pages.page_data(request, ("search", query, lang), read) if q.strip() else {"events": [], "items": []}
        return {"q": q, "results": results}

    return pages.reader_page(request, "search.html", context)
