"""Chinese word segmentation: one function, `words`, for every stage that cuts Chinese text.

jieba (pure Python) was set up in four places and was the floor of search indexing, a large part
of the cluster stage and the checker, and loaded its dictionary on the first Chinese search.
rjieba (jieba-rs, the same dictionary and algorithm in Rust) gives the same words 15-18x faster
(benchmarks/segment_equality.py, 1,450 harvest titles and summaries): identical in every text
without HMM and in search mode; with HMM, jieba splits a Latin run holding punctuation ("All-in",
"Fal.ai") where rjieba keeps it whole: such a token is split as jieba's HMM path splits it (a
dictionary word such as "C++" stays whole), and a text with a mixed token ("A轮") is cut by jieba
itself. `words` is then identical to jieba in 1,450 of 1,450 harvest texts, and in every text of
eval/clusters/ai-news-dev.jsonl and the demo pack.

Each backend is loaded once, on first use, by the stage that needs it: a run that cuts nothing
loads nothing. `tagged` (parts of speech) stays on jieba.posseg: rjieba's tags differ in 45% of
texts. `dictionary` reads jieba's own dictionary file, which is what jieba's FREQ and posseg's
tag table are built from, without building jieba's prefix dictionary (1 s).
"""

from __future__ import annotations

import importlib.util
import logging
import re
import threading
from functools import cache
from pathlib import Path

_lock = threading.Lock()  # the web server indexes and searches from several threads


@cache
def _rjieba():
    with _lock:
        import rjieba

        rjieba.cut("预热")  # loads its dictionary now, under the lock
        return rjieba


@cache
def _jieba():
    with _lock:
        import jieba

        jieba.setLogLevel(logging.WARNING)
        jieba.initialize()
        return jieba


# How jieba's HMM path cuts a Latin run it does not know (jieba.finalseg's re_skip).
_LATIN_RUN = re.compile(r"([a-zA-Z0-9]+(?:\.\d+)?%?)")


def _split_differently(word: str) -> bool:
    """A token with an ASCII letter or digit and something else ('All-in', 'Fal.ai', 'C++'):
    jieba's HMM path splits these where rjieba does not."""
    alnum = [ch.isascii() and ch.isalnum() for ch in word]
    return any(alnum) and not all(alnum)


def words(text: str, *, hmm: bool = True, search: bool = False) -> list[str]:
    """The words of `text` as jieba cuts them: accurate mode (`hmm`: guess words the dictionary
    lacks), or with `search` the search-engine mode that also gives the short words inside long
    ones. Latin runs come back whole, spaces as their own tokens, as jieba gives them."""
    if not text:
        return []
    fast = _rjieba()
    if search:
        return fast.cut_for_search(text, hmm) if not hmm else list(_jieba().cut_for_search(text))
    cut = fast.cut(text, hmm)
    if not hmm or not any(_split_differently(w) for w in cut):
        return cut
    out: list[str] = []
    for word in cut:
        if not _split_differently(word) or (word.isascii() and dictionary(word)[0]):
            out.append(word)  # 'C++' is a dictionary word: jieba keeps it whole too
        elif word.isascii():
            out += [part for part in _LATIN_RUN.split(word) if part]  # 'All-in' -> All, -, in as jieba
        else:
            return _jieba().lcut(text)  # a mixed token such as 'A轮': jieba decides
    return out


def tagged(text: str) -> list[tuple[str, str]]:
    """(word, part-of-speech tag) pairs by jieba.posseg (HMM on)."""
    _jieba()
    import jieba.posseg

    return [(w.word, w.flag) for w in jieba.posseg.lcut(text)]


@cache
def _dictionary() -> dict[str, tuple[str, str]]:
    # Where jieba's dictionary file is, without importing jieba (its HMM tables load on import).
    spec = importlib.util.find_spec("jieba")
    assert spec is not None and spec.origin is not None, "jieba is a dependency of newsdesk"
    path = Path(spec.origin).with_name("dict.txt")
    fields = path.read_text("utf-8").split()  # "word freq tag" a line: no word holds a space
    if len(fields) % 3:
        raise ValueError(f"{path}: not 'word frequency tag' on every line; reinstall jieba")
    return dict(zip(fields[0::3], zip(fields[1::3], fields[2::3], strict=True), strict=True))


def dictionary(word: str) -> tuple[int, str]:
    """How often jieba's dictionary has the word (0: it does not know it) and its tag ('' if none)."""
    freq, tag = _dictionary().get(word, ("0", ""))
    return int(freq), tag
