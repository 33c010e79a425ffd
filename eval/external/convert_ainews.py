"""Convert smol.ai AINews (github smol-ai/ainews-web-2025, `src/content/issues/26-MM-DD-*.md`) into one
JSON line per day: the issue's title (the editor's lead story; "not much happened today" names none)
and its items, each with its topic group, title, text and the addresses it cites.

    PYTHONPATH=src python eval/external/convert_ainews.py /work/.mirror/smol-ai+ainews-web-2025/repo \
        eval/external/data/ainews.jsonl.gz

Items come from the Twitter recap (a bold line opens a topic group; each top-level bullet is an item,
its sub-bullets part of its text) and the Reddit recap (`### N. topic` groups; each post is an item,
with its Activity count; the comment digests under a post are left out). The Discord recaps are left
out: they digest chat channels, not reports. Days 2026-04-06 … 2026-05-03 are held out for measuring
newsdesk: their files are skipped by name, never opened.
"""

from __future__ import annotations

import argparse
import re
import sys
from datetime import date
from pathlib import Path

import yaml
from external_common import HeldOutError, Source, held_out, links_in, refuse_held_out, write_jsonl_gz

FOLDER = "src/content/issues"
TEXT_CHARS = 600  # an item's text is cut here: enough for a lead, keeps the set small

_FILE = re.compile(r"^(\d{2})-(\d{2})-(\d{2})-.*\.md$")
_GROUP = re.compile(r"^\*\*(.+?)\*\*\s*$")
_LEAD_BOLD = re.compile(r"^\*\*(.+?)\*\*:?\s*")
_REDDIT_POST = re.compile(r"^\s*-\s+\*\*\[(.+?)\]\((\S+?)\)\*\*\s*(?:\(Activity:\s*([\d,]+)\))?:?\s*(.*)$")
_MD_LINK = re.compile(r"\[([^\]]*)\]\((?:https?://[^)\s]+)\)")
_QUIET = re.compile(r"not much happened", re.I)


def day_of(name: str) -> date | None:
    match = _FILE.match(name)
    if not match:
        return None
    return date(2000 + int(match.group(1)), int(match.group(2)), int(match.group(3)))


def wanted_day(day: date) -> bool:
    return day.year == 2026 and not held_out(day)


def plain(text: str) -> str:
    """Markdown to one plain line: links become their anchor text, emphasis and code marks go."""
    text = _MD_LINK.sub(r"\1", text)
    text = text.replace("**", "").replace("`", "")
    return re.sub(r"\s+", " ", text).strip()


def _sections(lines: list[str]) -> dict[str, list[str]]:
    """Top-level `# ` heading -> its lines."""
    out: dict[str, list[str]] = {}
    current = None
    for line in lines:
        if line.startswith("# "):
            current = line[2:].strip()
            out[current] = []
        elif current is not None:
            out[current].append(line)
    return out


def _twitter(lines: list[str]) -> list[dict]:
    items: list[dict] = []
    group = ""
    bullet: list[str] | None = None

    def close() -> None:
        if bullet:
            first = bullet[0][2:].strip()
            match = _LEAD_BOLD.match(first)
            title = plain(match.group(1)).rstrip(":") if match else plain(first)[:100]
            body = "\n".join(bullet)
            items.append(
                {
                    "source": "twitter",
                    "group": group,
                    "title": title,
                    "text": plain(body.lstrip("- "))[:TEXT_CHARS],
                    "links": links_in(body),
                }
            )

    for line in lines:
        if (match := _GROUP.match(line)) is not None:
            close()
            bullet = None
            group = plain(match.group(1))
        elif line.startswith("- "):
            close()
            bullet = [line]
        elif bullet is not None and (line.startswith((" ", "\t")) and line.strip()):
            bullet.append(line)
    close()
    return items


def _reddit(lines: list[str]) -> list[dict]:
    items = []
    subreddit = group = ""
    for line in lines:
        if line.startswith("## "):
            subreddit = plain(line[3:])
        elif line.startswith("### "):
            group = re.sub(r"^\d+\.\s*", "", plain(line[4:]))
        elif (match := _REDDIT_POST.match(line)) is not None:
            title, url, activity, summary = match.groups()
            items.append(
                {
                    "source": "reddit",
                    "subreddit": subreddit,
                    "group": group,
                    "title": plain(title),
                    "text": plain(summary)[:TEXT_CHARS],
                    "links": list(dict.fromkeys([url, *links_in(summary)])),
                    "activity": int(activity.replace(",", "")) if activity else None,
                }
            )
    return items


def parse_issue(text: str, day: date) -> dict:
    if not text.startswith("---"):
        raise ValueError(f"{day}: no front matter; is this an AINews issue file?")
    _, front, body = text.split("---", 2)
    meta = yaml.safe_load(front) or {}
    stamped = str(meta.get("date", ""))[:10]
    if stamped:
        refuse_held_out(date.fromisoformat(stamped), f"AINews issue filed as {day}")
    title = " ".join(str(meta.get("title") or "").split())
    sections = _sections(body.splitlines())
    items = _twitter(sections.get("AI Twitter Recap", [])) + _reddit(sections.get("AI Reddit Recap", []))
    return {
        "date": day.isoformat(),
        "title": title,
        # "not much happened today" is the editor saying no story led the day
        "lead": None if _QUIET.search(title) else title,
        "description": plain(str(meta.get("description") or ""))[:TEXT_CHARS],
        "items": items,
    }


def convert(source: Source) -> tuple[list[dict], list[str]]:
    days: list[dict] = []
    skipped: list[str] = []
    for name in source.list(FOLDER):
        day = day_of(name)
        if day is None or not wanted_day(day):
            skipped.append(name)
            continue
        try:
            days.append(parse_issue(source.read(f"{FOLDER}/{name}"), day))
        except HeldOutError:
            skipped.append(name)  # filed outside the window but stamped inside it: dropped unread further
    days.sort(key=lambda d: d["date"])
    return days, skipped


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", help="the ainews-web-2025 repository: a fetched git dir or a checkout")
    parser.add_argument("out", type=Path, help="where to write the .jsonl.gz")
    args = parser.parse_args(argv)
    source = Source(args.source)
    days, skipped = convert(source)
    write_jsonl_gz(args.out, days)
    n = sum(len(d["items"]) for d in days)
    print(
        f"ainews: {len(days)} days, {n} items from {source.commit()[:12]}; skipped {len(skipped)} files",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
