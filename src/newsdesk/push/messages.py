"""What is due for a subscription, and the message for it.

Push sends what the newsroom has published, nothing else: events come from the daily
edition's cards (headline, coverage, analysis and its check), the day's and the week's messages from the daily and
weekly editions. An analysis goes out only when it passed the checks; otherwise the
message carries the coverage and the link. Messages are markdown; Apprise renders them in
each channel's format. A message stays short and links to its page for the rest.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy import select
from sqlalchemy.engine import Connection

from newsdesk.core.config import Settings
from newsdesk.core.labels import Labels
from newsdesk.store.schema import deliveries, editions

LEAD_CHARS = 500  # of an analysis's first paragraph; the page has the rest
MAX_MEMBERS = 5
MAX_MESSAGE_EVENTS = 15
INSTANT_DAYS = 3  # featured events of the last three local days go out at once; older ones are not news


@dataclass
class Message:
    kind: str  # event | daily | weekly
    ref: str  # event id | edition key
    title: str
    body: str  # markdown
    url: str  # the page it links to


def _link(settings: Settings, path: str) -> str:
    return settings.site_url.rstrip("/") + "/" + path.lstrip("/")


def matches(sub, card: dict) -> bool:
    """The subscription's filters over one daily card."""
    if sub.tab == "featured" and card.get("tab") != "featured":
        return False
    if sub.tab not in ("all", "featured") and card.get("category") != sub.tab:
        return False
    if float(card.get("importance") or 0) < sub.min_importance:
        return False
    members = card.get("members") or []
    if sub.languages and not {m.get("language") for m in members} & set(sub.languages):
        return False
    if sub.keywords:
        text = " ".join(
            [card.get("headline") or "", card.get("title") or "", *(m.get("title") or "" for m in members)]
        ).casefold()
        if not any(k.casefold() in text for k in sub.keywords):
            return False
    return True


def _lead(body: str) -> str:
    first = next((p.strip() for p in body.split("\n\n") if p.strip() and not p.lstrip().startswith("#")), "")
    if len(first) <= LEAD_CHARS:
        return first
    cut = first[:LEAD_CHARS]
    end = max(cut.rfind(mark) for mark in ("。", "！", "？", ". ", "! ", "? "))
    return (cut[: end + 1] if end > LEAD_CHARS // 3 else cut.rstrip()) + " …"


def event_message(card: dict, settings: Settings, lang: str) -> Message:
    t = Labels(lang)
    url = _link(settings, f"events/{card['event_id']}")
    lines = [
        " · ".join(
            [
                t.plural("outlets", card["outlets"], m=card["independent_outlets"]),
                t.importance_x.format(x=float(card.get("importance") or 0)),
            ]
        ),
        "",
    ]
    analysis = card.get("analysis")
    if analysis and analysis.get("status") == "clean" and card.get("check") == "clean":
        lines += [_lead(analysis["body"]), ""]
    members = card.get("members") or []
    lines.append(f"{t.members}:")
    for m in members[:MAX_MEMBERS]:
        title = m.get("title") or m.get("outlet") or ""
        lines.append(
            f"- [{title}]({m['url']}) — {m.get('outlet', '')}" if m.get("url") else f"- {title} — {m.get('outlet', '')}"
        )
    if len(members) > MAX_MEMBERS:
        lines.append(f"- {t.more_members.format(n=len(members) - MAX_MEMBERS)}")
    lines += ["", f"[{t.read_in_full}]({url})"]
    return Message(
        "event", str(card["event_id"]), card.get("headline") or card.get("title") or "", "\n".join(lines), url
    )


def daily_message(edition, cards: list[dict], settings: Settings, lang: str) -> Message:
    t = Labels(lang)
    url = _link(settings, f"?day={edition.key}")
    lines = []
    for n, card in enumerate(cards[:MAX_MESSAGE_EVENTS], 1):
        facts = t.plural("outlets", card["outlets"], m=card["independent_outlets"])
        page = _link(settings, f"events/{card['event_id']}")
        lines.append(f"{n}. [{card.get('headline') or card.get('title')}]({page}) — {facts}")
    if len(cards) > MAX_MESSAGE_EVENTS:
        lines.append(f"\n{t.more_events.format(n=len(cards) - MAX_MESSAGE_EVENTS)}")
    lines += ["", f"[{t.read_in_full}]({url})"]
    return Message("daily", edition.key, edition.title, "\n".join(lines), url)


def weekly_message(edition, settings: Settings, lang: str) -> Message:
    url = _link(settings, f"weekly/{edition.key}?lang={edition.language}")
    summary = (edition.meta or {}).get("summary") if edition.status == "clean" else None
    body = "\n\n".join(p for p in (summary, f"[{Labels(lang).read_weekly}]({url})") if p)
    return Message("weekly", edition.key, edition.title, body, url)


def _editions(
    conn: Connection, kind: str, lang: str, since_key: str, until_key: str | None = None, limit: int | None = None
) -> list:
    """Editions of one kind with keys in [since_key, until_key], newest first, at most `limit` keys,
    each in `lang` (else in another language)."""
    # A flagged edition is never sent: only what passed its checks is published.
    where = (editions.c.kind == kind) & (editions.c.key >= since_key) & (editions.c.status == "clean")
    if until_key:
        where &= editions.c.key <= until_key
    keys = (
        conn.execute(select(editions.c.key).where(where).distinct().order_by(editions.c.key.desc()).limit(limit))
        .scalars()
        .all()
    )
    chosen: dict[str, object] = {}
    for row in conn.execute(select(editions).where(where & editions.c.key.in_(keys))):
        if row.key not in chosen or row.language == lang:
            chosen[row.key] = row
    return [chosen[k] for k in keys]


def _done(conn: Connection, sub_id: int) -> set[tuple[str, str]]:
    """What this subscriber got, or is being sent by another worker right now."""
    return {
        (r.kind, r.ref)
        for r in conn.execute(
            select(deliveries.c.kind, deliveries.c.ref).where(
                deliveries.c.subscription_id == sub_id, deliveries.c.status.in_(("sent", "sending"))
            )
        )
    }


def due(conn: Connection, sub, settings: Settings, now: datetime) -> list[Message]:
    """The messages this subscription should get now and has not had."""
    tz = ZoneInfo(settings.timezone)
    local = now.astimezone(tz)
    since = sub.since.astimezone(tz)
    done = _done(conn, sub.id)
    lang = sub.language
    out: list[Message] = []
    if sub.schedule == "instant":
        seen: set[int] = set()
        first = max(since.date(), local.date() - timedelta(days=INSTANT_DAYS - 1)).isoformat()
        for edition in _editions(conn, "daily", lang, first, local.date().isoformat()):
            for card in (edition.meta or {}).get("cards", []):
                if card.get("tab") != "featured" or card["event_id"] in seen or not matches(sub, card):
                    continue
                seen.add(card["event_id"])
                if ("event", str(card["event_id"])) not in done:
                    out.append(event_message(card, settings, lang))
        return out
    if local.time() < time.fromisoformat(sub.send_at):
        return out
    if sub.schedule == "daily":
        for edition in _editions(conn, "daily", lang, since.date().isoformat(), local.date().isoformat(), limit=1):
            cards = [c for c in (edition.meta or {}).get("cards", []) if matches(sub, c)]
            if cards and ("daily", edition.key) not in done:
                out.append(daily_message(edition, cards, settings, lang))
    elif sub.schedule == "weekly":
        year, week, _ = since.date().isocalendar()
        for edition in _editions(conn, "weekly", lang, f"{year}-W{week:02d}", limit=1):
            if ("weekly", edition.key) not in done:
                out.append(weekly_message(edition, settings, lang))
    return out


def sample(conn: Connection, settings: Settings, lang: str) -> Message:
    """A message to try a channel with: the newest featured card, else a fixed line."""
    for edition in _editions(conn, "daily", lang, "0000", limit=7):
        cards = (edition.meta or {}).get("cards", [])
        if cards:
            card = next((c for c in cards if c.get("tab") == "featured"), cards[0])
            message = event_message(card, settings, lang)
            message.kind, message.ref = "test", f"test-{date.today().isoformat()}"
            return message
    return Message("test", "test", "newsdesk", Labels(lang).push_test, settings.site_url)
