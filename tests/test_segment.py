"""newsdesk.text.segment: the same words as jieba, from the faster backend where it agrees."""

from __future__ import annotations

import logging

import jieba
import jieba.posseg

from newsdesk.text import segment

jieba.setLogLevel(logging.WARNING)

TEXTS = [
    "ICLR 2026 Oral成果，将语音情感识别重定义为‘多模态证据驱动的推理’",
    "All-in 底层技术的公司完成 A轮 融资，C++ 重写为 Rust",  # Latin runs jieba's HMM path splits
    "Fal.ai 爆炸式增长，英伟达业绩超预期",
    "",
]


def test_words_are_jiebas_in_every_mode():
    for text in TEXTS:
        assert segment.words(text) == jieba.lcut(text)
        assert segment.words(text, hmm=False) == jieba.lcut(text, HMM=False)
        assert segment.words(text, hmm=False, search=True) == list(jieba.cut_for_search(text, HMM=False))


def test_dictionary_is_jiebas_frequency_and_tag():
    jieba.initialize()
    for word in ("论文", "英伟达", "灵波", "模型", "的"):
        assert segment.dictionary(word) == (jieba.dt.FREQ.get(word) or 0, jieba.posseg.dt.word_tag_tab.get(word, ""))


def test_tags_are_posseg():
    text = TEXTS[2]
    assert segment.tagged(text) == [(w.word, w.flag) for w in jieba.posseg.lcut(text)]
