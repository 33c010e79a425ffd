"""The operator's pages: the sources (and adding or switching one), how the runs and units went, the
model's usage, a reader's feedback on an event, the push subscriptions and the drafts that failed.
Writing takes a login and the form's CSRF token (Pages.require_writer); the subscriptions and the
failed drafts are shown to the operator only (targets hold channel credentials; drafts never reach
readers)."""

from __future__ import annotations

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from newsdesk.push.send import push_test
from newsdesk.push.subscriptions import (
    SubscriptionError,
    add_subscription,
    list_subscriptions,
    remove_subscription,
    set_subscription_enabled,
)
from newsdesk.serve import queries
from newsdesk.serve.api import check_id, run_status
from newsdesk.serve.pages import kit

router = APIRouter()


def _text(value: object) -> str | None:
    """A form field that should be text: a file sent under its name is no token."""
    return value if isinstance(value, str) else None


# --- the newsroom's workings ---------------------------------------------------------------


@router.get("/sources", response_class=HTMLResponse, include_in_schema=False)
def sources_page(request: Request):
    pages = kit(request)
    with pages.engine.connect() as conn:
        table = queries.sources_table(conn)
    return pages.page(request, "sources.html", sources=table, form={})


@router.get("/status", response_class=HTMLResponse, include_in_schema=False)
def status_page(request: Request):
    pages = kit(request)
    with pages.engine.connect() as conn:
        data = run_status(conn)
    return pages.page(request, "status.html", run=data)


@router.get("/usage", response_class=HTMLResponse, include_in_schema=False)
def usage_page(request: Request, days: int = 30):
    pages = kit(request)
    with pages.engine.connect() as conn:
        data = queries.usage(conn, pages.tz, max(1, min(days, 366)))
    return pages.page(request, "usage.html", usage=data)


# --- writing -------------------------------------------------------------------------------


@router.post("/events/{event_id}/feedback", include_in_schema=False)
def feedback_submit(request: Request, event_id: int, kind: str = Form(""), note: str = Form(""), csrf: str = Form("")):
    pages = kit(request)
    user = pages.require_writer(request, csrf)
    check_id(event_id)
    try:
        with pages.engine.begin() as conn:
            queries.add_feedback(conn, event_id, kind, note, user)
    except queries.InputError as exc:
        raise HTTPException(400, str(exc)) from None
    except LookupError as exc:
        raise HTTPException(404, str(exc)) from None
    request.session["flash"] = "feedback_saved"
    return RedirectResponse(f"/events/{event_id}#feedback", 303)


@router.post("/sources", response_class=HTMLResponse, include_in_schema=False)
async def source_add(request: Request):
    pages = kit(request)
    form = dict(await request.form())
    pages.require_writer(request, _text(form.get("csrf")))
    try:
        with pages.engine.begin() as conn:
            queries.add_source(conn, form)
    except queries.InputError as exc:
        with pages.engine.connect() as conn:
            table = queries.sources_table(conn)
        return pages.page(request, "sources.html", status=400, sources=table, form=form, error=str(exc))
    request.session["flash"] = "source_added"
    return RedirectResponse("/sources", 303)


@router.post("/sources/{source_id}/enabled", include_in_schema=False)
def source_toggle(request: Request, source_id: str, enabled: str = Form(""), csrf: str = Form("")):
    pages = kit(request)
    pages.require_writer(request, csrf)
    try:
        with pages.engine.begin() as conn:
            queries.set_source_enabled(conn, source_id, enabled == "1")
    except LookupError as exc:
        raise HTTPException(404, str(exc)) from None
    request.session["flash"] = "source_updated"
    return RedirectResponse("/sources", 303)


# --- push subscriptions and failed drafts (the operator's only) -----------------------------


def subscriptions_page(request: Request, status: int = 200, form: dict | None = None, error: str | None = None):
    pages = kit(request)
    with pages.engine.connect() as conn:
        rows = list_subscriptions(conn)
    return pages.page(request, "subscriptions.html", status=status, subscriptions=rows, form=form or {}, error=error)


@router.get("/subscriptions", response_class=HTMLResponse, include_in_schema=False)
def subscriptions_list(request: Request):
    kit(request).require_operator(request)
    return subscriptions_page(request)


@router.get("/drafts", response_class=HTMLResponse, include_in_schema=False)
def drafts_page(request: Request):
    pages = kit(request)
    pages.require_operator(request)
    with pages.engine.connect() as conn:
        drafts = queries.failed_drafts_list(conn)
    return pages.page(request, "drafts.html", drafts=drafts)


@router.post("/subscriptions", response_class=HTMLResponse, include_in_schema=False)
async def subscription_add(request: Request):
    pages = kit(request)
    form = dict(await request.form())
    pages.require_writer(request, _text(form.get("csrf")))
    try:
        with pages.engine.begin() as conn:
            add_subscription(conn, form)
    except SubscriptionError as exc:
        return subscriptions_page(request, 400, form, str(exc))
    request.session["flash"] = "subscription_added"
    return RedirectResponse("/subscriptions", 303)


@router.post("/subscriptions/{sub_id}/{action}", response_class=HTMLResponse, include_in_schema=False)
def subscription_change(request: Request, sub_id: int, action: str, enabled: str = Form(""), csrf: str = Form("")):
    pages = kit(request)
    pages.require_writer(request, csrf)
    try:
        if action == "test":
            _, problem = push_test(pages.engine, pages.settings, str(sub_id))
            if problem:
                return subscriptions_page(request, 502, error=problem)
            request.session["flash"] = "test_sent"
        elif action == "enabled":
            with pages.engine.begin() as conn:
                set_subscription_enabled(conn, sub_id, enabled == "1")
            request.session["flash"] = "subscription_updated"
        elif action == "remove":
            with pages.engine.begin() as conn:
                remove_subscription(conn, sub_id)
            request.session["flash"] = "subscription_removed"
        else:
            raise HTTPException(404, f"no subscription action {action!r}; use test, enabled or remove")
    except LookupError as exc:
        raise HTTPException(404, str(exc)) from None
    return RedirectResponse("/subscriptions", 303)
