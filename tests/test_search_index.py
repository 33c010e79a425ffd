"""The search index: only CJK runs go through jieba, and a search never waits for a catch-up."""

from __future__ import annotations

import threading
import time

import pytest
from test_web_app import seed_store

from newsdesk.search.index import SearchIndex, query_words, segment


def test_index_and_query_split_text_the_same_way():
    assert segment("OpenAI 发布 GPT-5.4，推理成本下降") == "OpenAI 发布 GPT-5.4， 推理 成本 下降"
    assert query_words("GPT-5.4 推理成本 café") == ["GPT-5.4", "推理", "成本", "café"]


@pytest.mark.parametrize("store_url", ["sqlite", "postgresql"], indirect=True)
def test_latin_words_with_accents_and_versions_are_found(engine):
    seed_store(engine)
    with engine.begin() as conn:
        from test_web_app import DAY2, _item

        _item(conn, 8, "openai-blog", "Café crème model GPT-5.4 ships", "Résumé of the release", DAY2, "en")
    index = SearchIndex(engine)
    index.refresh()
    assert ("item", 8) in {(h.kind, h.ref_id) for h in index.search("café")}
    assert ("item", 8) in {(h.kind, h.ref_id) for h in index.search("GPT-5.4")}
    assert ("item", 8) in {(h.kind, h.ref_id) for h in index.search("résumé")}
    # A control character is a separator, not the end of an FTS5 string (Schemathesis sent "0\x00").
    assert ("item", 8) in {(h.kind, h.ref_id) for h in index.search("café\x00")}
    assert isinstance(index.search("0\x00"), list) and query_words("GPT-5.4\x00café\x1f") == ["GPT-5.4", "café"]


def test_a_search_answers_from_what_is_indexed_while_a_catch_up_runs(sqlite_engine):
    seed_store(sqlite_engine)
    index = SearchIndex(sqlite_engine)
    index.refresh()
    index._lock.acquire()  # a catch-up holds the index, as on a big store just after start
    try:
        found: list = []
        searcher = threading.Thread(target=lambda: found.extend(index.search("大模型")))
        started = time.monotonic()
        searcher.start()
        searcher.join(10)
        assert not searcher.is_alive() and time.monotonic() - started < 5
        assert ("item", 1) in {(h.kind, h.ref_id) for h in found}
    finally:
        index._lock.release()
