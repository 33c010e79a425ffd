"""Sentences, terms and numbers of the material: what the extractive writers choose from.

A sentence is only ever taken whole: it ends in its own closing punctuation, is not cut off
by a feed ("…", "[…]", "..."), and is not page furniture ("The post … appeared first on",
"点击阅读原文"). Terms are jieba tokens (it keeps Latin words whole), so one tokenizer serves
Chinese and English material alike.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from functools import cache

from newsdesk.write.check import extract_numbers

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
# A sentence ends at 。！？!? (with any closing quote or bracket), or at a full stop followed by a
# space or the end: "3.7" and "gpt-4.5" stay whole.
_SENTENCE = re.compile(r".+?(?:[。！？!?]+[”」』\"')）]*|\.[”\"')]*(?=\s|$)|$)", re.S)
_CUT = re.compile(r"(?:…|\.\.\.|\[…\]|\[\.\.\.\]|……)\s*[”\"')）]*$")
_BOILERPLATE = re.compile(
    r"appeared first on|read more|continue reading|click here|subscribe|sign up|newsletter|cookie|"
    r"all rights reserved|©|copyright|the post .* appeared|follow us|"
    r"点击|阅读原文|原文链接|关注我们|扫码|转载|版权|免责声明|责任编辑|本文来自|来源：|编辑：|作者：",
    re.I,
)
_QUOTE_CHARS = re.compile(r"[“”「」『』\"]")
_OPEN_CLOSE = (("(", ")"), ("（", "）"), ("[", "]"), ("【", "】"), ("《", "》"))


def is_cjk(text: str) -> bool:
    """Mostly Chinese (or Japanese) text: at least a fifth of its letters are CJK characters."""
    letters = [c for c in text if c.isalpha()]
    return bool(letters) and len(_CJK.findall(text)) * 5 >= len(letters)


def sentences(text: str) -> list[str]:
    """The sentences of a text, in order, each stripped; line breaks always end a sentence."""
    out = []
    for para in re.split(r"\s*\n\s*", text or ""):
        para = re.sub(r"\s+", " ", para).strip()
        out += [s.strip() for s in _SENTENCE.findall(para) if s.strip()]
    return out


def is_complete(sentence: str) -> bool:
    """A whole sentence a reader can take in: closed, not cut off, no page furniture, balanced."""
    s = sentence.strip()
    if not s or _CUT.search(s) or _BOILERPLATE.search(s) or "http" in s:
        return False
    if not re.search(r"[。！？!?.][”」』\"')）]*$", s):
        return False
    if any(s.count(a) != s.count(b) for a, b in _OPEN_CLOSE):
        return False
    return len(_QUOTE_CHARS.findall(s)) % 2 == 0


def length(sentence: str) -> int:
    """Words for Latin text, characters / 2 for Chinese: one scale for both."""
    cjk = len(_CJK.findall(sentence))
    return cjk // 2 + len(re.findall(r"[A-Za-z0-9]+", sentence))


def has_quotes(sentence: str) -> bool:
    return bool(_QUOTE_CHARS.search(sentence))


def join(parts: list[str]) -> str:
    """Sentences run together as one paragraph: Chinese ones touch, others take a space."""
    out = ""
    for p in parts:
        out += p if not out or is_cjk(p) and is_cjk(out[-1:] + p[:1]) else " " + p
    return out


def numbers(text: str) -> list[str]:
    """The numbers a text states, as written (the checker's reading of numbers), without repeats."""
    return list(dict.fromkeys(n.text for n in extract_numbers(text, words=False)))


def key_numbers(text: str) -> list[str]:
    """The figures worth listing: amounts, percentages, multiples, decimals and counts of 100 or
    more; a bare small integer ("3 月", "16:30", "day 1") and a version after a name
    ("Claude 3.7", "Apache 2.0") are left out."""
    out = []
    for n in extract_numbers(text, words=False):
        if n.kind == "plain" and not n.scaled:
            version = re.search(r"[A-Za-z]\s?$", text[: n.start])
            if n.value < 100 and ("." not in n.text or version):
                continue
        out.append(n.text)
    return list(dict.fromkeys(out))


# --- terms -----------------------------------------------------------------------------

_STOP = frozenset("""
a an the and or but if then so of to in on at by for with from as is are was were be been being it its this that
these those there here we you they he she i me my our your their his her them us do does did done have has had not
no yes yeah okay ok um uh mm hmm oh well just like really very also too can could would should will shall may might
must what which who whom whose when where why how all any some each more most other such only own same than into
about over after before again further once up down out off under above just don't it's that's i'm we're you're
they're there's let's gonna wanna kind sort thing things lot bit gets get got going go say said says think know
mean right one two new see now thanks thank want need make look use used much many good great sure
maybe actually something anything everything way still even back question whether let
的 了 和 是 在 也 就 都 而 及 与 或 一个 我们 你们 他们 这个 那个 这些 那些 什么 怎么 因为 所以 但是 然后 还是 就是 可以
没有 已经 如果 这样 那样 一些 自己 觉得 其实 可能 比较 非常 现在 这种 那种 对于 以及 通过 进行 目前 表示 今天 本周
""".split())


@cache
def _jieba():
    import logging

    import jieba

    jieba.setLogLevel(logging.WARNING)
    return jieba


def terms(text: str) -> list[str]:
    """Content words in order: jieba tokens, Latin lower-cased, function words and bare numbers out."""
    out = []
    for tok in _jieba().lcut(text or ""):
        tok = tok.strip()
        if not tok or not re.search(r"[^\W\d_]", tok):
            continue
        low = tok.lower()
        short = len(tok) < 2 if _CJK.search(tok) else len(tok) < 3 and not (tok.isupper() and len(tok) == 2)
        if low in _STOP or short:
            continue
        out.append(low)
    return out


def salient_terms(docs: list[list[str]]) -> list[dict[str, float]]:
    """tf-idf of each document's terms against the others: what sets each one apart."""
    df = Counter(t for d in docs for t in set(d))
    n = len(docs)
    out = []
    for d in docs:
        tf = Counter(d)
        out.append({t: (1 + math.log(c)) * math.log((1 + n) / (1 + df[t])) for t, c in tf.items()})
    return out


def shingles(text: str, n: int = 5) -> set[str]:
    """Character n-grams of the letters and digits, lower-cased."""
    s = re.sub(r"[\W_]+", "", text.lower())
    return {s[i : i + n] for i in range(max(len(s) - n + 1, 1))}


def near_duplicate(a: set[str], b: set[str]) -> bool:
    """Most of the shorter text's n-grams are in the other (the checker's test for a repeat)."""
    return len(a & b) >= 0.5 * max(1, min(len(a), len(b)))
