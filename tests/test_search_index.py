"""The search index: only CJK runs go through jieba, and a search never waits for a catch-up."""

from __future__ import annotations

import threading
import time

import pytest
from test_web_app import DAY2, _item, seed_store

from newsdesk.search.index import SearchIndex, query_words, segment, segment_all


def seed_with(engine, *english: tuple[int, str, str]) -> None:
    """The web app's seed store, plus English OpenAI blog items (id, title, summary) of its second day."""
    seed_store(engine)
    with engine.begin() as conn:
        for item_id, title, summary in english:
            _item(conn, item_id, "openai-blog", title, summary, DAY2, "en")


def test_index_and_query_split_text_the_same_way():
    assert segment("OpenAI 发布 GPT-5.4，推理成本下降") == "OpenAI 发布 GPT-5.4， 推理 成本 下降"
    assert query_words("GPT-5.4 推理成本 café") == ["GPT-5.4", "推理", "成本", "café"]


@pytest.mark.parametrize("store_url", ["sqlite", "postgresql"], indirect=True)
def test_latin_words_with_accents_and_versions_are_found(engine):
    seed_with(engine, (8, "Café crème model GPT-5.4 ships", "Résumé of the release"))
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


@pytest.mark.parametrize("store_url", ["sqlite", "postgresql"], indirect=True)
def test_english_words_are_stemmed_so_a_plural_finds_the_singular(engine):
    seed_with(
        engine,
        (8, "Why models hallucinate", "A study of one hallucination"),
        (9, "Fewer hallucinations in reasoning models", ""),
    )
    index = SearchIndex(engine)
    index.refresh()
    found = {q: {h.ref_id for h in index.search(q) if h.kind == "item"} for q in ("hallucination", "hallucinations")}
    assert found["hallucination"] == found["hallucinations"] and {8, 9} <= found["hallucination"]
    assert 8 in {h.ref_id for h in index.search("hallucinating") if h.kind == "item"}
    assert ("item", 1) in {(h.kind, h.ref_id) for h in index.search("大模型")}  # Chinese words pass unchanged


@pytest.mark.parametrize("store_url", ["sqlite", "postgresql"], indirect=True)
def test_an_index_made_before_stemming_is_tokenized_again_without_segmenting_again(engine, monkeypatch):
    """A store indexed by an earlier newsdesk (FTS5 unicode61 alone; PostgreSQL 'simple') stems once
    the index is opened: the indexed text is tokenized again, and no document is segmented again."""
    import newsdesk.search.index as search_index

    seed_with(engine, (9, "Fewer hallucinations in reasoning models", ""))
    old = {
        "sqlite": [
            d.replace(search_index._TOKENIZE, "unicode61 remove_diacritics 2") for d in search_index._SQLITE_DDL
        ],
        "postgresql": [d.replace("'english'", "'simple'") for d in search_index._PG_DDL],
    }[engine.dialect.name]
    monkeypatch.setattr(search_index, "_SQLITE_DDL" if engine.dialect.name == "sqlite" else "_PG_DDL", old)
    monkeypatch.setattr(search_index, "_stem_sqlite", lambda conn: None)
    monkeypatch.setattr(search_index, "_stem_postgresql", lambda conn: None)
    before = SearchIndex(engine)
    before.refresh()
    assert 9 not in {h.ref_id for h in before.search("hallucinated") if h.kind == "item"}
    monkeypatch.undo()

    segmented: list[str] = []
    monkeypatch.setattr(search_index, "segment", lambda value: segmented.append(value) or value)
    monkeypatch.setattr(search_index, "segment_all", lambda values: segmented.extend(values) or values)
    after = SearchIndex(engine)
    assert 9 in {h.ref_id for h in after.search("hallucinated") if h.kind == "item"}
    assert ("item", 1) in {(h.kind, h.ref_id) for h in after.search("大模型")}
    assert segmented == []  # nothing changed in the store: the stored words were tokenized again


def test_documents_segmented_together_get_the_words_each_gets_alone():
    texts = [
        "OpenAI 发布 GPT-5.4，推理成本下降",
        "",
        "English only: café, GPT-5.4",
        "中华人民共和国\n\n大模型融资　A轮",
        "  spaces\tand\u3000中文  ",
        "a NUL\x00inside 中文",  # never stored, but then cut one at a time
    ]
    from newsdesk.search.index import _segment_alone

    expected = [_segment_alone(t) for t in texts]  # a segmenter call for each CJK run
    assert expected[0] == "OpenAI 发布 GPT-5.4， 推理 成本 下降" and expected[2] == "English only: café, GPT-5.4"
    assert segment_all(texts) == expected
    assert segment_all(texts[:5]) == expected[:5]
    assert segment_all([]) == []


@pytest.mark.parametrize("store_url", ["sqlite", "postgresql"], indirect=True)
def test_an_edited_document_replaces_its_row_and_a_deleted_one_leaves(engine):
    """New documents are inserted without deleting first; one already indexed must still lose its old row."""
    from datetime import timedelta

    from sqlalchemy import delete, update

    from newsdesk.store.schema import items

    seed_with(engine, (8, "Zephyrine launches", "An old summary"), (9, "Quillwort ships", ""))
    index = SearchIndex(engine)
    index.refresh()
    assert 8 in {h.ref_id for h in index.search("zephyrine") if h.kind == "item"}
    with engine.begin() as conn:
        conn.execute(
            update(items)
            .where(items.c.id == 8)
            .values(title="Marigoldia launches", updated_at=DAY2 + timedelta(hours=1))
        )
        conn.execute(delete(items).where(items.c.id == 9))
    assert index.refresh() == 1
    assert 8 not in {h.ref_id for h in index.search("zephyrine") if h.kind == "item"}
    assert 8 in {h.ref_id for h in index.search("marigoldia") if h.kind == "item"}
    assert 9 not in {h.ref_id for h in index.search("quillwort") if h.kind == "item"}
    with engine.connect() as conn:
        docs = conn.exec_driver_sql("SELECT count(*) FROM search_docs").scalar()
        if engine.dialect.name == "sqlite":
            assert conn.exec_driver_sql("SELECT count(*) FROM search_fts").scalar() == docs
            assert conn.exec_driver_sql("SELECT count(*) FROM search_fts WHERE rowid = 16").scalar() == 1


def test_stamps_worked_out_by_sqlite_are_the_ones_python_makes(sqlite_engine):
    """The stamps SQLite formats from its stored text equal _stamp of the datetimes (an index made
    before is not indexed again); a time stored in another form falls back to the datetimes."""
    from newsdesk.search.index import _sqlite_stamps

    seed_with(sqlite_engine, (8, "A whole second", ""))  # no microseconds: isoformat drops them
    index = SearchIndex(sqlite_engine)
    with sqlite_engine.connect() as conn:
        fast = _sqlite_stamps(conn)
        index.dialect = "python"  # the datetime path
        slow = index._stamps(conn)
    assert fast is not None and fast == slow and any(s.endswith(":00+00:00") for _, s in fast[0])
    assert fast[1] and all("|" in s for _, s in fast[1])  # events: their time | their newest analysis
    with sqlite_engine.begin() as conn:
        conn.exec_driver_sql(
            "UPDATE items SET updated_at = '2026-04-23 02:00:00' WHERE id = 8"
        )  # not SQLAlchemy's form
    with sqlite_engine.connect() as conn:
        assert _sqlite_stamps(conn) is None


def test_changes_worked_out_by_sqlite_are_the_ones_python_finds(sqlite_engine):
    """What SQLite finds to index (and to drop) is what the rows read into Python give, in the same
    order: fresh, edited, already indexed, gone, and items and events with the same stamp."""
    from newsdesk.search.index import _sqlite_changes

    seed_with(sqlite_engine, *[(100 + n, f"Model {n}", "") for n in range(6)])
    index = SearchIndex(sqlite_engine)
    index.ensure()
    with sqlite_engine.begin() as conn:  # the same time on several items and an event: ties
        conn.exec_driver_sql("UPDATE items SET updated_at = '2026-04-23 02:00:00.000000' WHERE id >= 102")
        conn.exec_driver_sql("UPDATE events SET updated_at = '2026-04-23 02:00:00.000000' WHERE id = 1")
    with sqlite_engine.connect() as conn:
        fresh = _sqlite_changes(conn)
        index.dialect = "python"
        assert fresh == index._changes(conn) and len(fresh[0]) > 8
        index.dialect = "sqlite"
    index.refresh()
    with sqlite_engine.begin() as conn:
        conn.exec_driver_sql("UPDATE items SET updated_at = '2026-04-24 02:00:00.500000' WHERE id = 103")
        conn.exec_driver_sql("DELETE FROM items WHERE id = 104")
        conn.exec_driver_sql("INSERT INTO search_docs (kind, ref_id, stamp) VALUES ('story', 7, 'x')")
    with sqlite_engine.connect() as conn:
        later = _sqlite_changes(conn)
        index.dialect = "python"
        assert later == index._changes(conn)
    assert later[0] == [("item", 103, "2026-04-24T02:00:00.500000+00:00")]
    assert later[1] == [("item", 104), ("story", 7)]
    with sqlite_engine.begin() as conn:
        conn.exec_driver_sql("UPDATE items SET updated_at = '2026-04-23 02:00:00' WHERE id = 105")
    with sqlite_engine.connect() as conn:
        assert _sqlite_changes(conn) is None  # not SQLAlchemy's form: the datetime path
