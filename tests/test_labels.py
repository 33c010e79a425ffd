"""The one label table: every label a template or the code names exists, in Chinese and English."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import newsdesk
from newsdesk.core.labels import LABELS, UI_LANGUAGES, Labels

PACKAGE = Path(newsdesk.__file__).parent
NAMED = re.compile(  # t.plural("outlets", n) names "outlets" (and reads "outlets_one" where there is one)
    r"""\bt\.plural\(['"]([a-z_0-9]+)['"]|\bt\.(?!get\b)([a-z_0-9]+)|\bt\[['"]([a-z_0-9]+)['"]\]|Labels\((?:[^()]|\([^()]*\))*\)\.(?!get\b)([a-z_0-9]+)"""
)


def named_labels() -> set[str]:
    """Labels named in templates (`t` is the label table there) and in code that binds `t = Labels(...)`."""
    texts = [f.read_text("utf-8") for f in PACKAGE.rglob("templates/*.html")]
    code = [f.read_text("utf-8") for f in PACKAGE.rglob("*.py")]
    texts += [c for c in code if "t = Labels(" in c]
    found = {next(g for g in m.groups() if g) for text in texts for m in NAMED.finditer(text)}
    found |= {m.group(4) for c in code for m in NAMED.finditer(c) if m.group(4)}
    return {name for name in found if not hasattr(Labels, name)}  # t.written_in(code), t.language: the table's own


def test_every_named_label_exists_in_every_language():
    named = named_labels()
    assert {"members", "outlets", "extractive", "all", "bad_token"} <= named  # the scan sees templates and code
    assert sorted(named - set(LABELS)) == []
    assert all(set(words) == set(UI_LANGUAGES) and all(words.values()) for words in LABELS.values())


def test_outlets_and_member_items_have_different_words():
    for language in UI_LANGUAGES:
        t = Labels(language)
        assert t.members not in t.outlets and t.members != t.outlet


def test_a_missing_label_is_an_error_and_a_category_shows_as_it_is():
    with pytest.raises(AttributeError, match="core/labels.py"):
        Labels("zh").no_such_label
    assert Labels("zh").get("zh-media") == "zh-media" and Labels("ja").all == "All"
