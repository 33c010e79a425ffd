"""Bad input ends in one line naming the problem and the fix, never in a traceback or a silent loss."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from typer.testing import CliRunner

from newsdesk import cli
from newsdesk.core.config import ConfigError, Settings, load_settings
from newsdesk.core.model import Source
from newsdesk.ingest import run as ingest
from newsdesk.ingest.catalog import load_catalog
from newsdesk.ingest.parse import TITLE_MAX, parse_feed
from newsdesk.ingest.transcripts import MAX_BYTES, TranscriptError, parse_transcript
from newsdesk.store import StoreError, open_store

SRC = Source(id="s", name="S", url="https://example.com/feed.json")
NOW = datetime(2026, 3, 1, tzinfo=UTC)


def _cli(tmp_path, monkeypatch, *args: str):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NEWSDESK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setattr(cli, "_state", {})
    result = CliRunner().invoke(cli.app, list(args))
    return result.exit_code, " ".join(result.output.split())


# --- feeds and JSON Lines -------------------------------------------------------------------


def test_one_bad_json_feed_item_costs_only_its_bad_fields():
    doc = {
        "version": "https://jsonfeed.org/version/1.1",
        "title": "T",
        "items": [
            {"id": "1", "url": "https://example.com/1", "title": 5, "summary": {"x": 1}, "content_text": "Body one"},
            {"id": "2", "url": ["https://example.com/2"], "title": "Second", "tags": "not-a-list"},
            {"id": "3", "url": "https://example.com/3", "title": "Third", "date_published": 20260301},
        ],
    }
    parsed = parse_feed(json.dumps(doc).encode(), SRC, fetched_at=NOW)
    assert parsed.error is None
    assert [i.title for i in parsed.items] == ["Body one", "Second", "Third"]
    assert parsed.items[1].url is None and parsed.items[1].categories == []
    assert any("'title' is a int" in w for w in parsed.warnings)


def test_a_five_million_character_title_is_capped():
    doc = {
        "version": "https://jsonfeed.org/version/1.1",
        "items": [
            {"id": "1", "url": "https://example.com/1", "title": "word " * 1_000_000},
        ],
    }
    item = parse_feed(json.dumps(doc).encode(), SRC, fetched_at=NOW).items[0]
    assert len(item.title) <= TITLE_MAX + 2 and item.title.endswith("…")
    rss = (
        f"<rss version='2.0'><channel><title>x</title><item><title>{'x' * 5_000_000}</title>"
        "<link>https://example.com/a</link></item></channel></rss>"
    )
    assert len(parse_feed(rss.encode(), SRC, fetched_at=NOW).items[0].title) <= TITLE_MAX + 2


def test_jsonl_lines_with_bad_dates_are_imported_and_not_counted_as_skipped(engine, tmp_path):
    good = {"title": "GPT-5.4 released", "link": "https://openai.com/index/gpt-5-4/", "source": "OpenAI"}
    path = tmp_path / "h.jsonl"
    path.write_text(
        json.dumps({**good, "pub_date": "sometime"})
        + "\n"
        + json.dumps({**good, "link": "https://openai.com/b", "pub_date": "2026-03-01"})
        + "\n",
        encoding="utf-8",
    )
    outcomes = ingest.import_jsonl(engine, path)
    assert not [o for o in outcomes if o.status == "error"]
    assert sum(o.new for o in outcomes) == 2
    notes = [w for o in outcomes for w in o.warnings]
    assert len(notes) == 1 and "line 1" in notes[0] and "first-seen time used" in notes[0]


# --- transcripts ------------------------------------------------------------------------------

VTT = "WEBVTT\n\n00:00:00.000 --> 00:00:02.000\n<v Host>Welcome to the show, café crème.\n"


def test_transcripts_over_the_size_cap_are_refused_in_one_line():
    with pytest.raises(TranscriptError, match=r"MB is more than a transcript"):
        parse_transcript(b"Host: hello\n" * (MAX_BYTES // 12 + 1), name="big.txt")


def test_utf16_without_bom_is_read_and_latin1_is_refused():
    fmt, turns = parse_transcript(VTT.encode("utf-16-le"), name="a.vtt")
    assert fmt == "vtt" and turns[0].speaker == "Host" and "café crème" in turns[0].text
    assert parse_transcript(VTT.encode("utf-16-be"), name="a.vtt")[1][0].text == turns[0].text
    with pytest.raises(TranscriptError, match="not UTF-8.*save the transcript as UTF-8"):
        parse_transcript(("Host: " + "Très bien, déjà vu. " * 30).encode("latin-1"), name="a.txt")
    with pytest.raises(TranscriptError, match="binary data"):
        parse_transcript(bytes(range(256)) * 4, name="a.bin")
    zh = ("主持人：今天我们聊大模型的推理能力。\n嘉宾：好的，我先说说强化学习。\n" * 5).encode("gb18030")
    assert parse_transcript(zh, name="zh.txt")[1][0].speaker == "主持人"


# --- settings -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, says",
    [
        ('timezone = "Mars/Olympus"', "not a time zone name"),
        ("[fetch]\nmax_bytes = -5", "'max_bytes' = -5 is out of bounds; it must be from 1 to 1000000000"),
        ("[fetch]\nretries = -1", "'retries' = -1 is out of bounds; it must be from 0 to 10"),
        ("[llm]\nretries = -3", "'retries' = -3 is out of bounds; it must be from 0 to 10"),
        ("[fetch]\nfulltext_concurrency = 4", "unknown setting 'fulltext_concurrency'"),
        (
            '[llm]\nbackend = "embedded"\narbitrate_merges = true',
            "lower clustering quality .* set arbitrate_merges = false",
        ),
        ('[write]\nby = "llm"', 'by = \'llm\' is not known; use "extractive" .* or "model"'),
    ],
)
def test_bad_settings_name_the_key_and_the_fix(tmp_path, text, says):
    path = tmp_path / "newsdesk.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=says):
        load_settings(path, env={})


def test_who_writes_apart_from_which_model_and_the_old_backend_as_one_line(tmp_path, caplog):
    path = tmp_path / "newsdesk.toml"
    path.write_text('[llm]\nbackend = "extractive"\n', encoding="utf-8")
    old = load_settings(path, env={})
    assert (old.write.by, old.llm.backend) == ("extractive", "openai")
    assert [r.getMessage() for r in caplog.records] == [
        'settings: llm.backend = "extractive" is read as [write] by = "extractive"; write that instead '
        '(llm.backend now names only the model: "openai" or "embedded")'
    ]
    caplog.clear()
    path.write_text('[write]\nby = "model"\n[llm]\nbackend = "embedded"\n', encoding="utf-8")
    new = load_settings(path, env={})
    assert (new.write.by, new.llm.backend) == ("model", "embedded") and caplog.records == []
    path.write_text('[llm]\nbackend = "embedded"\n', encoding="utf-8")
    assert load_settings(path, env={}).write.by == "extractive"
    assert (
        'cards, weekly and episode digests stay extractive unless [write] by = "model"'
        in caplog.records[0].getMessage()
    )
    assert load_settings(None, env={"NEWSDESK_WRITE_BY": "model"}).write.by == "model"


def test_settings_files_and_folders_that_are_not_what_they_should_be(tmp_path):
    bad = tmp_path / "latin1.toml"
    bad.write_bytes('site_name = "Café"\n'.encode("latin-1"))
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_settings(bad, env={})
    a_file = tmp_path / "data"
    a_file.write_text("x")
    with pytest.raises(ConfigError, match="is a file, not a directory"):
        load_settings(None, env={"NEWSDESK_DATA_DIR": str(a_file)})
    with pytest.raises(ConfigError, match="must be from 1 to 256"):
        load_settings(None, env={"NEWSDESK_FETCH_CONCURRENCY": "0"})
    with pytest.raises(StoreError, match="cannot create the database folder"):
        open_store(f"sqlite:///{a_file}/sub/newsdesk.db")


def test_a_catalog_entry_that_is_not_a_table_is_one_error(tmp_path):
    user = tmp_path / "mine.toml"
    user.write_text('source = [1, "a"]\n', encoding="utf-8")
    sources, errors = load_catalog(Settings(data_dir=str(tmp_path / "d")), user_file=user)
    assert len(sources) > 60
    assert [e for e in errors if "entry #1" in e and "not a table" in e]
    assert [e for e in errors if "entry #2" in e]


def test_commands_refuse_bad_arguments_in_one_line(tmp_path, monkeypatch):
    code, out = _cli(tmp_path, monkeypatch, "serve", "--port", "99999")
    assert code == 2 and "65535" in out and "Traceback" not in out
    blob = tmp_path / "blob.jsonl"
    blob.write_bytes(bytes(range(256)) * 8)
    code, out = _cli(tmp_path, monkeypatch, "eval", "clusters", str(blob))
    assert code == 2 and "not UTF-8" in out, out
    pairs = tmp_path / "pairs.json"
    pairs.write_text("[1,2]", encoding="utf-8")
    code, out = _cli(tmp_path, monkeypatch, "eval", "checker", str(pairs))
    assert code == 2 and "entry 0 needs document" in out, out


def test_reimporting_the_same_harvest_changes_nothing(engine, fixtures):
    harvest = fixtures / "news/ai-daily-harvest.jsonl"
    first = ingest.import_jsonl(engine, harvest)
    assert sum(o.new for o in first) > 600  # of 673 lines: a few repeat an outlet's link
    assert [w for o in first for w in o.warnings if "repeat an outlet's link" in w]
    for _ in range(2):
        again = ingest.import_jsonl(engine, harvest)
        assert sum(o.new for o in again) == 0 and sum(o.updated for o in again) == 0
