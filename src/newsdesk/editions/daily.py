"""The daily edition.

The daily edition of a date D holds the events first reported on D (in settings.timezone)
and, marked as updates, earlier events that new outlets reported on D (store/days.py), most
important first, one card per event (editions/cards.py):
headline, member items with links and times, the analysis and whether it passed the
checker. It is stored once per language; the cards and tabs go in `meta` so the site and
the feeds render from the edition alone, and `material_key` (a hash of everything a card
shows) lets an unchanged day be skipped without touching its row.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from sqlalchemy import delete, select
from sqlalchemy.engine import Engine

from newsdesk.core.config import Settings
from newsdesk.core.labels import Labels
from newsdesk.editions.cards import (
    MEMBERS_SHOWN,
    day_headlines,
    day_tabs,
    event_cards,
    event_path,
    headline_member,
)
from newsdesk.editions.feed_cards import card_signature, keep_feed_cards
from newsdesk.store.days import NoEvents, day_events, event_dates, has_news, latest_day
from newsdesk.store.edition_rows import material_key, store_edition, stored_material_key
from newsdesk.store.schema import editions

# Bump when the card layout changes so every stored day is rebuilt once (6: language marks, compact cards;
# 7: the headline list is 今日要闻 / Headlines; 8: the English edition folds events reported only in Chinese;
# 9: a card reads its day's reports only, a roundup is one line; 10: one owner's channels are one origin of a card;
# 11: a misdated event's card says its date is doubtful; 12: the day's featured news folded as reported only in
# Chinese is in the English headline list).
DAILY_FORMAT = 12


@dataclass
class DailyStats:
    date: date
    events: int = 0
    built: list[str] = field(default_factory=list)  # languages written
    unchanged: list[str] = field(default_factory=list)  # languages skipped: same material
    # No event of the day is about AI (every card is under 其他 / Other): no edition (one stored before
    # is withdrawn); the web app still lists the day, one click away.
    quiet: bool = False


def _member_link(m: dict) -> str:
    return f"[{m['title']}]({m['url']})" if m["url"] else m["title"]


def _page(card: dict, language: str, base_url: str) -> str:
    return base_url.rstrip("/") + "/" + event_path(language, card["event_id"])


def render_card(card: dict, number: int, language: str, base_url: str = "") -> str:
    """One card as Markdown, numbered as on the day's page: headline (linking to the event's page
    on the site at base_url, when given), one line of badges, the first reports (the rest on one
    line), the prose."""
    t = Labels(language)
    headline = f"[{card['headline']}]({_page(card, language, base_url)})" if base_url else card["headline"]
    marks = card.get("language_mark") or {}  # cards stored before language marks have none
    if marks.get("headline"):
        headline += f" ({marks['headline']})" if language == "en" else f"（{marks['headline']}）"
    facts = [
        t.update if card.get("update") else "",  # cards stored before updates have no such key
        t[card["tab"]] if card["tab"] in ("featured", "p1") else "",
        card.get("category_label") or card["category"],
    ]
    facts += [b["text"] for b in card.get("badges") or []]  # cards stored before badges have none
    lines = [f"## {number}. {headline}", "", " · ".join(f for f in facts if f), ""]
    if card.get("compact") and language == "en":  # nothing in English: shown for what it is, compact
        first = card["members"][:1]
        return "\n".join(
            lines
            + ([card["excerpt"], ""] if card.get("excerpt") else [])
            + [f"- {_member_link(m)} — {m['outlet']} · {m['published_at']}" for m in first]
        )
    if card.get("follows"):  # cards stored before stories have no such key
        lines += [f"{t.follow_up_of} {card['follows']['headline']}", ""]
    lines.append(f"{t.members}:")
    for m in card["members"][:MEMBERS_SHOWN]:
        lines.append(f"- {_member_link(m)} — {m['outlet']} · {m['published_at']}")
    rest = card["members"][MEMBERS_SHOWN:]
    if rest:
        lines.append(
            f"- {t.more_members.format(n=len(rest))}: " + " · ".join(f"{_member_link(m)} — {m['outlet']}" for m in rest)
        )
    lines.append("")
    analysis = card["analysis"]
    lead_mark = [f"*{marks['lead']}*", ""] if marks.get("lead") else []
    if analysis is None:
        lines.append(t.no_analysis)
        if card["summary"]:
            lines += ["", *lead_mark, card["summary"]]
    else:
        lines += [*lead_mark, analysis["body"].strip()]
    return "\n".join(lines)


def render_top(cards: list[dict], language: str, base_url: str = "") -> str:
    """The day's headline list as Markdown: one line each with its card's number (as render_daily
    numbers them) and outlet count, linking to the event's page at base_url when given."""
    t = Labels(language)
    top = day_headlines(cards)
    if not top:
        return ""
    news, others, _ = day_parts(cards)
    number = card_numbers(news + others)
    lines = [f"## {t.headlines}", ""]
    for s in top:
        headline = f"[{s['headline']}]({_page(s, language, base_url)})" if base_url else s["headline"]
        outlets = t.top_one_outlet if s["outlets"] <= 1 else t.top_outlets.format(n=s["outlets"])
        mark = f" · {s['mark']}" if s.get("mark") else ""
        # a card folded under "Reported in Chinese" has no number: it is listed there, not numbered
        place = f"{number[s['event_id']]}. " if s["event_id"] in number else ""
        lines.append(f"- {place}{headline}{mark} · {outlets}")
    return "\n".join(lines)


def daily_title(day: date, language: str) -> str:
    return f"{Labels(language).all} · {day.isoformat()}"


def day_parts(cards: list[dict]) -> tuple[list[dict], list[dict], list[dict]]:
    """A day's cards as (its news, the events not about AI, the events folded as reported only in
    Chinese): the main list, then 其他 / Other (rank/score.py), then the English edition's fold."""
    folded = [c for c in cards if c.get("folded")]  # cards stored before the fold have no such key
    news = [c for c in cards if not c.get("other") and not c.get("folded")]
    return news, [c for c in cards if c.get("other") and not c.get("folded")], folded


def render_folded(folded: list[dict], language: str) -> str:
    """The English edition's "Reported in Chinese (N)": one line per event, its original headline
    linking to the report, and the outlet."""
    if not folded:
        return ""
    lines = [f"# {Labels(language).reported_in_zh.format(n=len(folded))}", ""]
    for card in folded:
        if card["members"]:
            m = headline_member(card)
            lines.append(f"- {_member_link(m)} — {m['outlet']}")
    return "\n".join(lines)


def card_numbers(cards: list[dict]) -> dict[int, int]:
    """Each numbered card's number on the day's page, in the cards' order: a roundup is a line, not a
    numbered card."""
    numbered = [c for c in cards if not c.get("roundup")]  # cards stored before roundups have no such key
    return {c["event_id"]: n for n, c in enumerate(numbered, 1)}


def render_roundup(card: dict) -> str:
    """A roundup (a newsletter's issue listing several stories) as one line in its rank's place:
    its headline linking to the issue, and the outlet; no lead (its text is the issue's own blurb)."""
    m = headline_member(card) if card["members"] else None
    return f"- {_member_link(m)} — {m['outlet']}" if m else f"- {card['headline']}"


def render_daily(day: date, cards: list[dict], language: str, base_url: str = "") -> str:
    news, others, folded = day_parts(cards)
    number = card_numbers(news + others)

    def rendered(card: dict) -> str:
        if card.get("roundup"):
            return render_roundup(card)
        return render_card(card, number[card["event_id"]], language, base_url)

    parts = [f"# {daily_title(day, language)}", render_top(cards, language, base_url)]
    parts += [rendered(card) for card in news]
    if others:
        parts.append(f"# {Labels(language).other}")
        parts += [rendered(card) for card in others]
    parts.append(render_folded(folded, language))
    parts = [p for p in parts if p]
    return "\n\n".join(parts) + "\n"


def build_daily(
    engine: Engine, settings: Settings, day: date | str | None = None, signature: str | None = None
) -> DailyStats:
    """Build (or keep, when nothing changed) the daily edition of `day` in every language; with no
    `day`, the newest day with news (store/days.py latest_day; a store with no events raises NoEvents:
    an empty edition is no reader's page). A day without news gets none (`quiet`). signature: the
    store's card inputs (feed_cards.card_signature) when the caller read them already, for every day
    it builds."""
    with engine.begin() as conn:
        if day is None:
            dates = event_dates(conn, settings.timezone)
            if not dates:
                raise NoEvents()
            day = latest_day(conn, settings.timezone, dates) or dates[-1]
        elif isinstance(day, str):
            day = date.fromisoformat(day)
        stats = DailyStats(date=day)
        key = day.isoformat()
        rows = day_events(conn, day, settings.timezone)
        stats.events = len(rows)
        edition_cards = {
            language: event_cards(conn, rows, language, settings.timezone) for language in settings.languages
        }
        # A day whose only event is a changelog's off-topic line (or none, after merges) is no reader's
        # edition: the site, its feeds and the push would announce a page that says nothing.
        stats.quiet = not has_news(rows)
        if stats.quiet:
            conn.execute(delete(editions).where(editions.c.kind == "daily", editions.c.key == key))
        for language, cards in () if stats.quiet else edition_cards.items():
            key_now = material_key("daily", DAILY_FORMAT, key, language, cards, settings.site_url)
            if stored_material_key(conn, "daily", key, language) == key_now:
                stats.unchanged.append(language)
                continue
            tabs = day_tabs(cards, language)
            store_edition(
                conn,
                kind="daily",
                key=key,
                language=language,
                title=daily_title(day, language),
                body=render_daily(day, cards, language, settings.site_url),
                meta={"date": key, "cards": cards, "tabs": tabs},
                status="clean",  # a card carries only an analysis that passed its checks
                material_key=key_now,
            )
            stats.built.append(language)
        # The web app's feed cards of the day, rendered once here rather than by each server process.
        keep_feed_cards(conn, key, rows, settings.timezone, edition_cards, signature)
    return stats


def build_dailies(engine: Engine, settings: Settings, days: list[date] | None = None) -> list[DailyStats]:
    """Every day that has events (or the given days); unchanged days cost a few queries."""
    with engine.connect() as conn:
        if days is None:
            stored = conn.execute(select(editions.c.key).where(editions.c.kind == "daily")).scalars()
            # Days already published are revisited too: a day whose events merged away must be rebuilt.
            days = sorted(set(event_dates(conn, settings.timezone)) | {date.fromisoformat(k) for k in stored})
        # Read once for every day: building editions moves none of the card inputs. A write by another
        # process meanwhile leaves the days stamped before it, which the web app then builds live.
        signature = card_signature(conn)
    return [build_daily(engine, settings, d, signature) for d in days]
