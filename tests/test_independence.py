"""Coverage independence: outlets vs outlets that reported on their own."""

from newsdesk.cluster.independence import arxiv_id, coverage, origin_groups


def _m(item_id, source_id, title, url=None, role="member", origin=None, extra=None, guid=None, owner=None):
    return {
        "item_id": item_id,
        "source_id": source_id,
        "owner": owner,
        "title": title,
        "url": url,
        "role": role,
        "origin_item_id": origin,
        "extra": extra or {},
        "guid": guid,
    }


def test_one_arxiv_paper_from_three_category_feeds_and_hf_papers_is_one_independent_outlet():
    title = "HalluScope: Measuring Hallucination Scope in Vision-Language Models"
    members = [
        _m(1, "arxiv-cs-cl", title, "http://arxiv.org/abs/2604.12345v1", guid="oai:arXiv.org:2604.12345"),
        _m(2, "arxiv-cs-lg", title, "https://arxiv.org/abs/2604.12345", guid="oai:arXiv.org:2604.12345v1"),
        _m(3, "arxiv-cs-ai", title + " (v1)", "https://arxiv.org/pdf/2604.12345v1"),
        _m(4, "hf-papers-takara", "Paper page - HalluScope", "https://huggingface.co/papers/2604.12345"),
    ]
    cov = coverage(members)
    assert cov["outlets"] == 4
    assert cov["independent_outlets"] == 1
    assert cov["origin_groups"] == [[1, 2, 3, 4]]


def test_official_post_and_two_media_write_ups_with_different_headlines_are_three():
    members = [
        _m(
            10,
            "anthropic-blog",
            "An update on recent Claude Code quality reports",
            "https://www.anthropic.com/engineering/april-23-postmortem",
        ),
        _m(
            11,
            "the-verge",
            "Anthropic says three separate changes made Claude Code worse",
            "https://www.theverge.com/ai/claude-code",
        ),
        _m(
            12,
            "jiqizhixin",
            "Claude Code 变笨真相：Anthropic 复盘三处独立改动",
            "https://mp.weixin.qq.com/s?__biz=abc&mid=1",
        ),
    ]
    cov = coverage(members)
    assert (cov["outlets"], cov["independent_outlets"]) == (3, 3)


def test_syndicated_copy_same_headline_and_same_outlet_collapse():
    members = [
        _m(1, "openai-blog", "Introducing GPT-5.5", "https://openai.com/index/gpt-5-5"),
        _m(
            2,
            "aggregator",
            "Introducing GPT-5.5 — faster and cheaper",
            "https://agg.example/p/1",
            role="syndicated",
            origin=1,
        ),
        _m(3, "hn-frontpage", "Introducing GPT-5.5", "https://news.ycombinator.com/item?id=1"),  # same headline
        _m(4, "36kr", "OpenAI 发布 GPT-5.5，价格下调一半", "https://36kr.com/p/1"),
        _m(5, "36kr", "GPT-5.5 上手：我们测了 20 个任务", "https://36kr.com/p/2"),  # same outlet again
        _m(
            6,
            "reuters",
            "OpenAI launches GPT-5.5 as rivalry with Google heats up",
            "https://www.reuters.com/x?utm_source=rss",
        ),
        _m(
            7, "reuters-tech", "OpenAI launches GPT-5.5 as rivalry with Google heats up", "https://reuters.com/x"
        ),  # same URL
    ]
    groups = origin_groups(members)
    assert groups == [[1, 2, 3], [4, 5], [6, 7]]
    assert coverage(members)["outlets"] == 6


def test_arxiv_id_from_metadata_link_or_guid():
    assert arxiv_id({"extra": {"arxiv_id": "2501.01234v3"}}) == "2501.01234"
    assert arxiv_id({"url": "https://huggingface.co/papers/2501.01234"}) == "2501.01234"
    assert arxiv_id({"url": "https://example.com/2501.01234"}) is None  # not an arXiv link
    assert arxiv_id({"url": "", "guid": "oai:arXiv.org:2501.01234"}) == "2501.01234"


def test_one_companys_channels_are_one_voice_and_a_medium_beside_them_is_another():
    """The Opus 4.6 launch on Anthropic News and Claude Blog read "2 outlets, 2 independent": one
    company speaking twice confirms nothing. An outlet of its own beside them does."""
    members = [
        _m(
            1,
            "anthropic-news",
            "Introducing Claude Opus 4.6",
            "https://www.anthropic.com/news/opus-4-6",
            owner="Anthropic",
        ),
        _m(2, "claude", "Advancing finance with Claude Opus 4.6", "https://claude.com/blog/finance", owner="Anthropic"),
    ]
    cov = coverage(members)
    assert (cov["outlets"], cov["independent_outlets"]) == (2, 1)
    members.append(_m(3, "ars-technica-ai", "Anthropic ships Opus 4.6", "https://arstechnica.com/ai/opus"))
    cov = coverage(members)
    assert (cov["outlets"], cov["independent_outlets"]) == (3, 2)
    assert cov["origin_groups"] == [[1, 2], [3]]
