"""parse_feed over feedparser's own 2,100-document corpus, the real ai-blogs snapshots, and the
site shapes newsdesk reads (hnrss, arXiv, podcasts, content:encoded, GB2312, JSON Feed)."""

from __future__ import annotations

import io
import re
from datetime import UTC, datetime

import feedparser
import pytest

from newsdesk.core.model import MATERIAL_LEVELS, Source
from newsdesk.ingest.parse import parse_feed

NOW = datetime(2026, 8, 22, 12, 0, tzinfo=UTC)
SRC = Source(id="test-feed", name="Test feed", url="http://example.org/feed.xml")


def _header(body: bytes) -> str:
    return body[:1500].decode("latin-1")


def _http_headers(head: str) -> dict[str, str]:
    """The corpus states the HTTP headers each document was served with ('Header: Content-type: …')."""
    return dict(re.findall(r"^Header:\s*([\w-]+):\s*(.*?)\s*$", head, re.M))


def _has_text(entry) -> bool:
    texts = [entry.get("title"), entry.get("link"), entry.get("summary")] + [
        c.get("value") for c in entry.get("content") or []
    ]
    # SVG, scripts and styles are markup, not words a reader sees.
    drop = re.compile(r"<(svg|script|style)\b.*?</\1>|<[^>]*>", re.S | re.I)
    return any(t and drop.sub("", t).strip() for t in texts)


def test_every_feedparser_corpus_document(fixtures):
    root = fixtures / "feeds/feedparser-tests"
    files = sorted(p for p in root.rglob("*") if p.is_file() and p.name != "LICENSE")
    assert len(files) > 2000
    bozo_files = silent_bozo = 0
    mismatched = []
    for path in files:
        body = path.read_bytes()
        head = _header(body)
        headers = _http_headers(head)
        parsed = parse_feed(
            body, SRC, fetched_at=NOW, url="http://example.org/feed.xml", headers=headers
        )  # must not raise
        assert all(i.material_level in MATERIAL_LEVELS and i.title and i.guid for i in parsed.items), path
        assert len({i.guid for i in parsed.items}) == len(parsed.items), f"{path}: duplicate guids kept"
        if re.search(r"Expect:\s*bozo", head):
            bozo_files += 1
            if not (parsed.warnings or parsed.error):
                silent_bozo += 1
        if path.suffix != ".xml":
            continue
        # Every entry feedparser found is kept, except ones with nothing to show and in-feed duplicates.
        fp = feedparser.parse(io.BytesIO(body), response_headers={k.lower(): v for k, v in headers.items()})
        with_text = sum(_has_text(e) for e in fp.entries)
        m = re.search(r"(\d+) duplicate entr", " ".join(parsed.warnings))
        duplicates = int(m.group(1)) if m else 0
        if len(parsed.items) != with_text - duplicates:
            mismatched.append((path.name, len(parsed.items), with_text, duplicates))
    assert bozo_files == 20
    assert silent_bozo == 0
    assert not mismatched, mismatched[:10]


def test_bozo_warning_names_line_and_keeps_items(fixtures):
    body = (fixtures / "feeds/feedparser-tests/encoding/bozo_double-encoded-html.xml").read_bytes()
    parsed = parse_feed(body, SRC, fetched_at=NOW)
    assert parsed.error is None
    assert parsed.warnings[0].startswith("not well-formed XML at line 9, column 17")
    assert "kept 1 entry" in parsed.warnings[0]
    assert len(parsed.items) == 1


def test_not_a_feed_is_one_line_error():
    parsed = parse_feed(b"<!doctype html><html><body><p>Welcome</p></body></html>", SRC, fetched_at=NOW)
    assert parsed.items == [] and "this is a web page" in parsed.error and "\n" not in parsed.error
    assert "empty document" in parse_feed(b"  \n", SRC, fetched_at=NOW).error
    assert "not valid JSON at line 1" in parse_feed(b'{"items": [', SRC, fetched_at=NOW).error


def test_real_ai_blog_snapshot(fixtures):
    body = (fixtures / "feeds/ai-blogs/2026-07-04/feed_anthropic_news.xml").read_bytes()
    parsed = parse_feed(body, SRC, fetched_at=NOW)
    assert parsed.title == "Anthropic News" and parsed.error is None
    fp = feedparser.parse(body)
    assert 0 < len(parsed.items) <= len(fp.entries)
    first = parsed.items[0]
    assert first.url == "https://www.anthropic.com/news/fable-safeguards-jailbreak-framework"
    assert first.published_at == datetime(2026, 7, 2, tzinfo=UTC)
    assert first.language == "en"
    assert first.material_level == "title"  # its description only repeats the title
    assert first.categories == ["Announcements"]


def test_german_podcast_detected_other(fixtures):
    body = (fixtures / "feeds/ai-blogs/2026-07-04/feed_ai_first_podcast.xml").read_bytes()
    items = parse_feed(body, SRC, fetched_at=NOW).items
    assert items[0].title == "Die Rolle von HR in der KI-Transformation"
    assert items[0].language == "other"


HNRSS = b"""<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:atom="http://www.w3.org/2005/Atom">
<channel><title>Hacker News: Front Page</title><link>https://news.ycombinator.com/</link>
<item>
<title>Show HN: A 2MB local LLM that runs in the browser</title>
<description><![CDATA[
<p>Article URL: <a href="https://example.dev/tiny-llm?utm_source=hackernews">https://example.dev/tiny-llm?utm_source=hackernews</a></p>
<p>Comments URL: <a href="https://news.ycombinator.com/item?id=44012345">https://news.ycombinator.com/item?id=44012345</a></p>
<p>Points: 412</p>
<p># Comments: 187</p>
]]></description>
<pubDate>Mon, 18 Aug 2026 14:03:11 +0000</pubDate>
<link>https://example.dev/tiny-llm?utm_source=hackernews</link>
<dc:creator>jdoe</dc:creator>
<comments>https://news.ycombinator.com/item?id=44012345</comments>
<guid isPermaLink="false">https://news.ycombinator.com/item?id=44012345</guid>
</item>
</channel></rss>"""


def test_hnrss_points_and_comments():
    src = Source(id="hn-frontpage", name="Hacker News", url="https://hnrss.org/frontpage", kind="hn")
    (item,) = parse_feed(HNRSS, src, fetched_at=NOW).items
    assert item.engagement == {"points": 412, "comments": 187}
    assert item.url == "https://example.dev/tiny-llm"
    assert item.guid == "https://news.ycombinator.com/item?id=44012345"
    assert item.extra["comments_url"] == "https://news.ycombinator.com/item?id=44012345"
    assert item.summary == "" and item.material_level == "title"  # hnrss boilerplate is not a summary
    assert item.authors == ["jdoe"]
    assert item.published_at == datetime(2026, 8, 18, 14, 3, 11, tzinfo=UTC)


ARXIV = b"""<?xml version='1.0' encoding='UTF-8'?>
<rss xmlns:arxiv="http://arxiv.org/schemas/atom" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:atom="http://www.w3.org/2005/Atom" xmlns:content="http://purl.org/rss/1.0/modules/content/" version="2.0">
  <channel>
    <title>cs.CL updates on arXiv.org</title>
    <link>http://rss.arxiv.org/rss/cs.CL</link>
    <description>cs.CL updates on the arXiv.org e-print archive.</description>
    <item>
      <title>Sparse Mixture-of-Experts Distillation for Multilingual Reasoning</title>
      <link>https://arxiv.org/abs/2502.12345</link>
      <description>arXiv:2502.12345v2 Announce Type: replace-cross
Abstract: We distil a sparse mixture-of-experts teacher into a dense student and show that multilingual reasoning survives.</description>
      <guid isPermaLink="false">oai:arXiv.org:2502.12345v2</guid>
      <category>cs.CL</category>
      <category>cs.AI</category>
      <category>cs.LG</category>
      <pubDate>Tue, 18 Feb 2025 00:00:00 -0500</pubDate>
      <arxiv:announce_type>replace-cross</arxiv:announce_type>
      <dc:rights>http://creativecommons.org/licenses/by/4.0/</dc:rights>
      <dc:creator>Ada Lovelace, Alan Turing, Grace Hopper</dc:creator>
    </item>
  </channel>
</rss>"""


def test_arxiv_id_categories_authors():
    src = Source(id="arxiv-cs-cl", name="arXiv cs.CL", url="https://rss.arxiv.org/rss/cs.CL", kind="arxiv")
    (item,) = parse_feed(ARXIV, src, fetched_at=NOW).items
    assert item.extra["arxiv_id"] == "2502.12345"
    assert item.extra["arxiv_version"] == "v2"
    assert item.extra["arxiv_announce_type"] == "replace-cross"
    assert item.categories == ["cs.CL", "cs.AI", "cs.LG"]
    assert item.authors == ["Ada Lovelace", "Alan Turing", "Grace Hopper"]
    assert item.summary.startswith("We distil a sparse mixture-of-experts")
    assert item.published_at == datetime(2025, 2, 18, 5, 0, tzinfo=UTC)


PODCAST = b"""<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" xmlns:podcast="https://podcastindex.org/namespace/1.0">
<channel><title>Latent Space</title><link>https://www.latent.space/podcast</link>
<item>
  <title>Ep 112: Inside the Agent Lab</title>
  <guid isPermaLink="false">latent-space-ep-112</guid>
  <itunes:episode>112</itunes:episode>
  <enclosure url="https://cdn.example.com/ls/ep112.mp3" type="audio/mpeg" length="48211234"/>
  <podcast:transcript url="https://cdn.example.com/ls/ep112.vtt" type="text/vtt"/>
  <podcast:transcript url="https://cdn.example.com/ls/ep112.json" type="application/json" language="en"/>
  <description>Swyx and Alessio talk to the team that ships agents for a living.</description>
  <pubDate>Fri, 15 Aug 2026 16:00:00 GMT</pubDate>
</item>
<item>
  <title>Ep 111: Small Models</title>
  <guid isPermaLink="false">latent-space-ep-111</guid>
  <itunes:episode>111</itunes:episode>
  <description>Why 1B-parameter models matter again.</description>
</item>
</channel></rss>"""


def test_podcast_transcript_links_episode_enclosure():
    src = Source(id="latent-space-pod", name="Latent Space", url="https://example.com/pod.xml", kind="podcast")
    ep112, ep111 = parse_feed(PODCAST, src, fetched_at=NOW).items
    assert ep112.extra["transcripts"] == [
        {"url": "https://cdn.example.com/ls/ep112.vtt", "type": "text/vtt"},
        {"url": "https://cdn.example.com/ls/ep112.json", "type": "application/json"},
    ]  # feedparser alone keeps only the last one
    assert ep112.extra["episode"] == "112"
    assert ep112.extra["enclosure"] == "https://cdn.example.com/ls/ep112.mp3"
    assert "transcripts" not in ep111.extra and ep111.extra["episode"] == "111"
    assert ep111.published_at is None  # no date: the store uses first-seen


ARTICLE_PARAS = [
    "Mistral released a new open-weight model on Tuesday, the third in a series aimed at on-device use.",
    "The model has 8 billion parameters and a 128k-token context window, and the company says it matches "
    "models twice its size on coding and maths benchmarks while running on a single consumer GPU.",
    "Weights are published under the Apache 2.0 licence, a change from the research-only terms of the previous "
    "release that had drawn criticism from developers who wanted to ship it in commercial products.",
    "Independent evaluations are still pending; early community tests show strong results on function calling "
    "and weaker ones on long-form writing, and several inference engines added support within hours.",
    "The company also said it will publish the training data mixture in a technical report next month.",
    "Analysts noted that the release lands a week after two rival labs cut prices on their small models, and "
    "that an open licence makes the model a candidate default for phones and laptops that cannot call an API.",
]
CONTENT_ENCODED = (
    """<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/">
<channel><title>AI Wire</title><link>https://aiwire.example.com/</link>
<item><title>Mistral ships an 8B open-weight model</title>
<link>https://aiwire.example.com/2026/08/mistral-8b</link>
<description>Mistral released a new open-weight model on Tuesday.</description>
<content:encoded><![CDATA["""
    + "".join(f"<p>{p}</p>" for p in ARTICLE_PARAS)
    + """<script>track()</script>]]></content:encoded>
<pubDate>Tue, 19 Aug 2026 09:00:00 +0200</pubDate></item>
</channel></rss>"""
).encode()


def test_content_encoded_becomes_full_body():
    (item,) = parse_feed(CONTENT_ENCODED, SRC, fetched_at=NOW).items
    assert item.material_level == "full"
    assert item.body == "\n\n".join(ARTICLE_PARAS)
    assert item.summary == "Mistral released a new open-weight model on Tuesday."
    assert item.published_at == datetime(2026, 8, 19, 7, 0, tzinfo=UTC)


def test_short_content_is_not_full():
    short = CONTENT_ENCODED.replace(
        "".join(f"<p>{p}</p>" for p in ARTICLE_PARAS).encode(), b"<p>Read more on our site.</p>"
    )
    (item,) = parse_feed(short, SRC, fetched_at=NOW).items
    assert item.material_level == "summary" and item.body is None


GB2312_TITLE = "智谱发布新一代开源大模型"
GB2312_SUMMARY = "北京智谱华章科技有限公司今天发布了新一代开源大模型，支持中英双语推理。"


def test_gb2312_feed_decodes():
    body = f"""<?xml version="1.0" encoding="gb2312"?>
<rss version="2.0"><channel><title>新智元</title><link>https://example.cn/</link>
<item><title>{GB2312_TITLE}</title><link>https://example.cn/a/1</link>
<description>{GB2312_SUMMARY}</description></item></channel></rss>""".encode("gb2312")
    parsed = parse_feed(body, SRC, fetched_at=NOW, headers={"Content-Type": "application/rss+xml; charset=gb2312"})
    assert parsed.title == "新智元" and not parsed.warnings
    (item,) = parsed.items
    assert (item.title, item.summary, item.language) == (GB2312_TITLE, GB2312_SUMMARY, "zh")


def test_gb2312_without_declaration_is_detected(fixtures):
    body = (fixtures / "feeds/feedparser-tests/illformed/chardet/gb2312.xml").read_bytes()
    parsed = parse_feed(body, SRC, fetched_at=NOW)
    assert parsed.warnings and "(bozo)" in parsed.warnings[0]
    assert [i.title for i in parsed.items] == ["不归移民漫画系列：专业工作"]


def test_json_feed(fixtures):
    body = (fixtures / "feeds/feedparser-tests/json/example.json").read_bytes()
    parsed = parse_feed(body, SRC, fetched_at=NOW)
    assert parsed.title == "My Example Feed" and parsed.error is None and parsed.format == "json1"
    second, first = parsed.items
    assert (second.guid, second.url, second.title) == ("2", "https://example.org/second-item", "post 2")
    assert second.summary == "This is a second item." and second.categories == ["test", "JSON"]
    assert second.extra["enclosure"] == "https://example.org/second-item-show.mp4"
    assert first.title == "Hello, world!" and "alert" not in first.summary  # no title: from its text; script dropped
    assert first.authors == ["you"] and second.authors == ["me"]


def test_dedup_within_feed():
    """The guid identifies an entry (changelog feeds give many entries one page); without a guid the
    canonical URL does, fragment included."""
    body = b"""<rss version="2.0"><channel><title>t</title>
<item><title>A</title><link>https://example.com/a?utm_source=rss</link><guid>1</guid></item>
<item><title>A, second release</title><link>https://example.com/a</link><guid>2</guid></item>
<item><title>B</title><link>https://example.com/b</link><guid>1</guid></item>
<item><title>C</title><link>https://example.com/c?utm_medium=feed</link></item>
<item><title>C again</title><link>https://example.com/c</link></item>
<item><title>D 1.2</title><link>https://example.com/changelog#1.2</link></item>
<item><title>D 1.1</title><link>https://example.com/changelog#1.1</link></item>
</channel></rss>"""
    parsed = parse_feed(body, SRC, fetched_at=NOW)
    assert [i.title for i in parsed.items] == ["A", "A, second release", "C", "D 1.2", "D 1.1"]
    assert parsed.items[2].guid == "https://example.com/c"
    assert parsed.dropped == 2 and "2 duplicate entries" in parsed.warnings[-1]


@pytest.mark.parametrize("body", [b"\x00\xff\xfe garbage", b"<rss><channel><item><title>x", b"[1, 2, 3]", b"{}"])
def test_hostile_bodies_never_raise(body):
    parsed = parse_feed(body, SRC, fetched_at=NOW)
    assert parsed.error or parsed.warnings or parsed.items
