"""Markdown files with YAML front matter, one per edition.

Hugo and Jekyll read the front matter directly; Notion's Markdown import takes the page
body and the properties it recognizes (title, date, tags, status). The weekly report
also carries its property block (type, status, date, slug, summary) there. What each
kind's file holds is its entry's in publish/outputs.py; the pieces they are made of are here.
"""

from __future__ import annotations

import re

import yaml

from newsdesk.core.labels import Labels
from newsdesk.text.html import markdown_source
from newsdesk.text.language import detect_language


def front_matter(fields: dict) -> str:
    dumped = yaml.safe_dump(fields, allow_unicode=True, sort_keys=False, width=10_000)
    return f"---\n{dumped}---\n"


def split_front_matter(text: str) -> tuple[dict, str]:
    """The inverse of front_matter(): (fields, body). Used by tests and by anyone re-importing."""
    if not text.startswith("---\n"):
        return {}, text
    head, _, body = text[4:].partition("\n---\n")
    return yaml.safe_load(head) or {}, body


def untitled_body(edition: dict) -> str:
    """An edition's stored text without its "# title" line: the title lives in the front matter."""
    body = edition["body"]
    if body.startswith("# "):
        return body.split("\n", 1)[1].lstrip("\n") if "\n" in body else ""
    return body


def headlines_summary(edition: dict) -> str:
    """A day's summary line: its first five headlines, each in another language marked as its card is; a
    roundup (one line on the page) and a card the English edition folds as reported in Chinese are no
    headline of the day (cards stored before either have no such key)."""

    def marked(card: dict) -> str:
        mark = (card.get("language_mark") or {}).get("headline")  # cards stored before marks have none
        return f"{card['headline']} ({mark})" if mark else card["headline"]

    cards = [c for c in edition["meta"].get("cards", []) if not c.get("roundup") and not c.get("folded")]
    return " / ".join(marked(c) for c in cards[:5])


def weekly_front(meta: dict) -> dict:
    """The weekly report's front matter beyond the common fields: its type and status."""
    props = meta.get("properties", {})
    return {"type": props.get("type", "Post"), "status": props.get("status", "Published")}


def weekly_slug(edition: dict) -> str:
    return (edition["meta"].get("properties") or {}).get("slug") or f"ai-weekly-{edition['key']}"


def weekly_markdown(edition: dict) -> str:
    """The weekly report's body from its parts; a report stored before its parts were kept, as stored."""
    return (
        weekly_body(edition["meta"], edition["language"]) if "sections" in edition["meta"] else untitled_body(edition)
    )


def _link(title: str, url: str) -> str:
    """A report's headline linking to it, as the daily's "Reported in Chinese" lists it (editions/daily.py)."""
    return f"[{title}]({url})" if url else title


def weekly_body(meta: dict, language: str = "zh") -> str:
    t = Labels(language)

    def mark(text: str) -> str:  # a part in another language than the edition's says so
        code = detect_language(text)
        return f"*{t.written_in(code)}* " if code != language else ""

    overview = meta.get("overview") or []
    out = [f"## {t.weekly_overview}", *(mark(p) + p for p in overview)] if overview else []
    for section in meta.get("sections", []):
        heading, *rest = re.split(r"\n\s*\n", section["text"].strip())
        out += [f"## {heading}", *(mark(p) + p for p in rest)]
    out += [f"## {t.weekly_briefs}"] if meta.get("briefs") else []  # no heading over nothing
    out += [
        f"- {mark(b['title'] + ' ' + b['text'])}**{b['title']}** — {b['source']} / {b['text']}"
        for b in meta.get("briefs", [])
    ]
    folded = meta.get("folded") or []  # the English weekly's events told only in Chinese
    out += [f"## {t.reported_in_zh.format(n=len(folded))}"] if folded else []
    out += [f"- {_link(f['title'], f['url'])} — {f['source']}" for f in folded]
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


def document(fields: dict, body: str, note: str) -> str:
    """A Markdown file: front matter, then the body; `note` (which parts code chose) opens the body."""
    if note:  # a daily page marks its extractive cards one by one
        fields = {**fields, "extractive": True}
        body = f"*{note}*\n\n{body}"
    return front_matter(fields) + "\n" + markdown_source(body)
