"""Convert Juya AI Daily (github imjuya/juya-ai-daily, `BACKUP/<n>_<date>.md`) into one JSON line per
item: the editor's rank (`#N`), whether it sits under 要闻 (the day's top stories), its section, title,
one-paragraph summary and the addresses it cites.

    PYTHONPATH=src python eval/external/convert_juya.py /work/.mirror/imjuya+juya-ai-daily/repo \
        eval/external/data/juya.jsonl.gz

Only days 2026-02-18 … 2026-04-05 and 2026-05-04 … 2026-06-01 are read: 2026-04-06 … 2026-05-03
is held out for measuring newsdesk, and its files are skipped by name, never opened.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from external_common import Source, held_out, links_in, refuse_held_out, write_jsonl_gz

FIRST_DAY = date(2026, 2, 18)
LAST_DAY = date(2026, 6, 1)
# The first days' overview names the top stories 精选; from 02-26 on it is 要闻. Both mean the same.
TOP_SECTIONS = {"要闻", "精选"}

_FILE = re.compile(r"^\d+_(\d{4}-\d{2}-\d{2})\.md$")
_RANK = re.compile(r"`#(\d+)`\s*$")
_OVERVIEW_ITEM = re.compile(r"^-\s+(.*?)\s*(?:\[↗\]\((\S+)\))?\s*`#(\d+)`\s*$")
_HEADING = re.compile(r"^##\s+(?:\[(.+?)\]\((\S+?)\)|(.+?))\s*`#(\d+)`\s*$")
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")


def wanted_day(day: date) -> bool:
    """A day this set may hold: inside Juya's allowed span and outside the held-out window."""
    return FIRST_DAY <= day <= LAST_DAY and not held_out(day)


def day_of(name: str) -> date | None:
    match = _FILE.match(name)
    return date.fromisoformat(match.group(1)) if match else None


@dataclass
class _Item:
    rank: int
    title: str
    link: str | None
    lines: list[str]


def _overview(lines: list[str]) -> dict[int, str]:
    """rank -> the overview section it is listed under."""
    sections: dict[int, str] = {}
    section = ""
    for line in lines:
        if line.startswith("### "):
            section = line[4:].strip()
        elif (match := _OVERVIEW_ITEM.match(line.strip())) is not None:
            sections[int(match.group(3))] = section
    return sections


def _summary(lines: list[str]) -> str:
    """The item's lead: its first block quote (the editor's one-paragraph summary)."""
    quote: list[str] = []
    for line in lines:
        if line.startswith(">"):
            quote.append(line.lstrip("> ").strip())
        elif quote:
            break
    return " ".join(q for q in quote if q)


def _cited(item: _Item) -> list[str]:
    """The addresses the item cites: its heading link and its 相关链接 list (else any in its body)."""
    links = [item.link] if item.link else []
    related = False
    for line in item.lines:
        if line.strip().startswith("相关链接"):
            related = True
        elif related and line.strip().startswith("-"):
            links += links_in(line)
    if not related:
        links += links_in(_IMAGE.sub(" ", "\n".join(item.lines)))
    return list(dict.fromkeys(links))


def parse_day(text: str, day: date) -> list[dict]:
    """One day's file -> its items, in rank order."""
    lines = text.splitlines()
    try:
        start = lines.index("## 概览")
        end = lines.index("---", start)
    except ValueError:
        raise ValueError(f"{day}: no '## 概览' overview followed by '---'; is this a Juya day file?") from None
    sections = _overview(lines[start + 1 : end])
    items: list[_Item] = []
    for line in lines[end + 1 :]:
        match = _HEADING.match(line)
        if match:
            title = (match.group(1) or match.group(3)).strip()
            items.append(_Item(int(match.group(4)), title, match.group(2), []))
        elif items:
            items[-1].lines.append(line)
    rows = []
    for item in sorted(items, key=lambda i: i.rank):
        section = sections.get(item.rank, "")
        rows.append(
            {
                "date": day.isoformat(),
                "rank": item.rank,
                "is_top": section in TOP_SECTIONS,
                "section": section,
                "title": item.title,
                "summary": _summary(item.lines),
                "links": _cited(item),
                "language": "zh",
            }
        )
    return rows


def convert(source: Source) -> tuple[list[dict], list[str]]:
    """All wanted days' items, and the names skipped (held out, outside the span, not a day)."""
    rows: list[dict] = []
    skipped: list[str] = []
    named = [(day_of(name), name) for name in source.list("BACKUP")]
    for day, name in sorted(named, key=lambda p: (p[0] or date.min, p[1])):
        if day is None or not wanted_day(day):
            skipped.append(name)
            continue
        refuse_held_out(day, name)  # belt and braces: wanted_day already said no
        rows.extend(parse_day(source.read(f"BACKUP/{name}"), day))
    return rows, skipped


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", help="the juya-ai-daily repository: a fetched git dir or a checkout")
    parser.add_argument("out", type=Path, help="where to write the .jsonl.gz")
    args = parser.parse_args(argv)
    source = Source(args.source)
    rows, skipped = convert(source)
    n = write_jsonl_gz(args.out, rows)
    days = len({r["date"] for r in rows})
    print(f"juya: {n} items on {days} days from {source.commit()[:12]}; skipped {len(skipped)} files", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
