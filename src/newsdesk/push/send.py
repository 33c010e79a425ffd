"""Sending: one message to one subscription through Apprise, and the `push` stage.

Each delivery is claimed in the store before it is sent: a row in `deliveries`, unique
per (subscription, kind, ref), so two workers or two runs never send one event twice to
one subscriber. A failed send is retried with backoff; if it still fails, the row and
the subscription record the error, that subscription's other messages wait for the next
run, and the other subscriptions go on. A failed delivery is tried again on the next run.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

import apprise
from sqlalchemy import insert, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

from newsdesk.core.config import Settings
from newsdesk.push.messages import Message, due, sample
from newsdesk.push.subscriptions import find_subscription, mask
from newsdesk.store.schema import deliveries, subscriptions


@dataclass
class PushReport:
    sent: int = 0
    failed: int = 0
    waiting: int = 0  # due, but their subscription's channel failed in this run
    problems: list[str] = field(default_factory=list)


def send_once(target: str, message: Message) -> str | None:
    """One try: None when Apprise reports success, else what it logged about the failure."""
    notifier = apprise.Apprise()
    plugin = apprise.Apprise.instantiate(target)
    if plugin is None:
        return f"target {mask(target)} is no longer a usable Apprise URL; fix the subscription"
    if "overflow=" not in target:
        # Longer than the channel allows (Discord 2,000, WeCom 2,048, Telegram 4,096 characters):
        # several messages rather than a cut one.
        plugin.overflow_mode = apprise.common.OverflowMode.SPLIT
    notifier.add(plugin)
    with apprise.LogCapture(level=logging.WARNING, fmt="%(message)s") as log:
        ok = notifier.notify(title=message.title, body=message.body, body_format=apprise.NotifyFormat.MARKDOWN)
    if ok:
        return None
    return " ".join(log.getvalue().split())[:500] or "the channel refused the message (no detail from Apprise)"


def send_with_retries(
    target: str, message: Message, settings: Settings, sleep: Callable[[float], None] = time.sleep
) -> tuple[str | None, int]:
    """(error or None, attempts): retries wait backoff_base * 2**n seconds."""
    attempts = 0
    while True:
        attempts += 1
        error = send_once(target, message)
        if error is None or attempts > settings.push.retries:
            return error, attempts
        sleep(settings.push.backoff_base * 2 ** (attempts - 1))


def _record_health(conn, sub_id: int, error: str | None, now: datetime) -> None:
    if error is None:
        values = {"last_success_at": now, "consecutive_failures": 0}
    else:
        values = {
            "last_error": error,
            "last_error_at": now,
            "consecutive_failures": subscriptions.c.consecutive_failures + 1,
        }
    conn.execute(update(subscriptions).where(subscriptions.c.id == sub_id).values(**values))


def _claim(engine: Engine, sub_id: int, message: Message, now: datetime) -> bool:
    """Take this delivery for this process; False when it was sent or is being sent elsewhere."""
    key = (
        (deliveries.c.subscription_id == sub_id)
        & (deliveries.c.kind == message.kind)
        & (deliveries.c.ref == message.ref)
    )
    try:
        with engine.begin() as conn:
            conn.execute(
                insert(deliveries).values(
                    subscription_id=sub_id,
                    kind=message.kind,
                    ref=message.ref,
                    status="sending",
                    attempts=0,
                    created_at=now,
                )
            )
        return True
    except IntegrityError:
        with engine.begin() as conn:  # a failed one is ours to try again, if nobody took it first
            return (
                conn.execute(
                    update(deliveries).where(key & (deliveries.c.status == "failed")).values(status="sending")
                ).rowcount
                == 1
            )


def push_due(
    engine: Engine,
    settings: Settings,
    now: datetime | None = None,
    say: Callable[[str], None] = lambda line: None,
    sleep: Callable[[float], None] = time.sleep,
) -> PushReport:
    """Send every enabled subscription what is due for it."""
    report = PushReport()
    now = now or datetime.now(UTC)
    with engine.connect() as conn:
        subs = conn.execute(select(subscriptions).where(subscriptions.c.enabled).order_by(subscriptions.c.id)).all()
    for sub in subs:
        with engine.connect() as conn:
            messages = due(conn, sub, settings, now)
        for n, message in enumerate(messages):
            if not _claim(engine, sub.id, message, now):
                continue
            error, attempts = send_with_retries(sub.target, message, settings, sleep)
            sent_at = datetime.now(UTC)
            with engine.begin() as conn:
                conn.execute(
                    update(deliveries)
                    .where(
                        (deliveries.c.subscription_id == sub.id)
                        & (deliveries.c.kind == message.kind)
                        & (deliveries.c.ref == message.ref)
                    )
                    .values(
                        status="failed" if error else "sent",
                        attempts=deliveries.c.attempts + attempts,
                        error=error,
                        sent_at=None if error else sent_at,
                    )
                )
                _record_health(conn, sub.id, error, sent_at)
            if error is None:
                report.sent += 1
                say(f"{sub.name}: sent {message.kind} {message.ref}")
                continue
            report.failed += 1
            report.waiting += len(messages) - n - 1
            report.problems.append(
                f"{sub.name} ({sub.channel}): {message.kind} {message.ref} failed after "
                f"{attempts} attempts: {error}; fix or disable the subscription, the next run tries again"
            )
            break  # this channel is failing: its other messages wait for the next run
    return report


def push_test(engine: Engine, settings: Settings, name_or_id: str) -> tuple[Message, str | None]:
    """Send a sample message to one subscription now (recorded in its health, not as a delivery)."""
    with engine.connect() as conn:
        sub = find_subscription(conn, name_or_id)
        message = sample(conn, settings, sub.language)
    error, _ = send_with_retries(sub.target, message, settings)
    with engine.begin() as conn:
        _record_health(conn, sub.id, error, datetime.now(UTC))
    return message, error
