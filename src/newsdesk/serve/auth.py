"""Who may change things, and proof that a form came from our own page.

Reading is open. Writing (feedback, sources) needs the operator's token, set as
NEWSDESK_WEB_TOKEN (setting `web_token`); without one, writes are off for everybody.
- In the browser: log in once with the token. The login is a row of the store's web_sessions
  (its id is the hash of a secret the signed cookie carries): logout deletes it, so a cookie
  copied before logout opens nothing after it; a changed web_token ends every login (each row
  holds a MAC of the token it was opened with), and so does `web_session_idle` without a request.
  Every process serving the store (and a restart) sees the same logins.
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

import hashlib
import hmac
import secrets
import time
from datetime import UTC, datetime, timedelta

from fastapi import HTTPException, Request
from limits import parse
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter
from sqlalchemy import delete, insert, select, update

from newsdesk.core.config import parse_duration
from newsdesk.store.schema import web_sessions

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
        raise HTTPException(
            403, "form expired or not from this site (CSRF token mismatch); reload the page and submit again"
        )


def token_matches(configured: str, given: str | None) -> bool:
    return bool(configured) and given is not None and hmac.compare_digest(configured.encode(), given.encode())


def idle_limit(settings) -> timedelta:
    """How long a login lasts without a request (`web_session_idle`)."""
    return timedelta(seconds=parse_duration(settings.web_session_idle, "web_session_idle"))


def _row_id(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def _token_mac(secret: str, token: str) -> str:
    # Keyed by the cookie's secret, which the store does not hold: its rows say nothing of the token.
    return hmac.new(secret.encode(), token.encode(), hashlib.sha256).hexdigest()


def current_user(request: Request) -> str | None:
    """The logged-in user's name, or None: no login, logged out, the token changed, or idle too long."""
    secret = request.session.get("login")
    if not secret:
        return None
    if hasattr(request.state, "user"):  # looked up once per request: the page and the write check both ask
        return request.state.user
    engine, settings = request.app.state.engine, request.app.state.settings
    now, idle = datetime.now(UTC), idle_limit(settings)
    with engine.begin() as conn:
        row = conn.execute(select(web_sessions).where(web_sessions.c.id == _row_id(secret))).first()
        alive = (
            row is not None
            and now - row.seen_at <= idle
            and hmac.compare_digest(row.token_mac, _token_mac(secret, settings.web_token))
        )
        if not alive:
            conn.execute(delete(web_sessions).where(web_sessions.c.id == _row_id(secret)))
        elif now - row.seen_at > min(timedelta(minutes=1), idle / 2):  # a write a minute at most, not one a request
            conn.execute(update(web_sessions).where(web_sessions.c.id == row.id).values(seen_at=now))
    if not alive:
        request.session.pop("login", None)
    request.state.user = row.user if alive else None
    return request.state.user


def login(request: Request, user: str) -> None:
    # A fresh CSRF token at login: a token planted before login is worth nothing after it.
    engine, settings = request.app.state.engine, request.app.state.settings
    secret, now = secrets.token_urlsafe(32), datetime.now(UTC)
    with engine.begin() as conn:
        conn.execute(delete(web_sessions).where(web_sessions.c.seen_at < now - idle_limit(settings)))  # the expired
        conn.execute(
            insert(web_sessions).values(
                id=_row_id(secret),
                user=user,
                created_at=now,
                seen_at=now,
                token_mac=_token_mac(secret, settings.web_token),
            )
        )
    request.session.clear()
    request.session["login"] = secret
    request.session["csrf"] = secrets.token_urlsafe(32)
    request.state.user = user


def logout(request: Request) -> None:
    """End the login in the store, not only in this browser: a copy of the cookie opens nothing after it."""
    secret = request.session.get("login")
    if secret:
        with request.app.state.engine.begin() as conn:
            conn.execute(delete(web_sessions).where(web_sessions.c.id == _row_id(secret)))
    request.session.clear()
    request.state.user = None


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
            raise HTTPException(
                429, f"too many wrong tokens from {client}; try again in {wait} s", headers={"Retry-After": str(wait)}
            )

    def wrong(self, request: Request) -> None:
        self.limiter.hit(self.rate, self._client(request))
