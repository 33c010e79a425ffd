"""The people in a transcript: who speaks (full name once, then the given name), which names
speech recognition may have misheard, and whether a quote is attributed to the one who said it."""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass

from rapidfuzz import fuzz

from newsdesk.core.model import Turn
from newsdesk.text import lexicon
from newsdesk.write.transcript import (
    CJK,
    Line,
    TranscriptIndex,
    find_quotes,
    sentence_span,
)

UNCERTAIN_MARK = {"zh": "（音）", "en": " (as heard)"}

_ROLE_WORDS = lexicon.words("speaker-roles")  # a label of a role ("Project Manager"), not a name


@dataclass
class Speaker:
    full: str
    short: str  # the given name used after the first mention; == full when not a person's name


def speakers(turns: list[Turn]) -> list[Speaker]:
    """Speakers in order of first appearance, with the short name for later mentions."""
    spoken = " ".join(t.text for t in turns)
    out: list[Speaker] = []
    for name in dict.fromkeys((t.speaker or "").strip() for t in turns):
        if not name:
            continue
        short = name
        if CJK.search(name):
            if len(name) == 3:
                short = name[1:]  # 郑博元 -> 博元
        else:
            tokens = [t for t in name.split() if not t.endswith(".")]  # Hon., Dr., Mr. are not names
            is_person = (
                len(tokens) >= 2
                and all(t[:1].isupper() and t.isalpha() and len(t) > 1 for t in tokens)
                and not any(t.lower() in _ROLE_WORDS for t in tokens)
            )
            if is_person:
                # Given name: the token people use alone in the conversation, else the first.
                short = max(tokens, key=lambda t: (len(re.findall(rf"\b{re.escape(t)}\b", spoken)), -tokens.index(t)))
        out.append(Speaker(name, short))
    return out


def name_speakers(texts: list[str], people: list[Speaker]) -> list[str]:
    """Across texts in reading order: the first mention of a speaker is the full name,
    every later one the short name. Quotations are left as spoken."""
    out = list(texts)
    for sp in people:
        if sp.short == sp.full:
            continue
        pattern = re.compile(rf"(?<![A-Za-z])(?:{re.escape(sp.full)}|{re.escape(sp.short)})(?![A-Za-z])")
        seen = False
        for k, text in enumerate(out):
            quotes = find_quotes(text)

            def swap(m: re.Match, quotes=quotes, sp=sp) -> str:
                nonlocal seen
                if any(a <= m.start() < b for a, b, _ in quotes):
                    return m.group(0)
                word = sp.short if seen else sp.full
                seen = True
                return word

            out[k] = pattern.sub(swap, text)
    return out


def _person(label: str) -> str:
    """One person under several labels: "Hon. Pierre Poilievre (Carleton, CPC)" = "Pierre Poilievre"."""
    label = re.sub(r"\([^)]*\)", " ", label)
    return " ".join(t for t in label.split() if not t.endswith(".")).casefold()


def attribution_problems(text: str, index: TranscriptIndex, people: list[Speaker]) -> list[str]:
    """A quote whose sentence names speakers, none of whom said it: misattributed."""
    out = []
    for a, b, quote in find_quotes(text):
        said = index.speakers_of(quote)
        if not said:
            continue
        s, e = sentence_span(text, a, b)
        outside = text[s:a] + text[b:e]
        named = {
            sp.full
            for sp in people
            if re.search(rf"(?<![A-Za-z]){re.escape(sp.full)}(?![A-Za-z])", outside)
            or (sp.short != sp.full and re.search(rf"(?<![A-Za-z]){re.escape(sp.short)}(?![A-Za-z])", outside))
        }
        if named and not {_person(n) for n in named} & {_person(n) for n in said}:
            out.append(
                f"quote “{quote[:50]}” is attributed to {', '.join(sorted(named))} but was said by {', '.join(sorted(said))}"
            )
    return out


_NAME = re.compile(r"\b[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*\b")


_CALENDAR = {
    f"{d}{s}" for d in ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday") for s in ("", "s")
} | {"january", "february", "march", "april", "june", "july", "august", "september", "october", "november", "december"}


def uncertain_names(lines: list[Line]) -> list[str]:
    """Proper nouns speech recognition may have misheard: spelled two ways across the
    transcript (SeeAct / SeaAct), or a mixed-case coinage heard only once."""
    counts: Counter[str] = Counter()
    lowered: set[str] = set()
    for ln in lines:
        for m in _NAME.finditer(ln.text):
            w = m.group(0)
            counts[w] += 1
            if w.islower():
                lowered.add(w)
    # Proper nouns are never written in lower case; common words are, somewhere.
    proper = [w for w in counts if not w.islower() and w.lower() not in lowered and len(w) >= 4]
    # A coinage heard once (SeeAct), not a surname pattern (McLeod, LeBlanc, DeBellefeuille).
    camel = re.compile(r"^(?!Mc|Mac|De|Le|La|Di|Du|Van|Von)[A-Z][a-z]+[A-Z]")
    suspects = {w for w in proper if counts[w] == 1 and camel.search(w)}
    for i, a in enumerate(proper):
        for b in proper[i + 1 :]:
            la, lb = a.lower(), b.lower()
            if la == lb or min(len(a), len(b)) < 5 or la in lb or lb in la or {la, lb} <= _CALENDAR:
                continue
            if len(os.path.commonprefix([la, lb])) >= min(len(la), len(lb)) - 1:
                continue  # differ only in the ending: Canada / Canadian, Transcriber / Transcribers
            if fuzz.ratio(la, lb) >= 80:
                suspects.update((a, b))
    return sorted(suspects)


def mark_uncertain(texts: list[str], names: list[str], language: str) -> list[str]:
    """Mark each uncertain name once, at its first mention outside quotations."""
    mark = UNCERTAIN_MARK[language]
    out = list(texts)
    for name in names:
        pattern = re.compile(rf"(?<![A-Za-z0-9]){re.escape(name)}(?![A-Za-z0-9])")
        for k, text in enumerate(out):
            quotes = find_quotes(text)
            hit = next((m for m in pattern.finditer(text) if not any(a <= m.start() < b for a, b, _ in quotes)), None)
            if hit is None:
                continue
            after = text[hit.end() :]
            if not after.lstrip().startswith(("（音", "(as heard", "（音）", mark.strip())):
                out[k] = text[: hit.end()] + mark + after
            break
    return out


def section_material(lines: list[Line], people: list[Speaker], first: int, last: int) -> list[str]:
    """What a part written from lines first..last is checked against: who speaks, and those lines."""
    names = ", ".join(f"{sp.full} ({sp.short})" for sp in people)
    return [f"Speakers: {names}", "\n".join(f"{ln.speaker}: {ln.text}" for ln in lines[first : last + 1])]
