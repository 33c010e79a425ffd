"""Words as evidence: headlines, rare terms and roundups.

An embedding says two texts are about the same kind of thing; it cannot tell one launch from
the next launch of the same company. Words can, when they are rare: a term that few items in
the open window use (a product, a company, a person, a paper's odd phrase) shared by an item
and an event says they name the same thing. Terms are jieba words for Chinese and lowercase
words for English; version numbers are dropped here ("GPT-5.4" gives "gpt"), since anchors.py
keeps versions apart.
"""

from __future__ import annotations

import logging
import math
import re
from collections import Counter

from newsdesk.cluster.anchors import model_anchors, model_family
from newsdesk.cluster.dedup import normalize_text

_CJK = re.compile(r"[\u3400-\u9fff]")
_LATIN = re.compile(r"^[a-z][a-z0-9]{2,}$")  # 3+ characters: "on", "of" and "it" name nothing

# Words that appear in any story and name nothing (the IDF would learn most of them, but a quiet
# window has too few items to learn them well).
_STOP = set(
    [
        "the",
        "and",
        "for",
        "with",
        "from",
        "that",
        "this",
        "what",
        "how",
        "why",
        "who",
        "are",
        "was",
        "were",
        "will",
        "can",
        "has",
        "have",
        "had",
        "its",
        "not",
        "but",
        "you",
        "your",
        "our",
        "their",
        "about",
        "into",
        "over",
        "new",
        "more",
        "most",
        "than",
        "just",
        "all",
        "one",
        "two",
        "use",
        "using",
        "via",
        "after",
        "before",
        "says",
        "said",
        "being",
        "been",
        "when",
        "where",
        "which",
        "while",
        "also",
        "make",
        "makes",
        "made",
        "now",
        "ai",
        "llm",
        "llms",
        "model",
        "models",
        "agent",
        "agents",
        "的",
        "了",
        "和",
        "是",
        "在",
        "与",
        "及",
        "等",
        "对",
        "将",
        "从",
        "为",
        "被",
        "把",
        "让",
        "也",
        "就",
        "都",
        "而",
        "并",
        "更",
        "最",
        "新",
        "一个",
        "我们",
        "他们",
        "你",
        "我",
        "它",
        "这",
        "那",
        "如何",
        "什么",
        "为什么",
        "可以",
        "已经",
        "正在",
        "通过",
        "进行",
        "成为",
        "发布",
        "推出",
        "宣布",
        "首次",
        "全面",
        "重磅",
        "最新",
        "深度",
        "解析",
        "分析",
        "观点",
        "文章",
        "模型",
        "大模型",
        "智能",
        "人工智能",
        "ai",
        "技术",
        "能力",
        "行业",
        "公司",
        "产品",
        "用户",
        "开发者",
        "未来",
        "时代",
        "问题",
        "方式",
        "实现",
        "提升",
        "支持",
        "基于",
        "以及",
        "其中",
        "核心",
        "关键",
        "重要",
        "真正",
        "没有",
        "不是",
        "一场",
        "如果",
        "这个",
        "那个",
        "自己",
        "已经",
        "开始",
        "可能",
        "需要",
        "还是",
        "还有",
        "只是",
        "就是",
        "这些",
        "那些",
    ]
)

# Multi-topic lists: a daily / weekly digest, a year in review, a "latest artifacts" list.
_ROUNDUP = re.compile(
    r"(daily|weekly|this week|import ai \d+|open artifacts|roundup|round-up|digest|newsletter|"
    r"日报|周报|早报|晚报|快讯合集|合集|汇总|综述|盘点|回顾|十大|年度|一周|本周|每日|ai ?hot)",
    re.IGNORECASE,
)

_jieba = None


def _cut(text: str) -> list[str]:
    global _jieba
    if _jieba is None:
        import jieba

        jieba.setLogLevel(logging.WARNING)
        _jieba = jieba
    return _jieba.lcut(text)


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
    """A digest of several unrelated items: named as one, or a headline listing many products.

    The products are counted in the headline only: a piece comparing two rivals' launches names
    three model families in its body ("Claude Opus 4.6 vs GPT-5.3-Codex", "beats GPT-5.2") and is
    no digest.
    """
    head = text.split("\n", 1)[0]
    if _ROUNDUP.search(head):
        return True
    parts = [p for p in re.split(r"[;；|｜]", head) if p.strip()]
    return len(parts) >= 3 or len({model_family(a) for a in model_anchors(head)}) >= 3


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
