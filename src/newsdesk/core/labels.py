"""Every interface word readers see, in Chinese and English: the site, the feeds, the
Markdown editions and the web app all read this one table. Content (analyses, editions)
has its own language.

Two words that are easy to mix up: an *outlet* is a source that covered an event
(来源, counted as "4 outlets, 3 independent"); a *member* is one item of that coverage,
one article or post (报道).
"""

from __future__ import annotations

UI_LANGUAGES = ("zh", "en")

LABELS: dict[str, dict[str, str]] = {
    # editions and navigation
    "daily": {"zh": "日报", "en": "Daily"},
    "weekly": {"zh": "周报", "en": "Weekly"},
    "episode": {"zh": "播客精读", "en": "Episodes"},
    "feed": {"zh": "动态", "en": "Feed"},
    "home": {"zh": "首页", "en": "Home"},
    "other_language": {"zh": "English", "en": "中文"},
    "feeds": {"zh": "订阅", "en": "Feeds"},
    "archive": {"zh": "往期", "en": "Archive"},
    "back": {"zh": "返回当日", "en": "Back to the day"},
    "lang_zh": {"zh": "中文", "en": "Chinese"},
    "lang_en": {"zh": "英文", "en": "English"},
    "lang_other": {"zh": "其他语言", "en": "another language"},
    # an episode digest whose transcript is in another language than the digest's (write/episode_result.py)
    "episode_in": {"zh": "本期节目的语言是{language}。", "en": "This episode is in {language}."},
    "quotes_as_spoken": {
        "zh": "下面的引文是节目原话，没有翻译。",
        "en": "The quotes below are as spoken, untranslated.",
    },
    # a card part shown in another language than its edition's (editions/cards.py language_mark)
    "written_zh": {"zh": "中文报道", "en": "In Chinese"},
    "written_en": {"zh": "英文报道", "en": "In English"},
    "written_other": {"zh": "其他语言报道", "en": "In another language"},
    # the weekly report's title line and its two fixed headings
    "weekly_title": {"zh": "AI周报 {week} | {site}", "en": "AI Weekly {week} | {site}"},
    "weekly_overview": {"zh": "📊 本周概览", "en": "📊 The week at a glance"},
    "weekly_briefs": {"zh": "📌 本周简讯", "en": "📌 In brief"},
    # the weekly's section of the week's lead events that share a theme with no other event: first,
    # or after the themes
    "weekly_leads": {"zh": "本周要闻", "en": "The week's headlines"},
    "weekly_more": {"zh": "本周其他要闻", "en": "Also this week"},
    # the weekly's summary: the week's headlines by heading, then the top one's hardest fact
    "weekly_top": {"zh": "本周头条：{stories}。", "en": "This week's headlines: {stories}."},
    "edition_language": {"zh": "语言", "en": "Language"},
    "only_in": {"zh": "本期只有{language}版。", "en": "This edition is in {language} only."},
    "nothing_yet": {"zh": "还没有内容。", "en": "Nothing here yet."},
    # a count's word: `t.plural("events_n", n)` reads the `_one` entry when n is 1 ("1 event", "2 events")
    "events_n": {"zh": "个事件", "en": "events"},
    "events_n_one": {"zh": "个事件", "en": "event"},
    # the daily feed's tabs (a category tab is labelled with the category's own name)
    "all": {"zh": "全部", "en": "All"},
    "featured": {"zh": "精选", "en": "Featured"},
    "p1": {"zh": "要闻", "en": "Top news"},
    # the day's headline list, above the cards
    "headlines": {"zh": "今日要闻", "en": "Headlines"},
    "top_outlets": {"zh": "{n} 个来源", "en": "{n} outlets"},
    "top_one_outlet": {"zh": "1 个来源", "en": "1 outlet"},
    # the English edition's last list: the events told only in Chinese (editions/cards.py `folded`)
    "reported_in_zh": {"zh": "仅有中文报道（{n}）", "en": "Reported in Chinese ({n})"},
    # a card's badges: one line in place of its notes (the full sentences are on the event page)
    "badge_extract": {"zh": "原文摘录", "en": "extract"},
    "badge_replaces": {"zh": "代替未过核查的稿件", "en": "in place of a failed draft"},
    "badge_translated": {"zh": "译自{language}", "en": "translated from {language}"},
    "translated_note": {
        "zh": "标题和导语由模型从原文摘录译出，已核查数字和名称。",
        "en": "The headline and lead were translated from the original extract by the model; numbers and names checked.",
    },
    "level_full": {"zh": "全文", "en": "full text"},
    "level_summary": {"zh": "仅摘要", "en": "summary only"},
    "level_paywalled": {"zh": "付费墙", "en": "paywalled"},
    "level_title": {"zh": "仅标题", "en": "title only"},
    "level_failed": {"zh": "仅标题（抓取失败）", "en": "title only (fetch failed)"},
    "badge_outlets": {"zh": "{n} 个来源 / {m} 独立", "en": "{n} outlets / {m} independent"},
    "badge_one_outlet": {"zh": "1 个来源", "en": "1 outlet"},
    "badge_checked": {"zh": "✓ 已核查", "en": "✓ checked"},
    # a misdated event (rank/chronology.py): its feed dates it before the maker announced what it reports
    "badge_misdated": {"zh": "日期存疑", "en": "date doubtful"},
    "misdated_note": {
        "zh": "来源标注的日期早于厂商发布该产品的日期，日期可能有误。",
        "en": "Its feed dates it before the maker announced the product it reports: the date may be wrong.",
    },
    "notes": {"zh": "说明", "en": "Notes"},
    # a source's category, as a reader reads it (catalog.CATEGORIES); an unknown one shows as it is
    "category-lab": {"zh": "AI 实验室", "en": "AI labs"},
    "category-company": {"zh": "公司", "en": "Companies"},
    "category-research": {"zh": "研究机构", "en": "Research"},
    "category-papers": {"zh": "论文", "en": "Papers"},
    "category-community": {"zh": "社区", "en": "Community"},
    "category-media": {"zh": "媒体", "en": "Media"},
    "category-newsletter": {"zh": "博客与通讯", "en": "Blogs & newsletters"},
    "category-podcast": {"zh": "播客", "en": "Podcasts"},
    "category-zh-media": {"zh": "中文媒体", "en": "Chinese media"},
    "category-policy": {"zh": "政策", "en": "Policy"},
    # an event card
    "outlets": {"zh": "{n} 个来源（{m} 个独立）", "en": "{n} outlets ({m} independent)"},
    "outlets_one": {"zh": "{n} 个来源（{m} 个独立）", "en": "{n} outlet ({m} independent)"},
    "members": {"zh": "报道", "en": "Coverage"},
    "clean": {"zh": "已通过核查", "en": "passed the checks"},
    "missing": {"zh": "无分析", "en": "no analysis"},
    "no_analysis": {"zh": "分析尚未生成。", "en": "No analysis yet."},
    # stories: events that follow one another
    "update": {"zh": "更新", "en": "Update"},  # an earlier day's event that grew today
    "other": {"zh": "其他", "en": "Other"},  # a day's events that are not about AI, folded at its end
    "follow_up_of": {"zh": "后续报道，前情：", "en": "Follow-up of"},
    "story": {"zh": "事件脉络", "en": "Story"},
    # the weekly: a theme's events of one story in one entry, and a story that began before the week
    "story_line": {"zh": "事件脉络：{events}", "en": "Story: {events}"},
    "dated": {"zh": "{headline}（{date}）", "en": "{headline} ({date})"},
    "continues": {"zh": "续：{event}", "en": "continues: {event}"},
    # parts chosen from the material by code (offline, or in place of a draft that failed its checks)
    "extractive": {
        "zh": "原文摘录：句子由程序从报道中选出，未经模型撰写。",
        "en": "Extract: sentences chosen from the coverage by code, not written by a model.",
    },
    "extract_tag": {"zh": "摘录版", "en": "extract"},
    "replaces_failed": {
        "zh": "模型写的稿件没有通过核查，这里换成了摘录。",
        "en": "The written draft failed its checks; this extract stands in its place.",
    },
    "extractive_edition": {
        "zh": "本期由程序从原始材料中摘录编排，未经模型撰写；引语与数字均出自原文。",
        "en": "This edition was chosen and arranged from the source material by code, not written "
        "by a model; every quote and number is the material's own.",
    },
    "extractive_parts": {
        "zh": "以下部分的模型稿没有通过核查，换成了原文摘录：",
        "en": "The written drafts of these parts failed their checks; extracts stand in their place:",
    },
    # the web app's feed and event page
    "previous_day": {"zh": "前一天", "en": "Previous day"},
    "next_day": {"zh": "后一天", "en": "Next day"},
    "go": {"zh": "前往", "en": "Go"},
    "day": {"zh": "日期", "en": "Day"},
    "no_events": {"zh": "这一天没有事件。", "en": "No events on this day."},
    "more": {"zh": "下一页", "en": "Next page"},
    "less": {"zh": "上一页", "en": "Previous page"},
    "outlets_n": {"zh": "个来源", "en": "outlets"},
    "outlets_n_one": {"zh": "个来源", "en": "outlet"},
    "items_n": {"zh": "个条目", "en": "items"},
    "items_n_one": {"zh": "个条目", "en": "item"},
    "independent": {"zh": "独立来源", "en": "independent"},
    "outlet": {"zh": "来源", "en": "Outlet"},
    "items": {"zh": "条目", "en": "Items"},
    "importance": {"zh": "重要性", "en": "Importance"},
    "why_ranks": {"zh": "为什么排在这里", "en": "Why it ranks here"},
    "part": {"zh": "因素", "en": "Part"},
    "value": {"zh": "值", "en": "Value"},
    "role": {"zh": "角色", "en": "Role"},
    "role_lead": {"zh": "主报道", "en": "lead"},
    "role_member": {"zh": "报道", "en": "report"},
    "role_syndicated": {"zh": "转载", "en": "syndicated copy"},
    "role_duplicate": {"zh": "重复", "en": "duplicate"},
    "headline": {"zh": "标题", "en": "Headline"},
    "time": {"zh": "时间", "en": "Time"},
    "material_level": {"zh": "材料", "en": "Material"},
    "reason": {"zh": "归入原因", "en": "Why joined"},
    "copy_of": {"zh": "转载自", "en": "copy of"},
    "in_roundups": {"zh": "也出现在这些汇总里", "en": "also in roundups"},
    "analysis": {"zh": "分析", "en": "Analysis"},
    "checker_flags": {"zh": "核查标记", "en": "Checker flags"},
    "checks_run": {"zh": "核查记录", "en": "Check runs"},
    "attempt": {"zh": "第几次", "en": "Attempt"},
    "passed": {"zh": "通过", "en": "Passed"},
    "failed": {"zh": "未通过", "en": "Failed"},
    "first_published": {"zh": "最早发布", "en": "First published"},
    "last_published": {"zh": "最近发布", "en": "Last published"},
    "languages": {"zh": "语言", "en": "Languages"},
    "anchors": {"zh": "锚点", "en": "Anchors"},
    "feedback": {"zh": "反馈", "en": "Feedback"},
    "note": {"zh": "备注", "en": "Note"},
    "up": {"zh": "有用", "en": "Useful"},
    "down": {"zh": "没用", "en": "Not useful"},
    "star": {"zh": "收藏", "en": "Star"},
    "feedback_saved": {"zh": "反馈已保存，下次排序会用到。", "en": "Feedback saved; the next ranking run uses it."},
    # search
    "search": {"zh": "搜索", "en": "Search"},
    "search_placeholder": {"zh": "搜索事件和条目", "en": "Search events and items"},
    "events": {"zh": "事件", "en": "Events"},
    "no_results": {"zh": "没有结果。", "en": "No results."},
    "in_event": {"zh": "所属事件", "en": "In event"},
    # login
    "login": {"zh": "登录", "en": "Log in"},
    "logout": {"zh": "退出", "en": "Log out"},
    "logged_in_as": {"zh": "已登录：", "en": "Logged in as "},
    "name": {"zh": "名字", "en": "Name"},
    "token": {"zh": "令牌", "en": "Token"},
    "bad_token": {"zh": "令牌不对。", "en": "That token is not right."},
    "login_to_write": {"zh": "登录后才能反馈或修改。", "en": "Log in to leave feedback or make changes."},
    "not_found": {"zh": "找不到这个页面。", "en": "Page not found."},
    # sources (the catalog) and their health
    "sources": {"zh": "来源", "en": "Sources"},
    "source": {"zh": "来源", "en": "Source"},
    # a column or form field: not `language`/`category`, which are the table's own (Labels.language, .category())
    "language_field": {"zh": "语言", "en": "Language"},
    "status": {"zh": "状态", "en": "Status"},
    "enabled": {"zh": "启用", "en": "Enabled"},
    "disabled": {"zh": "已停用", "en": "Disabled"},
    "enable": {"zh": "启用", "en": "Enable"},
    "disable": {"zh": "停用", "en": "Disable"},
    "last_success": {"zh": "上次成功", "en": "Last success"},
    "last_error": {"zh": "上次错误", "en": "Last error"},
    "items_7d": {"zh": "7 天条目", "en": "Items, 7 days"},
    "failures": {"zh": "连续失败", "en": "Failures in a row"},
    "stale": {"zh": "停更", "en": "Stale"},
    "not_polled": {"zh": "导入的媒体，不轮询", "en": "Imported outlet, not polled"},
    "add_source": {"zh": "添加来源", "en": "Add a source"},
    "source_added": {"zh": "来源已添加。", "en": "Source added."},
    "source_updated": {"zh": "来源已更新。", "en": "Source updated."},
    "kind": {"zh": "类型", "en": "Kind"},
    "tier": {"zh": "级别", "en": "Tier"},
    "category_field": {"zh": "类别", "en": "Category"},
    "fulltext": {"zh": "抓全文", "en": "Fetch full text"},
    "add": {"zh": "添加", "en": "Add"},
    # model usage
    "usage": {"zh": "用量", "en": "Usage"},
    "stage": {"zh": "阶段", "en": "Stage"},
    "calls": {"zh": "模型调用", "en": "Model calls"},
    "cache_hits": {"zh": "缓存命中", "en": "Cache hits"},
    "prompt_tokens": {"zh": "输入 tokens", "en": "Prompt tokens"},
    "completion_tokens": {"zh": "输出 tokens", "en": "Completion tokens"},
    "cached_share": {"zh": "缓存 token 占比", "en": "Cached-token share"},
    "cost": {"zh": "估算费用 (USD)", "en": "Estimated cost (USD)"},
    "total": {"zh": "合计", "en": "Total"},
    "per_day": {"zh": "按天", "en": "Per day"},
    "per_output": {"zh": "按内容", "en": "Per output"},
    "per_day_output": {"zh": "按天和内容", "en": "Per day and output"},
    "output": {"zh": "内容", "en": "Output"},  # what a model call was for: analysis, weekly, episode, …
    "last_days": {"zh": "最近天数", "en": "Last days"},
    # push
    "subscriptions": {"zh": "推送", "en": "Push"},
    "add_subscription": {"zh": "新增订阅", "en": "Add a subscription"},
    "channel": {"zh": "通道", "en": "Channel"},
    "target": {"zh": "Apprise 地址", "en": "Apprise URL"},
    "schedule": {"zh": "时间", "en": "Schedule"},
    "filters": {"zh": "筛选", "en": "Filters"},
    "last_delivery": {"zh": "最近一次推送", "en": "Last delivery"},
    "send_test": {"zh": "发送测试", "en": "Send a test"},
    "remove": {"zh": "删除", "en": "Remove"},
    "subscription_added": {"zh": "订阅已添加。", "en": "Subscription added."},
    "subscription_updated": {"zh": "订阅已更新。", "en": "Subscription updated."},
    "subscription_removed": {"zh": "订阅已删除。", "en": "Subscription removed."},
    "test_sent": {"zh": "测试消息已发送。", "en": "Test message sent."},
    "read_in_full": {"zh": "阅读全文", "en": "Read in full"},
    "more_members": {"zh": "另有 {n} 篇报道", "en": "and {n} more"},
    "more_events": {"zh": "另有 {n} 条，见当日页面", "en": "{n} more on the day's page"},
    "importance_x": {"zh": "重要性 {x:.1f}", "en": "importance {x:.1f}"},
    "read_weekly": {"zh": "阅读周报", "en": "Read the weekly"},
    # the operator's drafts that failed (never shown to readers)
    "failed_drafts": {"zh": "未通过核查的稿件", "en": "Drafts that failed"},
    "failed_drafts_note": {
        "zh": "这些稿件在一次重写后仍未通过核查，从未发布；读者看到的是原文摘录。",
        "en": "These drafts still failed their checks after the one rewrite and were never "
        "published; readers get the extract in their place.",
    },
    "no_failed_drafts": {"zh": "没有未通过核查的稿件。", "en": "No draft has failed its checks."},
    "findings": {"zh": "核查发现", "en": "Findings"},
    "draft": {"zh": "稿件", "en": "Draft"},
    "model": {"zh": "模型", "en": "Model"},
    "push_test": {"zh": "newsdesk：推送测试，通道可用。", "en": "newsdesk: push test, the channel works."},
    # the operator's status page (stage runs and source polling)
    "run_status": {"zh": "运行状态", "en": "Status"},
    "last_run": {"zh": "上次运行", "en": "Last run"},
    "took": {"zh": "耗时", "en": "Took"},
    "did": {"zh": "做了什么", "en": "What it did"},
    "last_problem": {"zh": "最近的问题", "en": "Last problem"},
    "running_now": {"zh": "正在运行", "en": "Running now"},
    "queued": {"zh": "排队", "en": "Queued"},
    "failed_24h": {"zh": "24 小时失败", "en": "Failed, 24 h"},
    "next_due": {"zh": "下次运行", "en": "Next due"},
    "never_run": {"zh": "尚未运行", "en": "not run yet"},
    "not_scheduled": {"zh": "未排期（没有 --every 在运行）", "en": "not scheduled (no --every running)"},
    "backing_off": {"zh": "退避中的来源", "en": "Sources backing off"},
    "next_polls": {"zh": "即将抓取", "en": "Next polls"},
    "next_poll": {"zh": "下次抓取", "en": "Next poll"},
    "interval": {"zh": "间隔", "en": "Interval"},
    "why": {"zh": "依据", "en": "Why"},
    "due_now": {"zh": "现在", "en": "now"},
    # the workers' units of work (newsdesk worker), on the status page
    "worker_units": {"zh": "工作进程的任务", "en": "Workers' units of work"},
    "units_running": {"zh": "正在运行的任务", "en": "Running units"},
    "units_failed": {"zh": "失败的任务", "en": "Failed units"},
    "units_done": {"zh": "已完成", "en": "Done"},
    "unit": {"zh": "任务", "en": "Unit"},
    "since": {"zh": "时间", "en": "Since"},
    "tries": {"zh": "尝试次数", "en": "Tries"},
    "worker": {"zh": "工作进程", "en": "Worker"},
    "error": {"zh": "错误", "en": "Error"},
}


class Labels:
    """The labels in one language: `t.clean` or `t["clean"]`; a language without labels reads English.

    A label's key must not be one of this class's own names (`language`, `category`, `get`, …):
    attribute lookup finds those first, so the template would print a method or the language code
    (tests/test_pages_render_text.py holds the two name sets apart).
    """

    __slots__ = ("language",)  # so `language` is among the class's names the test checks

    def __init__(self, language: str):
        self.language = language if language in UI_LANGUAGES else "en"

    def __getattr__(self, key: str) -> str:
        try:
            return LABELS[key][self.language]
        except KeyError:
            raise AttributeError(f"no label {key!r}; add it to newsdesk/core/labels.py") from None

    def __getitem__(self, key: str) -> str:
        try:
            return LABELS[key][self.language]
        except KeyError:
            raise KeyError(f"no label {key!r}; add it to newsdesk/core/labels.py") from None

    def category(self, name: str) -> str:
        """A source category's reader-facing name ('zh-media' -> 中文媒体); an unknown one as it is."""
        entry = LABELS.get("category-" + name)
        return entry[self.language] if entry else name

    def written_in(self, code: str) -> str:
        """The mark of text written in language `code` (zh, en, other) shown in this edition."""
        return self["written_" + (code if code in UI_LANGUAGES else "other")]

    def plural(self, key: str, n: int, **values: object) -> str:
        """The label for a count of n, formatted with n (and `values`): its `_one` entry when n is 1
        and it has one ("1 outlet"), else the label ("2 outlets")."""
        entry = LABELS.get(key + "_one") if n == 1 else None
        return (entry or LABELS[key])[self.language].format(n=n, **values)

    def get(self, key: str) -> str:
        """For keys that come from data (a category has no translation: it shows as it is)."""
        entry = LABELS.get(key)
        return entry[self.language] if entry else key


def text_only(value: object) -> object:
    """A Jinja `finalize` hook: printing a method or function is a template bug, never a page.

    Jinja prints any object with str(); a label shadowed by a method (`t.category`) would show
    readers `<bound method Labels.category of …>`. Raising makes every test that renders the
    page fail instead.
    """
    # Imported here: every command reads the labels through its settings, and only the pages render
    # (Jinja2's import is 20 ms of each `newsdesk ingest`).
    from jinja2 import Undefined

    if callable(value) and not isinstance(value, Undefined):  # Undefined is callable (to raise): it prints ""
        raise TypeError(f"a template printed {value!r}, not text: call it or name a label (newsdesk/core/labels.py)")
    return value
