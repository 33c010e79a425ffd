"""A story's timeline as readers see it: each event's headline in a language (its analysis's, else its
lead item's title) and local date, for the cards, the story page and the weekly's story lines."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.engine import Connection

from newsdesk.store.days import minute
from newsdesk.store.schema import analyses
from newsdesk.stories.threads import story_threads, story_timelines
from newsdesk.text.html import plain_text


def _headlines(conn: Connection, thread_events: list[dict], language: str) -> dict[int, str]:
    """Each event's headline in `language`: its analysis's, else its lead item's title."""
    ids = sorted({e["event_id"] for e in thread_events})
    written = (
        dict(
            conn.execute(
                select(analyses.c.event_id, analyses.c.headline).where(
                    analyses.c.event_id.in_(ids), analyses.c.language == language, analyses.c.headline != ""
                )
            ).all()
        )
        if ids
        else {}
    )
    return {e["event_id"]: plain_text(written.get(e["event_id"]) or e["title"]) for e in thread_events}


def _title(thread: dict, headlines: dict[int, str]) -> str:
    """What threads the story (the name its links share, stored by the linker: "GPT-5.4"); a store
    from before names titled a story by its first event, which reads best in its headline here."""
    first = thread["events"][0] if thread["events"] else None
    if first is not None and (not thread["title"] or thread["title"] == first["title"]):
        return headlines[first["event_id"]]
    return plain_text(thread["title"])


def _timeline(thread: dict, headlines: dict[int, str], tz) -> dict:
    return {
        "story_id": thread["story_id"],
        "title": _title(thread, headlines),
        "events": [
            {
                "event_id": e["event_id"],
                "headline": headlines[e["event_id"]],
                "date": minute(e["first_published_at"], tz)[:10],
                "follows_event_id": e["follows_event_id"],
            }
            for e in thread["events"]
        ],
    }


def story_facts(conn: Connection, event_ids: list[int], language: str, tz) -> dict[int, dict]:
    """{event_id: {follows, story}} for the events in a story (see the card's fields)."""
    threads = story_threads(conn, event_ids)
    headlines = _headlines(conn, [e for t in threads.values() for e in t["events"]], language)
    out = {}
    for event_id, thread in threads.items():
        follows = thread["follows_event_id"]
        starts = {e["event_id"]: e["first_published_at"] for e in thread["events"]}
        if follows is not None and starts[follows] > starts[event_id]:
            # The two events' first reports changed order after the link was made (an earlier
            # report joined the follow-up): it does not follow what now began later.
            follows = None
        out[event_id] = {
            "follows": None if follows is None else {"event_id": follows, "headline": headlines[follows]},
            "story": _timeline(thread, headlines, tz),
        }
    return out


def story_page(conn: Connection, story_id: int, language: str, tz) -> dict | None:
    """One story: {story_id, title, first/last_published_at (local), event_count, events}; None if unknown."""
    thread = story_timelines(conn, [story_id]).get(story_id)
    if thread is None:
        return None
    headlines = _headlines(conn, thread["events"], language)
    return {
        **_timeline(thread, headlines, tz),
        "event_count": thread["event_count"],
        "first_published_at": minute(thread["first_published_at"], tz),
        "last_published_at": minute(thread["last_published_at"], tz),
    }
