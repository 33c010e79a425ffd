"""Each day's feed cards, stored with their HTML by the daily-edition stage and assembled by the web app.

A feed page used to build every card of its day (members, analyses, stories: tens of queries) and
render each (Markdown to sanitized HTML, links checked, languages detected) on its first reader
after every start of the server: ~70 ms a day, most of a cold server's first minute under load.
The daily-edition stage builds the same cards anyway; `keep_feed_cards` stores them, as the web
app's feed shows them (an analysis in another language stands in for a missing one, as on the
web), in every interface language, each with its `_card.html` fragment already rendered, in
`feed_cards`. `stored_feed_cards` hands them back to queries.feed, which only picks a tab's page
of them and adds the readers' votes.

A day's row is used only while it is what a live build would give now:
- `signature`: the store's card inputs (counts and newest stamps of events, members, items,
  sources, analyses, failed drafts, stories; sums of the events' scores, which ranking changes
  without a stamp) as they were when the cards were built. Any run that moves them makes every
  day's row wait for the next stage, and the page is built live meanwhile, as before.
- `material_key`: the cards and the format they were rendered in (the card template's source, the
  interface words, FORMAT), so a new release's template never shows with an old fragment, and an
  unchanged day costs the stage a hash, not a render.

Votes are the web app's own and change between runs: a fragment is stored cut where the card's
votes go, and the votes are put in per request.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path
from zoneinfo import ZoneInfo

from jinja2 import BaseLoader, Environment, PackageLoader, StrictUndefined
from markupsafe import Markup
from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.engine import Connection

from newsdesk.core.labels import LABELS, UI_LANGUAGES, Labels, text_only
from newsdesk.editions.cards import event_cards, headline_member
from newsdesk.store.schema import (
    analyses,
    event_members,
    events,
    failed_drafts,
    feed_cards,
    items,
    sources,
    storable,
    stories,
    story_events,
)
from newsdesk.text.html import markdown_html, safe_url

# Bump when what a stored card holds, or how it is cut, changes: every day is rendered again once.
FORMAT = 2  # 2: a stored card keeps its roundup flag
CARD_TEMPLATE = Path(__file__).parents[1] / "editions" / "templates" / "_card.html"
# What a card's votes are rendered with while its fragment is made: found again in the HTML, where
# each count goes per request. Private-use characters: no card text holds them (NUL would not store).
_VOTES = {kind: f"\ue000{kind}\ue000" for kind in ("up", "down", "star")}
_VOTES_OPEN = '<span class="votes">'
# What the feed page reads of a card besides its HTML: tabs, the headline list (a roundup is none of
# its headlines), the folded list.
_KEPT = ("event_id", "tab", "category", "other", "folded", "roundup", "headline", "outlets", "language_mark")


def card_signature(conn: Connection) -> str:
    """The store's card inputs now: one aggregate a statement, each answered from an index (the
    events' sums from a short scan); together in one statement they would read every row."""
    queries = [
        select(func.count()).select_from(events),
        select(func.max(events.c.updated_at)),
        select(func.sum(events.c.score)),
        select(func.sum(events.c.importance)),
        select(func.count()).select_from(event_members),  # (a member's change stamps its event)
        select(func.count()).select_from(items),
        select(func.max(items.c.updated_at)),
        select(func.count()).select_from(sources),
        select(func.count()).select_from(analyses),
        select(func.max(analyses.c.created_at)),
        select(func.count()).select_from(failed_drafts),
        select(func.count()).select_from(stories),
        select(func.max(stories.c.updated_at)),
        select(func.count()).select_from(story_events),
    ]
    parts = [conn.execute(q).scalar() for q in queries]
    return "|".join("" if p is None else (p.isoformat() if hasattr(p, "isoformat") else repr(p)) for p in parts)


@cache
def _format() -> str:
    """What a stored fragment was rendered with, besides its card: FORMAT, the template, the words."""
    words = json.dumps(LABELS, sort_keys=True, ensure_ascii=False)
    return f"{FORMAT}:{hashlib.sha256((CARD_TEMPLATE.read_text('utf-8') + words).encode()).hexdigest()[:16]}"


def event_url(event_id: int) -> str:
    """An event's page in the web app (the shared card and story templates link with it)."""
    return f"/events/{event_id}"


def web_environment(loader: BaseLoader) -> Environment:
    """The web app's template settings, the card's filters and event_url: serve/pages.py builds its
    environment on this one, so a card rendered here is byte for byte the one its feed page would render."""
    # auto_reload off: templates are read once per process (a restart shows edited ones), not looked
    # up on disk again for every page (a fifth of a cached feed page's time went on those stat calls).
    env = Environment(loader=loader, autoescape=True, undefined=StrictUndefined, auto_reload=False, finalize=text_only)
    env.filters.update(link=safe_url, markdown=markdown_html)
    env.globals["event_url"] = event_url
    env.globals["headline_member"] = headline_member  # the report a card's headline is, as the Markdown picks it
    return env


@cache
def _environment() -> Environment:
    """The card template as the web app renders it, without the web app (the batch run needs none)."""
    return web_environment(PackageLoader("newsdesk.editions", "templates"))


def _fragment(card: dict, language: str) -> list[str]:
    """The card's HTML as the feed page includes it, cut around its votes: [before, votes, after]."""
    template = _environment().get_template("_card.html")
    html = template.render(
        card={**card, "feedback": _VOTES}, t=Labels(language), card_link=f"/events/{card['event_id']}"
    )
    if _VOTES_OPEN not in html:  # a roundup's one line has no votes
        return [html, "", ""]
    start = html.index(_VOTES_OPEN)
    end = html.index("</span>", html.index(_VOTES["star"])) + len("</span>")
    return [html[:start], html[start:end], html[end:]]


def keep_feed_cards(
    conn: Connection,
    day: str,
    rows: list,
    tz: str | ZoneInfo,
    edition_cards: dict[str, list] | None = None,
    signature: str | None = None,
) -> None:
    """Store day's cards (`rows`: day_events of that day) in every interface language, each with its
    HTML, stamped with the store's card inputs as this connection sees them. An unchanged day's
    cards are not rendered again; only their stamp moves. edition_cards: the day's edition's cards
    by language, as the stage built them for the same rows (reused where the web's are the same).
    signature: card_signature as the caller read it for a run of days (read here when not given)."""
    tz_name = str(tz)
    signature = signature or card_signature(conn)
    written = _written(conn, [r.id for r in rows])
    for language in UI_LANGUAGES:
        cards = _web_cards(conn, rows, language, tz, (edition_cards or {}).get(language), written)
        # The format first, readable: a row of another release's format is never shown.
        material = (
            f"{_format()}:"
            + hashlib.sha256(json.dumps(cards, sort_keys=True, ensure_ascii=False, default=str).encode()).hexdigest()[
                :40
            ]
        )
        where = (feed_cards.c.tz == tz_name) & (feed_cards.c.day == day) & (feed_cards.c.language == language)
        if conn.execute(select(feed_cards.c.material_key).where(where)).scalar() == material:
            conn.execute(update(feed_cards).where(where).values(signature=signature))
            continue
        kept, html = [], []
        for card in cards:
            parts = [storable(part) for part in _fragment(card, language)]  # as the store keeps text
            kept.append(
                {
                    **{k: card[k] for k in _KEPT},
                    # The folded list names a folded card's report; no other card's members are read.
                    "members": card["members"] if card["folded"] else [],
                    "html": [len(part) for part in parts],
                }
            )
            html += parts
        conn.execute(delete(feed_cards).where(where))
        conn.execute(
            insert(feed_cards).values(
                tz=tz_name,
                day=day,
                language=language,
                signature=signature,
                material_key=material,
                cards=kept,
                html="".join(html),
            )
        )


def _written(conn: Connection, event_ids: list[int]) -> dict[int, set[str]]:
    """The languages of each event's analyses a reader may see (clean ones, as editions/cards.py reads)."""
    out: dict[int, set[str]] = {}
    for start in range(0, len(event_ids), 400):  # under every database's parameter limit
        rows = conn.execute(
            select(analyses.c.event_id, analyses.c.language).where(
                analyses.c.event_id.in_(event_ids[start : start + 400]), analyses.c.status == "clean"
            )
        )
        for event_id, language in rows:
            out.setdefault(event_id, set()).add(language)
    return out


def _web_cards(conn: Connection, rows: list, language: str, tz, edition: list | None, written: dict) -> list[dict]:
    """The day's cards as the web app shows them: the edition's, but an event with no analysis in
    `language` and one in another shows that one (any_language), so only those are built again."""
    if edition is None:
        return event_cards(conn, rows, language, tz, any_language=True)
    stand_in = [r for r in rows if written.get(r.id) and language not in written[r.id]]
    if not stand_in:
        return edition
    web = {c["event_id"]: c for c in event_cards(conn, stand_in, language, tz, any_language=True)}
    return [web.get(card["event_id"], card) for card in edition]


def stored_feed_cards(conn: Connection, day: str, tz: str | ZoneInfo, language: str, signature: str) -> list | None:
    """The day's stored cards in `language`, in the day's order, each with its HTML cut around its
    votes (`html`: [before, votes, after]), if they were built from the store as it is (`signature`:
    card_signature now) in this release's format; None: build them live."""
    row = conn.execute(
        select(feed_cards.c.signature, feed_cards.c.material_key, feed_cards.c.cards, feed_cards.c.html).where(
            feed_cards.c.tz == str(tz), feed_cards.c.day == day, feed_cards.c.language == language
        )
    ).first()
    if row is None or row.signature != signature or not row.material_key.startswith(_format() + ":"):
        return None
    at = 0
    for card in row.cards:
        parts = []
        for length in card["html"]:
            parts.append(row.html[at : at + length])
            at += length
        card["html"] = parts
    return row.cards


def card_html(card: dict) -> Markup:
    """A stored card's HTML with its votes (card["feedback"], as queries._with_feedback reads them)."""
    before, votes, after = card["html"]
    if card.get("feedback"):
        for kind, mark in _VOTES.items():
            votes = votes.replace(mark, str(card["feedback"].get(kind, 0)))
        return Markup(before + votes + after)
    return Markup(before + after)
