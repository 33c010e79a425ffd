"""Exact anchors: facts that read the same in every language.

An embedding says two texts are *about* the same thing; an anchor says they name the
same thing. Versioned product names (GPT-5.5, Qwen3-Coder, Claude 3.7 Sonnet,
DeepSeek-R1), arXiv ids, links and amounts of money are written identically (or
convertibly: 250 亿美元 = $25B) in Chinese and English, so a shared rare anchor is
strong evidence of one event, and two different versions of one product family
(GPT-4.5 vs GPT-4o) are strong evidence of two.

Anchors are plain strings with a kind prefix: ``model:gpt-5.5``, ``arxiv:2501.01234``,
``url:example.com/post``, ``money:2.5e10``, ``num:174``.
"""

from __future__ import annotations

import re

from newsdesk.text import lexicon

# A product family followed by a version: "GPT-5.5", "GPT 4o", "Qwen3-Coder", "Claude 3.7 Sonnet",
# "DeepSeek-R1", "Llama-3.1-70B", "Gemini 2.5 Pro", "Seed2.0", "V4".  The family is a Latin word
# of 2+ letters; the version starts with a digit, or with v/r/o/k + digit (R1, V3, o3).
_MODEL = re.compile(
    r"(?<![A-Za-z0-9])"
    r"(?P<family>[A-Za-z][A-Za-z]+)"  # GPT, Claude, Qwen, Opus
    r"[ \-_]?"
    r"(?P<version>(?:[vVrRoOkK])?\d+(?:\.\d+)*[a-zA-Z]?)"  # 5.5, 4o, 3.7, R1, V3.2
    r"(?P<variant>(?:[ \-](?:coder|max|mini|nano|pro|flash|turbo|sonnet|opus|haiku|instruct|vl|omni|plus|lite|ultra|codex|thinking))*)"
    r"(?![A-Za-z0-9.])",
    re.IGNORECASE,
)
# Words that look like "family + number" but are units, dates or ordinals, not products.
_NOT_FAMILY = lexicon.words("not-family")
_ARXIV = re.compile(r"(?:arxiv[:/ ]|abs/|pdf/)(\d{4}\.\d{4,5})(?:v\d+)?", re.IGNORECASE)
_ARXIV_BARE = re.compile(r"(?<![\d.])(\d{4}\.\d{5})(?:v\d+)?(?![\d.])")
_URL = re.compile(r"https?://[^\s<>\"'）)\]]+", re.IGNORECASE)

# Money: "$25B", "$1.03 billion", "25 billion dollars", "250 亿美元", "10 亿元", "5000 万美元".
_SCALE_EN = {
    "k": 1e3,
    "thousand": 1e3,
    "m": 1e6,
    "mn": 1e6,
    "million": 1e6,
    "b": 1e9,
    "bn": 1e9,
    "billion": 1e9,
    "t": 1e12,
    "tn": 1e12,
    "trillion": 1e12,
}
_SCALE_ZH = {
    "万": 1e4,
    "十万": 1e5,
    "百万": 1e6,
    "千万": 1e7,
    "亿": 1e8,
    "十亿": 1e9,
    "百亿": 1e10,
    "千亿": 1e11,
    "万亿": 1e12,
}
_NUM = r"(\d+(?:,\d{3})*(?:\.\d+)?)"
_MONEY_DOLLAR = re.compile(
    _NUM.join([r"(?:US)?\$\s?", r"\s?(k|m|mn|b|bn|t|tn|thousand|million|billion|trillion)?\b"]), re.IGNORECASE
)
_MONEY_EN = re.compile(_NUM + r"\s?(thousand|million|billion|trillion)\s(?:US\s)?(?:dollars|usd)", re.IGNORECASE)
_MONEY_ZH = re.compile(_NUM + r"\s?(万亿|千亿|百亿|十亿|亿|千万|百万|十万|万)?\s?(美元|美金|元|人民币|欧元|英镑)")
MONEY_PATTERNS = (_MONEY_DOLLAR, _MONEY_EN, _MONEY_ZH)  # an amount of money; group 1 is its number
# Other counted things: "174人", "182 people", "30%", "70B" parameters.
_COUNT = re.compile(r"(?<![\d.\-])(\d{2,}(?:,\d{3})*(?:\.\d+)?)(?![\d.])\s?(%|％|人|people|percent)?")
_YEAR = re.compile(r"^(19|20)\d\d$")


def _family(raw: str) -> str:
    return re.sub(r"[\s\-_]+", "", raw.lower())


def _models(text: str):
    """(span, anchor) for each versioned product name in the text."""
    for m in _MODEL.finditer(text):
        family, version = m.group("family"), m.group("version").lower()
        fam = family.lower()
        if fam in _NOT_FAMILY:
            continue
        if text[m.start("family") + len(family)] == " " and not family[0].isupper():
            continue  # "least 38", "kills 61": a lowercase word then a number is prose, not a product
        if text[m.start("family") + len(family)] == " " and version.isdigit() and len(version) > 1:
            continue  # "Kills 61", "Top 10"; a spaced version is short ("Gemini 3", "GPT 5.4")
        if _YEAR.match(version) or (version.isdigit() and len(version) >= 3):
            continue  # "ICLR 2026", "least 182": a year or a count, not a version
        variant = _family(m.group("variant") or "")
        yield m.span(), f"model:{fam}-{version}" + (f"-{variant}" if variant else "")


def model_anchors(text: str) -> set[str]:
    """Versioned product names as ``model:family-version[-variant]`` (lowercase, no spaces)."""
    return {anchor for _, anchor in _models(text)}


def subjects(text: str) -> frozenset[str]:
    """The releases a text is about: versioned names that its headline and its summary both name.

    A headline can name a release in passing ("GPT-5.4 costs $80 per hi; read Google's paper"),
    but a summary that names it again says the piece is about it. One of the two may name only
    the product ("Testing Kimi's new model" over a summary on Kimi K2.5). A headline alone
    stands for itself.
    """
    head, _, rest = text.partition("\n")
    if not rest.strip():
        return frozenset(model_anchors(head))

    def words(part: str) -> set[str]:
        return {w.lower() for w in re.findall(r"[A-Za-z]{2,}", part)}

    found = set()
    for part, other in ((head, rest), (rest, head)):
        theirs = model_anchors(other)
        for x in model_anchors(part):
            family = model_family(x)
            versions = [y for y in theirs if model_family(y) == family]
            # The other part names this release, or the product bare; not another of its versions
            # ("beats GPT-5.2" over a summary on GPT-5.3 is not about GPT-5.2).
            if any(same_release(x, y) for y in versions) or (not versions and family in words(other)):
                found.add(x)
    return frozenset(found)


def _number(raw: str) -> float:
    return float(raw.replace(",", ""))


def _round(value: float) -> str:
    return f"{float(f'{value:.2g}'):.2e}"  # two significant digits: $1.03B ~ 10.3 亿美元


def number_anchors(text: str) -> set[str]:
    found = set()
    # Digits inside links, arXiv ids and version numbers are not counts.
    spans = [m.span() for rx in (_URL, _ARXIV, _ARXIV_BARE) for m in rx.finditer(text)]
    spans += [span for span, _ in _models(text)]
    for m in _MONEY_DOLLAR.finditer(text):
        value = _number(m.group(1)) * _SCALE_EN.get((m.group(2) or "").lower(), 1.0)
        found.add(f"money:{_round(value)}")
        spans.append(m.span())
    for m in _MONEY_EN.finditer(text):
        found.add(f"money:{_round(_number(m.group(1)) * _SCALE_EN[m.group(2).lower()])}")
        spans.append(m.span())
    for m in _MONEY_ZH.finditer(text):
        found.add(f"money:{_round(_number(m.group(1)) * _SCALE_ZH.get(m.group(2) or '', 1.0))}")
        spans.append(m.span())
    for m in _COUNT.finditer(text):
        if any(a <= m.start() < b for a, b in spans):
            continue
        raw = m.group(1)
        if _YEAR.match(raw) and not m.group(2):
            continue  # a bare year is in half the stories of its year
        unit = "%" if m.group(2) in ("%", "％", "percent") else ""
        found.add(f"num:{_number(raw):g}{unit}")
    return found


def link_anchors(text: str) -> set[str]:
    found = {f"arxiv:{m.group(1)}" for m in _ARXIV.finditer(text)}
    found |= {f"arxiv:{m.group(1)}" for m in _ARXIV_BARE.finditer(text)}
    for m in _URL.finditer(text):
        url = m.group(0).rstrip(".,;:!?。，")
        found.add("url:" + re.sub(r"^https?://(www\.)?", "", url.lower()).rstrip("/"))
    return found


def extract_anchors(text: str) -> set[str]:
    """Every anchor in a text (title + summary)."""
    return model_anchors(text) | number_anchors(text) | link_anchors(text)


# How much one shared anchor is worth, by kind, before dividing by how many open events hold it.
ANCHOR_WEIGHT = {"model": 0.15, "arxiv": 0.25, "url": 0.25, "money": 0.12, "num": 0.05}


def anchor_kind(anchor: str) -> str:
    return anchor.split(":", 1)[0]


def model_family(anchor: str) -> str:
    return anchor[len("model:") :].split("-", 1)[0]


def version_conflict(a: set[str], b: set[str]) -> tuple[str, str] | None:
    """Two versions of one family and no versioned name in common: e.g. GPT-4.5 vs GPT-4o.

    A shared versioned name means the texts meet on one product even if one also mentions a
    rival version ("Opus 4.6 beats GPT-5.2"), so that is not a conflict.
    """
    ma = {x for x in a if x.startswith("model:")}
    mb = {x for x in b if x.startswith("model:")}
    if not ma or not mb or _compatible(ma, mb):
        return None
    fams_b: dict[str, str] = {model_family(x): x for x in sorted(mb)}
    for x in sorted(ma):
        y = fams_b.get(model_family(x))
        if y is not None:
            return x, y
    return None


def same_release(x: str, y: str) -> bool:
    """One versioned name at different precision: "gpt-5.4" and "gpt-5.4-thinking", "qwen3" and "qwen3-coder"."""
    return x == y or x.startswith(y + "-") or y.startswith(x + "-")


def _compatible(ma: set[str], mb: set[str]) -> bool:
    return any(same_release(x, y) for x in ma for y in mb)
