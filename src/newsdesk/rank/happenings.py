"""What kind of happening an event's reports tell: the first question an editor asks of an event.

Read from the words of the headline and the summary material (title, feed summary, the harvest's
`core_point` and `highlights`, the first part of a full text), in Chinese and English. Each kind is
one rule on those words; rank.py weighs them. News kinds: a major company's release or statement,
money with an amount (a round, an acquisition, results), policy or legal action, an incident, a
versioned release, a paper with results. Routine kinds: a changelog, a tutorial or how-to,
marketing, an event recap or interview, opinion, an explainer, a roundup. And whether it is about AI
at all: an item that names nothing of AI is off-topic for this newsroom (kept and searchable, shown
under 其他 / Other at the end of the day, never featured).

Rules were written from the labels' reasons of one harvest week and checked on the other
(eval/editorial/); they name classes of things (verbs of releasing, amounts, courts), not the
week's events.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from newsdesk.cluster.anchors import model_anchors
from newsdesk.cluster.terms import is_roundup


def _words(*alternatives: str) -> re.Pattern:
    """One pattern of alternatives. A \\b at either end means "not inside a Latin word": Python's \\b
    would also refuse a boundary between "Claude" and the Chinese word that follows it."""

    def edges(a: str) -> str:
        a = "(?<![A-Za-z0-9])" + a[2:] if a.startswith(r"\b") else a
        return a[:-2] + "(?![A-Za-z0-9])" if a.endswith(r"\b") else a

    return re.compile("|".join(f"(?:{edges(a)})" for a in alternatives), re.IGNORECASE)


# Companies whose releases and statements are news by themselves (the guide's "major lab or
# big-tech company"), as headlines name them.
MAJOR = _words(
    r"\bopenai\b",
    r"\banthropic\b",
    r"\bclaude\b",
    r"\bchatgpt\b",
    r"\bgpt-?\d",
    r"\bgoogle\b",
    r"\bdeepmind\b",
    r"\bgemini\b",
    r"\bmeta\b",
    r"\bllama\b",
    r"\bmicrosoft\b",
    r"\bcopilot\b",
    r"\bapple\b",
    r"\bamazon\b",
    r"\baws\b",
    r"\bnvidia\b",
    r"\bxai\b",
    r"\bgrok\b",
    r"\bdeepseek\b",
    r"\bqwen\b",
    r"\bmistral\b",
    r"\bmusk\b",
    r"\bminimax\b",
    r"\bkimi\b",
    r"\bglm-?\d",
    r"\bsora\b",
    r"\bcodex\b",
    r"\bnano banana\b",
    "英伟达",
    "微软",
    "谷歌",
    "苹果公司",
    "亚马逊",
    "马斯克",
    "阿里",
    "通义",
    "千问",
    "字节",
    "豆包",
    "腾讯",
    "混元",
    "百度",
    "文心",
    "智谱",
    "月之暗面",
    "华为",
    "小米",
    "深度求索",
    "奥特曼",
    "黄仁勋",
    "扎克伯格",
    "阶跃星辰",
)
RELEASE = _words(
    r"\blaunch(es|ed)?\b",
    r"\breleas(es|ed)\b",
    r"\bintroduc(es|ing)\b",
    r"\bannounc(es|ed)\b",
    r"\bunveil",
    r"\brolls? out\b",
    r"\bnow available\b",
    r"\bopen-sources?\b",
    r"\bships?\b",
    r"\bdebuts?\b",
    "发布",
    "推出",
    "上线",
    "开源",
    "官宣",
    "亮相",
    "首发",
    "正式版",
    "开放",
    "来了",
    "上架",
    "公布",
    "宣布",
)
AMOUNT = _words(
    r"[$€£¥]\s?\d[\d,.]*\s?(k|m|b|bn|million|billion|trillion)?\b",
    r"\d[\d,.]*\s?(million|billion|trillion)\b",
    r"\d+(\.\d+)?\s?(亿|万亿|千万|万)(美元|元|人民币|美金)?",
    r"\d+(\.\d+)?\s?(美元|元)",
)
MONEY = _words(
    r"\braises?\b",
    r"\bfunding\b",
    r"\bseries [a-f]\b",
    r"\bvaluation\b",
    r"\bipo\b",
    r"\brevenue\b",
    r"\bearnings\b",
    r"\bquarter(ly)?\b",
    r"\bprofit\b",
    r"\binvest",
    r"\bdeal\b",
    r"\bcontract\b",
    "融资",
    "估值",
    "上市",
    "财报",
    "营收",
    "净利",
    "利润",
    "季度",
    "投资",
    "领投",
    "募资",
    "市值",
    "蒸发",
    "亏损",
    "收入",
    "业绩",
    "吸金",
    "订单",
    "合同",
    "盈利",
)
# An acquisition is news with or without its price.
DEAL = _words(r"\bacquir", r"\bacquisition\b", r"\bbuys\b", r"\bmerger\b", "收购", "并购", "被收购")
POLICY = _words(
    r"\blaw\b",
    r"\blawsuit\b",
    r"\bsues?\b",
    r"\bsued\b",
    r"\bcourt\b",
    r"\bjudge\b",
    r"\bruling\b",
    r"\bregulat",
    r"\bban(s|ned)?\b",
    r"\bpentagon\b",
    r"\bdepartment of (war|defense)\b",
    r"\bcongress\b",
    r"\bsenate\b",
    r"\bwhite house\b",
    r"\bgovernment\b",
    r"\bpolicy\b",
    r"\bantitrust\b",
    r"\bexport controls?\b",
    r"\beu\b",
    r"\bfederal\b",
    r"\bsanction",
    r"\baccus",
    "监管",
    "法案",
    "法院",
    "法官",
    "起诉",
    "诉讼",
    "裁定",
    "禁令",
    "禁止",
    "政府",
    "五角大楼",
    "国防部",
    "战争部",
    "白宫",
    "国会",
    "欧盟",
    "出口管制",
    "立法",
    "合规",
    "指控",
    "制裁",
    "反垄断",
    "政策",
    "部委",
    "工信部",
    "网信办",
)
INCIDENT = _words(
    r"\boutage\b",
    r"\bdown\b",
    r"\bbreach",
    r"\bvulnerabilit",
    r"\bexploit",
    r"\bhack(ed|ers?)?\b",
    r"\bleak(ed|s)?\b",
    r"\bincident\b",
    r"\bmalware\b",
    r"\battack",
    r"\bsecurity flaw",
    "宕机",
    "故障",
    "漏洞",
    "泄露",
    "攻击",
    "中断",
    "崩了",
    "瘫痪",
    "事故",
    "黑客",
    "安全事件",
    "被盗",
    "下架",
)
PAPER = _words(
    r"\bpaper\b",
    r"\barxiv\b",
    r"\bbenchmark\b",
    r"\bsota\b",
    r"\bstate of the art\b",
    "论文",
    "研究",
    "团队提出",
    "提出",
    "基准",
    "顶会",
    r"iclr",
    r"neurips",
    r"cvpr",
    r"icml",
    r"acl\b",
    "新框架",
)
RESULT = _words(
    r"\d+(\.\d+)?\s?%",
    r"\d+(\.\d+)?\s?(倍|x)\b",
    r"\bsota\b",
    r"\boutperform",
    r"\bbeats?\b",
    "超越",
    "刷新",
    "提升",
    "登顶",
    "第一",
    "最强",
    "追平",
)
# Routine kinds, each one an editor ranks down.
CHANGELOG = _words(
    r"^\s*v?\d+(\.\d+){1,3}\s*$", r"\bchangelog\b", r"\brelease notes\b", r"\bpatch\b", "更新日志", "版本更新"
)
HOWTO = _words(
    r"\bhow (to|i|we)\b",
    r"\btutorial\b",
    r"\bguide\b",
    r"\btips\b",
    r"\bstep[- ]by[- ]step\b",
    r"\bbest practices\b",
    r"\bpatterns?\b",
    r"\bworkflow\b",
    r"\bplaybook\b",
    r"\bcheat ?sheet\b",
    # A headline that opens on what you build or use with a tool ("Building frontend UIs with Codex
    # and Figma"): a how-to, however first-party its blog.
    r"^\s*(building|using|creating|making|writing|running|deploying|getting started)\b",
    "教程",
    "手把手",
    "指南",
    "攻略",
    "如何",
    "怎么",
    "怎样",
    "实操",
    "保姆级",
    "入门",
    "上手",
    "玩法",
    "技巧",
    "实战",
    "教你",
    "最佳实践",
    "一文搞懂",
    "避坑",
    "配置",
    "部署",
    "安装",
)
MARKETING = _words(
    r"\bwebinar\b",
    r"\bregister\b",
    r"\bsponsored\b",
    r"\bdiscount\b",
    r"\bpromo",
    r"\bhiring\b",
    "报名",
    "课程",
    "限时",
    "优惠",
    "免费领",
    "招聘",
    "训练营",
    "福利",
    "抽奖",
    "直播预告",
    "邀请码",
)
RECAP = _words(
    r"\bpodcast\b",
    r"\binterview\b",
    r"\bconversation with\b",
    r"\bepisode\b",
    r"\bfireside\b",
    r"\brecap\b",
    r"\bkeynote\b",
    r"\bpanel\b",
    r"\bfounder of\b",
    r"—\s*[A-Z][a-z]+ [A-Z][a-z]+",
    "对话",
    "专访",
    "访谈",
    "圆桌",
    "演讲",
    "现场",
    "峰会",
    "大会",
    "播客",
    "口述",
    "自述",
    "分享会",
    "直播",
)
OPINION = _words(
    r"^\s*quoting\b",
    r"\bopinion\b",
    r"\bessay\b",
    r"\bthoughts on\b",
    r"\bwhy (i|we|you)\b",
    r"\bi think\b",
    r"\bthe case for\b",
    r"\bin defense of\b",
    r"\bmy\b",
    "观点",
    "评论",
    "思考",
    "随笔",
    "我们为什么",
    "反思",
    "感想",
    "焦虑",
    "真相",
    "本质",
    "警惕",
    "杂谈",
    "万字",
    "长文",
    "时代",
    "未来",
    "趋势",
    "终局",
    "启示",
    "逻辑",
)
EXPLAINER = _words(
    r"\bexplained\b",
    r"\bexplainer\b",
    r"\bdeep dive\b",
    r"\breview\b",
    r"\bhands-on\b",
    r"\bwhat (it|this) means\b",
    r"\btested\b",
    "解读",
    "详解",
    "一文看懂",
    "一文读懂",
    "读懂",
    "拆解",
    "深度",
    "实测",
    "测评",
    "评测",
    "体验",
    "复盘",
    "背后",
    "看懂",
    "全解析",
)
# A text about AI names one of these; an item whose headline names none, and whose material names
# them only in passing (fewer than AI_MENTIONS times), is off-topic for this newsroom.
AI_TERMS = _words(
    r"\bai\b",
    r"\bagi\b",
    r"\bllms?\b",
    r"\bgpt",
    r"\bagents?\b",
    r"\bagentic\b",
    r"\bmachine learning\b",
    r"\bneural\b",
    r"\bdeep learning\b",
    r"\btransformers?\b",
    r"\bchatbots?\b",
    r"\bgpus?\b",
    r"\bcopilot\b",
    r"\bclaude\b",
    r"\bgemini\b",
    r"\bopenai\b",
    r"\banthropic\b",
    r"\bdeepseek\b",
    r"\bqwen\b",
    r"\bcodex\b",
    r"\bcursor\b",
    r"\bprompts?\b",
    r"\brag\b",
    r"\bembeddings?\b",
    r"\bdiffusion\b",
    r"\bvibe cod",
    r"\bopenclaw\b",
    r"\bnvidia\b",
    r"\bmcp\b",
    r"\bcomputer use\b",
    r"\blanguage models?\b",
    r"\bmodels?\b",
    r"\binference\b",
    r"\bsora\b",
    r"\bcoding assistants?\b",
    r"\bautonomous\b",
    r"\brobots?\b",
    r"\brobotics\b",
    r"\bchatgpt\b",
    r"\bdeepmind\b",
    r"\bgrok\b",
    r"\bxai\b",
    r"\bkimi\b",
    r"\bminimax\b",
    r"\bglm",
    r"\bmistral\b",
    r"\bnano banana\b",
    r"\bsonnet\b",
    r"\bopus\b",
    r"\bkarpathy\b",
    r"\bkv\b",
    r"\blora\b",
    r"\bsft\b",
    r"\brl\b",
    r"\bcuda\b",
    r"\battention\b",
    r"\bcontext windows?\b",
    r"\bfine-tun",
    r"\bbenchmarks?\b",
    r"\bllama\b",
    r"\biclr\b",
    r"\bneurips\b",
    r"\bicml\b",
    r"\bcvpr\b",
    r"\bchips?\b",
    "人工智能",
    "智能体",
    "大模型",
    "模型",
    "机器学习",
    "深度学习",
    "神经网络",
    "算力",
    "智算",
    "机器人",
    "具身",
    "自动驾驶",
    "智驾",
    "生成式",
    "多模态",
    "提示词",
    "英伟达",
    "AIGC",
    "语音识别",
    "编程助手",
    "代码助手",
    "龙虾",
    "推理",
    "芯片",
    "半导体",
    "千问",
    "通义",
    "豆包",
    "混元",
    "文心",
    "智谱",
    "月之暗面",
    "黄仁勋",
    "奥特曼",
    "卡帕西",
    "上下文",
    "注意力",
    "强化学习",
    "预训练",
    "算子",
    "世界模型",
)
AI_MENTIONS = 3


@dataclass(frozen=True)
class Kinds:
    """The kinds one event's reports tell (see the module docstring); `routine` names the first routine kind found."""

    major: bool = False
    release: bool = False
    money: bool = False
    policy: bool = False
    incident: bool = False
    versioned: bool = False
    paper: bool = False
    routine: str = ""
    on_topic: bool = True

    def names(self) -> list[str]:
        news = [k for k in NEWS_KINDS if getattr(self, k)]
        return news + ([self.routine] if self.routine else []) + ([] if self.on_topic else ["off-topic"])


def _routine(headline: str) -> str:
    if CHANGELOG.search(headline):
        return "changelog"
    if is_roundup(headline):
        return "roundup"
    for name, rule in (
        ("marketing", MARKETING),
        ("how-to", HOWTO),
        ("recap", RECAP),
        ("explainer", EXPLAINER),
        ("opinion", OPINION),
    ):
        if rule.search(headline):
            return name
    return ""


# A product named as the yardstick ("评分精准度超越GPT-5.1", "比肩Genie 3", "国产Claude Code",
# "beats GPT-5") is not what the headline is about: a smaller party's work measured against a major
# lab's model is neither that lab's news nor a versioned release.
_YARDSTICK = re.compile(
    r"(超越|超过|比肩|媲美|对标|吊打|碾压|击败|打败|逼近|追平|不输|平替|国产|比"
    r"|\bbeats?\b|\boutperforms?\b|\bvs\b\.?|\bthan\b)\s*[A-Za-z][A-Za-z0-9\-. ]*",
    re.IGNORECASE,
)


def subject_of(headline: str) -> str:
    """The headline without the products it names only as a yardstick."""
    return _YARDSTICK.sub(r"\1", headline)


def read_kinds(headline: str, material: str) -> Kinds:
    """The kinds a headline and its summary material tell. The headline decides what the piece
    is (a how-to, an opinion); the material backs a news kind up (an amount, a result). Who and
    what the news is about is read without the products the headline names only as a yardstick."""
    text = f"{headline}\n{material}"
    subject = subject_of(headline)
    versioned = bool(model_anchors(subject))
    major = bool(MAJOR.search(subject))
    release = bool(RELEASE.search(headline)) and (major or versioned)
    return Kinds(
        major=major,
        release=release,
        money=bool((MONEY.search(headline) and AMOUNT.search(text)) or DEAL.search(headline)),
        policy=bool(POLICY.search(headline)),
        incident=bool(INCIDENT.search(headline)),
        versioned=versioned and bool(RELEASE.search(text)),
        # A paper with results: the headline names the paper or its result, the material the other.
        paper=bool(
            (PAPER.search(headline) and RESULT.search(text)) or (RESULT.search(headline) and PAPER.search(material))
        ),
        routine=_routine(headline),
        on_topic=versioned or bool(AI_TERMS.search(headline)) or len(AI_TERMS.findall(material)) >= AI_MENTIONS,
    )


NEWS_KINDS = ("major", "release", "money", "policy", "incident", "versioned", "paper")


def material_of(summary: str, body: str | None, extra: dict | None) -> str:
    """An item's summary material for reading kinds: the feed summary, the harvest's core_point and
    highlights, the start of a full text."""
    extra = extra or {}
    highlights = extra.get("highlights") or []
    parts = [
        summary or "",
        str(extra.get("core_point") or ""),
        " ".join(map(str, highlights)) if isinstance(highlights, list) else str(highlights),
        (body or "")[:1500],
    ]
    return "\n".join(p for p in parts if p)


def event_kinds(lead: tuple[str, str], others: list[tuple[str, str]]) -> Kinds:
    """The kinds of an event from its lead report (headline, material) and the other original
    reports: any report may carry the news kind (an explainer of a launch beside the launch
    report), and the event is routine (the lead's routine kind) only when every report is: an
    inside story picked as the lead of a launch's coverage does not make the launch routine."""
    kinds = read_kinds(*lead)
    found = {k: getattr(kinds, k) for k in NEWS_KINDS}
    on_topic = kinds.on_topic
    routine = kinds.routine
    for headline, material in others:
        other = read_kinds(headline, material)
        found = {k: v or getattr(other, k) for k, v in found.items()}
        on_topic = on_topic or other.on_topic
        routine = routine if other.routine else ""
    return Kinds(**found, routine=routine, on_topic=on_topic)
