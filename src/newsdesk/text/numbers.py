"""Numbers in text, as values: 1万亿 = 1 trillion = 1e12, 82.7% = 82.7 percent, 8000 = 8,000, a scale
or currency changes the value; digits that are part of a name (GPT-5.5, H100, v2.1) are not numbers.

The checker (check/) compares an output's numbers with its material's; the extractive writers pick
sentences by the numbers they carry. Also the two normalizations both use: NFKC and "squashed" text.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from newsdesk.text import lexicon

# --- normalization --------------------------------------------------------------------


def nfkc(text: str) -> str:
    # Full-width digits, ％ and letters become ASCII; curly quotes are kept (they carry meaning here).
    return unicodedata.normalize("NFKC", text)


URL = re.compile(r"https?://\S+")
PUNCT_SPACE = re.compile(r"[\s\W_]+", re.U)


def squash(text: str) -> str:
    """Lowercase, no spaces or punctuation: 'Claude Code' = 'claude-code' = 'ClaudeCode'."""
    return PUNCT_SPACE.sub("", nfkc(text).lower())


# --- numbers --------------------------------------------------------------------------

_CN_DIGITS = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_CN_SMALL = {"十": 10, "百": 100, "千": 1000}
_CN_BIG = {"万": 10**4, "亿": 10**8}
_NUMBER_WORDS = lexicon.table("numbers")  # scale words, currencies, English number words
_SCALES: dict[str, float] = _NUMBER_WORDS["scales"]
_CURRENCY_WORDS: dict[str, str] = _NUMBER_WORDS["currencies"]
_PERCENT_WORDS = ("%", "percent", "per cent", "pct", "个百分点", "百分点", "percentage points", "percentage point")
_EN_WORDS: dict[str, int] = _NUMBER_WORDS["english"]
MONTHS = {
    m: i + 1
    for i, m in enumerate(
        [
            "january",
            "february",
            "march",
            "april",
            "may",
            "june",
            "july",
            "august",
            "september",
            "october",
            "november",
            "december",
        ]
    )
}
MONTHS.update({m[:3]: v for m, v in list(MONTHS.items())})
MONTHS["sept"] = 9

_SCALE_ALT = "|".join(sorted((re.escape(s) for s in _SCALES), key=len, reverse=True))
_CUR_ALT = "|".join(
    sorted((re.escape(c) for c in _CURRENCY_WORDS if c not in ("$", "€", "£", "us$")), key=len, reverse=True)
)
_PCT_ALT = "|".join(sorted((re.escape(p) for p in _PERCENT_WORDS), key=len, reverse=True))

_DIGIT_NUM = re.compile(
    rf"(?P<cur>US\$|[$€£¥])?\s?"
    rf"(?P<num>\d{{1,3}}(?:,\d{{3}})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    rf"(?:\s?(?P<scale>{_SCALE_ALT})(?![a-z]))?"
    rf"(?:\s?(?P<pct>{_PCT_ALT}))?"
    rf"(?:\s?(?P<cur2>{_CUR_ALT})(?![a-z]))?",
    re.I,
)
_CN_NUM = re.compile(r"(?<![第数几])[零〇一二两三四五六七八九十][零〇一二两三四五六七八九十百千万亿]+(?![分])")
_EN_NUM = re.compile(
    r"\b("
    + "|".join(sorted(_EN_WORDS, key=len, reverse=True))
    + r")(?:[\s-]("
    + "|".join(sorted(_EN_WORDS, key=len, reverse=True))
    + r"))?\b(?:\s(trillion|billion|million|thousand))?",
    re.I,
)
YEAR = re.compile(r"^(19|20)\d\d$")


@dataclass(frozen=True)
class Number:
    text: str  # as written in the output
    value: float  # with its scale applied
    mantissa: float  # as written, before the scale
    scaled: bool
    kind: str  # plain | percent | times | usd | cny | eur | gbp | jpy
    start: int


def _cn_value(s: str) -> float | None:
    total, section, digit = 0, 0, 0
    for ch in s:
        if ch in _CN_DIGITS:
            digit = _CN_DIGITS[ch]
        elif ch in _CN_SMALL:
            section += (digit or 1) * _CN_SMALL[ch]
            digit = 0
        elif ch in _CN_BIG:
            section += digit
            if _CN_BIG[ch] == 10**8:
                total = (total + section) * 10**8
            else:
                total += section * 10**4
            section, digit = 0, 0
        else:
            return None
    return float(total + section + digit)


def _attached_to_word(text: str, start: int, end: int) -> bool:
    """Digits that are part of a name (GPT-5.5, H100, pass@4, v2.1, 7B, Q4_K_M) are names, not numbers."""
    before = text[start - 1] if start > 0 else ""
    before2 = text[start - 2] if start > 1 else ""
    after = text[end] if end < len(text) else ""
    if before and (before.isascii() and before.isalpha() or before in "@_/.#"):
        return True
    if before in "-" and before2.isascii() and before2.isalpha():
        return True
    if after and after.isascii() and after.isalpha():
        # 70th, 21st are ordinals (numbers); 7B, 5x, 100B are names or multipliers.
        return not re.match(r"(st|nd|rd|th)\b", text[end : end + 3], re.I)
    if after == "." and end + 1 < len(text) and text[end + 1].isascii() and text[end + 1].isalnum():
        return True  # version strings like 2.1.116
    return False


_THOUSANDS_GAP = re.compile(r"(\d),\s(\d{3})\b")  # "£50, 000" (tokenized text) is 50,000
_AMPM = re.compile(r"(\d)(am|pm|a\.m\.|p\.m\.)", re.I)
CLOCK = re.compile(r"\b(\d{1,2})[:.](\d{2})\s?(?:am|pm|a\.m\.|p\.m\.)", re.I)


def prepare(text: str) -> str:
    text = URL.sub(" ", nfkc(text))
    return _AMPM.sub(r"\1 \2", _THOUSANDS_GAP.sub(r"\1,\2", text))


def extract_numbers(text: str, *, words: bool = True) -> list[Number]:
    text = prepare(text)
    out: list[Number] = []
    taken: list[tuple[int, int]] = []
    for m in _DIGIT_NUM.finditer(text):
        ns, ne = m.span("num")
        has_unit = bool(m.group("scale") or m.group("pct") or m.group("cur2") or m.group("cur"))
        if not has_unit and _attached_to_word(text, ns, ne):
            continue
        if text[ns - 1 : ns] == "." or (ns > 0 and text[ns - 1].isdigit()):
            continue
        raw = float(m.group("num").replace(",", ""))
        scale_word = (m.group("scale") or "").lower()
        # A lone "m"/"k" after a number is a unit (m = metres) unless money is involved.
        if scale_word in ("m", "k") and not (m.group("cur") or m.group("cur2")):
            scale_word = ""
        scale = _SCALES.get(scale_word, 1.0) if scale_word else 1.0
        kind = "plain"
        if m.group("pct"):
            kind = "percent"
        cur = (m.group("cur") or m.group("cur2") or "").lower()
        if cur:
            kind = "cny" if cur == "¥" else _CURRENCY_WORDS.get(cur, "plain")
        end = m.end() if (scale_word or m.group("pct") or m.group("cur2")) else ne
        tail = text[end : end + 2].lstrip()
        if kind == "plain" and (tail.startswith("倍") or tail.startswith("×") or tail.startswith("x ")):
            kind = "times"
        out.append(Number(text[m.start() : end].strip(), raw * scale, raw, bool(scale_word), kind, m.start()))
        taken.append((m.start(), end))
    for m in _CN_NUM.finditer(text):
        v = _cn_value(m.group(0))
        if v is None or v < 10 or any(a <= m.start() < b for a, b in taken):
            continue
        tail = text[m.end() : m.end() + 2]
        kind = (
            "usd"
            if tail.startswith("美元")
            else "cny"
            if tail.startswith("元")
            else "percent"
            if tail.startswith("%")
            else "plain"
        )
        out.append(Number(m.group(0), v, v, any(c in m.group(0) for c in "万亿"), kind, m.start()))
    if words:
        for m in _EN_NUM.finditer(text):
            a, b, scale_word = (m.group(1) or "").lower(), (m.group(2) or "").lower(), (m.group(3) or "").lower()
            if a in ("hundred", "thousand", "million", "billion"):
                continue  # "thousands of", "a million" without a count: not a claim about a value
            v = float(_EN_WORDS[a])
            if b:
                bv = _EN_WORDS[b]
                v = v * bv if bv >= 100 else v + bv
            if scale_word:
                v *= _SCALES[scale_word]
            out.append(Number(m.group(0), v, v, bool(scale_word), "plain", m.start()))
    return out
