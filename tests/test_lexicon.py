"""The word lists' reader (newsdesk.text.lexicon): entries, comments, named additions, clear errors."""

from __future__ import annotations

import pytest

from newsdesk.text import lexicon


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A lexicon folder of the test's own files (the readers' caches emptied around it)."""
    for reader in (lexicon.entries, lexicon.words, lexicon.table):
        reader.cache_clear()
    monkeypatch.setattr(lexicon, "HERE", tmp_path)
    yield tmp_path
    for reader in (lexicon.entries, lexicon.words, lexicon.table):
        reader.cache_clear()


def test_entries_skip_comments_and_keep_order(folder):
    (folder / "stop.txt").write_text(
        "# what it is for\n\nthe\n# a group\n的  # Chinese\nus$\nper cent\n", encoding="utf-8"
    )
    (folder / "stop-more.txt").write_text("um\nthe\n", encoding="utf-8")
    assert lexicon.entries("stop") == ("the", "的", "us$", "per cent")
    assert lexicon.words("stop", "stop-more") == {"the", "的", "us$", "per cent", "um"}


def test_a_word_listed_twice_is_refused_with_its_line(folder):
    (folder / "stop.txt").write_text("# header\nthe\nand\nthe\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"stop.txt:4: 'the' is listed twice"):
        lexicon.entries("stop")


def test_a_missing_list_names_the_lists_there(folder):
    (folder / "stop.txt").write_text("the\n", encoding="utf-8")
    with pytest.raises(FileNotFoundError, match=r"no word list stopp.txt .* stop.txt"):
        lexicon.words("stopp")


def test_bad_toml_names_the_file(folder):
    (folder / "companies.toml").write_text("[[company]]\nkey = \n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"companies.toml: .*fix the file's TOML"):
        lexicon.table("companies")


def test_every_shipped_list_reads_and_says_what_it_is_for():
    for path in sorted(lexicon.HERE.glob("*.txt")):
        assert path.read_text(encoding="utf-8").startswith("# "), (
            f"{path.name}: open with a comment saying what it is for"
        )
        assert lexicon.entries(path.stem), path.name
    for path in sorted(lexicon.HERE.glob("*.toml")):
        assert path.read_text(encoding="utf-8").startswith("# "), path.name
        assert lexicon.table(path.stem), path.name


def test_companies_have_one_key_and_an_alias_one_company():
    companies = lexicon.table("companies")["company"]
    keys = [c["key"] for c in companies]
    assert len(keys) == len(set(keys))
    aliases = [a for c in companies for a in c.get("aliases", [])]
    assert len(aliases) == len(set(aliases))
    assert {field for c in companies for field in c} <= {"key", "aliases", "family", "major"}
