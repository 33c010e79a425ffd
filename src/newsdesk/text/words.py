"""Chinese words: the one jieba set-up every stage cuts Chinese with.

jieba keeps one tokenizer per process (its default dictionary, loaded on the first cut, about a
second). The clusterer's terms and names, the extractive writers' terms and subjects and the
search index all cut with it, so a word is the same word in each; here it is set up once (quiet:
jieba logs its dictionary build at INFO) and each way they cut is one function. jieba keeps Latin
words whole, so Chinese and English text alike may go through cut().
"""

from __future__ import annotations

import logging
from functools import cache


@cache
def _jieba():
    import jieba

    jieba.setLogLevel(logging.WARNING)
    return jieba


def cut(text: str, hmm: bool = True) -> list[str]:
    """The words of a text, in order (hmm: let jieba guess words its dictionary lacks)."""
    return _jieba().lcut(text, HMM=hmm)


def cut_for_search(text: str, hmm: bool = True) -> list[str]:
    """cut(), and also the shorter dictionary words inside each long one: what an index holds."""
    return _jieba().lcut_for_search(text, HMM=hmm)


def tagged(text: str) -> list[tuple[str, str]]:
    """Each word with its part-of-speech tag (nr a person, ns a place, nt an organisation, nz a proper noun)."""
    _jieba()
    import jieba.posseg

    return [(pair.word, pair.flag) for pair in jieba.posseg.lcut(text)]


def frequency(word: str) -> int:
    """How often jieba's dictionary has the word (0: it does not know it)."""
    dt = _jieba().dt
    dt.check_initialized()
    return dt.FREQ.get(word) or 0


@cache
def _dictionary_tags() -> dict[str, str]:
    _jieba()
    import jieba.posseg

    return jieba.posseg.dt.word_tag_tab


def dictionary_tag(word: str) -> str:
    """The tag jieba's dictionary gives the word ("" if none): a look-up, not the slower tagger."""
    return _dictionary_tags().get(word, "")
