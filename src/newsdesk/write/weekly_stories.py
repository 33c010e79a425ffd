"""Stories inside a weekly theme, for both writers (write/weekly.py with a model, write/extractive/
without): the events of one story (stories/threads.py) are one entry of a theme, together, in date
order, after a line built from their stored headlines and dates ("事件脉络：A（02-24）→ B（02-26）");
an event whose story began before the week says where the story stood: its latest event before
the week ("续：A（02-17）"), not its first, which may be a misdated changelog line or a rumour.
Both writers arrange a theme's items with `story_entries` and publish the lines with `with_story_lines`;
editions/weekly.py renders and stores the parts they write.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from sqlalchemy.engine import Connection

from newsdesk.core.labels import Labels
from newsdesk.stories.timelines import story_facts
from newsdesk.text.language import detect_language


@dataclass
class Entry:
    """One entry of a theme: an event, or the theme's events of one story in date order; `line`
    says how they are threaded ("" for an event in no story, or alone in a story of this week)."""

    events: list[int]
    line: str = ""


def week_stories(conn: Connection, event_ids: list[int], language: str, tz: str) -> dict[int, dict]:
    """Each of these events that is in a story -> the story's timeline (editions/cards.py): stored
    headlines in `language`, local dates and links, the story's events in time order."""
    return {i: facts["story"] for i, facts in story_facts(conn, event_ids, language, tz).items()}


def stories_fingerprint(stories: dict[int, dict]) -> list:
    """What changes a weekly when a story link, headline or date changes (for its material key)."""
    return [
        [i, s["story_id"], [[e["event_id"], e["headline"], e["date"]] for e in s["events"]]]
        for i, s in sorted(stories.items())
    ]


def story_entries(event_ids: list[int], stories: dict[int, dict], week: str, language: str) -> list[Entry]:
    """A theme's events (most important first) as entries: each story's events gathered where its
    most important one stands, in the story's date order; every other event alone, where it stood."""
    entries: list[Entry] = []
    by_story: dict[int, Entry] = {}
    for i in event_ids:
        story = stories.get(i)
        if story is not None and story["story_id"] in by_story:
            by_story[story["story_id"]].events.append(i)
            continue
        entries.append(Entry([i]))
        if story is not None:
            by_story[story["story_id"]] = entries[-1]
    monday = date.fromisocalendar(int(week[:4]), int(week.split("W")[1]), 1).isoformat()
    for entry in entries:
        story = stories.get(entry.events[0])
        if story is not None:
            order = [e["event_id"] for e in story["events"]]
            entry.events.sort(key=order.index)
            entry.line = story_line(story, entry.events, monday, language)
    return entries


def story_line(story: dict, shown: list[int], monday: str, language: str) -> str:
    """The line of one entry, from the story's own headlines and dates: the chain of the entry's
    events when there are two or more, and the story's latest event before the week when it began
    before (in English, its latest one whose headline is not Chinese: the English weekly shows no
    Chinese text under its headings, and an event told only in Chinese has none other)."""
    t = Labels(language)
    timeline = {e["event_id"]: e for e in story["events"]}

    def dated(e: dict) -> str:
        # MM-DD: the week says the year, unless the event is of another year (a replayed 2025 launch)
        return t.dated.format(headline=e["headline"], date=e["date"][5:] if e["date"][:4] == monday[:4] else e["date"])

    parts = []
    if len(shown) > 1:
        parts.append(t.story_line.format(events=" → ".join(dated(timeline[i]) for i in shown)))
    before = [
        e
        for e in story["events"]  # in time order
        if e["event_id"] not in shown
        and e["date"] < monday
        and (language == "zh" or detect_language(e["headline"]) != "zh")
    ]
    if before:
        parts.append(t.continues.format(event=dated(before[-1])))
    return ("；" if t.language == "zh" else "; ").join(parts)


def in_entry_order(items: list, entries: list[Entry], key=lambda item: item) -> list:
    """`items` (events, or anything `key` maps to an event id) in the entries' order."""
    order = [i for entry in entries for i in entry.events]
    return sorted(items, key=lambda item: order.index(key(item)))


def with_story_lines(paragraphs: dict[int, str], entries: list[Entry]) -> tuple[list[str], list[str]]:
    """A theme's item paragraphs (by event id) in the entries' order, each entry's line before its
    items; and the lines. Give the entries of the events told: a line names all of its entry's events."""
    blocks, lines = [], []
    for entry in entries:
        if entry.line:
            blocks.append(entry.line)
            lines.append(entry.line)
        blocks += [paragraphs[i] for i in entry.events]
    return blocks, lines
