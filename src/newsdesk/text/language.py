"""Which language a text is written in: 'zh', 'en' or 'other', from script counts.

Ingest labels every item with it, and the editions, the site, the web app and the translator ask
it of each part they show (a card part in another language than its edition's is marked). It runs
once per item on ingest's hot path (benchmarks/ingest_throughput.py): compiled regexes over the
first few kilobytes, no model.
"""

from __future__ import annotations

import re

from newsdesk.text import lexicon

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_CJK_PUNCT = re.compile(r"[\u3000-\u303f\uff01-\uff1f\uff5c]")
_KANA = re.compile(r"[\u3040-\u30ff]")
_HANGUL = re.compile(r"[\uac00-\ud7af]")
_LATIN_WORD = re.compile(r"[A-Za-z]+")
_OTHER_LETTER = re.compile(r"[\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff\u0590-\u06ff\u0900-\u0dff\u0e00-\u0e7f]")
_EN_WORDS = lexicon.words("language-en")
_NON_EN_WORDS = lexicon.words("language-other")  # de, fr, es, pt, it, nl
_SAMPLE = 2000


def detect_language(text: str) -> str:
    """'zh', 'en' or 'other' from script counts: cheap, deterministic, good enough for titles."""
    if not text:
        return "other"
    sample = text[:_SAMPLE]
    cjk = len(_CJK.findall(sample))
    kana = len(_KANA.findall(sample))
    hangul = len(_HANGUL.findall(sample))
    if kana and kana * 4 >= cjk:
        return "other"  # Japanese mixes kanji with kana; Chinese never uses kana
    if hangul > 2:
        return "other"
    words = _LATIN_WORD.findall(sample)
    # One Chinese character carries about a word, and Chinese tech prose is full of acronyms and model
    # names ("RL101:从SFT到PPO", "OpenAI 发布 GPT-5"): weigh CJK (with its full-width punctuation)
    # against the Latin words that read as prose, not against every capitalised token.
    if cjk >= 2:
        prose = sum(1 for w in words if not w.isupper())
        if cjk + len(_CJK_PUNCT.findall(sample)) >= prose:
            return "zh"
    if not words:
        return "zh" if cjk else "other"
    if len(_OTHER_LETTER.findall(sample)) * 2 > sum(map(len, words)):
        return "other"
    lowered = [w.lower() for w in words[:300]]
    en = sum(w in _EN_WORDS for w in lowered)
    non_en = sum(w in _NON_EN_WORDS for w in lowered)
    return "other" if non_en > en and non_en >= 2 else "en"
