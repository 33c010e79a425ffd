"""What a talk's sections and sentences are about, read from the words themselves.

- names(): the named things a sentence mentions, as the speakers said them: products, models,
  companies ("Claude three point seven Sonnet", "GPT-4.5", "Kimi K2", "Deep EP"). A Latin word
  is a name when it is written with a capital or a digit and is not just a sentence's first
  word (unless the talk writes it capitalised mid-sentence elsewhere); spoken numbers inside a
  name stay in it ("Wan two point one"). In Chinese, Latin runs and jieba's proper nouns.
- topic(): a section's topic as one noun phrase: its most distinctive name, or where a talk
  names nothing (a meeting about a remote control), its most distinctive phrase of content
  words. Never a list of keywords.
- information(): how much a sentence tells: its numbers and names, less for a question or talk
  about the talk ("I'm never sure how to say it").
"""

from __future__ import annotations

import calendar
import math
import re
from collections import Counter
from collections.abc import Iterable

from newsdesk.text import lexicon
from newsdesk.text.sentences import _STOP, is_cjk, numbers

# Spoken number words, kept inside a name ("Wan two point one").
_NUMBER_WORDS = lexicon.words("number-words")
# Capitalised, but a word of talk, not a thing talked about.
_NOT_NAMES = frozenset(
    lexicon.words("talk-words")
    | {d.lower() for d in calendar.day_name}  # English: newsdesk never calls setlocale
    | {m.lower() for m in calendar.month_name[1:]}
)
# Abbreviations too general to say what a sentence is about ("in the API", "GPUs").
_GENERIC = lexicon.words("generic-abbreviations")
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+\-_']*[A-Za-z0-9+_]|[A-Za-z0-9]")
# jieba: organisation, place, transliterated name ("nz", other proper noun, tags common words: 聊天)
_CJK_PROPER = ("nt", "ns", "nrt")


def _is_named(word: str, first: bool, proper: set[str]) -> bool:
    base = re.sub(r"'s$", "", word)
    if base.lower() in _NOT_NAMES or base.lower() in _STOP or not re.search(r"[A-Za-z]", base):
        return False
    if re.search(r"\d", base):
        return True  # GPT-4.5, H800, V3, 3FS
    if base[0].isupper() or re.search(r"[a-z][A-Z]", base):
        return not first or base in proper
    return False


def proper_words(texts: Iterable[str]) -> set[str]:
    """Words a talk writes capitalised after a sentence's first word: its names."""
    out: set[str] = set()
    for text in texts:
        for sentence in re.split(r"(?<=[.!?])\s+", text):
            for m in list(_WORD.finditer(sentence))[1:]:
                w = re.sub(r"'s$", "", m.group(0))
                if w[:1].isupper() and w.lower() not in _NOT_NAMES and w.lower() not in _STOP:
                    out.add(w)
    # A word the talk also writes in lower case is a word, not a name ("So", "Uh" in an unpunctuated transcript).
    lower = {w for text in texts for w in _WORD.findall(text) if w.islower()}
    return {w for w in out if w.lower() not in lower or re.search(r"\d|[a-z][A-Z]", w)}


def _latin_names(text: str, proper: set[str], exclude: set[str]) -> list[str]:
    out: list[str] = []
    run: list[str] = []
    numbers_after = 0  # spoken number words at the run's end, kept only when a name follows
    first_of_sentence = True
    pos = 0
    for m in _WORD.finditer(text):
        gap = text[pos : m.start()]
        pos = m.end()
        word = m.group(0)
        if re.search(r"[.!?。！？]", gap):
            first_of_sentence = True
        if re.search(r"[^\s]", gap):  # a name does not run across punctuation
            _close(run, numbers_after, out, exclude)
            run, numbers_after = [], 0
        named = _is_named(word, first_of_sentence, proper)
        first_of_sentence = False
        if named:
            run.append(word)
            numbers_after = 0
            if word.endswith("'s"):
                _close(run, 0, out, exclude)
                run = []
        elif run and word.lower() in _NUMBER_WORDS:
            run.append(word)
            numbers_after += 1
        else:
            _close(run, numbers_after, out, exclude)
            run, numbers_after = [], 0
    _close(run, numbers_after, out, exclude)
    return out


def _close(run: list[str], numbers_after: int, out: list[str], exclude: set[str]) -> None:
    # "Wan two point one": a spoken version number ("… point …") stays with its name; "Euro fifty" is a price.
    tail = [w.lower() for w in run[len(run) - numbers_after :]] if numbers_after else []
    words = run if "point" in tail else run[: len(run) - numbers_after]
    words = [re.sub(r"'s$", "", w) for w in words]
    if not words or len(words) == 1 and len(words[0]) < 2:  # "M", a letter, names nothing
        return
    if all(w.lower() in exclude for w in words if w.lower() not in _NUMBER_WORDS):
        return
    out.append(" ".join(words))


def names(text: str, proper: set[str] = frozenset(), exclude: set[str] = frozenset()) -> list[str]:  # type: ignore[assignment]
    """The named things a text mentions, in order, as written (`exclude`: lower-cased words that
    name no thing here, such as the speakers' names)."""
    found = _latin_names(text, set(proper), set(exclude))
    if is_cjk(text):
        from newsdesk.text.segment import tagged

        found += [
            word
            for word, flag in tagged(text)
            if flag in _CJK_PROPER and len(word) >= 2 and word.lower() not in exclude
        ]
    return found


def subject_worthy(name: str) -> bool:
    """A name that can say what a sentence is about: not a bare general abbreviation."""
    return name.lower() not in _GENERIC


# --- a section's topic -----------------------------------------------------------------


_DETERMINERS = frozenset(
    ["the", "a", "an", "these", "my", "our", "your", "their", "its", "his"]
)  # not "that": "things that happen"


def _phrases(text: str) -> tuple[list[str], set[str]]:
    """Runs of one or two adjacent content words (lower-cased), each time said: a topic phrase's
    candidates; and those the text says after a determiner at least once ("the remote control",
    "the digits"), which English offers as the mark of a noun phrase ("aiming", "silent" never)."""
    if is_cjk(text):
        from newsdesk.text.sentences import terms

        found = terms(text)
        return found, set(found)
    out: list[str] = []
    nouns: set[str] = set()
    for part in re.split(r"[,.;:!?()\"“”—]", text):
        prev, prev_end, det_before = "", -1, False  # det_before: a determiner right before `prev`
        last_word, last_end = "", -1
        for m in _WORD.finditer(part):
            w = m.group(0).lower()
            adjacent = part[last_end : m.start()] == " "
            content = len(w) >= 3 and w not in _STOP and not re.fullmatch(r"[\d.,]+", w) and "_" not in w
            if content:
                out.append(w)
                after_det = adjacent and last_word in _DETERMINERS
                if after_det:
                    nouns.add(w)
                if prev and prev_end == last_end and adjacent:
                    out.append(f"{prev} {w}")
                    if det_before:
                        nouns.add(f"{prev} {w}")
                prev, prev_end, det_before = w, m.end(), after_det
            else:
                prev = ""
            last_word, last_end = w, m.end()
    return out, nouns


_LAUNCH = re.compile(
    r"\b(?:released|launched|announced|unveiled|introduced|shipped|open[- ]?sourced|published|had|called|"
    r"talk about|story of the week,? which was)\s+(?:a |an |the |its |their |a preview of something called )?$"
    r"|(?:发布|推出|开源|上线|宣布|谈谈|聊聊|说说)了?\s*$",
    re.I,
)


def introduced(text: str, name: str) -> bool:
    """The sentence brings the name up as news: "Anthropic released Claude three point seven Sonnet"."""
    at = text.find(name)
    return at > 0 and bool(_LAUNCH.search(text[:at]))


def topics(sections: list[list[tuple[str, list[str]]]], exclude: set[str], head: int = 3) -> list[str]:
    """Each section's topic, from its sentences and their names: the name it is most about, else
    its most distinctive phrase; empty where a section has neither (the caller numbers it).

    A name scores by how many of the section's sentences say it against how many sections do;
    more where the talk first brings it up here, in the section's first `head` sentences, or
    brings it up as news ("OpenAI released GPT-4.5"): a talk introduces what it turns to."""
    n = len(sections)
    per_section = [[{x for x in ns if subject_worthy(x)} for _, ns in sents] for sents in sections]
    df = Counter(x for sets in per_section for x in set().union(*sets))
    first_in: dict[str, int] = {}
    for k, sets in enumerate(per_section):
        for said in sets:
            for x in said:
                first_in.setdefault(x, k)
    texts = [" ".join(t for t, _ in sents) for sents in sections]
    candidates = [_phrases(t) for t in texts]
    phrase_lists = [ps for ps, _ in candidates]
    nouns: set[str] = set().union(*(ns for _, ns in candidates)) if candidates else set()
    phrase_df = Counter(x for ps in phrase_lists for x in {*ps})
    out = []
    for k, (sents, sets, ps) in enumerate(zip(sections, per_section, phrase_lists)):
        counts = Counter(x for found in sets for x in found)
        scored = {}
        for x, c in counts.items():
            news = any(x in found and introduced(t, x) for (t, _), found in zip(sents, sets))
            early = any(x in found for found in sets[:head])
            if c >= 3 or news:  # a name said only twice is mentioned, not discussed
                scored[x] = c * math.log(1 + n / df[x]) + (first_in[x] == k) + 0.5 * early + 3.0 * news
        if scored:
            out.append(max(scored, key=lambda x: (scored[x], len(x))))
            continue
        pc = Counter(p for p in ps if p in nouns and not set(p.split()) & exclude)
        # A two-word phrase said as often as its words is the better name ("remote control").
        best = {p: c * math.log(1 + n / phrase_df[p]) * (1.6 if " " in p else 1.0) for p, c in pc.items() if c >= 2}
        if not best:  # no noun phrase said twice: the most distinctive content word said twice
            pc = Counter(p for p in ps if " " not in p and p not in exclude)
            # Likelier a thing than a doing ("aiming"), where the section offers one.
            best = {
                p: c * math.log(1 + n / phrase_df[p]) * (0.5 if re.search(r"(?:ing|ed|ly)$", p) else 1.0)
                for p, c in pc.items()
                if c >= 2
            }
        out.append(max(best, key=lambda p: (best[p], len(p))) if best else "")
    return out


def heading_phrase(phrase: str) -> str:
    """A topic as a heading starts: capitalised where it is Latin and lower-case."""
    return phrase[:1].upper() + phrase[1:] if phrase[:1].islower() else phrase


# --- how much a sentence tells ------------------------------------------------------------

_META = re.compile(
    r"\b(?:never sure how|how to say|I have to say|you know what I mean|I don't know|let's (?:go|talk|do|move)|"
    r"welcome|thanks for having|see you)\b|我也不知道|怎么说呢|欢迎",
    re.I,
)


def information(text: str, named: int) -> float:
    """How much a sentence tells, 0 … about 1: numbers first, then names; a question or talk about
    the conversation itself tells little."""
    figures = len(numbers(text))
    score = 0.3 * min(2, figures) + 0.15 * min(2, named)
    if text.rstrip().endswith(("?", "？")):
        score -= 0.3
    if _META.search(text):
        score -= 0.4
    return score
