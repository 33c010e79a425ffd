"""A changed feed's entries seen at the last parse are not parsed again (ingest/entries.py), and the
store ends as a whole parse would leave it. Real feeds (the ai-blogs snapshots), real feedparser,
a real loopback server and SQLite store."""

from __future__ import annotations

import asyncio
import io
import json
from datetime import UTC, datetime
from pathlib import Path

import feedparser
import pytest
from fakes import quick_fetch_settings
from loopback import Replies, serve_http
from sqlalchemy import select, update

from newsdesk.core.model import Source
from newsdesk.ingest import run as ingest
from newsdesk.ingest.entries import cut_entries, without
from newsdesk.ingest.jsonl import source_slug
from newsdesk.ingest.parse import parse_feed
from newsdesk.store import open_store
from newsdesk.store.schema import fetches, items, sources

SNAPSHOTS = Path(__file__).parent / "fixtures" / "feeds" / "ai-blogs"
NOW = datetime(2026, 9, 1, tzinfo=UTC)


def _pairs() -> dict[str, tuple[bytes, bytes]]:
    """Feed file name -> (first snapshot, last snapshot), for feeds whose body changed between them."""
    days = sorted(p for p in SNAPSHOTS.iterdir() if p.is_dir())
    first, last = days[0], days[-1]
    return {
        p.name: (p.read_bytes(), (last / p.name).read_bytes())
        for p in sorted(first.glob("*.xml"))
        if (last / p.name).is_file() and p.read_bytes() != (last / p.name).read_bytes()
    }


def test_every_changed_ai_blogs_feed_gives_the_same_items_read_in_part():
    """For each changed feed: the entries left out are the ones whose items the first snapshot stored
    exactly as a whole parse of the second gives them; the ones read are a whole parse's items."""
    pairs = _pairs()
    assert len(pairs) >= 15
    left_out = 0
    for name, (old, new) in pairs.items():
        src = Source(id="s", name="s", url="http://127.0.0.1/feed.xml", language="en")
        before = parse_feed(old, src, fetched_at=NOW)
        assert before.digests is not None, name
        whole = parse_feed(new, src, fetched_at=NOW)
        part = parse_feed(new, src, fetched_at=NOW, seen=before.digests)
        whole_items = {i.guid: i for i in whole.items}
        stored = {i.guid: i for i in before.items}
        assert all(whole_items[i.guid] == i for i in part.items), name
        assert all(g in {i.guid for i in part.items} or stored[g] == i for g, i in whole_items.items()), name
        assert len(part.items) + part.unchanged == len(whole.items), name
        assert part.digests == whole.digests, name  # the next poll leaves out the same entries either way
        left_out += part.unchanged
    assert left_out > 1000  # most entries of a changed feed are the same bytes as before


def test_cut_finds_entries_and_refuses_what_it_cannot_cut_cleanly():
    rss = (
        b'<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0"><channel><title>t</title>'
        b"<item><title>a</title><description><![CDATA[code: </item> inside]]></description></item>"
        b"<item ><title>b</title></item ></channel></rss>"
    )
    cut = cut_entries(rss, "ctx")
    assert cut is not None and len(cut.spans) == 2
    assert rss[slice(*cut.spans[0])].endswith(b"inside]]></description></item>")  # CDATA's </item> is text
    assert rss[slice(*cut.spans[1])] == b"<item ><title>b</title></item >"
    assert b"<item" not in without(rss, cut.spans)
    assert cut_entries(rss, "other context").digests != cut.digests  # the context is in every digest
    assert cut_entries(rss.replace(b'version="2.0"', b'version="0.92"'), "ctx").digests != cut.digests
    assert cut_entries(rss.replace(b"<item ><title>b</title></item >", b"<item/>"), "ctx") is None
    assert cut_entries(rss.replace(b"</channel>", b""), "ctx") is None  # not well-formed
    assert cut_entries(rss.decode().replace("utf-8", "utf-16").encode("utf-16"), "ctx") is None
    atom = b'<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title><entry><id>1</id><title>x</title></entry></feed>'
    assert len(cut_entries(atom, "ctx").spans) == 1
    # The same entry under another namespace prefix binding is another entry.
    rebound = atom.replace(b"<feed ", b'<feed xmlns:dc="http://purl.org/dc/elements/1.1/" ')
    assert cut_entries(rebound, "ctx").digests != cut_entries(atom, "ctx").digests


def test_a_guid_listed_twice_keeps_its_first_copy_as_a_whole_parse_does():
    """A new entry with the guid of an entry left out: the whole document is read again, so the
    feed's first copy stays the stored one."""
    item = "<item><guid>{g}</guid><title>{t}</title><link>http://x.test/{g}</link></item>"
    doc = '<rss version="2.0"><channel><title>t</title>{}</channel></rss>'
    src = Source(id="s", name="s", url="http://127.0.0.1/feed.xml", language="en")
    old = doc.format(item.format(g="a", t="First copy") + item.format(g="b", t="Bee")).encode()
    new = doc.format(item.format(g="a", t="First copy") + item.format(g="a", t="Second copy")).encode()
    before = parse_feed(old, src, fetched_at=NOW)
    part = parse_feed(new, src, fetched_at=NOW, seen=before.digests)
    assert [(i.guid, i.title) for i in part.items] == [("a", "First copy")]  # read whole
    assert part.unchanged == 0


def _settings():
    settings = quick_fetch_settings()
    settings.fetch.max_bytes = 5_000_000  # the real feeds run to a few hundred KB
    return settings


def _serve(bodies: dict[str, bytes]):
    class Feed(Replies):
        def do_GET(self):  # no validators: every poll is a 200 with the body of the moment
            self.reply(200, bodies["now"], {"Content-Type": "application/rss+xml"})

    return serve_http(Feed)


def _rows(engine, source_id: str) -> dict[str, tuple]:
    cols = (
        items.c.url,
        items.c.title,
        items.c.summary,
        items.c.body,
        items.c.language,
        items.c.material_level,
        items.c.content_hash,
        items.c.authors,
        items.c.categories,
        items.c.extra,
        items.c.dated_by,
    )
    with engine.connect() as conn:
        rows = conn.execute(select(items.c.guid, *cols).where(items.c.source_id == source_id)).all()
    return {r[0]: tuple(r[1:]) for r in rows}


@pytest.mark.parametrize("name", ["feed_anthropic_news.xml", "feed_claude.xml"])
def test_a_changed_feed_polled_stores_what_a_whole_parse_stores_reading_only_the_new_entries(
    sqlite_engine, tmp_path, monkeypatch, name
):
    old, new = _pairs()[name]
    read: list[int] = []  # entries feedparser returned for each document it was given
    real = feedparser.parse

    def counting(doc, **kw):
        out = real(doc, **kw)
        read.append(len(out.entries))
        return out

    monkeypatch.setattr(feedparser, "parse", counting)
    bodies = {"now": old}
    httpd = _serve(bodies)
    url = f"http://127.0.0.1:{httpd.server_address[1]}/feed.xml"
    catalog = [Source(id="part", name="part", url=url, language="en")]
    whole_store = open_store(f"sqlite:///{tmp_path / 'whole.db'}")
    try:
        asyncio.run(ingest.ingest_all(sqlite_engine, _settings(), catalog))
        asyncio.run(ingest.ingest_all(whole_store, _settings(), catalog))
        first_read = read[:]
        bodies["now"] = new
        out = asyncio.run(ingest.ingest_all(sqlite_engine, _settings(), catalog))[0]
        part_read = read[len(first_read) :]
        with whole_store.begin() as conn:  # the other store forgets its entries: it reads the body whole
            conn.execute(update(sources).values(entry_digests=None))
        whole = asyncio.run(ingest.ingest_all(whole_store, _settings(), catalog))[0]
    finally:
        httpd.shutdown()
    assert out.status == whole.status == "ok"
    assert (out.seen, out.new, out.updated) == (whole.seen, whole.new, whole.updated)
    assert _rows(sqlite_engine, "part") == _rows(whole_store, "part")
    total = len(real(io.BytesIO(new)).entries)
    assert len(part_read) == 1 and out.new + out.updated <= part_read[0] < total / 2  # most of it not read again
    with sqlite_engine.connect() as conn:
        seen = conn.execute(select(fetches.c.items_seen).order_by(fetches.c.id.desc()).limit(1)).scalar()
    assert seen == whole.seen  # the fetch row counts the entries left out as seen
    whole_store.dispose()


def test_an_import_into_a_polled_source_makes_its_next_changed_body_read_whole(sqlite_engine, tmp_path):
    """The import's version of an item replaces the feed's: the entries stored by the last poll no
    longer say what the store holds."""
    name = source_slug("Loop Feed")
    old, new = _pairs()["feed_cohere.xml"]
    bodies = {"now": old}
    httpd = _serve(bodies)
    catalog = [Source(id=name, name="Loop Feed", url=f"http://127.0.0.1:{httpd.server_address[1]}/f.xml")]
    try:
        asyncio.run(ingest.ingest_all(sqlite_engine, _settings(), catalog))
        harvest = tmp_path / "h.jsonl"
        line = {"title": "Imported", "link": "https://x.test/a", "source": "Loop Feed", "pub_date": "2026-08-01"}
        harvest.write_text(json.dumps(line) + "\n", "utf-8")
        with sqlite_engine.connect() as conn:
            assert conn.execute(select(sources.c.entry_digests).where(sources.c.id == name)).scalar()
        ingest.import_jsonl(sqlite_engine, harvest)
        with sqlite_engine.connect() as conn:
            assert conn.execute(select(sources.c.entry_digests).where(sources.c.id == name)).scalar() is None
        bodies["now"] = new
        out = asyncio.run(ingest.ingest_all(sqlite_engine, _settings(), catalog))[0]
    finally:
        httpd.shutdown()
    assert out.status == "ok"
    with sqlite_engine.connect() as conn:
        assert conn.execute(select(sources.c.entry_digests).where(sources.c.id == name)).scalar()
