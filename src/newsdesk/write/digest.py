"""An episode digest as data and its text (摘要 + 精读, or Summary + Deep dive in English).
Its writers hand it back in write/episode_result.py's EpisodeResult; editions/episode.py stores it.

    text = digest.render()              title line, a note (the episode's language, when it is not the
                                        digest's), 摘要 / Summary bullets, 精读 / Deep dive sections
    digest = parse_digest(text, "zh")   read back; DigestFormatError names the first bad line
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from newsdesk.core.errors import PARTIAL, NewsdeskError

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
    note: str = ""  # one line before the summary: what a reader must know first (the episode is in English)

    def render(self) -> str:
        summary_head, sections_head = HEADINGS[self.language]
        colon = COLON[self.language]
        out = [f"{self.number}. {self.title}" if self.number else self.title, ""]
        out += [self.note, "", summary_head, ""] if self.note else [summary_head, ""]
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
    notes: list[str] = []
    part = "title"
    for lineno, ln in numbered[1:]:
        if ln == summary_head and part == "title":
            part = "summary"
        elif part == "title" and not notes and not ln.startswith(BULLET):
            notes.append(ln)
        elif ln == sections_head and part == "summary":
            part = "sections"
        elif part == "summary" and ln.startswith(BULLET):
            summary.append(ln[len(BULLET) :])
        elif part == "sections" and (h := re.match(r"^(\d+)\. (.+)$", ln)):
            if int(h.group(1)) != len(sections) + 1:
                raise DigestFormatError(f"line {lineno}: section {h.group(1)} out of order")
            topic, _, hook = h.group(2).partition(COLON[language].strip())
            sections.append(Section(topic.strip(), hook.strip(), []))
        elif part == "sections" and ln.startswith(BULLET) and sections:
            sections[-1].bullets.append(Bullet(ln[len(BULLET) :]))
        else:
            raise DigestFormatError(f"line {lineno}: unexpected {ln[:60]!r} in the {part} part")
    if part != "sections":
        raise DigestFormatError(f"digest lacks the '{summary_head}' or '{sections_head}' heading")
    for s in sections:
        if not s.bullets:
            raise DigestFormatError(f"section '{s.topic}' has no bullet")
    return Digest(title, number, summary, sections, language, note="".join(notes))


def clean_field(value: object) -> str:
    """One line of prose: no newlines, no literal escapes, no leading bullet or number."""
    text = str(value or "").replace("\\n", " ").replace("\\t", " ")
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"^(?:[•\-\*·]\s*|\d+[.、)]\s+)", "", text)
    return text.strip()
