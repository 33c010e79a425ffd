"""Words as evidence: headlines, rare terms and roundups.

An embedding says two texts are about the same kind of thing; it cannot tell one launch from
the next launch of the same company. Words can, when they are rare: a term that few items in
the open window use (a product, a company, a person, a paper's odd phrase) shared by an item
and an event says they name the same thing. Terms are jieba words for Chinese and lowercase
words for English; version numbers are dropped here ("GPT-5.4" gives "gpt"), since anchors.py
keeps versions apart.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Collection

from newsdesk.cluster.anchors import model_anchors, model_family
from newsdesk.cluster.dedup import normalize_text
from newsdesk.text import lexicon
from newsdesk.text.segment import dictionary, words

_CJK = re.compile(r"[\u3400-\u9fff]")
_LATIN = re.compile(r"^[a-z][a-z0-9]{2,}$")  # 3+ characters: "on", "of" and "it" name nothing

# Words that appear in any story and name nothing (the IDF would learn most of them, but a quiet
# window has too few items to learn them well): stop.txt and stop-cluster.txt.
_STOP = lexicon.words("stop", "stop-cluster")

# Multi-topic lists: a daily / weekly digest, a year in review, a "latest artifacts" list. Some words
# name one wherever they stand ("十大", "digest"); others only as the headline's label, the column or
# series it files itself under ("追问daily | …"), being ordinary words in a sentence ("daily work").
_ROUNDUP = re.compile("|".join(lexicon.entries("roundup-words")), re.IGNORECASE)
_ROUNDUP_LABEL = re.compile("|".join(lexicon.entries("roundup-labels")), re.IGNORECASE)
# A headline's label: its text before the first separator or after the last one.
_SEPARATOR = re.compile(r"[|｜:：【】\[\]]|\s[—–-]\s")


def _alternatives(name: str) -> re.Pattern:
    """A lexicon list as one pattern, matched without case; a Latin entry as a whole word, which a
    Chinese character may touch ("英伟达CEO黄仁勋")."""
    return re.compile(
        "|".join(rf"(?<![a-z]){re.escape(w)}(?![a-z])" if w.isascii() else re.escape(w) for w in lexicon.entries(name)),
        re.IGNORECASE,
    )


# Who speaks, before a headline's colon: an interview ("对话…", "Interview") or a person's role
# ("Claude Code创造者", "OpenAI CEO"). A podcast episode names its guests after a closing dash or bar
# ("… — Martin Casado & Sarah Wang of a16z", "… | Boris Cherny"): people's names, joined by & / and / a
# comma, then maybe where they work. An outlet closing a headline ("| The Verge") is no guest.
_INTERVIEW = _alternatives("interview-words")
_SPEAKER = _alternatives("speaker-titles")
_QUOTE = re.compile(r"[“\"「『]")
_NAME = r"(?:(?:Prof|Dr|Sir)\.?\s+)?(?!The\b)[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*){1,3}"
_GUESTS = re.compile(
    rf"\s(?:—|–|\||｜)\s*{_NAME}(?:\s*(?:&|\band\b|,)\s*{_NAME})*(?:\s*(?:,|\(|\bof\b|\bat\b|\bfrom\b).*)?$"
)


def _cut(text: str) -> list[str]:
    return words(text)


def headline(text: str) -> str:
    """The first line, normalized: what two outlets reposting one article print identically."""
    return normalize_text(text.split("\n", 1)[0])


def terms(text: str) -> frozenset[str]:
    """The content words of a text: Chinese words of 2+ characters, Latin words without versions."""
    out = set()
    for tok in _cut(text.lower()):
        tok = tok.strip()
        if len(tok) < 2 or tok in _STOP:
            continue
        if _CJK.match(tok) or (_LATIN.match(tok) and not tok.isdigit()):
            out.add(tok)
    return frozenset(out)


def is_roundup(text: str) -> bool:
    """A roundup of several unrelated items: named as one (in the headline, or as the label its
    summary opens with), or a headline listing many items or products, unless the headline gives one
    voice's words (`one_voice`).

    The products are counted in the headline only: a piece comparing two rivals' launches names
    three model families in its body ("Claude Opus 4.6 vs GPT-5.3-Codex", "beats GPT-5.2") and is
    no roundup.
    """
    head, _, rest = text.partition("\n")
    pieces = _SEPARATOR.split(head)
    labels = [pieces[0], pieces[-1]] if len(pieces) > 1 else []
    if _ROUNDUP.search(head) or any(_ROUNDUP_LABEL.search(label) for label in labels):
        return True
    # A summary that files the piece under a roundup's name before its list ("快讯合集：Gemini 3.1
    # 发布、Taalas…", "Weekly digest: …"): the piece says what it is, whatever its headline.
    label = re.match(r"\s*([^：:。.\n]{1,16})[：:]", rest)
    if label and (_ROUNDUP.search(label.group(1)) or _ROUNDUP_LABEL.search(label.group(1))):
        return True
    if one_voice(head):
        return False
    parts = [p for p in re.split(r"[;；|｜]", head) if p.strip()]
    # A newsletter issue titled by its stories ("Gemini Seizes the Lead, Investors Panic Over
    # Agentic AI, Optimism at Global AI Summit, Local Versus Cloud"): four or more capitalised
    # clauses of two words or more; a sentence's commas ("…, the national camp, led by …") open
    # lower-case clauses. A clause opening with a name written with a capital inside ("xAI Joins
    # SpaceX", "iOS 26 Ships") is capitalised too: W07's issue naming xAI counted three of four
    # and was glued to a Chinese interview of Musk.
    clauses = [c for c in re.split(r",\s+", head) if len(c.split()) >= 2 and _capitalised(c.split()[0])]
    return len(parts) >= 3 or len(clauses) >= 4 or len({model_family(a) for a in model_anchors(head)}) >= 3


def one_voice(head: str) -> bool:
    """A headline that gives one speaker's or one conversation's words: its clauses are what was said
    or talked about, not several items. Before its colon, an interview or a person's role ("深度｜Claude
    Code创造者：面向六个月后模型开发…；未来人人皆可开发软件…", W09: one interview, not a list), or the
    claims after it in quotation marks; or a podcast episode naming its guests at the end ("Bitter
    Lessons …: Anthropic vs OpenAI, Noam Shazeer, World Labs, … — Martin Casado & Sarah Wang of a16z",
    the topics of one conversation)."""
    who, colon, said = re.split(r"([：:])", head, maxsplit=1) if re.search(r"[：:]", head) else (head, "", "")
    if colon and (_INTERVIEW.search(who) or _SPEAKER.search(who) or _QUOTE.match(said.lstrip())):
        return True
    return bool(_GUESTS.search(head))


def _capitalised(word: str) -> bool:
    """A word that opens a title-case clause: capitalised, or a name with a capital inside (xAI, iOS,
    and "3D" or "2D": The Batch's "…, Apple's Deal with Google, 3D Generation Pronto")."""
    return word[:1].isupper() or (word[:1].isalnum() and any(ch.isupper() for ch in word[1:]))


class TermWindow:
    """Document frequency of terms over the items in the open window: the rarity of a word now."""

    def __init__(self):
        self.df: Counter = Counter()
        self.n = 0

    def add(self, words: frozenset[str]) -> None:
        self.n += 1
        self.df.update(words)

    def remove(self, words: frozenset[str]) -> None:
        self.n -= 1
        self.df.subtract(words)
        for w in words:
            if self.df[w] <= 0:
                del self.df[w]

    def idf(self, word: str) -> float:
        # +1 for the item being placed, which is not in the window yet
        return math.log((self.n + 2) / (self.df.get(word, 0) + 1))

    def weights(self, words: frozenset[str]) -> dict[str, float]:
        return {w: self.idf(w) for w in words}

    @staticmethod
    def similarity(weights: dict[str, float], event_terms: Counter, event_size: int) -> tuple[float, list[str]]:
        """Share of the item's rarity (IDF mass, from `weights`) that the event carries, each word
        counted by the share of the event's members that use it: close to the event as a whole,
        not to one bridge member."""
        shared = [w for w in weights if w in event_terms]
        total = sum(weights.values())
        if not shared or not total:
            return 0.0, []
        shared.sort(key=lambda w: (-weights[w], w))
        return sum(weights[w] * event_terms[w] / event_size for w in shared) / total, shared


# --- names: what a follow-up must share with what it follows --------------------------------

# Words that alone thread no story: the big companies, their model families and the people in
# every week's news (companies.toml's `family`). "Claude" names Claude's constitution and Claude
# Code's remote control alike; a name made only of these and common words ("Claude Code", "OpenAI
# Codex") is no better.
_COMPANIES = lexicon.table("companies")
FAMILY = frozenset(_COMPANIES["family_words"]).union(*(c.get("family", ()) for c in _COMPANIES["company"]))
# Common English words a headline capitalises ("How", "First", "New"): no name alone or together.
_COMMON = lexicon.words("common-words")
_STOPLISTS = ("English", "German", "French", "Spanish", "Italian", "Portuguese", "Dutch")
_common_words: frozenset[str] | None = None


def _is_common(word: str) -> bool:
    """A common word (lowercase): ours above, or in the stoplist of a language the sources write
    in (justext's, which trafilatura brings: "War", "System", German "Wie" open headlines too)."""
    global _common_words
    if _common_words is None:
        import justext

        _common_words = _COMMON.union(*(justext.get_stoplist(lang) for lang in _STOPLISTS))
    return word in _common_words


_LATIN_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:['’][a-z]+)?(?![A-Za-z0-9\u00c0-\u024f])")  # not "K" of "Körber"
_PERSON_TAGS = {"nr", "nrt", "nrfg"}  # jieba: a person's (or a brand's) name
_NOUN_TAGS = {"nz", "nt"}  # jieba: an organisation or other proper noun, which is a name when it is rare ("论文" is nz)


def _frequency(word: str) -> int:
    """How often jieba's dictionary has the word (0: it does not know it)."""
    return dictionary(word)[0]


def _proper_cjk(text: str) -> list[str]:
    """Chinese proper nouns: words jieba's dictionary tags as a person's or (when rare) an
    organisation's name, and words it does not know (灵波, 即梦)."""
    out = []
    for word in _cut(text):
        if len(word) >= 2 and all(_CJK.match(ch) for ch in word) and word not in _STOP:
            freq, flag = dictionary(word)  # the dictionary's tags: a look-up, not the slower tagger
            if flag in _PERSON_TAGS or not freq or (flag in _NOUN_TAGS and freq < 300):
                out.append(word)
    return out


_SENTENCE_END = re.compile(r"[.!?。！？:：|｜\n]\s*$")


def _latin_names(text: str) -> dict[str, str]:
    """Capitalised Latin words (OpenClaw, Moltbook) and runs of them (Nano Banana, Agentic
    Engineering Patterns, Department of War, and each two or three adjacent words of a run, none
    at either end a common word) -> how the text writes them. A plain word opening a sentence in a
    Latin-script language is capitalised by grammar, not as a name ("Statement on ...", "Wie wir
    ..."): it stands in runs only."""
    out: dict[str, str] = {}
    run: list[str] = []
    opens: list[bool] = []  # each word of the run: does it open a sentence
    end = 0
    # A Title Case headline ("The Batch: Robots Supervise Robots, Bad Labels Plague Datasets")
    # capitalises by style: none of its plain words is a name alone, as if each opened a sentence.
    head = text.split("\n", 1)[0]
    long_words = re.findall(r"(?<![A-Za-z])[A-Za-z]{4,}", head)
    title_case = len(long_words) >= 4 and sum(w[0].isupper() for w in long_words) >= 0.75 * len(long_words)

    def flush():
        while run and run[-1] == "of":
            run.pop()
            opens.pop()
        for w, first in zip(run, opens):
            if w != "of" and not _is_common(w.lower()) and not (first and not _CAMEL.match(w)):
                out.setdefault(w.lower(), w)
        for n in (2, 3):
            for i in range(len(run) - n + 1):
                gram = run[i : i + n]
                if not any(_is_common(w.lower()) or w == "of" for w in (gram[0], gram[-1])):
                    out.setdefault(" ".join(gram).lower(), " ".join(gram))
        run.clear()
        opens.clear()

    for m in _LATIN_TOKEN.finditer(text):
        word = re.sub(r"['’][a-z]+$", "", m.group(0))
        if len(word) < 2:
            flush()
            end = m.end()
            continue
        capital = word[0].isupper() or any(ch.isupper() for ch in word[1:])
        gap = text[end : m.start()]
        if word == "of" and run and gap == " ":
            run.append(word)  # Department of War, Bank of America: the run goes on
            opens.append(False)
            end = m.end()
            continue
        if any(ch.isdigit() for ch in word) or not capital or word.lower() in _STOP:
            flush()
            end = m.end()
            continue
        if run and gap != " ":
            flush()
        # Opening a sentence that goes on in Latin script ("Statement on"): "Moltbook底裤被扒了" is a name
        latin_goes_on = bool(re.match(r"\s+[A-Za-z]", text[m.end() :]))
        opens.append(
            (title_case and m.start() < len(head))
            or (not run and latin_goes_on and (m.start() == 0 or bool(_SENTENCE_END.search(text[: m.start()]))))
        )
        run.append(word)
        end = m.end()
    flush()
    return out


def names(text: str) -> dict[str, str]:
    """The names a text uses, each -> its written form: versioned releases ("v:gpt-5.4", anchors.py's
    family, version and variant: GPT-5.3 Codex is not GPT-5.3), capitalised Latin words and runs
    of them, Chinese proper nouns.
    Common words and family words (FAMILY) are kept: the story linker decides what they may do."""
    out: dict[str, str] = {}
    for span, anchor in sorted(_models_spans(text)):
        out.setdefault("v:" + anchor[len("model:") :], text[span[0] : span[1]])
    out.update({k: v for k, v in _latin_names(text).items() if k not in out})
    for word in _proper_cjk(text):
        out.setdefault(word, word)
    return out


def _models_spans(text: str):
    from newsdesk.cluster.anchors import _models

    return _models(text)


_ACRONYM = re.compile(r"^[A-Z]{2,5}s?$")  # API, CLI, VLA, ICLR: a term or a venue, in many stories
_CAMEL = re.compile(r"^[A-Za-z][a-z0-9]*[A-Z]")  # OpenClaw, WorldArena, xAI: written as no English word is


def is_weak(name: str, written: str, lowercase: Collection[str] = frozenset()) -> bool:
    """A name that threads a story only beside another: a person's name alone (two talks of one
    person are two stories), an acronym, a single word the look-back also writes in lowercase
    (`lowercase`: "Rust", "Token", "Skills" are words before they are names), a two-character
    Chinese word jieba does not know (爆火, 算力 are slang as often as names)."""
    if name.startswith("v:") or " " in name:
        return False
    if _CJK.match(name):
        return len(name) <= 2 or _frequency(name) > 0
    if _ACRONYM.match(written):
        return True
    return not _CAMEL.match(written) and name in lowercase


def is_named(name: str, written: str) -> bool:
    """A name by its form alone: a release, two words or more, or capitals inside a word (OpenClaw)."""
    return name.startswith("v:") or " " in name or bool(_CAMEL.match(written) and not _ACRONYM.match(written))


def is_family(name: str) -> bool:
    """A name that alone threads no story: a family word, or a run of family and common words."""
    if name.startswith("v:"):
        return False
    return all(w in FAMILY or w in _STOP or _is_common(w) for w in name.split())
