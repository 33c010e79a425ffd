"""Normalizers: canonical URLs, titles, HTML text, language on real harvest titles, UTC times."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta, timezone

import pytest

from newsdesk.ingest.normalize import canonical_url, clean_title, html_to_text, to_utc
from newsdesk.text.language import detect_language


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        # tracking parameters go, the rest is sorted, fragment dropped
        (
            "https://www.example.com/post?utm_source=tw&b=2&utm_medium=social&a=1&fbclid=XyZ#comments",
            "https://www.example.com/post?a=1&b=2",
        ),
        (
            "https://example.com/a?gclid=1&mc_cid=2&mc_eid=3&ref=hn&ref_src=twsrc&igshid=4&spm=a.b",
            "https://example.com/a",
        ),
        ("https://36kr.com/p/123?from=timeline&isappinstalled=0", "https://36kr.com/p/123"),
        ("https://example.com/a?UTM_Campaign=x&id=7", "https://example.com/a?id=7"),
        # scheme and host lower-cased, path case kept, default ports dropped, other ports kept
        ("HTTPS://Example.COM:443/Blog/Post-A", "https://example.com/Blog/Post-A"),
        ("HTTP://Example.com:80/x", "http://example.com/x"),
        ("http://example.com:8080/x", "http://example.com:8080/x"),
        ("https://example.com", "https://example.com/"),
        # WeChat: only the four parameters that identify an article
        (
            "https://mp.weixin.qq.com/s?__biz=MzA3MzI4MjgzMw==&mid=2651018004&idx=3&sn=c6e8d5&chksm=84e4&scene=21#wechat_redirect",
            "https://mp.weixin.qq.com/s?__biz=MzA3MzI4MjgzMw%3D%3D&idx=3&mid=2651018004&sn=c6e8d5",
        ),
        # things it must not break
        ("/relative/path", "/relative/path"),
        ("http://example.com:notaport/x", "http://example.com:notaport/x"),
        ("", ""),
    ],
)
def test_canonical_url(raw, expected):
    assert canonical_url(raw) == expected


def test_canonical_url_merges_two_shares_of_one_article():
    a = canonical_url("https://Example.com/story?utm_source=newsletter#top")
    b = canonical_url("https://example.com/story?fbclid=abc")
    assert a == b == "https://example.com/story"


def test_clean_title():
    assert clean_title("  AT&amp;amp;T <b>buys</b>\n  a   startup &#8217;s ") == "AT&T buys a startup ’s"
    assert clean_title("<em>Using</em> &lt;div&gt; tags") == "Using <div> tags"  # escaped text stays text
    assert clean_title("") == ""


def test_html_to_text_keeps_paragraphs_and_drops_scripts():
    html = (
        "<div><h2>Launch</h2><p>OpenAI released <b>GPT-5</b> today.<!-- tracking --></p>"
        "<script>var x = 1;</script><style>p{color:red}</style>"
        "<p>It costs &amp; scales.<br>Second line.</p><ul><li>fast</li><li>cheap</li></ul></div>"
    )
    assert (
        html_to_text(html)
        == "Launch\n\nOpenAI released GPT-5 today.\n\nIt costs & scales.\nSecond line.\n\nfast\ncheap"
    )
    assert html_to_text("plain &amp; simple\n\nsecond   para") == "plain & simple\n\nsecond para"
    assert html_to_text("") == ""
    assert html_to_text('<?xml version="1.0" encoding="utf-8"?><p>ok</p>') == "ok"


def test_detect_language_on_real_harvest_titles(fixtures):
    """Every WeChat outlet in the harvest writes Chinese; every 'overseas' title is English."""
    wrong = []
    with (fixtures / "news/ai-daily-harvest.jsonl").open(encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh]
    for row in rows:
        expected = "zh" if row["source_channel"] == "wechat-ai" else "en"
        if detect_language(row["title"]) != expected:
            wrong.append((expected, row["title"]))
    assert len(rows) == 673
    assert not wrong, wrong[:10]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("OpenAI 发布 GPT-5", "zh"),
        ("RL101:从SFT到PPO", "zh"),
        ("OpenAI releases GPT-5 with a million-token context", "en"),
        ("Die Rolle von HR in der KI-Transformation", "other"),  # a real German title in the ai-blogs feeds
        ("ChatGPTの新機能を試す", "other"),
        ("Новая модель от Яндекса", "other"),
        ("", "other"),
    ],
)
def test_detect_language_edges(text, expected):
    assert detect_language(text) == expected


def test_to_utc_variants():
    expected = datetime(2026, 7, 2, 8, 30, tzinfo=UTC)
    assert to_utc(time.struct_time((2026, 7, 2, 8, 30, 0, 3, 183, 0))) == expected  # feedparser *_parsed
    assert to_utc("2026-07-02T08:30:00Z") == expected
    assert to_utc("2026-07-02T10:30:00+02:00") == expected
    assert to_utc("Thu, 02 Jul 2026 08:30:00 +0000") == expected
    assert to_utc("Thu, 02 Jul 2026 04:30:00 EDT") == expected
    assert to_utc(int(expected.timestamp())) == expected
    assert to_utc(int(expected.timestamp()) * 1000) == expected  # JavaScript milliseconds
    assert to_utc(str(int(expected.timestamp()))) == expected
    assert to_utc(datetime(2026, 7, 2, 10, 30, tzinfo=timezone(timedelta(hours=2)))) == expected
    assert to_utc("2026-02-25") == datetime(2026, 2, 25, tzinfo=UTC)
    assert to_utc("2004-02-28T18:14:55-08:00") == datetime(2004, 2, 29, 2, 14, 55, tzinfo=UTC)
    naive = to_utc(datetime(2026, 7, 2, 8, 30))
    assert naive == expected and naive.tzinfo is not None
    for bad in (None, "", "not a date", "yesterday-ish", True, [1, 2]):
        assert to_utc(bad) is None


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("2026-02-26", True),
        ("Thu, 26 Feb 2026", True),
        # Feeds that know only the day write it as midnight (ai-blogs: Anthropic's news feed): no time was stated.
        ("Thu, 26 Feb 2026 00:00:00 +0000", True),
        ("Thu, 09 Jul 2026 00:00:00 -0700", True),
        ("2026-02-26T00:00:00Z", True),
        ("2026-02-26T00:00:00.000+08:00", True),
        ("Thu, 26 Feb 2026 10:00:00 +0000", False),
        ("Thu, 26 Feb 2026 00:00:30 +0000", False),
        ("2026-02-26T14:00:00Z", False),
        ("1772100000", False),
    ],
)
def test_date_only(raw, expected):
    from newsdesk.ingest.normalize import date_only

    assert date_only(raw) is expected
