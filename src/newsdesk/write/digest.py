"""An episode digest as data, its text (摘要 + 精读, or Summary + Deep dive in English), and its stored edition.

    text = digest.render()              title line, 摘要 / Summary bullets, 精读 / Deep dive sections
    digest = parse_digest(text, "zh")   read back; DigestFormatError names the first bad line
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass, field

from sqlalchemy.engine import Engine

from newsdesk.editions import store as editions_store
from newsdesk.errors import PARTIAL, NewsdeskError
from newsdesk.write.transcript import QuoteReport

HEADINGS = {"zh": ("摘要", "精读"), "en": ("Summary", "Deep dive")}
COLON = {"zh": "：", "en": ": "}
BULLET = "• "


class DigestFormatError(NewsdeskError, ValueError):
    """A digest's text does not have a digest's shape; the message names the line."""

    exit_code = PARTIAL  # that digest is not stored; the rest of the run is


# --- the digest as data, and its text ------------------------------------------------


@dataclass
class Bullet:
    text: str
    label: str = ""

    def render(self, language: str) -> str:
        return f"{self.label}{COLON[language]}{self.text}" if self.label else self.text


@dataclass
class Section:
    topic: str
    hook: str
    bullets: list[Bullet]
    first_line: int = 0
    last_line: int = 0  # inclusive
    flags: list[str] = field(default_factory=list)


@dataclass
class Digest:
    title: str
    number: str | None
    summary: list[str]
    sections: list[Section]
    language: str = "zh"

    def render(self) -> str:
        summary_head, sections_head = HEADINGS[self.language]
        colon = COLON[self.language]
        out = [f"{self.number}. {self.title}" if self.number else self.title, "", summary_head, ""]
        out += [BULLET + b for b in self.summary]
        out += ["", sections_head, ""]
        for n, section in enumerate(self.sections, 1):
            head = f"{n}. {section.topic}{colon}{section.hook}" if section.hook else f"{n}. {section.topic}"
            out += [head, ""] + [BULLET + b.render(self.language) for b in section.bullets] + [""]
        return "\n".join(out).rstrip() + "\n"

    def prose(self) -> str:
        """What the checker reads: every sentence, without the title line and the numbering."""
        parts = list(self.summary)
        for s in self.sections:
            parts.append(f"{s.topic}{COLON[self.language]}{s.hook}" if s.hook else s.topic)
            parts += [b.render(self.language) for b in s.bullets]
        return "\n".join(parts)

    def texts(self) -> list[str]:
        """Every piece of prose in reading order (for naming rules and checks)."""
        parts = [self.title, *self.summary]
        for s in self.sections:
            parts += [s.topic, s.hook, *(b.render(self.language) for b in s.bullets)]
        return parts


def parse_digest(text: str, language: str = "zh") -> Digest:
    """Read a rendered digest back; raises DigestFormatError naming the first bad line."""
    summary_head, sections_head = HEADINGS[language]
    lines = [ln.rstrip() for ln in text.splitlines()]
    numbered = [(i + 1, ln) for i, ln in enumerate(lines) if ln.strip()]
    if not numbered:
        raise DigestFormatError("digest is empty")
    _, first = numbered[0]
    m = re.match(r"^(\d+)\. (.+)$", first)
    number, title = (m.group(1), m.group(2)) if m else (None, first)
    summary: list[str] = []
    sections: list[Section] = []
    part = "title"
    for lineno, ln in numbered[1:]:
        if ln == summary_head and part == "title":
            part = "summary"
        elif ln == sections_head and part == "summary":
            part = "sections"
        elif part == "summary" and ln.startswith(BULLET):
            summary.append(ln[len(BULLET):])
        elif part == "sections" and (h := re.match(r"^(\d+)\. (.+)$", ln)):
            if int(h.group(1)) != len(sections) + 1:
                raise DigestFormatError(f"line {lineno}: section {h.group(1)} out of order")
            topic, _, hook = h.group(2).partition(COLON[language].strip())
            sections.append(Section(topic.strip(), hook.strip(), []))
        elif part == "sections" and ln.startswith(BULLET) and sections:
            sections[-1].bullets.append(Bullet(ln[len(BULLET):]))
        else:
            raise DigestFormatError(f"line {lineno}: unexpected {ln[:60]!r} in the {part} part")
    if part != "sections":
        raise DigestFormatError(f"digest lacks the '{summary_head}' or '{sections_head}' heading")
    for s in sections:
        if not s.bullets:
            raise DigestFormatError(f"section '{s.topic}' has no bullet")
    return Digest(title, number, summary, sections, language)


def clean_field(value: object) -> str:
    """One line of prose: no newlines, no literal escapes, no leading bullet or number."""
    text = str(value or "").replace("\\n", " ").replace("\\t", " ")
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"^(?:[•\-\*·]\s*|\d+[.、)]\s+)", "", text)
    return text.strip()


# --- the stored edition --------------------------------------------------------------------------


@dataclass
class EpisodeResult:
    key: str
    language: str
    text: str
    digest: Digest
    status: str  # clean | flagged
    findings: list[str]
    material_key: str
    reused: bool = False  # the stored edition was current: nothing written, no model call
    quotes: QuoteReport = field(default_factory=QuoteReport)


def episode_slug(title: str, number: str | int | None) -> str:
    words = re.findall(r"[a-z0-9]+", unicodedata.normalize("NFKD", title).lower())
    base = "-".join(words)[:60].strip("-")
    digest = hashlib.sha1(title.encode()).hexdigest()[:8]
    parts = [str(number)] if number not in (None, "") else []
    parts.append(base or digest)
    return "-".join(parts)[:80]


def stored_edition(engine: Engine, key: str, language: str) -> dict | None:
    with engine.connect() as conn:
        return editions_store.stored_edition(conn, "episode", key, language)


def save_edition(engine: Engine, result: EpisodeResult, meta: dict) -> None:
    with engine.begin() as conn:
        editions_store.store_edition(
            conn,
            kind="episode",
            key=result.key,
            language=result.language,
            title=result.digest.title,
            body=result.text,
            meta=meta,
            status=result.status,
            material_key=result.material_key,
        )


def reuse(row: dict, language: str) -> EpisodeResult:
    meta = row.get("meta") or {}
    digest = parse_digest(row["body"], language)
    for section, span in zip(digest.sections, meta.get("section_lines", [])):
        section.first_line, section.last_line = span  # which transcript lines each section covers
    return EpisodeResult(
        key=row["key"],
        language=language,
        text=row["body"],
        digest=digest,
        status=row["status"],
        findings=list(meta.get("findings", [])),
        material_key=row["material_key"],
        reused=True,
    )

