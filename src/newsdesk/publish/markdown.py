"""Markdown files with YAML front matter, one per edition.

Hugo and Jekyll read the front matter directly; Notion's Markdown import takes the page
body and the properties it recognizes (title, date, tags, status). The weekly report
also carries its seed-003 property block (type, status, date, slug, summary) there.
"""

from __future__ import annotations

import re
from datetime import date, datetime, time
from zoneinfo import ZoneInfo

import yaml

from newsdesk.labels import Labels
from newsdesk.render import markdown_source


def front_matter(fields: dict) -> str:
    dumped = yaml.safe_dump(fields, allow_unicode=True, sort_keys=False, width=10_000)
    return f"---\n{dumped}---\n"


def split_front_matter(text: str) -> tuple[dict, str]:
    """The inverse of front_matter(): (fields, body). Used by tests and by anyone re-importing."""
    if not text.startswith("---\n"):
        return {}, text
    head, _, body = text[4:].partition("\n---\n")
    return yaml.safe_load(head) or {}, body


def edition_slug(edition: dict) -> str:
    if edition["kind"] == "weekly":
        return (edition["meta"].get("properties") or {}).get("slug") or f"ai-weekly-{edition['key']}"
    return f"{edition['kind']}-{edition['key']}"


def period_end(edition: dict, tz: str) -> datetime | None:
    """The last moment of the day or ISO week an edition covers, local; None for other kinds."""
    try:
        if edition["kind"] == "daily":
            last = date.fromisoformat(edition["key"])
        elif edition["kind"] == "weekly":
            year, week = edition["key"].split("-W")
            last = date.fromisocalendar(int(year), int(week), 7)
        else:
            return None
    except ValueError:
        return None
    return datetime.combine(last, time(23, 59, 59), ZoneInfo(tz))


def edition_time(edition: dict, tz: str) -> datetime:
    """When an edition was published, as its feed item and front matter date it: its last update,
    but never after the end of the day or week it covers, so a February week built (or replayed)
    in December is dated February, while today's edition carries the time it last changed."""
    updated: datetime = edition["updated_at"].astimezone(ZoneInfo(tz))
    end = period_end(edition, tz)
    return min(updated, end) if end else updated


def edition_date(edition: dict, tz: str) -> str:
    if edition["kind"] == "daily":
        return edition["key"]
    return edition_time(edition, tz).isoformat(timespec="seconds")


def edition_summary(edition: dict) -> str:
    meta = edition["meta"]
    if edition["kind"] == "weekly":
        return meta.get("summary", "")
    if edition["kind"] == "daily":
        return " / ".join(c["headline"] for c in meta.get("cards", [])[:5])
    return meta.get("summary") if isinstance(meta.get("summary"), str) else ""


def weekly_body(meta: dict) -> str:
    out = ["## 📊 本周概览", *meta.get("overview", [])]
    for section in meta.get("sections", []):
        heading, _, rest = section["text"].partition("\n\n")
        out += [f"## {heading}", rest]
    out.append("## 📌 本周简讯")
    out += [f"- **{b['title']}** — {b['source']} / {b['text']}" for b in meta.get("briefs", [])]
    return "\n\n".join(out) + "\n"


_DIGEST_HEADS = {"摘要", "精读", "Summary", "Deep dive"}
_SECTION = re.compile(r"^\d+\. ")


def digest_markdown(body: str) -> str:
    """An episode digest's text (title line, 摘要 / Summary bullets, 精读 / Deep dive sections) as
    Markdown: its headings as headings and its bullets as one list each, so no renderer runs the
    bullets together or renumbers the sections. The title line is left to the page's own title."""
    lines = [ln.strip() for ln in body.strip().splitlines() if ln.strip()][1:]
    out: list[str] = []
    for ln in lines:
        if ln in _DIGEST_HEADS:
            out += ["", f"## {ln}", ""]
        elif ln.startswith("•"):
            out.append("- " + ln.lstrip("• ").strip())
        elif _SECTION.match(ln):
            out += ["", f"### {ln}", ""]
        else:
            out += ["", ln, ""]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip() + "\n"


def extractive_note(meta: dict, language: str) -> str:
    """The reader's line saying which parts of a weekly or episode edition were chosen by code."""
    t = Labels(language)
    if meta.get("extractive"):
        return t.extractive_edition + (" " + t.replaces_failed if meta.get("replaces_failed") else "")
    if meta.get("extractive_parts"):
        return f"{t.extractive_parts} {', '.join(meta['extractive_parts'])}"
    return ""


def edition_markdown(edition: dict, tz: str) -> str:
    """The edition as a Markdown document with front matter."""
    meta = edition["meta"]
    fields = {
        "title": edition["title"],
        "date": edition_date(edition, tz),
        "slug": edition_slug(edition),
        "summary": edition_summary(edition),
        "tags": [
            "AI",
            {"daily": "daily", "weekly": "weekly", "episode": "episode"}.get(edition["kind"], edition["kind"]),
        ],
        "lang": edition["language"],
    }
    if edition["kind"] == "weekly":
        props = meta.get("properties", {})
        fields.update({"type": props.get("type", "Post"), "status": props.get("status", "Published")})
        body = weekly_body(meta)
    else:
        fields["status"] = "Published"  # only editions that passed their checks are published
        body = edition["body"]
        if edition["kind"] == "episode":
            body = digest_markdown(body)  # the title lives in the front matter
        elif body.startswith("# "):  # the title lives in the front matter
            body = body.split("\n", 1)[1].lstrip("\n") if "\n" in body else ""
    note = extractive_note(meta, edition["language"])
    if note:  # a daily page marks its extractive cards one by one
        fields["extractive"] = True
        body = f"*{note}*\n\n{body}"
    return front_matter(fields) + "\n" + markdown_source(body)
