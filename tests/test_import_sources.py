"""Outlets a JSON Lines import creates (origin 'import', kind 'jsonl', url = the outlet's home page)
are not feeds: no ingest, scheduler or worker fetches them, and `newsdesk sources` says what they are.
After `ingest --from harvest.jsonl`, the next `newsdesk run` fetched every one of them as a feed."""

from __future__ import annotations

import asyncio
import json
import re
from datetime import UTC, datetime

import pytest
from fastapi.testclient import TestClient
from loopback import Replies, serve_http
from sqlalchemy import select
from typer.testing import CliRunner

from newsdesk import cli
from newsdesk.core.config import Settings
from newsdesk.core.model import Source
from newsdesk.ingest import run as ingest
from newsdesk.ingest.poll import due_sources
from newsdesk.serve.app import create_app
from newsdesk.store import open_store
from newsdesk.store.schema import fetches, items, sources

FEED = b"""<?xml version="1.0"?><rss version="2.0"><channel><title>feed</title>
<item><title>Nimbus 4 released</title><link>http://example.com/n4</link><guid>n4</guid></item></channel></rss>"""


@pytest.fixture
def site():
    asked: list[str] = []

    class Handler(Replies):
        def do_GET(self):
            asked.append(self.path)
            if self.path == "/feed.xml":
                return self.reply(200, FEED, {"Content-Type": "application/rss+xml"})
            self.reply(200, b"<html><body>an outlet's home page</body></html>", {"Content-Type": "text/html"})

    httpd = serve_http(Handler)
    yield f"http://127.0.0.1:{httpd.server_address[1]}", asked
    httpd.shutdown()


@pytest.fixture
def imported(tmp_path, site):
    """A store holding a harvest of two outlets on the loopback site, and one real feed in the catalog."""
    base, asked = site
    harvest = tmp_path / "harvest.jsonl"
    harvest.write_text(
        "".join(
            json.dumps(
                {
                    "title": f"{outlet} story",
                    "link": f"{base}/posts/{n}",
                    "source": outlet,
                    "pub_date": "2026-11-30",
                    "summary": "A model shipped.",
                }
            )
            + "\n"
            for n, outlet in enumerate(["Outlet One", "Outlet Two"])
        ),
        encoding="utf-8",
    )
    engine = open_store(f"sqlite:///{tmp_path / 'data' / 'newsdesk.db'}")
    settings = Settings(data_dir=str(tmp_path / "data"))
    settings.fetch.allow_private, settings.fetch.per_host_delay, settings.fetch.retries = True, 0, 1
    report = ingest.ingest(engine, settings, source=harvest, catalog=[])
    assert report.new == 2 and not report.failed
    with engine.connect() as conn:
        rows = conn.execute(select(sources.c.id, sources.c.url, sources.c.origin)).all()
    assert {(r.url, r.origin) for r in rows} == {(f"{base}/", "import")}
    yield engine, settings, base, asked, [r.id for r in rows]
    engine.dispose()


def test_the_next_run_polls_the_feeds_and_never_an_imported_outlet(imported):
    engine, settings, base, asked, outlets = imported
    feed = Source(id="nimbus", name="Nimbus", url=f"{base}/feed.xml")
    report = ingest.ingest(engine, settings, catalog=[feed])
    assert [(o.source_id, o.status) for o in report.outcomes] == [("nimbus", "ok")]
    assert asked == ["/feed.xml"]  # no home page fetched as a feed
    with engine.connect() as conn:
        fetched = conn.execute(select(fetches.c.source_id, fetches.c.url).where(fetches.c.url.like("http%"))).all()
        assert [tuple(r) for r in fetched] == [("nimbus", f"{base}/feed.xml")]  # the import's rows name its file
        assert due_sources(conn, datetime.now(UTC)) == []  # the feed polled; the outlets never due


def test_an_imported_outlet_asked_for_by_name_is_skipped_with_why(imported):
    engine, settings, _, asked, outlets = imported
    report = ingest.ingest(engine, settings, only=[outlets[0]], catalog=[])
    [outcome] = report.outcomes
    assert outcome.status == "skipped" and "imported outlet" in outcome.error and "--from" in outcome.error
    with engine.connect() as conn:
        [outlet] = [s for s in ingest.stored_sources(conn) if s.id == outlets[1]]
    again = asyncio.run(ingest.ingest_source(engine, outlet, None, owner="test"))  # as a worker's fetch unit calls it
    assert again.status == "skipped" and asked == []


def test_sources_says_what_an_imported_outlet_is(imported, monkeypatch, tmp_path):
    engine, *_ = imported
    (tmp_path / "newsdesk.toml").write_text("")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NEWSDESK_CONFIG", str(tmp_path / "newsdesk.toml"))
    monkeypatch.setenv("NEWSDESK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setattr(cli, "_state", {})
    monkeypatch.setattr(cli.console, "width", 300)
    result = CliRunner().invoke(cli.app, ["sources"])
    assert result.exit_code == 0, result.output
    lines = {line.split()[1]: line for line in result.output.splitlines() if line.strip().startswith("│")}
    assert "imported outlet, not polled" in lines["outlet-one"] and "stale" not in lines["outlet-one"]
    assert "not polled" not in lines["openai-news"]  # a catalog feed
    with TestClient(create_app(engine, Settings())) as client:
        page = client.get("/sources?ui=en").text
        api = {s["id"]: s for s in client.get("/api/sources").json()}
    row = re.search(r'<tr id="source-outlet-one".*?</tr>', page, re.S).group(0)
    assert "Imported outlet, not polled" in row
    assert api["outlet-one"]["polled"] is False and api["openai-news"]["polled"] is True


def test_a_source_made_by_replaying_a_feed_file_is_kept_but_never_polled(tmp_path, site):
    """Replaying a feed file no catalog knows (the demo's newsdesk-week, a saved feed) makes a source
    whose url is the file. A later plain ingest polled that file:// url and failed for it (a run
    exited 1 on every pass); now it is not polled, keeps its items, and the next replay updates it."""
    from newsdesk.ingest.health import source_health

    base, asked = site
    week = tmp_path / "replay" / "week-pack.xml"
    week.parent.mkdir()
    week.write_bytes(FEED)
    engine = open_store(f"sqlite:///{tmp_path / 'data' / 'newsdesk.db'}")
    settings = Settings(data_dir=str(tmp_path / "data"))
    settings.fetch.allow_private, settings.fetch.per_host_delay, settings.fetch.retries = True, 0, 1
    assert ingest.ingest(engine, settings, source=week.parent, catalog=[]).new == 1
    with engine.connect() as conn:
        [replayed] = [s for s in ingest.stored_sources(conn) if s.id == "week-pack"]
    assert replayed.url.startswith("file:") and replayed.enabled and not replayed.polled

    feed = Source(id="nimbus", name="Nimbus", url=f"{base}/feed.xml")
    report = ingest.ingest(engine, settings, catalog=[feed])  # a plain ingest: every polled source
    assert [(o.source_id, o.status) for o in report.outcomes] == [("nimbus", "ok")] and not report.failed
    with engine.connect() as conn:
        assert due_sources(conn, datetime.now(UTC)) == []  # the feed polled; the replayed file never due
        assert conn.execute(select(fetches.c.url).where(fetches.c.source_id == "week-pack")).scalars().all() == [
            week.parent.resolve().as_uri() + "/week-pack.xml"
        ]  # the replay's row only: nothing fetched it since
        [health] = [h for h in source_health(conn) if h.source_id == "week-pack"]
    assert not health.polled and health.replayed and not health.stale

    [asked_for] = ingest.ingest(engine, settings, only=["week-pack"], catalog=[]).outcomes
    assert asked_for.status == "skipped" and "replayed feed file, not polled" in asked_for.error

    week.write_bytes(FEED.replace(b"</channel>", b"<item><title>Nimbus 5</title><guid>n5</guid></item></channel>"))
    again = ingest.ingest(engine, settings, source=week, catalog=[])  # replaying the file still updates it
    assert again.new == 1 and not again.failed
    engine.dispose()


def _cli(tmp_path, monkeypatch, *args: str) -> tuple[int, str]:
    (tmp_path / "newsdesk.toml").write_text("")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NEWSDESK_CONFIG", str(tmp_path / "newsdesk.toml"))
    monkeypatch.setenv("NEWSDESK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setattr(cli, "_state", {})
    monkeypatch.setattr(cli.console, "width", 300)
    monkeypatch.setattr(cli.err, "width", 300)
    result = CliRunner().invoke(cli.app, list(args))
    assert "Traceback" not in result.output, result.output
    return result.exit_code, result.output


def test_imported_items_of_an_outlet_off_for_polling_are_stored_and_it_stays_off(tmp_path, monkeypatch):
    """ "X @OpenAI" is the catalog's x-openai, off by default because it needs an X bridge to be polled.
    An import refused its items ("x-openai: disabled …: its 1 items were not imported") and exited 1:
    the user gave them, and polling has nothing to do with them. Now every good item is stored, exit
    0, and x-openai stays off for polling; a bad line is still refused, each named with why."""
    lines = [
        {"title": "OpenAI ships a model to every user", "link": "https://x.com/OpenAI/status/1", "source": "X @OpenAI"},
        {
            "title": "Claude learns a new trick today",
            "link": "https://x.com/AnthropicAI/status/2",
            "source": "X @AnthropicAI",
        },
        {"title": "Nimbus 4 arrives for everyone", "link": "https://example.com/n4", "source": "Outlet One"},
    ]
    good = tmp_path / "good.jsonl"
    good.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    code, out = _cli(tmp_path, monkeypatch, "ingest", "--from", str(good))
    assert code == 0, out
    assert "3 new" in out and "not imported" not in out and "disabled" not in out
    engine = open_store(f"sqlite:///{tmp_path / 'data' / 'newsdesk.db'}")
    with engine.connect() as conn:
        stored = dict(conn.execute(select(items.c.url, items.c.source_id)).all())
        off = {r.id: r.enabled for r in conn.execute(select(sources.c.id, sources.c.enabled))}
        due = due_sources(conn, datetime.now(UTC))
    assert "x-openai" not in due and "x-anthropicai" not in due and "outlet-one" not in due
    assert stored["https://x.com/OpenAI/status/1"] == "x-openai"
    assert stored["https://x.com/AnthropicAI/status/2"] == "x-anthropicai"
    assert off["x-openai"] is False and off["x-anthropicai"] is False  # still off for polling

    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        json.dumps({"title": "Kept", "link": "https://example.com/kept", "source": "Outlet One"})
        + "\n"
        + json.dumps({"title": "Gemini 9 leaks", "source": "Outlet One"})
        + "\n"
        + '{"title": "cut off'
        + "\n"
        + json.dumps({"title": "No outlet", "link": "https://example.com/none", "source": " "})
        + "\n",
        encoding="utf-8",
    )
    code, out = _cli(tmp_path, monkeypatch, "ingest", "--from", str(bad))
    assert code == 1, out
    refused = [line for line in out.splitlines() if line.startswith("not imported:")]
    assert len(refused) == 3, out
    assert (
        refused[0].startswith("not imported: bad.jsonl line 2: missing or empty 'link'")
        and "'Gemini 9 leaks'" in refused[0]
    )
    assert refused[1].startswith("not imported: bad.jsonl line 3: not valid JSON")
    assert (
        refused[2].startswith("not imported: bad.jsonl line 4: missing or empty 'source'")
        and "'No outlet'" in refused[2]
    )
    with engine.connect() as conn:
        assert conn.execute(select(items.c.id).where(items.c.url == "https://example.com/kept")).first() is not None
    engine.dispose()


def test_a_replayed_feed_names_each_entry_it_did_not_store(tmp_path, monkeypatch):
    """A replayed feed's entries that hold nothing to store were counted in the fetch row's warnings,
    which stop at a cap ("more warnings not shown"), and the command printed none of them."""
    from newsdesk.ingest.parse import _MAX_WARNINGS

    bad = _MAX_WARNINGS + 3
    feed = {
        "version": "https://jsonfeed.org/version/1.1",
        "title": "pack",
        "items": [{"id": "a", "url": "https://example.com/a", "title": "Kept story"}] + [7] * bad,
    }
    (tmp_path / "pack").mkdir()
    (tmp_path / "pack" / "saved-feed.json").write_text(json.dumps(feed), encoding="utf-8")
    code, out = _cli(tmp_path, monkeypatch, "ingest", "--from", str(tmp_path / "pack"))
    refused = [line for line in out.splitlines() if line.startswith("not imported:")]
    assert "1 new" in out and len(refused) == bad, out
    assert refused[-1] == f"not imported: saved-feed: JSON Feed item {bad + 1} is a int, not an object: skipped"


def test_an_imported_outlets_language_is_its_items_majority_not_its_first(tmp_path):
    """An X account first seen through a Chinese post became a Chinese source ("X @sama" in zh-media)."""
    titles = [
        "奥特曼谈下一代模型的发布计划与算力",
        "We are launching a new model for every developer today",
        "Compute is the currency of the future, and we need more of it",
        "Thanks to the team for shipping this week, what a ride",
    ]
    harvest = tmp_path / "x.jsonl"
    harvest.write_text(
        "".join(
            json.dumps({"title": t, "link": f"https://x.com/sama/status/{n}", "source": "X @sama"}) + "\n"
            for n, t in enumerate(titles)
        ),
        encoding="utf-8",
    )
    engine = open_store(f"sqlite:///{tmp_path / 'data' / 'newsdesk.db'}")
    settings = Settings(data_dir=str(tmp_path / "data"))
    assert ingest.ingest(engine, settings, source=harvest, catalog=[]).new == 4
    with engine.connect() as conn:
        row = conn.execute(select(sources.c.language, sources.c.category).where(sources.c.id == "x-sama")).one()
    assert tuple(row) == ("en", "media")

    # Its stored items decide: a later file of Chinese posts makes it a Chinese source.
    more = tmp_path / "more.jsonl"
    more.write_text(
        "".join(
            json.dumps(
                {
                    "title": f"奥特曼第{n}次谈到模型的安全与发布节奏",
                    "link": f"https://x.com/sama/status/z{n}",
                    "source": "X @sama",
                }
            )
            + "\n"
            for n in range(5)
        ),
        encoding="utf-8",
    )
    assert ingest.ingest(engine, settings, source=more, catalog=[]).new == 5
    with engine.connect() as conn:
        row = conn.execute(select(sources.c.language, sources.c.category).where(sources.c.id == "x-sama")).one()
    assert tuple(row) == ("zh", "zh-media")
    engine.dispose()


def test_an_imported_outlet_named_as_a_companys_channel_speaks_with_its_other_channels(tmp_path):
    """GPT-5.4's card counted "OpenAI Blog" (an outlet a harvest import made) and OpenAI Research News
    as two independent outlets: one company's channels are one voice (cluster/independence.py), and
    the store's sources say that company's owner is "OpenAI"; the new channels are filed where its
    others are (AI labs: the replayed 03-05 labelled OpenAI's own posts media). A media outlet named after its owner
    (腾讯科技) and a company the store has no owner for stay outlets of their own."""
    from newsdesk.store.items import sync_sources

    engine = open_store(f"sqlite:///{tmp_path / 'data' / 'newsdesk.db'}")
    with engine.begin() as conn:
        sync_sources(
            conn,
            [
                Source(
                    id="openai-research",
                    name="OpenAI Research News",
                    url="https://example.com/r.xml",
                    owner="OpenAI",
                    category="lab",
                )
            ],
        )
    harvest = tmp_path / "h.jsonl"
    outlets = ["OpenAI Blog", "OpenAI YouTube", "腾讯科技", "Meta Engineering Blog"]
    harvest.write_text(
        "".join(
            json.dumps(
                {
                    "title": f"GPT-5.4 story {n}",
                    "link": f"https://example.com/{n}",
                    "source": o,
                    "pub_date": "2026-03-05",
                }
            )
            + "\n"
            for n, o in enumerate(outlets)
        ),
        encoding="utf-8",
    )
    assert ingest.ingest(engine, Settings(data_dir=str(tmp_path / "data")), source=harvest, catalog=[]).new == 4
    with engine.connect() as conn:
        owners = dict(conn.execute(select(sources.c.name, sources.c.owner)).all())
    assert owners == {
        "OpenAI Research News": "OpenAI",
        "OpenAI Blog": "OpenAI",
        "OpenAI YouTube": "OpenAI",
        "腾讯科技": None,
        "Meta Engineering Blog": None,
    }
    with engine.connect() as conn:  # filed with the company's other channels, not as the import's media
        filed = dict(conn.execute(select(sources.c.name, sources.c.category)).all())
    assert filed == {
        "OpenAI Research News": "lab",
        "OpenAI Blog": "lab",
        "OpenAI YouTube": "lab",
        "腾讯科技": "media",  # its items here are English
        "Meta Engineering Blog": "media",
    }
    engine.dispose()
