"""Who may change things, and proof that a form came from our own page.

Reading is open. Writing (feedback, sources) needs the operator's token, set as
NEWSDESK_WEB_TOKEN (setting `web_token`); without one, writes are off for everybody.
- In the browser: log in once with the token; the signed session cookie then says so.
- In the JSON API: send `Authorization: Bearer <token>` with each write.

CSRF: every session holds a random token (the cookie is signed, so it cannot be forged
or swapped); each form carries it in a hidden field and every form POST must echo it.
A cross-site page can make the browser send the cookie (it is SameSite=Lax anyway),
but it cannot read our page to learn the token.

Guessing: wrong tokens are counted per client address (login form and API alike); past
WRONG_TOKENS in a moving window every attempt from that address is answered 429 until
the window has room again, so the token cannot be guessed at network speed.
"""

from __future__ import annotations

import hmac
import secrets
import time

from fastapi import HTTPException, Request
from limits import parse
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

WRONG_TOKENS = "10/minute"

WRITES_OFF = {
    "zh": "写入已关闭：运营者尚未设置 NEWSDESK_WEB_TOKEN。设置后重启 `newsdesk serve` 即可登录、反馈和管理来源。",
    "en": "Writes are disabled: the operator has not set NEWSDESK_WEB_TOKEN. Set it and restart `newsdesk serve` to log in, leave feedback and manage sources.",
}


def csrf_token(request: Request) -> str:
    token = request.session.get("csrf")
    if not token:
        token = secrets.token_urlsafe(32)
        request.session["csrf"] = token
    return token


def check_csrf(request: Request, submitted: str | None) -> None:
    expected = request.session.get("csrf")
    if not expected or not submitted or not hmac.compare_digest(expected, submitted):
        raise HTTPException(403, "form expired or not from this site (CSRF token mismatch); reload the page and submit again")


def token_matches(configured: str, given: str | None) -> bool:
    return bool(configured) and given is not None and hmac.compare_digest(configured.encode(), given.encode())


def current_user(request: Request) -> str | None:
    return request.session.get("user")


def login(request: Request, user: str) -> None:
    # A fresh CSRF token at login: a token planted before login is worth nothing after it.
    request.session.clear()
    request.session["user"] = user
    request.session["csrf"] = secrets.token_urlsafe(32)


def logout(request: Request) -> None:
    request.session.clear()


def bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    return value.strip() if scheme.lower() == "bearer" else None


class Throttle:
    """Counts wrong tokens per client address and refuses attempts past WRONG_TOKENS."""

    def __init__(self, rate: str = WRONG_TOKENS):
        self.rate = parse(rate)
        self.limiter = MovingWindowRateLimiter(MemoryStorage())

    @staticmethod
    def _client(request: Request) -> str:
        return request.client.host if request.client else "unknown"

    def check(self, request: Request) -> None:
        """Raise 429 while this address has used up its wrong attempts."""
        client = self._client(request)
        if not self.limiter.test(self.rate, client):
            reset = self.limiter.get_window_stats(self.rate, client).reset_time
            wait = max(1, int(reset - time.time()) + 1)
            raise HTTPException(429, f"too many wrong tokens from {client}; try again in {wait} s",
                                headers={"Retry-After": str(wait)})

    def wrong(self, request: Request) -> None:
        self.limiter.hit(self.rate, self._client(request))
