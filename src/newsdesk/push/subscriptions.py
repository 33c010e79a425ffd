"""Subscriptions: who gets what, where and when. Every field is checked like a form field.

The target is an Apprise URL and holds the channel's credentials (bot tokens, passwords):
it is stored as given and only ever shown masked (Apprise's own privacy form).
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time

import apprise
from sqlalchemy import delete, insert, select, update
from sqlalchemy.engine import Connection

from newsdesk.core.errors import NewsdeskError
from newsdesk.store.schema import MAX_ID, deliveries, subscriptions

SCHEDULES = ("instant", "daily", "weekly")
LANGUAGES = ("zh", "en")
# Apprise scheme -> the channel's name in the newsroom (any other Apprise scheme is `other`).
CHANNELS = {
    "mailto": "email",
    "mailtos": "email",
    "tgram": "telegram",
    "slack": "slack",
    "discord": "discord",
    "feishu": "feishu",
    "dingtalk": "dingtalk",
    "wecombot": "wecom",
}
EXAMPLES = (
    "tgram://BOT_TOKEN/CHAT_ID, mailtos://user:password@example.com?to=you@example.com, "
    "slack://TokenA/TokenB/TokenC/#channel, discord://WEBHOOK_ID/WEBHOOK_TOKEN, feishu://TOKEN, "
    "dingtalk://TOKEN, wecombot://KEY"
)
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,79}$")


class SubscriptionError(NewsdeskError):
    """A subscription field is wrong; the message names it and the fix."""


class UnknownSubscription(SubscriptionError, LookupError):
    """No subscription has that name or id."""


def channel_of(target: str) -> str:
    """The channel of an Apprise URL; raises SubscriptionError when Apprise cannot use it."""
    plugin = apprise.Apprise.instantiate(target)
    if plugin is None:
        raise SubscriptionError(
            f"target {mask(target)!r} is not an Apprise URL that can be used; "
            f"write it in the channel's Apprise form, e.g. {EXAMPLES}"
        )
    return CHANNELS.get(target.split("://", 1)[0].lower(), "other")


def mask(target: str) -> str:
    """The target with its secrets hidden, for pages, tables and logs."""
    plugin = apprise.Apprise.instantiate(target)
    if plugin is None:
        return target.split("://", 1)[0] + "://…" if "://" in target else "…"
    return plugin.url(privacy=True).split("?", 1)[0]


def _words(value) -> list[str]:
    if value is None:
        return []
    parts = value if isinstance(value, (list, tuple)) else re.split(r"[,\n]", str(value))
    return [p.strip() for p in parts if p and p.strip()]


def clean_fields(fields: dict, now: datetime | None = None) -> dict:
    """Checked column values from form / CLI fields; raises SubscriptionError naming the field."""
    name = str(fields.get("name", "")).strip().lower()
    if not _NAME.match(name):
        raise SubscriptionError(
            f"subscription name {name!r}: use 1-80 lowercase letters, digits, '-' or '_', e.g. 'team-telegram'"
        )
    target = str(fields.get("target", "")).strip()
    channel = channel_of(target)
    schedule = str(fields.get("schedule") or "instant")
    if schedule not in SCHEDULES:
        raise SubscriptionError(f"schedule {schedule!r}: use instant (featured events at once), daily or weekly")
    send_at = str(fields.get("send_at") or "08:00").strip()
    try:
        send_at = time.fromisoformat(send_at).strftime("%H:%M")
    except ValueError:
        raise SubscriptionError(f"send_at {send_at!r}: give a local time as HH:MM, e.g. 08:00") from None
    tab = str(fields.get("tab") or "all").strip()
    if len(tab) > 40:
        raise SubscriptionError("tab: use all, featured or a category of at most 40 characters")
    try:
        min_importance = float(fields.get("min_importance") or 0)
    except (TypeError, ValueError):
        raise SubscriptionError(
            f"min_importance {fields.get('min_importance')!r}: give a number, e.g. 0 or 2.5"
        ) from None
    keywords = _words(fields.get("keywords"))
    if len(keywords) > 50 or any(len(k) > 80 for k in keywords):
        raise SubscriptionError("keywords: at most 50, each at most 80 characters")
    languages = _words(fields.get("languages"))
    language = str(fields.get("language") or "zh")
    for lang in [*languages, language]:
        if lang not in LANGUAGES:
            raise SubscriptionError(f"language {lang!r}: use one of {', '.join(LANGUAGES)}")
    now = now or datetime.now(UTC)
    since = fields.get("since")
    if since in (None, ""):
        since = now
    elif not isinstance(since, datetime):
        try:
            since = datetime.combine(date.fromisoformat(str(since)), time(0), tzinfo=UTC)
        except ValueError:
            raise SubscriptionError(f"since {since!r}: give a date as YYYY-MM-DD (nothing older is sent)") from None
    return {
        "name": name,
        "target": target,
        "channel": channel,
        "schedule": schedule,
        "send_at": send_at,
        "tab": tab,
        "min_importance": min_importance,
        "keywords": keywords,
        "languages": languages,
        "language": language,
        "since": since,
    }


def add_subscription(conn: Connection, fields: dict, now: datetime | None = None) -> int:
    values = clean_fields(fields, now)
    if conn.execute(select(subscriptions.c.id).where(subscriptions.c.name == values["name"])).first():
        raise SubscriptionError(f"subscription {values['name']!r} already exists; pick another name or remove it first")
    result = conn.execute(
        insert(subscriptions).values(
            **values, enabled=True, created_at=now or datetime.now(UTC), consecutive_failures=0
        )
    )
    return result.inserted_primary_key[0]


def find_subscription(conn: Connection, name_or_id: str | int):
    """One subscription row by name or id; raises UnknownSubscription naming where to find them."""
    where = subscriptions.c.name == str(name_or_id).lower()
    if str(name_or_id).isascii() and str(name_or_id).isdigit() and int(name_or_id) <= MAX_ID:  # an id, or a name
        where = where | (subscriptions.c.id == int(name_or_id))
    row = conn.execute(select(subscriptions).where(where)).first()
    if row is None:
        raise UnknownSubscription(f"subscription {name_or_id!r} does not exist", "`newsdesk push list` shows them")
    return row


def list_subscriptions(conn: Connection) -> list[dict]:
    """Every subscription with its health and last delivery, target masked."""
    last = {
        r.subscription_id: r
        for r in conn.execute(
            select(
                deliveries.c.subscription_id,
                deliveries.c.kind,
                deliveries.c.ref,
                deliveries.c.status,
                deliveries.c.sent_at,
                deliveries.c.created_at,
            ).order_by(deliveries.c.created_at, deliveries.c.id)
        )
    }
    out = []
    for r in conn.execute(select(subscriptions).order_by(subscriptions.c.name)):
        row = dict(r._mapping)
        row["target"] = mask(r.target)
        d = last.get(r.id)
        row["last_delivery"] = dict(d._mapping) if d else None
        out.append(row)
    return out


def set_subscription_enabled(conn: Connection, name_or_id: str | int, enabled: bool) -> None:
    row = find_subscription(conn, name_or_id)
    conn.execute(update(subscriptions).where(subscriptions.c.id == row.id).values(enabled=enabled))


def remove_subscription(conn: Connection, name_or_id: str | int) -> None:
    row = find_subscription(conn, name_or_id)
    conn.execute(delete(deliveries).where(deliveries.c.subscription_id == row.id))
    conn.execute(delete(subscriptions).where(subscriptions.c.id == row.id))
