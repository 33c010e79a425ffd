"""Who the visitor is and how the pages speak to them: logging in with the operator's token, logging
out, the interface language."""

from __future__ import annotations

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from newsdesk.core.labels import UI_LANGUAGES, Labels
from newsdesk.serve import auth
from newsdesk.serve.pages import kit, local_path, ui_lang

router = APIRouter()


@router.get("/ui/{lang}", include_in_schema=False)
def switch_language(lang: str, next: str = "/"):
    if lang not in UI_LANGUAGES:
        raise HTTPException(404, f"interface language {lang!r}: use one of {', '.join(UI_LANGUAGES)}")
    response = RedirectResponse(local_path(next), 303)
    response.set_cookie("ui_lang", lang, max_age=365 * 86400, samesite="lax", httponly=True)
    return response


@router.get("/login", response_class=HTMLResponse, include_in_schema=False)
def login_form(request: Request, next: str = "/"):
    return kit(request).page(request, "login.html", next=local_path(next))


@router.post("/login", response_class=HTMLResponse, include_in_schema=False)
def login_submit(
    request: Request, token: str = Form(""), name: str = Form(""), csrf: str = Form(""), next: str = Form("/")
):
    pages = kit(request)
    if not pages.settings.web_token:
        raise HTTPException(403, auth.WRITES_OFF[ui_lang(request)])
    auth.check_csrf(request, csrf)
    pages.throttle.check(request)
    if not auth.token_matches(pages.settings.web_token, token):
        pages.throttle.wrong(request)
        return pages.page(
            request, "login.html", status=401, next=local_path(next), error=Labels(ui_lang(request)).bad_token
        )
    auth.login(request, (name.strip() or "operator")[:80])
    return RedirectResponse(local_path(next), 303)


@router.post("/logout", include_in_schema=False)
def logout_submit(request: Request, csrf: str = Form("")):
    auth.check_csrf(request, csrf)
    auth.logout(request)
    return RedirectResponse("/", 303)
