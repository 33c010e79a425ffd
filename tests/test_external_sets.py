"""The outside sets of eval/external/ (issue 29): the converters keep the held-out window
2026-04-06 … 2026-05-03 out of everything they read and write, parse each source's layout, and the
converted files, where they have been built, hold the fields the learners read and no held-out day."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "eval" / "external"))

import convert_ainews  # noqa: E402
import convert_juya  # noqa: E402
import convert_semeval  # noqa: E402
import pair_editors  # noqa: E402
from external_common import HeldOutError, Source, refuse_held_out, url_key, write_jsonl_gz  # noqa: E402

JUYA_DAY = """# [{day}](https://github.com/imjuya/juya-ai-daily/issues/1)

# AI 早报 {day}

## 概览
### 要闻
- Anthropic 发布 Claude Sonnet 4.6 [↗](https://www.anthropic.com/news/claude-sonnet-4-6) `#1`
### 行业动态
- 传 Moonshot AI 完成融资 `#2`

---

## [Anthropic 发布 Claude Sonnet 4.6](https://www.anthropic.com/news/claude-sonnet-4-6) `#1`
> **Anthropic** 正式发布了 `Claude Sonnet 4.6` 模型。

正文。

![](https://cdn.jsdelivr.net/gh/imjuya/x/m001.png)

相关链接：
- [https://www.anthropic.com/news/claude-sonnet-4-6](https://www.anthropic.com/news/claude-sonnet-4-6)
- [https://claude.com/blog/web-search](https://claude.com/blog/web-search)

---

## 传 Moonshot AI 完成融资 `#2`
> 据报道，**Moonshot AI** 完成新一轮融资。

---
"""

# Not a day file at all: reading it would raise, so a converter that opened it fails these tests.
NOT_TO_BE_READ = "HELD OUT: this file must never be opened\n"

AINEWS_DAY = """---
id: x
title: {title}
date: '{stamp}T05:44:39Z'
description: >-
  A day.
---

# AI Twitter Recap

**Sonnet 4.6 lands**

- **Claude Sonnet 4.6 launch**: Anthropic shipped it ([Anthropic](https://x.com/AnthropicAI/status/123456)).
  - Pricing unchanged ([blog](https://www.anthropic.com/news/claude-sonnet-4-6/?utm_source=x)).
- **A string of posts**: [a](https://a.com/1) [b](https://b.com/2) [c](https://c.com/3) [d](https://d.com/4) [e](https://www.anthropic.com/news/claude-sonnet-4-6)

# AI Reddit Recap

## /r/LocalLlama Recap

### 1. New models

  - **[Sonnet 4.6 is out](https://www.reddit.com/r/LocalLLaMA/comments/abc/sonnet/)** (Activity: 1,234): **Anthropic released Sonnet 4.6.**

    - a comment digest with a [link](https://example.com/comment)

# AI Discord Recap

**Theme 1. Chat**
- chatter [x](https://discord.com/channels/1)
"""


def _git_repo(path: Path) -> Path:
    """Commit `path` as a repository and return a bare clone: the form `fetch` leaves a mirror in."""
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }
    for cmd in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "days"]):
        subprocess.run(["git", "-C", str(path), *cmd], check=True, env=env)
    bare = path.parent / (path.name + ".git")
    subprocess.run(["git", "clone", "-q", "--bare", str(path), str(bare)], check=True)
    return bare


@pytest.fixture
def juya_repo(tmp_path) -> Path:
    backup = tmp_path / "juya" / "BACKUP"
    backup.mkdir(parents=True)
    (backup / ".gitkeep").write_text("")
    (backup / "1_test2.md").write_text(NOT_TO_BE_READ)
    for n, day in enumerate(
        ["2026-02-17", "2026-04-05", "2026-04-06", "2026-04-20", "2026-05-03", "2026-05-04", "2026-06-02"]
    ):
        allowed = day in {"2026-04-05", "2026-05-04"}
        (backup / f"{n + 2}_{day}.md").write_text(JUYA_DAY.format(day=day) if allowed else NOT_TO_BE_READ)
    return tmp_path / "juya"


@pytest.mark.parametrize("as_git", [False, True], ids=["checkout", "git-dir"])
def test_juya_converter_skips_the_held_out_window_unread(juya_repo, as_git):
    source = Source(_git_repo(juya_repo) if as_git else juya_repo)
    rows, skipped = convert_juya.convert(source)
    assert {r["date"] for r in rows} == {"2026-04-05", "2026-05-04"}
    assert {"4_2026-04-06.md", "5_2026-04-20.md", "6_2026-05-03.md", "2_2026-02-17.md", "8_2026-06-02.md"} <= set(
        skipped
    )
    first = rows[0]
    assert first == {
        "date": "2026-04-05",
        "rank": 1,
        "is_top": True,
        "section": "要闻",
        "title": "Anthropic 发布 Claude Sonnet 4.6",
        "summary": "**Anthropic** 正式发布了 `Claude Sonnet 4.6` 模型。",
        "links": ["https://www.anthropic.com/news/claude-sonnet-4-6", "https://claude.com/blog/web-search"],
        "language": "zh",
    }
    assert rows[1]["rank"] == 2 and rows[1]["is_top"] is False and rows[1]["section"] == "行业动态"
    assert rows[1]["title"] == "传 Moonshot AI 完成融资" and rows[1]["links"] == []


def test_the_window_is_refused_at_both_ends():
    for day in (date(2026, 4, 6), date(2026, 4, 20), date(2026, 5, 3)):
        with pytest.raises(HeldOutError, match="held-out window"):
            refuse_held_out(day, "test")
        assert not convert_juya.wanted_day(day) and not convert_ainews.wanted_day(day)
    for day in (date(2026, 4, 5), date(2026, 5, 4)):
        refuse_held_out(day, "test")
        assert convert_juya.wanted_day(day) and convert_ainews.wanted_day(day)


@pytest.fixture
def ainews_repo(tmp_path) -> Path:
    issues = tmp_path / "ainews" / "src" / "content" / "issues"
    issues.mkdir(parents=True)
    (issues / "26-04-05-sonnet.md").write_text(AINEWS_DAY.format(title="Claude Sonnet 4.6", stamp="2026-04-05"))
    (issues / "26-04-06-held.md").write_text(NOT_TO_BE_READ)
    (issues / "26-05-03-held.md").write_text(NOT_TO_BE_READ)
    (issues / "26-05-04-not-much.md").write_text(AINEWS_DAY.format(title="not much happened today", stamp="2026-05-04"))
    # filed after the window but stamped inside it: dropped
    (issues / "26-05-05-odd.md").write_text(AINEWS_DAY.format(title="Odd", stamp="2026-05-02"))
    (issues / "25-12-31-old.md").write_text(AINEWS_DAY.format(title="Old", stamp="2025-12-31"))
    return tmp_path / "ainews"


@pytest.mark.parametrize("as_git", [False, True], ids=["checkout", "git-dir"])
def test_ainews_converter_skips_the_held_out_window_unread(ainews_repo, as_git):
    source = Source(_git_repo(ainews_repo) if as_git else ainews_repo)
    days, skipped = convert_ainews.convert(source)
    assert [d["date"] for d in days] == ["2026-04-05", "2026-05-04"]
    assert {"26-04-06-held.md", "26-05-03-held.md", "26-05-05-odd.md"} <= set(skipped)
    first, quiet = days
    assert first["lead"] == "Claude Sonnet 4.6" and quiet["lead"] is None
    tweet, string, post = first["items"]
    assert tweet["group"] == "Sonnet 4.6 lands" and tweet["title"] == "Claude Sonnet 4.6 launch"
    assert tweet["links"] == [
        "https://x.com/AnthropicAI/status/123456",
        "https://www.anthropic.com/news/claude-sonnet-4-6/?utm_source=x",
    ]
    assert "Pricing unchanged" in tweet["text"] and "](" not in tweet["text"]
    assert len(string["links"]) == 5
    assert post["source"] == "reddit" and post["group"] == "New models" and post["activity"] == 1234
    assert post["links"] == ["https://www.reddit.com/r/LocalLLaMA/comments/abc/sonnet/"]  # not the comment's
    assert all("discord" not in link for item in first["items"] for link in item["links"])


def test_url_key_spells_one_address_one_way():
    assert (
        url_key("https://www.anthropic.com/news/claude-sonnet-4-6/?utm_source=x")
        == "anthropic.com/news/claude-sonnet-4-6"
    )
    assert url_key("http://anthropic.com/news/claude-sonnet-4-6") == "anthropic.com/news/claude-sonnet-4-6"
    assert url_key("https://twitter.com/OpenAI/status/42?s=20") == url_key("https://x.com/openai/status/42")
    assert url_key("https://example.com/a?b=2&a=1") == "example.com/a?a=1&b=2"


def _juya(day, rank, links):
    return {
        "date": day,
        "rank": rank,
        "is_top": rank == 1,
        "section": "要闻",
        "title": f"j{rank}",
        "summary": "",
        "links": links,
        "language": "zh",
    }


def _ainews(day, items):
    return {"date": day, "title": "t", "lead": None, "description": "", "items": items}


def _item(title, links):
    return {"source": "twitter", "group": "g", "title": title, "text": "", "links": links}


def test_pairs_need_one_cited_page_a_day_apart_and_no_roundup():
    post = "https://www.anthropic.com/news/claude-sonnet-4-6"
    juya = [_juya("2026-03-02", 1, [post, "https://anthropic.com/"]), _juya("2026-03-09", 2, [post])]
    ainews = [
        _ainews("2026-03-01", [_item("same, a day before", [post + "/?utm_medium=email"])]),
        _ainews(
            "2026-03-02",
            [
                _item("front page only", ["https://www.anthropic.com"]),
                _item("roundup", [post, *(f"https://e.com/{i}" for i in range(4))]),
            ],
        ),
        _ainews("2026-03-04", [_item("two days after", [post])]),
    ]
    kept, dropped = pair_editors.pairs(juya, ainews)
    assert [(p["juya_rank"], p["ainews_title"]) for p in kept] == [(1, "same, a day before")]
    assert kept[0]["shared"] == ["anthropic.com/news/claude-sonnet-4-6"]
    assert dropped["ainews roundup"] == 1


def test_pairs_refuse_a_held_out_day_in_their_input():
    with pytest.raises(HeldOutError):
        pair_editors.pairs([_juya("2026-04-10", 1, [])], [])
    with pytest.raises(HeldOutError):
        pair_editors.pairs([], [_ainews("2026-05-03", [])])


SEMEVAL_CSV = (
    "url1_lang,url2_lang,pair_id,link1,link2,ia_link1,ia_link2,GEO,ENT,TIME,NAR,Overall,STYLE,TONE\n"
    "zh,en,1111111101_2222222202,https://a.cn/1,https://b.com/2,i1,i2,1,1,1,1,1.5,2,1\n"
    "en,en,3333333303_4444444404,https://c.com/3,https://d.com/4,i3,i4,4,4,2,4,3.5,1,1.5\n"
)


def test_semeval_rows_carry_texts_ratings_and_the_same_event_rule(tmp_path):
    for article_id, title in [("1111111101", "标题"), ("2222222202", "Title"), ("3333333303", "Alone")]:
        bucket = tmp_path / "output_dir" / article_id[-2:]
        bucket.mkdir(parents=True, exist_ok=True)
        (bucket / f"{article_id}.json").write_text(json.dumps({"title": title, "text": "x" * 2000}))
    articles = convert_semeval.Articles(tmp_path, "output_dir")
    rows, missing = convert_semeval.convert_rows(SEMEVAL_CSV, articles, keep_missing=False)
    assert missing == 1  # 4444444404 was never scraped
    (row,) = rows
    assert (row["lang1"], row["lang2"], row["title1"], row["title2"]) == ("zh", "en", "标题", "Title")
    assert len(row["text1"]) == convert_semeval.TEXT_CHARS
    assert (row["overall"], row["geography"], row["style"], row["same_event"]) == (1.5, 1.0, 2.0, True)
    rows, _ = convert_semeval.convert_rows(SEMEVAL_CSV, articles, keep_missing=True)
    assert rows[1]["same_event"] is False and rows[1]["text2"] is None


HFL_CSV = (
    "Unnamed: 0,pair_id,lang1,lang2,text1,text2,Geography,Entities,Time,Narrative,Overall,Style,Tone\n"
    "1,1484012813zh_1483937746,zh,en,众议院民主党人,Pelosi holds the articles,1,1,1,1,1.25,2,1\n"
    "2,1484189203_1484121193,en,en,Two men stole tools,No-swim advisory lifted,1.5,4,2,4,3.5,1,1.5\n"
    "3,1586893419_1587582551,de,de,Tierversuche,Impfstoffe,1,1,1,1,1,1,1\n"
    "4,3333333303_4444444404,en,en,,An article without its pair,4,4,4,4,4,1,1\n"
)


def test_hfl_rows_keep_en_zh_pairs_with_both_texts_once_and_mark_translations():
    rows = convert_semeval.hfl_rows([HFL_CSV, HFL_CSV])  # the two samples overlap: each pair once
    assert [r["pair_id"] for r in rows] == ["1484012813zh_1483937746", "1484189203_1484121193"]
    translated, original = rows
    assert translated["translated"] and not original["translated"]
    assert (translated["same_event"], translated["overall"], original["same_event"]) == (True, 1.25, False)
    assert (translated["lang1"], translated["text1"]) == ("zh", "众议院民主党人")


# ---------------------------------------------------------------- the converted files, where built


# The converted sets live in the repository (eval/external/data/); NEWSDESK_EXTERNAL_DATA points at a rebuild.
DATA = Path(os.environ.get("NEWSDESK_EXTERNAL_DATA") or ROOT / "eval" / "external" / "data")


def _rows(name: str) -> list[dict]:
    assert DATA is not None
    with gzip.open(DATA / name, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _not_held_out(day: str) -> bool:
    return not convert_juya.held_out(date.fromisoformat(day))


def test_converted_juya_set():
    rows = _rows("juya.jsonl.gz")
    assert len(rows) > 500
    fields = {"date", "rank", "is_top", "section", "title", "summary", "links", "language"}
    assert all(set(r) == fields for r in rows)
    assert all(convert_juya.wanted_day(date.fromisoformat(r["date"])) for r in rows)
    assert any(r["is_top"] for r in rows) and all(r["language"] == "zh" for r in rows)


def test_converted_ainews_set():
    days = _rows("ainews.jsonl.gz")
    assert len(days) > 50 and all(_not_held_out(d["date"]) for d in days)
    items = [i for d in days for i in d["items"]]
    assert all({"source", "group", "title", "text", "links"} <= set(i) for i in items)
    assert {i["source"] for i in items} == {"twitter", "reddit"}


def test_converted_pairs():
    pairs = _rows("pairs_juya_ainews.jsonl.gz")
    assert len(pairs) > 20
    assert all(_not_held_out(p["juya_date"]) and _not_held_out(p["ainews_date"]) for p in pairs)
    assert all(p["shared"] and p["ainews_links"] <= pair_editors.MAX_AINEWS_LINKS for p in pairs)


@pytest.mark.parametrize("split", ["train", "eval"])
def test_converted_semeval_splits(split):
    rows = _rows(f"semeval_{split}.jsonl.gz")
    assert len(rows) > 4000
    fields = {"pair_id", "lang1", "lang2", "title1", "title2", "text1", "text2", "overall", "same_event"}
    assert all(fields <= set(r) for r in rows)
    assert all(r["same_event"] == (r["overall"] <= 1.5) for r in rows)
    assert all(1 <= r["overall"] <= 4 for r in rows)


def test_converted_semeval_texts():
    rows = _rows("semeval_train_texts.jsonl.gz")
    assert len(rows) > 500 and len({r["pair_id"] for r in rows}) == len(rows)
    assert all({r["lang1"], r["lang2"]} <= {"en", "zh"} and r["text1"] and r["text2"] for r in rows)
    assert all(len(r["text1"]) <= convert_semeval.TEXT_CHARS for r in rows)
    assert all(r["same_event"] == (r["overall"] <= 1.5) for r in rows)
    # the task's own training pairs keep their ids; every Chinese side is HFL's translation
    train = {r["pair_id"] for r in _rows("semeval_train.jsonl.gz")}
    assert all(r["pair_id"] in train for r in rows if not r["translated"])
    assert all(r["translated"] for r in rows if "zh" in (r["lang1"], r["lang2"]))


def test_written_sets_are_byte_stable(tmp_path):
    """A rerun on the same input writes the same bytes (gzip without a timestamp), so a rebuild shows no diff."""
    rows = [{"a": 1, "b": "中文"}]
    write_jsonl_gz(tmp_path / "one.jsonl.gz", rows)
    write_jsonl_gz(tmp_path / "two.jsonl.gz", rows)
    assert (tmp_path / "one.jsonl.gz").read_bytes() == (tmp_path / "two.jsonl.gz").read_bytes()
