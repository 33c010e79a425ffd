"""Extractive cards on the demo pack's real week of events: every lead sentence comes from
its own item, figures included; the card says what its material did not show; the checker
passes it."""

from __future__ import annotations

import pytest

from newsdesk.check.checker import check_output
from newsdesk.text.sentences import is_complete
from newsdesk.write.extractive.card import extractive_card, split_notes


def own_text(member: dict) -> str:
    return "\n".join(member.get(k) or "" for k in ("title", "summary", "body"))


def levels(brief: dict) -> list[str]:
    return [m["material_level"] for m in brief["members"] if m["role"] != "duplicate"]


@pytest.mark.parametrize("language", ["zh", "en"])
def test_every_card_leads_with_whole_sentences_of_its_own_items(demo_briefs, language):
    _, _, briefs = demo_briefs
    assert len(briefs) >= 10
    for brief in briefs:
        card = extractive_card(brief, language)
        members = {m["item_id"]: m for m in brief["members"]}
        assert 1 <= len(card.lead) <= 3, brief["title"]
        for s in card.lead:
            own = own_text(members[s.item_id]) if s.item_id in members else ""
            assert s.text in own or s.text[:-1] in own, s  # a line the feed printed without its stop gets one
            assert s.source == members[s.item_id]["source_name"]
            assert is_complete(s.text) or s.text == card.headline  # a title-only event leads with its headline
        # The headline is a member's own, in the edition's language when one member has it.
        assert card.headline in [m["title"].strip() for m in members.values()]
        if any(m["language"] == language for m in members.values()):
            assert members[card.headline_item_id]["language"] == language
        for figure in card.numbers:
            assert figure in card.headline or any(figure in s.text for s in card.lead), figure
        assert (card.outlets, card.independent_outlets) == (brief["outlets"], brief["independent_outlets"])
        assert {x["item_id"] for x in card.members} == {
            m["item_id"] for m in members.values() if m["role"] != "duplicate"
        }
        analysis = card.analysis()
        result = check_output(
            analysis["headline"] + "\n\n" + analysis["body"],
            card.material(brief["members"]),
            levels=levels(brief),
            language=language,
        )
        assert result.passed, (brief["title"], [f.detail for f in result.errors])


def test_cards_prefer_full_text_figures_and_say_what_they_did_not_see(demo_briefs):
    _, _, briefs = demo_briefs
    by_title = {b["title"]: b for b in briefs}
    gpt = extractive_card(by_title["Introducing GPT-4.5"], "en")
    # The full text's figures lead (SimpleQA's 62.5%); its "$75" sentence opens on "It is…", a word pointing
    # back to what the cut left out, so it never leads.
    assert any("62.5%" in s.text for s in gpt.lead) and "62.5%" in gpt.numbers
    assert not any(s.text.startswith("It ") for s in gpt.lead)
    assert {s.source for s in gpt.lead} <= {
        "OpenAI News",
        "Simon Willison's Weblog",
    }  # the full bodies, not the summaries
    assert gpt.disclosure == ""  # full text was read
    # A title-only card says so in one line of its lead (not a note), once; rank/ may read headline_only.
    ft = next(b for b in briefs if set(levels(b)) == {"title"})
    zh, en = extractive_card(ft, "zh"), extractive_card(ft, "en")
    assert zh.headline_only and en.headline_only
    assert split_notes(zh.body())[0].startswith("只有标题：") and "正文未获取" in split_notes(zh.body())[0]
    assert split_notes(en.body())[0].startswith("The headline alone is known: ")
    assert zh.disclosure == en.disclosure == ""
    summary_only = next(b for b in briefs if set(levels(b)) == {"summary"})
    assert "摘要" in extractive_card(summary_only, "zh").disclosure


def test_a_cut_off_summary_is_never_quoted_and_a_paywall_is_said():
    brief = {
        "event_id": 1,
        "title": "Acme raises $2 billion",
        "outlets": 2,
        "independent_outlets": 1,
        "anchors": [],
        "members": [
            {
                "item_id": 10,
                "role": "lead",
                "source_name": "Financial Times",
                "title": "Acme raises $2 billion",
                "language": "en",
                "material_level": "paywalled",
                "summary": "Acme has raised $2 billion from investors led by …",
                "body": None,
                "url": "",
                "published_at": None,
            },
            {
                "item_id": 11,
                "role": "syndicated",
                "source_name": "Wire",
                "title": "Acme funding round",
                "language": "en",
                "material_level": "summary",
                "url": "",
                "published_at": None,
                "summary": "The round values Acme at $20 billion, the company said. Read more at example dot com",
                "body": None,
            },
        ],
    }
    card = extractive_card(brief, "en")
    assert [s.text for s in card.lead] == ["The round values Acme at $20 billion, the company said."]
    assert "paywall" in card.disclosure and "Financial Times" in card.disclosure
    assert "$20 billion" in card.numbers
    zh = extractive_card(brief, "zh")
    assert "订阅墙" in zh.disclosure and "其余更像同一信源的转发" in zh.coverage


def test_the_first_days_reports_lead_and_a_later_days_add_an_update():
    """Anthropic's Series G (real replay, 2026-02-12): its own post gave only a title; 新智元's piece came
    the next day. The 02-12 card told 新智元's headline and lead; now the day's own report leads (one line:
    only the headline is known) and 02-13's card says what 新智元 added, never the first day's text."""
    from datetime import UTC, datetime

    from newsdesk.write.extractive.card import says_headline_only, update_lead

    def member(n, source, title, level, summary, day, language):
        return {
            "item_id": n,
            "source_name": source,
            "title": title,
            "url": f"https://o{n}.example/a",
            "summary": summary,
            "body": "",
            "material_level": level,
            "language": language,
            "role": "lead" if n == 1 else "member",
            "published_at": datetime(2026, 2, day, 10, tzinfo=UTC),
        }

    brief = {
        "event_id": 9,
        "title": "Anthropic raises $30 billion",
        "outlets": 2,
        "independent_outlets": 2,
        "anchors": [],
        "members": [
            member(1, "Anthropic News", "Anthropic raises $30 billion in Series G funding", "title", "", 12, "en"),
            member(
                2,
                "新智元",
                "300亿美金为AI新王加冕！Anthropic估值狂飙至3800亿",
                "summary",
                "Anthropic完成300亿美元G轮融资，估值达3800亿美元。首次披露年化营收达140亿美元，过去三年增长超10倍。",
                13,
                "zh",
            ),
        ],
    }
    until = datetime(2026, 2, 12, 16, tzinfo=UTC)  # the end of 02-12 in Shanghai
    card = extractive_card(brief, "zh", until=until, growth={"2026-02-13": [2]})
    assert card.headline == "Anthropic raises $30 billion in Series G funding" and card.headline_only
    lead = split_notes(card.body())[0]
    assert lead.startswith("只有标题：Anthropic News") and "新智元" not in lead
    # In English alike: the day's one report gave no summary; 新智元's of the 13th is not its summary in Chinese.
    from newsdesk.write.extractive.english import english_card

    en = split_notes(english_card(brief, until=until, growth={"2026-02-13": [2]}).body())[0]
    assert en.startswith("The headline alone is known: Anthropic News") and "Chinese" not in en, en
    # and its 02-13 has no English report: no "Update (2026-02-13): Anthropic完成300亿美元G轮融资…" in English
    whole = english_card(brief, until=until, growth={"2026-02-13": [2]}).body()
    assert update_lead(whole, "2026-02-13") is None and "300亿" not in whole, whole
    # Over the whole week (the weekly's card) the text is 新智元's, not Anthropic's: "the other report"
    from newsdesk.write.extractive.english import HEADLINE_ONLY_OTHER

    assert english_card(brief).note == HEADLINE_ONLY_OTHER.format(language="Chinese")
    assert says_headline_only(card.body()) and not says_headline_only(update_lead(card.body(), "2026-02-13") or "")
    added = update_lead(card.body(), "2026-02-13")
    assert added and "140亿美元" in added and added.endswith("（新智元）")
    result = check_output(card.headline + "\n\n" + card.body(), card.material(brief["members"]), levels=levels(brief))
    assert result.passed, [f.detail for f in result.errors]
    # A later day whose report adds nothing new says so, naming its outlet, and repeats nothing (its card is
    # headed by that report: editions/cards.py; its title again would be the headline twice).
    again = {**brief, "members": [*brief["members"], {**brief["members"][1], "item_id": 3, "source_name": "量子位"}]}
    later = extractive_card(again, "zh", until=until, growth={"2026-02-13": [2], "2026-02-14": [3]})
    assert update_lead(later.body(), "2026-02-14") == "量子位 也有报道，没有超出此前报道的新内容。"


def test_a_bullet_whose_subject_the_summary_left_out_never_leads_nor_follows():
    """机器之心's 2026-02-24 card on DeepMind's agent scaling ran a third sentence "挑战了…的假设" and
    PaperWeekly's one opened "在AlpacaEval 2.0任务中，该框架…": bullets of a summary, whose subject
    (the study, the framework) only the bullet list above them named."""
    summary = (
        "Google DeepMind研究发现，增加智能体数量就能提升性能的假设存在瓶颈，甚至可能降低性能。"
        "通过对180种智能体配置的大规模评估，发现智能体系统的性能与任务属性紧密相关，并非智能体越多越好。"
        "挑战了“智能体越多越好”的普遍假设，提出了智能体系统的首个定量规模化原则。"
        "在180种配置的评测中，该研究给出了多智能体系统性能的量化规律。"
    )
    member = {
        "item_id": 1,
        "role": "lead",
        "source_name": "机器之心",
        "title": "DeepMind：智能体越多越乱，Agent天花板出现了？",
        "language": "zh",
        "material_level": "summary",
        "summary": summary,
        "body": None,
        "url": "",
        "published_at": None,
    }
    brief = {"event_id": 1, "title": member["title"], "outlets": 1, "independent_outlets": 1, "anchors": []}
    card = extractive_card(brief | {"members": [member]}, "zh")
    assert [s.text for s in card.lead] == [
        "Google DeepMind研究发现，增加智能体数量就能提升性能的假设存在瓶颈，甚至可能降低性能。"
    ]


def test_a_card_headed_in_its_language_states_the_news_before_an_explainers_hook():
    """The Chinese card of GPT-5.4's launch (its lead OpenAI's "Introducing GPT-5.4") was headed by
    腾讯科技's "一文读懂GPT-5.4：…，打个招呼80美元就烧完了", the first Chinese report, over "GPT-5.4正式发布！"."""
    from newsdesk.write.extractive.card import choose_headline

    members = [
        {"item_id": 1, "role": "lead", "language": "en", "title": "Introducing GPT-5.4", "material_level": "summary"},
        {
            "item_id": 2,
            "role": "member",
            "language": "zh",
            "title": "一文读懂GPT-5.4：83%任务执行超人类专家，打个招呼80美元就烧完了",
            "material_level": "summary",
        },
        {"item_id": 3, "role": "member", "language": "zh", "title": "GPT-5.4正式发布！", "material_level": "summary"},
    ]
    assert choose_headline(members, "zh", "") == ("GPT-5.4正式发布！", 3)
    assert choose_headline(members, "en", "") == ("Introducing GPT-5.4", 1)
    # Where every headline of the language is an explainer's, the best-read one still heads it; and
    # the lead's own headline heads its card whatever its words.
    assert choose_headline(members[:2], "zh", "")[1] == 2
    lead_explains = [{**members[1], "role": "lead"}, {**members[0], "role": "member"}, members[2]]
    assert choose_headline(lead_explains, "zh", "")[1] == 2


def test_a_card_whose_summary_only_describes_the_article_does_not_say_it_states_nothing_more():
    """The card of "Reverse engineering Claude's CVE-2026-2796 exploit": its summary ("This post dives deep into how
    Claude wrote an exploit for one of the vulnerabilities it found in Firefox.") tells what the post
    is, so no card leads with it; the card said the summary "stated no fact beyond" the headline,
    which a reader who opens it finds false (Firefox)."""
    from newsdesk.write.extractive.card import only_line

    post = {
        "source_name": "Anthropic Frontier Red Team Blog",
        "material_level": "summary",
        "title": "Reverse engineering Claude's CVE-2026-2796 exploit",
        "summary": "This post dives deep into how Claude wrote an exploit for one of the vulnerabilities it found in Firefox.",
    }
    en, zh = only_line([post], "en"), only_line([post], "zh")
    assert "only described the article" in en and "no fact beyond" not in en, en
    assert "只是导读" in zh and "没有说出标题之外的事实" not in zh, zh
    # A disclosure, not an opening about the article: `eval editorial`'s "zh about-the-article" reads
    # a card's first sentence, and a line naming 文章 counted there (0.019 -> 0.166 on the folds).
    from newsdesk.eval.editorial import describes_article as opens_about_the_article

    assert not opens_about_the_article(zh)
    byline = {**post, "summary": "By Nicholas Carlini"}
    assert "stated no fact beyond it" in only_line([byline], "en")
    assert "gave no summary" in only_line([{**post, "material_level": "title", "summary": ""}], "en")


def _one(title: str, summary: str, language: str, source: str = "Juya AI Daily") -> dict:
    member = {
        "item_id": 1,
        "role": "lead",
        "source_name": source,
        "title": title,
        "language": language,
        "material_level": "summary",
        "summary": summary,
        "body": None,
        "url": "",
        "published_at": None,
    }
    return {"event_id": 1, "title": title, "outlets": 1, "independent_outlets": 1, "anchors": [], "members": [member]}


def test_an_offer_the_headline_announces_is_the_news_not_a_sales_line():
    """On the outside editors' 2026-05-11 the Chinese card "Nous Portal 宣布限时免费提供 Qwen 3.6 Plus 模型"
    read in English: its one Chinese sentence ("…现已在 Nous Portal 平台限时免费开放。") was dropped as
    a sales line. An offer the headline itself announces is the news; under a headline that sells
    nothing a sales line still never leads, and a sentence pointing back never does (`eval cards`
    counts it as dangling: between the headline and the lead a card lists its reports)."""
    offer = _one(
        "Nous Portal 宣布限时免费提供 Qwen 3.6 Plus 模型",
        "Nous Research 宣布，由阿里推出的 Qwen 3.6 Plus 现已在 Nous Portal 平台限时免费开放。",
        "zh",
    )
    card = extractive_card(offer, "zh")
    assert [s.text for s in card.lead] == [
        "Nous Research 宣布，由阿里推出的 Qwen 3.6 Plus 现已在 Nous Portal 平台限时免费开放。"
    ]
    assert check_output(card.headline + "\n\n" + card.body(), card.material(offer["members"]), language="zh").passed
    sale = _one(
        "Nous Portal 上线 Qwen 3.6 Plus 模型", "Qwen 3.6 Plus 现已在 Nous Portal 平台限时免费开放，欢迎体验。", "zh"
    )
    assert extractive_card(sale, "zh").headline_only
    pointer = _one(
        "Anthropic 完成 650 亿美元 H 轮融资，投后估值达 9650 亿美元",
        "Anthropic 宣布完成 650 亿美元H 轮融资，投后估值达 9650 亿美元。"
        "这笔资金预计将用于推进安全与可解释性研究，并扩展算力满足对 Claude 的需求。",
        "zh",
    )
    assert extractive_card(pointer, "zh").headline_only


def test_an_english_post_titled_by_its_first_words_is_not_said_twice():
    """An X post or a newsletter line whose feed title is its text's first 100 characters led its
    English card with the same words under the headline; the checker held 103 of 1,067 English cards
    of the outside editors' 2026-05 days back as a repeated paragraph."""
    from newsdesk.write.extractive.english import english_card

    text = (
        "Google says 3.5 Flash runs 4x faster than comparable frontier models, and up to 12x faster in "
        "Antigravity (Google, JeffDean)."
    )
    brief = _one(text[:100], text, "en", source="Google")
    card = english_card(brief)
    assert check_output(card.headline + "\n\n" + card.body(), card.material(brief["members"]), language="en").passed
    assert not card.body().startswith("Google says 3.5 Flash"), card.body()


def test_an_english_card_is_headed_by_a_headline_not_a_posts_first_characters():
    """Claude Opus 4.8's English card (the outside editors' 2026-05-28) was headed by a newsletter
    line's feed title, its text's first 100 characters cut inside a quotation ("…an Opus 4.7 update
    with “s"): the checker held the card as unbalanced quotes, and the English edition showed the
    Chinese card. A report's own headline heads it where one exists."""
    from newsdesk.write.extractive.english import cut_title, english_card

    text = (
        "On the product side, Anthropic launched Claude Opus 4.8, describing it as an Opus 4.7 update with "
        "“sharper judgment,” and the ability to work independently for longer, at the same price."
    )
    line = {**_one(text[:100], text, "en", source="smol.ai AINews")["members"][0], "role": "member"}
    post = {
        **_one("Claude Opus 4.8 launch", "Anthropic released Claude Opus 4.8 with stronger coding and agents.", "en")[
            "members"
        ][0],
        "item_id": 2,
        "role": "member",
        "source_name": "Claude",
    }
    lead = {
        **_one("Anthropic 发布 Claude Opus 4.8 模型", "Anthropic 发布 Claude Opus 4.8 模型，强化了编码能力。", "zh")[
            "members"
        ][0],
        "item_id": 3,
    }
    assert cut_title(line) and not cut_title(post) and not cut_title(lead)
    assert not cut_title(
        {"title": "Introducing Claude Opus 4.8", "summary": "Introducing Claude Opus 4.8: our best model."}
    )
    brief = {**_one("x", "", "en"), "title": lead["title"], "members": [lead, line, post], "outlets": 3}
    card = english_card(brief)
    assert card.headline == "Claude Opus 4.8 launch"
    assert check_output(card.headline + "\n\n" + card.body(), card.material(brief["members"]), language="en").passed


def test_a_summary_the_feed_cut_inside_a_sentence_is_never_quoted_as_a_whole_one():
    """The Batch's feed cuts each letter's summary at a length and adds no "…" (the harvest's
    2026-02 items): the sentence it stops inside was quoted with a full stop added."""
    letter = (
        "Last week, I wrote about key steps for building a career in AI: learning technical skills, doing "
        "project work, and searching for a job, all of which is supported by being part of a community. "
        "In this letter, I’d like to dive more deeply into the first"
    )
    changelog = "Admins can now set a default model for their team\nVarious bug fixes and performance improvements"
    members = [
        {
            "item_id": n,
            "role": "lead" if n == 1 else "member",
            "source_name": source,
            "title": title,
            "language": "en",
            "material_level": "summary",
            "summary": summary,
            "body": None,
            "url": "",
            "published_at": None,
        }
        for n, (source, title, summary) in enumerate(
            [
                ("The Batch (DeepLearning.AI)", "The Batch: Autonomous Atlantic Crossing, AI in the Courtroom", letter),
                ("Windsurf Changelog", "Windsurf 1.9", changelog),
            ],
            1,
        )
    ]
    brief = {"event_id": 1, "title": members[0]["title"], "outlets": 2, "independent_outlets": 2, "anchors": []}
    lead = [s.text for s in extractive_card({**brief, "members": members}, "en").lead]
    assert not any("dive more deeply" in s for s in lead), lead
    assert lead[0].startswith("Last week, I wrote about key steps")
    # Lines a changelog prints without their full stops are whole statements, closed as before.
    assert (
        "Various bug fixes and performance improvements." in lead
        or "Admins can now set a default model for their team." in lead
    )


@pytest.mark.parametrize(
    ("title", "text", "shown"),
    [
        (  # cut inside a word after a whole sentence: the sentence
            "The result drew unusually strong validation from mathematicians and adjacent researchers. Timothy Go",
            "The result drew unusually strong validation from mathematicians and adjacent researchers. Timothy "
            "Gowers called it the first really clear example of AI solving a well-known open math problem.",
            "The result drew unusually strong validation from mathematicians and adjacent researchers",
        ),
        (  # inside a quotation: at the clause before it
            "On the product side, Anthropic launched Claude Opus 4.8, describing it as an Opus 4.7 update with “s",
            "On the product side, Anthropic launched Claude Opus 4.8, describing it as an Opus 4.7 update with "
            "“sharper judgment,” and the ability to work independently for longer.",
            "On the product side, Anthropic launched Claude Opus 4.8…",
        ),
        (  # no break: at its last whole word
            "OpenAI shipped a new model for agents and cod",
            "OpenAI shipped a new model for agents and coding today.",
            "OpenAI shipped a new model for agents and…",
        ),
        (  # ends on a whole word: whole (a podcast's long title its summary repeats)
            "KI im Recruiting: Von 45 auf 3 Minuten für eine Stellenanzeige mit 30% mehr Conversion",
            "KI im Recruiting: Von 45 auf 3 Minuten für eine Stellenanzeige mit 30% mehr Conversion – mit Shezan Kazi",
            "KI im Recruiting: Von 45 auf 3 Minuten für eine Stellenanzeige mit 30% mehr Conversion",
        ),
        ("Introducing Claude Opus 4.8", "Introducing Claude Opus 4.8: our best model.", "Introducing Claude Opus 4.8"),
    ],
)
def test_a_title_cut_inside_a_word_heads_its_card_where_its_words_end(title, text, shown):
    """The outside editors' 2026-05-20: an English headline list read "The result drew unusually strong
    validation from mathematicians and adjacent researchers. Timothy Go", a newsletter line's feed title
    (its text's first 100 characters). Both editions' cards now end it where its words do."""
    from newsdesk.write.extractive.english import english_card

    brief = _one(title, text, "en", source="smol.ai AINews")
    assert english_card(brief).headline == shown
    assert extractive_card(brief, "zh").headline == shown
    card = english_card(brief)
    assert check_output(card.headline + "\n\n" + card.body(), card.material(brief["members"]), language="en").passed
