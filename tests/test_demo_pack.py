"""The packaged demo pack is well-formed and holds what later stages rely on."""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path

import feedparser
import pytest
import trafilatura

from newsdesk.core.config import Settings
from newsdesk.ingest.catalog import load_catalog

DEMO = Path(str(resources.files("newsdesk") / "data" / "demo"))
WEEK = (datetime(2025, 2, 24, tzinfo=UTC), datetime(2025, 3, 3, tzinfo=UTC))
CROSS_LISTED = "oai:arXiv.org:2502.18600v1"
CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def feeds() -> dict[str, feedparser.FeedParserDict]:
    paths = sorted((DEMO / "feeds").glob("*.xml"))
    assert paths, f"no feeds in {DEMO / 'feeds'}"
    return {p.stem: feedparser.parse(p.read_bytes()) for p in paths}


@pytest.fixture(scope="module")
def pages() -> dict[str, str]:
    return json.loads((DEMO / "pages.json").read_text(encoding="utf-8"))


def test_every_feed_parses_cleanly_with_dated_items(feeds):
    for stem, parsed in feeds.items():
        assert not parsed.bozo, f"{stem}: {parsed.get('bozo_exception')}"
        assert parsed.version, stem
        assert parsed.entries, f"{stem}: no items"
        for e in parsed.entries:
            assert e.get("title") and e.get("link"), stem
            assert e.get("id"), f"{stem}: item without guid: {e.title}"
            when = datetime(*e.published_parsed[:6], tzinfo=UTC)
            assert WEEK[0] <= when < WEEK[1], f"{stem}: {e.title} dated {when}"
            assert when.time() != datetime.min.time() or stem.startswith("arxiv"), f"{stem}: no time of day"


# The demo podcast is a fictional show made for the pack, so it is not in the real catalog;
# replay stores it as an imported source.
DEMO_ONLY = {"newsdesk-week"}


def test_file_stems_are_catalog_ids(tmp_path, feeds):
    catalog, errors = load_catalog(Settings(data_dir=str(tmp_path)))
    assert errors == []
    ids = {s.id for s in catalog}
    assert set(feeds) - DEMO_ONLY <= ids, sorted(set(feeds) - ids - DEMO_ONLY)


def test_size_sources_and_languages(feeds):
    entries = [e for parsed in feeds.values() for e in parsed.entries]
    assert 35 <= len(entries) <= 50
    assert len(feeds) >= 10
    zh = [e for e in entries if CJK.search(e.title)]
    en = [e for e in entries if not CJK.search(e.title)]
    assert len(zh) >= 8 and len(en) >= 20
    guids = Counter((stem, e.id) for stem, parsed in feeds.items() for e in parsed.entries)
    assert max(guids.values()) == 1, "a guid repeats inside one feed"


def test_events_are_covered_by_several_outlets_in_both_languages(feeds):
    def outlets(*needles: str) -> set[str]:
        return {stem for stem, parsed in feeds.items() for e in parsed.entries if any(n in e.title for n in needles)}

    claude = outlets("Claude 3.7")
    gpt45 = outlets("GPT-4.5")
    margin = outlets("545", "economics of its AI")
    for covered in (claude, gpt45, margin):
        assert len(covered) >= 3, covered
        assert covered & {"jiqizhixin", "qbitai", "36kr"}, covered  # Chinese coverage
        assert covered - {"jiqizhixin", "qbitai", "36kr", "infoq-cn"}, covered  # English coverage
    assert {"anthropic-news", "the-verge-ai", "jiqizhixin", "qbitai"} <= claude
    assert {"openai-news", "the-verge-ai", "jiqizhixin"} <= gpt45


def test_syndicated_copies_are_near_identical(feeds):
    def item(stem: str, needle: str):
        return next(e for e in feeds[stem].entries if needle in e.title)

    for needle in ("Claude 3.7", "545%"):
        a, b = item("qbitai", needle), item("36kr", needle)
        assert a.title == b.title
        assert a.summary in b.summary  # 36kr prepends its "from 量子位" credit
    a, b = item("the-decoder", "Phi-4"), item("marktechpost", "Phi-4")
    assert a.title.lower() == b.title.lower()
    words_a, words_b = set(a.summary.lower().split()), set(b.summary.lower().split())
    assert len(words_a & words_b) / len(words_a | words_b) > 0.85


def test_arxiv_paper_is_cross_listed(feeds):
    holders = [stem for stem, parsed in feeds.items() for e in parsed.entries if e.id == CROSS_LISTED]
    assert len(holders) >= 3 and {"arxiv-cs-cl", "arxiv-cs-lg", "arxiv-cs-ai"} <= set(holders)
    copies = [e for stem in holders for e in feeds[stem].entries if e.id == CROSS_LISTED]
    assert len({e.title for e in copies}) == 1
    abstracts = {e.summary.split("Abstract:", 1)[1].strip() for e in copies}
    assert len(abstracts) == 1
    hf = [e for e in feeds["hf-papers-takara"].entries if "2502.18600" in e.link]
    assert hf and hf[0].title == copies[0].title and hf[0].summary.strip() == abstracts.pop()


def test_material_levels_have_examples(feeds, pages):
    full = [
        stem
        for stem, parsed in feeds.items()
        for e in parsed.entries
        if e.get("content") and len(e.content[0].value) > 300
    ]
    assert {"anthropic-news", "openai-news", "simon-willison", "jiqizhixin"} <= set(full)
    title_only = [e for e in feeds["ft-technology"].entries if not e.get("summary")]
    assert len(title_only) == 2
    paywalled = [e.link for e in title_only if e.link in pages]
    assert len(paywalled) == 1


def test_pages_map_to_files(pages, feeds):
    links = {e.link for parsed in feeds.values() for e in parsed.entries}
    transcripts = {
        t["url"]
        for parsed in feeds.values()
        for e in parsed.entries
        for t in ([e["podcast_transcript"]] if "podcast_transcript" in e else [])
    }
    assert len(pages) >= 3
    for url, rel in pages.items():
        assert url.startswith("https://"), url
        assert (DEMO / rel).is_file(), rel
        assert url in links or url in transcripts, f"{url} is not referenced by any feed"


def test_paywall_page_and_article_page(pages):
    by_file = {Path(rel).name: DEMO / rel for rel in pages.values()}
    paywall = by_file["ft-deepseek-economics.html"].read_text(encoding="utf-8")
    assert "Subscribe to unlock this article" in paywall
    teaser = trafilatura.extract(paywall) or ""
    assert len(teaser) < 400  # no body to store
    article = trafilatura.extract(by_file["venturebeat-phi-4.html"].read_text(encoding="utf-8")) or ""
    assert len(article) > 1200 and "6.14%" in article and "5.6 billion" in article
    assert "newsletters" not in article.lower()  # boilerplate stays out


def test_podcast_transcript(feeds, pages):
    episodes = feeds["newsdesk-week"].entries
    assert len(episodes) == 1
    # feedparser exposes <podcast:transcript> as podcast_transcript
    tr = episodes[0]["podcast_transcript"]
    assert tr["type"] == "text/vtt" and tr["url"] in pages
    vtt = (DEMO / pages[tr["url"]]).read_text(encoding="utf-8")
    assert vtt.startswith("WEBVTT")
    cues = re.findall(r"^(\d\d:\d\d:\d\d\.\d{3}) --> (\d\d:\d\d:\d\d\.\d{3})\n<v ([^>]+)>(.+)$", vtt, flags=re.M)
    assert 60 <= len(cues) <= 120
    speakers = Counter(c[2] for c in cues)
    assert 2 <= len(speakers) <= 3 and min(speakers.values()) >= 10
    starts = [c[0] for c in cues]
    assert starts == sorted(starts)
    assert all(a < b for a, b, _, _ in cues)
    text = " ".join(c[3] for c in cues)
    # Speech recognition writes most numbers as digits and some as words; both are there.
    for number in ("62.3", "545%", "$87,072", "37.1%", "$150", "6.14%", "eight point one nine"):
        assert number in text, number
