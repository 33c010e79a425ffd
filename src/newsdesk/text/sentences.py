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

from newsdesk.text import lexicon
from newsdesk.text.numbers import extract_numbers
from newsdesk.text.segment import tagged, words

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
# A sentence ends at 。！？!? (with any closing quote or bracket), or at a full stop followed by a
# space or the end: "3.7" and "gpt-4.5" stay whole.
_SENTENCE = re.compile(r".+?(?:[。！？!?]+[”」』\"')）]*|\.[”\"')]*(?=\s|$)|$)", re.S)
_CUT = re.compile(r"(?:…|\.\.\.|\[…\]|\[\.\.\.\]|……)\s*[”\"')）]*$")
_BOILERPLATE = re.compile(
    r"appeared first on|read more|continue reading|click here|subscribe|sign up|newsletter|cookie|"
    r"all rights reserved|©|copyright|the post .* appeared|follow us|"
    r"点击|阅读原文|原文链接|关注我们|扫码|转载|版权所有|版权归|版权声明|免责声明|责任编辑|本文来自|来源：|编辑：|作者：",
    re.I,
)
# A sentence about the article rather than the news: "本文…", "深度解读 X", "X 功能详解，涵盖…",
# "报道了…", "this post explores…". Harvest summaries and many feeds open this way; such a sentence
# tells a reader what they could read, not what happened, so it never leads a card.
_ABOUT_ARTICLE_ZH = re.compile(
    # the piece is the subject: "文章指出…", "一篇综述…", "Lenny 的通讯文章探讨了…"
    r"^(?:本文|文章|该文|此文|文中|全文|一文|本期|本篇|这篇|笔者|作者(?!们)|报道了|据此|一篇)"
    r"|(?:文章|本文|论文|帖子|博文|博客|长文|通讯|报道|视频|节目|播客|访谈|内容)中?(?:探讨|分析|指出|认为|介绍|总结|列举|讨论|阐述|梳理|分享|回顾|解释|讲解|演示|说明|涵盖)"
    r"|在(?:访谈|采访|播客|对谈|对话|节目|视频|演讲)中"
    # a subjectless sentence opening on a reader's-guide verb: "深度解析 …", "列举了 …", "警示 …"
    r"|^(?:深度|详细|详尽|系统|全面|简要|简单|重点|首先|主要)?(?:介绍|详解|解读|解析|剖析|分析|探讨|探究|盘点|评测|测评|实测|"
    r"梳理|总结|回顾|复盘|拆解|讲述|阐述|整理|汇总|科普|揭秘|揭示|翻译|记录|聚焦|警示|对比|分享|展示|汇报|讨论|研究了|列举|评析|"
    r"提供了|收录|推荐)(?![师员会])"
    r"|^(?:基于|通过|从|以|结合|借)[^。]{0,60}?(?:探讨|分析|阐述|解读|介绍|展示|揭示|指出|讲述|复盘|拆解|论证|证明|说明)"
    # what the brief's list names wherever it stands: 介绍了 / 报道了 / 探讨 / 盘点 / 详解 / 综述 / 分享了
    r"|介绍了|报道了|探讨|盘点了?|详解|综述|分享了|深度(?:解读|解析|剖析|拆解|复盘)"
    r"|(?:深度解读|深度解析|深度分析|深度复盘|解读|介绍|评测|测评|实测|复盘|指南|教程|详情|集锦|合集)(?:与[^，。；]{1,12})?[，,；：:]"
    r"|(?:深度解读|深度解析|功能介绍|使用体验|实测记录|评测|测评|实战案例|集锦|合集)。$"
    r"|[，,](?:涵盖|重点关注|重点介绍|重点解读|并介绍|并分析)"
    # the writer shares the piece: "Simon 分享其使用 Vibe Coding 开发演示应用的过程。"
    r"|分享(?:其|自己|他的|她的)"
)
# A sentence naming a piece, not a happening: a noun phrase (no predicate before its last "的") whose
# head is a kind of piece: "OpenAI 官方关于 Prompt Caching 的技术原理与实操优化指南。", "Seedance 2.0
# 视频生成工具的9种商用玩法总结及提示词分享。", "一位怀疑论者对 AI Agent 编程能力的实测记录，展示了…".
_PIECE = r"(?:指南|教程|攻略|手册|清单|笔记|合集|集锦|总结|分享|记录|实录|综述|解读|介绍|盘点|科普|复盘|教学)"
_PIECE_PHRASE = re.compile(
    rf"^[^，。；,;]*的[^，。；,;的]{{0,24}}{_PIECE}(?:(?:及|与|和)[^，。；,;的]{{1,12}}{_PIECE})?[，。,]"
)
_PREDICATE = re.compile(r"了|是|已|将|正式|宣布|推出|发布|上线|开源|公布|发表|完成|获得|签署|收购|披露|启动|成立")
_ABOUT_ARTICLE_EN = re.compile(
    r"^(?:this|the|in this|in today's|today's) (?:post|article|piece|essay|episode|video|guide|newsletter|issue|"
    r"write-?up|tutorial|deep dive|report|edition)\b"
    r"|^(?:our|my)(?: new| latest)? (?:post|article|piece|essay|paper|report|guide|newsletter)\b"
    r"|^(?:we|i|let's) (?:\w+ly |further |also |then |now )?(?:explore|look at|take a look|discuss|walk through|dive|"
    r"break down|review|unpack|cover|examine|describe|outline)\b"
    r"|\b(?:explores|a (?:deep )?dive into|a look at|walks? (?:you )?through|an overview of|a round-?up of|"
    r"this week in|we(?:'ll| will) (?:cover|explore|look))\b"
    r"|^(?:learn|discover|find out) (?:how|what|why)\b",
    re.I,
)
# A sales line, not the news: a limited-time price, a discount, a sign-up call (a vendor's post on
# a lab's release: "For a limited time, self serve users enjoy promotional pricing…").
_PROMOTION = re.compile(
    r"\bfor a limited time\b|\bpromotional pricing\b|\bdiscount(?:ed)?\b|\b(?:sign|register) (?:up|now)\b"
    r"|\buse code\b|\bfree trial\b|限时|优惠|折扣|报名|免费领|抢购|邀请码",
    re.I,
)
_BYLINE = re.compile(r"By [A-Z][\w.'-]* [A-Z]")  # "By Ryan Lopopolo, Member of the Technical Staff"
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
    if not s or _CUT.search(s) or _BOILERPLATE.search(s) or _BYLINE.match(s) or "http" in s:
        return False
    if not re.search(r"[。！？!?.][”」』\"')）]*$", s):
        return False
    if any(s.count(a) != s.count(b) for a, b in _OPEN_CLOSE):
        return False
    return len(_QUOTE_CHARS.findall(s)) % 2 == 0


def names_subject(sentence: str) -> bool:
    """The sentence opens on what it is about: a name, a noun, a time, a figure; not on a verb, a
    preposition or an adverb whose subject the cut left behind ("通过特定 Prompt 修改…", "Achieving a
    new frontier…"). A weaker test than dangling_opening: it ranks, it does not exclude."""
    s = sentence.strip()
    if dangling_opening(s):
        return False
    if is_cjk(s):
        _, tag = next(iter(tagged(s[:12])), ("", ""))
        return tag not in ("v", "p", "d", "c", "u", "ad")  # "研究团队…" opens on a verbal noun: a subject
    first = re.match(r"[A-Za-z][\w'-]*", s)
    return not first or first.group(0)[0].isupper() and not first.group(0).endswith("ing")


# A third person's pronoun opening a sentence ("他提出了…", "她将每个代理视为…"): it points back to
# the subject the text's earlier sentence named. "它" is left alone: it opens names ("它石智航").
_PRONOUN = re.compile(r"^(?:他们|她们|他|她)(?=[^\W\d_])")
# A setting before the subject: "在播客节目《How I AI》中，嘉宾 Jesse Genet 分享了…".
_SETTING = re.compile(r"^在[^，。,]{1,30}[中上里]，")
_SUBJECT_TAGS = ("n", "b", "j", "eng", "vn", "x", "uj")  # a noun phrase: nouns, names, "高级", "研究团队", "的"
_NAME_TAGS = ("nr", "nrt", "nrfg", "ns", "nt", "nz", "eng", "j")
_PREDICATE_TAGS = ("v", "p", "d", "c")
_JOINS = ("与", "和", "及", "、", "&")
# The piece or its writer as a subject: a pronoun that points to them is no news's subject.
_ARTICLE_SUBJECT = re.compile(r"文章|本文|该文|此文|作者|笔者|报道|视频|节目|播客|本期")


def subject_of(sentence: str) -> str:
    """The named subject a Chinese sentence opens on ("吴恩达", "Coinbase高级工程总监Chintan Turakhia",
    "美国密苏里大学的研究团队"), after a setting ("在…中，"), where it is a noun phrase holding a
    name and a predicate follows it; else "". Never the article or its writer."""
    s = _SETTING.sub("", sentence.strip())
    if not is_cjk(s):
        return ""
    phrase: list[tuple[str, str]] = []
    following = ""
    for word, tag in tagged(s[:40]):
        if word in _JOINS and phrase:  # "华为与香港城市大学联合团队": one subject of two names
            phrase.append((word, "c"))
            continue
        if tag.startswith(_SUBJECT_TAGS) and (tag != "x" or not word.strip()) or tag in _NAME_TAGS:
            phrase.append((word, tag))
            continue
        following = tag
        break
    while phrase and (phrase[-1][1] in ("uj", "x", "c") or not phrase[-1][0].strip()):
        phrase.pop()
    text = "".join(w for w, _ in phrase).strip()
    named = any(tag in _NAME_TAGS and w.upper() != "AI" for w, tag in phrase)
    if not named or not following.startswith(_PREDICATE_TAGS) or _ARTICLE_SUBJECT.search(text) or len(text) > 30:
        return ""
    return text


def resolve_pronoun(sentence: str, subject: str) -> str:
    """The sentence with the pronoun it opens on ("他…") replaced by the subject an earlier sentence
    named, so it can be read alone; as it is where it opens on none, or no subject is known."""
    found = _PRONOUN.match(sentence.strip())
    return subject + sentence.strip()[found.end() :] if found and subject else sentence


# The article as the sayer of a statement that stands alone after it: "文章指出，X…", "文章宣布X…",
# "文章聚焦 MiniMax 首份年报中的关键财务亮点：收入…". The statement is the news; the frame is not.
# Only verbs whose object is a clause: "文章报道了拓竹的创业故事" would leave a noun phrase.
# The harvest's structured summary in prose labels its parts ("作者主张，X。论据是，Y。启示在于，Z。"):
# "论据是，Y" states Y; the writer as the subject of a named person ("作者Simon Willison在…开发了…")
# is that person's statement.
_FRAME = re.compile(
    r"^(?:文章|本文|该文)(?:指出|宣布|称)[，,：:]?|^(?:文章|本文|该文)聚焦(?=[^，。：:]{2,40}[：:])"
    r"|^(?:其)?(?:核心)?(?:论据|论点|依据)(?:包括|在于|是|为)[，,：:]?"
    r"|^(?:文章|本文)?作者(?=[A-Z][a-z]+ [A-Z])"
)
# The harvester's implication (启示): its opinion of what the news means, never the news.
_IMPLICATION = re.compile(r"^(?:其)?(?:启示|启发)(?:在于|是|为)")
# A trailing clause telling what the piece goes on to cover: "AR3D-R1研究首次将RL引入3D生成，并总结了
# 奖励模型选择等关键方法论。" states its news before the comma.
_COVERS = re.compile(
    r"[，,](?:并|同时|还|此外还?)?(?:总结|介绍|分享|梳理|盘点|探讨|列举|回顾|展示|讨论|分析|解读)了[^，。；]*。$"
)


def unframed(sentence: str) -> str:
    """The statement an article-framed sentence reports, without the frame (and without a trailing
    clause on what the piece goes on to cover); else the sentence."""
    s = sentence.strip()
    rest = _FRAME.sub("", s, count=1)
    rest = rest if rest != s and rest and (is_cjk(rest) or s.startswith(("文章", "本文", "作者"))) else s
    if is_cjk(rest) and (cut := _COVERS.search(rest)) and is_cjk(rest[: cut.start()]):
        rest = rest[: cut.start()] + "。"
    return rest if rest != s else sentence


def is_implication(sentence: str) -> bool:
    """The harvester's "启示在于…": its opinion of what the news means, not the news."""
    return bool(_IMPLICATION.match(sentence.strip()))


def cut_tail(text: str) -> str:
    """The sentence a text stops inside, or "": its last paragraph runs on after a sentence it closed
    and ends without closing the next one, as a feed cuts its summary at a length and adds no "…"
    ("…In this letter, I'd like to dive more deeply into the first"). A last line standing alone
    (a changelog's "Stability and performance improvements") or a text of one unclosed sentence is
    a statement printed without its full stop, which closed() completes."""
    paragraphs = [p for p in re.split(r"\s*\n\s*", text or "") if p.strip()]
    last = sentences(paragraphs[-1]) if paragraphs else []
    if len(last) < 2 or re.search(r"[。！？!?.…:：;；][”」』\"')）]*$", last[-1]):
        return ""
    return last[-1]


def closed(line: str) -> str:
    """A whole statement a feed printed without its full stop ("Carlsen will bring his reputation to
    the company's brand", a changelog's line) with one added; any other text as it is. Only what is
    otherwise complete is closed: never a cut-off line, a heading ending on ":", furniture, a link, a line
    holding a literal escape ("…models.\\n\\n")."""
    s = line.strip()
    if not s or "\\" in s or re.search(r"[。！？!?.:：;；,，、…\-–—][”」』\"')）]*$", s) or is_complete(s):
        return line
    done = s + ("。" if is_cjk(s) else ".")
    return done if is_complete(done) else line


def describes_article(sentence: str) -> bool:
    """The sentence says what an article does (解读 / 介绍了 / "this post explores"), not what happened."""
    s = sentence.strip()
    if not is_cjk(s):
        return bool(_ABOUT_ARTICLE_EN.search(s))
    if _ABOUT_ARTICLE_ZH.search(s):
        return True
    piece = _PIECE_PHRASE.match(s)
    return bool(piece and not _PREDICATE.search(s[: piece.group(0).rfind("的")]))


# A list's marker left at a sentence's start by the cut: "③ …", "1. …", "• …", "（2）…", "二、…", "第一，…".
_LIST_MARK = re.compile(
    r"^\s*(?:[\u2460-\u2473\u2776-\u277f\u24f5-\u24fe]\s*|[•·●▪■◆►▶✓✔\-–—*]\s+|[(（]\d{1,2}[)）]\s*"
    r"|\d{1,2}[)）、](?!\d)\s*|\d{1,2}\.(?![\d])\s*|[一二三四五六七八九十]{1,2}[、．]\s*|第[一二三四五六七八九十]{1,2}[，,、：:]\s*)"
)
_BACK = lexicon.words("back-reference")
# "This week, …" opens on a time, not on something said before.
_TIME_AFTER = re.compile(
    r"^(?:this|that|these) (?:week|weekend|month|year|quarter|morning|afternoon|evening|season|spring|summer|fall|"
    r"autumn|winter|(?:mon|tues|wednes|thurs|fri|satur|sun)day)\b",
    re.I,
)


_SCENE_MAX = 40  # characters: a leading prepositional phrase longer than this is read as the sentence itself
_ASPECT = {"了", "过", "着"}  # the aspect particles that make the word before them a verb


def _cjk_clause_opening(s: str, adverbs: bool = True) -> str:
    """Why a Chinese clause cannot stand alone by how it opens, or "": on a word pointing back, or on a
    verb whose subject the cut left out (`adverbs`: also where only the verb's adverbs stand before it)."""
    tokens = [(w, t) for w, t in tagged(s[:16]) if w.strip()]
    word, tag = tokens[0] if tokens else ("", "")
    if word in _BACK or tag.startswith("r") and word[:1] in _BACK:
        return "refers back"
    # After its subject, before its verb: "OpenAI 为此引入了…", "公司对此表示…" (为此 / 对此 / 与此同时:
    # "this" is what the cut left behind; 此前, a time word, is only "earlier").
    for w, t in tokens[1:4]:
        if t == "v":
            break
        if w in _BACK and "此" in w and t != "t":
            return "refers back"
    # "指出GLM-5的底气在于…": the cut took its subject; so in "挑战了…的假设", where jieba tags the
    # verb a verbal noun (vn) but the aspect particle after it makes it the predicate, and in
    # "正式发布…" / "批判性地指出…", where only the verb's adverbs stand before it.
    at = 0
    while adverbs and at < min(len(tokens) - 1, 4) and (tokens[at][1] in ("d", "ad") or tokens[at + 1][1] == "uv"):
        at += 2 if tokens[at + 1][1] == "uv" else 1
    word, tag = tokens[at] if at < len(tokens) else ("", "")
    if tag == "v" or tag == "vn" and len(tokens) > at + 1 and tokens[at + 1][0] in _ASPECT:
        return "no subject"
    return ""


def list_marker(sentence: str) -> str:
    """The list marker a sentence opens on ("③ ", "1. ", "• "), or ""."""
    found = _LIST_MARK.match(sentence)
    return found.group(0) if found else ""


def strip_list_marker(sentence: str) -> str:
    """The sentence without the list marker the cut left at its start."""
    return sentence[len(list_marker(sentence)) :].lstrip()


def dangling_opening(sentence: str) -> str:
    """Why a sentence cannot open a card on its own, or "": it opens on a list marker ("③ …"), a
    pronoun pointing back ("这提醒用户…", "它…", "This …"; jieba's pronoun tag on a demonstrative or
    third-person character) or a connective that continues a text ("此外，…", "However, …"), or its
    subject is followed by one ("OpenAI 为此引入了…")."""
    s = sentence.strip()
    if list_marker(s):
        return "list marker"
    if is_cjk(s):
        if reason := _cjk_clause_opening(s):
            return reason
        # A clause led by a preposition ("通过对180种配置的评估，…", "在AlpacaEval任务中，…") only sets the
        # scene: the sentence's subject opens the clause after it, and a summary's bullet often left it out
        # ("…，发现智能体系统的性能…") or points back to it ("…，该框架仅用2K样本…").
        head, comma, rest = s.partition("，")
        words = [(w, t) for w, t in tagged(head[:_SCENE_MAX]) if w.strip()]
        first = words[0][1] if words else ""
        # "为AI智能体引入了持久化编排…": the phrase's object, then straight on to the verb and its 了, with
        # no subject between (the first verb of "通过强化学习训练的模型取得了…" modifies its subject).
        verb = next((i for i, (w, t) in enumerate(words) if t == "v"), -1)
        if first == "p" and 0 < verb < len(words) - 1 and words[verb + 1][0] in _ASPECT:
            return "no subject"
        if first == "p" and comma and len(head) <= _SCENE_MAX and rest.strip():
            # Its own adverbs are not read here: in "通过API获取的内容缺乏…，难以构成…作品" the phrase held
            # the subject and its verb, and the clause after it goes on with that subject.
            reason = _cjk_clause_opening(rest.strip(), adverbs=False)
            # "以Yoroll平台为例，它整合了…": the example the phrase names is what the pronoun points to; and
            # "为抑制负面影响，他建议…" is the person the sentence before named (the card's pronoun chain,
            # write/extractive/card.py, reads "他" that way where it opens a sentence).
            if reason == "refers back" and (head.endswith("为例") or re.match(r"[他她]", rest.strip())):
                return ""
            return reason
        return ""
    found = re.match(r"[A-Za-z']+", s)
    if not found or _TIME_AFTER.match(s):
        return ""
    word = found.group(0).lower()
    return "refers back" if word in _BACK else ""


def is_promotion(sentence: str) -> bool:
    """The sentence sells (a limited-time price, a discount, a sign-up): it never leads a card."""
    return bool(_PROMOTION.search(sentence))


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


def figures(text: str) -> set[tuple[str, float]]:
    """The facts a text states in figures, as (kind, value) so "681亿美元" and "$68.1 billion" are one:
    amounts, percentages, multiples, counts of 100 or more that are not a year."""
    out = set()
    for n in extract_numbers(text, words=False):
        if n.kind == "plain" and not n.scaled and (n.value < 100 or 1900 <= n.value <= 2100 and n.value.is_integer()):
            continue
        if n.kind == "plain" and _status_code(text, n.start):
            continue
        out.add((n.kind, n.value))
    return out


def key_numbers(text: str) -> list[str]:
    """The figures worth listing: amounts, percentages, multiples, decimals and counts of 100 or
    more; a bare small integer ("3 月", "16:30", "day 1") and a version after a name
    ("Claude 3.7", "Apache 2.0") are left out."""
    out = []
    for n in extract_numbers(text, words=False):
        if n.kind == "plain" and not n.scaled:
            version = re.search(r"[A-Za-z]\s?$", text[: n.start])
            if n.value < 100 and ("." not in n.text or version) or _status_code(text, n.start):
                continue
        out.append(n.text)
    return list(dict.fromkeys(out))


_CODES = lexicon.table("numbers")["codes"]
_CODE_BEFORE = re.compile(r"(?<![A-Za-z])(?:" + "|".join(map(re.escape, _CODES["before"])) + r")[\s:#-]*$", re.I)
_CODE_AFTER = re.compile(r"^\s*(?:" + "|".join(map(re.escape, _CODES["after"])) + r")(?![A-Za-z])", re.I)


def _status_code(text: str, start: int) -> bool:
    """A protocol status code ("API 500错误", "HTTP 404", "error 503"): three digits from 100 to 599
    beside a word that names a code. It is no figure of the news (the weekly read "500" as one)."""
    code = re.match(r"\s*[1-5]\d\d(?!\d|[.,]\d)", text[start:])  # a number's start may hold the space before it
    if code is None:
        return False
    return bool(_CODE_BEFORE.search(text[:start]) or _CODE_AFTER.search(text[start + code.end() :]))


# --- terms -----------------------------------------------------------------------------

# Function words (stop.txt) and the material's own (stop-material.txt: pronouns, modals, a transcript's fillers).
_STOP = lexicon.words("stop", "stop-material")


def terms(text: str) -> list[str]:
    """Content words in order: jieba tokens, Latin lower-cased, function words and bare numbers out."""
    out = []
    for tok in words(text or ""):
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
