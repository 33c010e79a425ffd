"""Property-based tests: every parser of outside input either returns well-formed results or raises
its own one-line error, whatever it is given (Hypothesis generates the input)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from newsdesk.core.config import ConfigError, Settings, load_settings
from newsdesk.core.model import LANGUAGES, MATERIAL_LEVELS, SOURCE_KINDS, Source
from newsdesk.ingest.catalog import CATEGORIES, CatalogError, load_catalog, read_opml
from newsdesk.ingest.jsonl import read_harvest
from newsdesk.ingest.parse import GUID_MAX, SUMMARY_MAX, TITLE_MAX, URL_MAX, parse_feed
from newsdesk.ingest.transcripts import FORMATS, TranscriptError, parse_transcript

SRC = Source(id="fuzz", name="Fuzz", url="https://example.com/feed")
NOW = datetime(2026, 3, 1, tzinfo=UTC)
FUZZ = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
# Text a feed might carry: letters, CJK, markup, entities, control characters, long runs.
feed_text = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=200) | st.sampled_from(
    [
        "",
        " ",
        "<b>bold</b>",
        "&amp;amp;",
        "https://example.com/a?utm_source=x#frag",
        "http://[::1",
        "2026-02-30T25:00:00Z",
        "Mon, 24 Feb 2025 10:00:00 GMT",
        "x" * 3000,
        "大模型" * 400,
        "\x00\x01",
    ]
)


def _check_items(parsed) -> None:
    assert not (parsed.error or "").startswith("could not parse"), parsed.error  # a crash caught by the guard
    for item in parsed.items:
        assert isinstance(item.title, str) and item.title and len(item.title) <= TITLE_MAX + 2
        assert isinstance(item.guid, str) and item.guid and len(item.guid) <= max(GUID_MAX, URL_MAX)
        assert item.url is None or (isinstance(item.url, str) and len(item.url) <= URL_MAX)
        assert len(item.summary) <= SUMMARY_MAX + 2 and item.material_level in MATERIAL_LEVELS
        assert item.language in LANGUAGES
        assert item.published_at is None or item.published_at.tzinfo is not None
        json.dumps([item.authors, item.categories, item.engagement, item.extra])  # storable as JSON


@FUZZ
@given(st.binary(max_size=2000))
def test_feed_parser_on_any_bytes(body):
    _check_items(parse_feed(body, SRC, fetched_at=NOW))


@FUZZ
@given(
    st.lists(
        st.fixed_dictionaries(
            {},
            optional={
                "title": feed_text,
                "link": feed_text,
                "guid": feed_text,
                "description": feed_text,
                "pubDate": feed_text,
                "author": feed_text,
                "category": feed_text,
            },
        ),
        max_size=6,
    ),
    st.sampled_from(["rss", "atom"]),
)
def test_feed_parser_on_generated_rss_and_atom(entries, dialect):
    def tag(name, value):
        return f"<{name}>{escape(value)}</{name}>"

    if dialect == "rss":
        body = "".join("<item>" + "".join(tag(k, v) for k, v in e.items()) + "</item>" for e in entries)
        doc = f"<?xml version='1.0'?><rss version='2.0'><channel><title>t</title>{body}</channel></rss>"
    else:
        names = {
            "title": "title",
            "guid": "id",
            "description": "summary",
            "pubDate": "updated",
            "author": "author",
            "category": "category",
            "link": "link",
        }
        body = "".join(
            "<entry>"
            + "".join(f"<link href={quoteattr(v)}/>" if k == "link" else tag(names[k], v) for k, v in e.items())
            + "</entry>"
            for e in entries
        )
        doc = f"<?xml version='1.0'?><feed xmlns='http://www.w3.org/2005/Atom'><title>t</title>{body}</feed>"
    _check_items(parse_feed(doc.encode("utf-8", "surrogatepass"), SRC, fetched_at=NOW))


JSON_FEED_KEYS = [
    "id",
    "url",
    "external_url",
    "title",
    "content_html",
    "content_text",
    "summary",
    "date_published",
    "date_modified",
    "authors",
    "author",
    "tags",
    "attachments",
]


@FUZZ
@given(
    st.dictionaries(st.sampled_from(["version", "title", "items", "authors"]), json_values),
    st.lists(
        st.dictionaries(st.sampled_from(JSON_FEED_KEYS), json_values | feed_text, max_size=8) | json_values, max_size=6
    ),
)
def test_json_feed_parser_on_generated_documents(top, entries):
    doc = {**top, "version": "https://jsonfeed.org/version/1.1", "items": entries}
    parsed = parse_feed(json.dumps(doc).encode(), SRC, fetched_at=NOW)
    _check_items(parsed)
    # One bad item costs only itself: every item object with a usable string title is kept or named as a duplicate.
    titled = [e for e in entries if isinstance(e, dict) and isinstance(e.get("title"), str) and e["title"].strip()]
    assert len(parsed.items) + parsed.dropped >= len(titled)


HARVEST_KEYS = ["title", "link", "source", "summary", "pub_date", "core_point", "score", "category"]


@FUZZ
@given(
    st.lists(
        st.dictionaries(st.sampled_from(HARVEST_KEYS), feed_text | json_values, max_size=8).map(json.dumps)
        | feed_text
        | st.binary(max_size=60).map(lambda b: b.decode("latin-1")),
        max_size=8,
    )
)
def test_jsonl_reader_on_generated_lines(tmp_path_factory, lines):
    path = tmp_path_factory.mktemp("h") / "h.jsonl"
    path.write_bytes("\n".join(lines).encode("utf-8", "surrogatepass"))
    errors: list[str] = []
    warnings: list[str] = []
    for source, item in read_harvest(path, errors, warnings):
        assert source.id and len(source.id) <= 120 and len(source.name) <= 300
        assert (
            item.source_id == source.id and len(item.title) <= TITLE_MAX + 2 and item.url and len(item.url) <= URL_MAX
        )
    assert all("\n" not in e for e in errors + warnings)


@FUZZ
@given(
    st.binary(max_size=1500)
    | st.lists(
        st.dictionaries(
            st.sampled_from(
                ["xmlUrl", "title", "text", "id", "kind", "language", "tier", "weight", "category", "fulltext"]
            ),
            feed_text,
            max_size=10,
        ),
        max_size=5,
    ).map(
        lambda outlines: (
            "<opml version='2.0'><body>"
            + "".join("<outline " + " ".join(f"{k}={quoteattr(v)}" for k, v in o.items()) + "/>" for o in outlines)
            + "</body></opml>"
        ).encode("utf-8", "surrogatepass")
    )
)
def test_opml_reader_on_generated_files(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("o") / "in.opml"
    path.write_bytes(data)
    try:
        found = read_opml(path)
    except CatalogError as exc:
        assert "\n" not in str(exc)
        return
    for s in found:
        assert s.url.startswith(("http://", "https://")) and s.kind in SOURCE_KINDS and s.language in LANGUAGES
        assert s.category in CATEGORIES and 1 <= s.tier <= 3 and s.weight > 0 and s.id


@FUZZ
@given(
    st.binary(max_size=3000)
    | feed_text.map(str.encode)
    | st.lists(feed_text, max_size=6).map(
        lambda lines: "\n".join(f"Speaker {i}: {t}" for i, t in enumerate(lines)).encode("utf-8", "surrogatepass")
    ),
    st.sampled_from([None, *FORMATS]),
)
def test_transcript_parser_on_any_input(data, fmt):
    try:
        kind, turns = parse_transcript(data, fmt=fmt, name="t")
    except TranscriptError as exc:
        assert str(exc).startswith("t: ") and "\n" not in str(exc)
        return
    assert kind in FORMATS and turns
    assert all(isinstance(t.text, str) and t.text and isinstance(t.speaker, str) for t in turns)


SETTING_KEYS = ["data_dir", "timezone", "languages", "site_url", "web_token", "fetch", "llm", "nope"]
SECTION_KEYS = ["max_bytes", "retries", "timeout", "concurrency", "allow_private", "backend", "temperature", "nope"]
toml_values = st.recursive(
    st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.floats(allow_nan=True) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3),
    max_leaves=6,
)


@FUZZ
@given(
    st.dictionaries(
        st.sampled_from(SETTING_KEYS),
        toml_values | st.dictionaries(st.sampled_from(SECTION_KEYS), toml_values, max_size=4),
        max_size=5,
    )
    | st.binary(max_size=200)
)
def test_settings_loader_on_generated_files(tmp_path_factory, doc):
    folder = tmp_path_factory.mktemp("cfg")
    path = folder / "newsdesk.toml"
    if isinstance(doc, bytes):
        path.write_bytes(doc)
    else:
        if isinstance(doc.get("data_dir"), str):
            doc["data_dir"] = str(folder / "d")  # never let generated text name a real folder
        path.write_text(tomli_w.dumps(doc), encoding="utf-8")
    try:
        s = load_settings(path, env={})
    except ConfigError as exc:
        assert "\n" not in str(exc)
        return
    assert isinstance(s, Settings) and s.fetch.max_bytes >= 1 and s.fetch.retries >= 0


CATALOG_FIELDS = ["id", "name", "url", "kind", "language", "tier", "weight", "category", "fulltext", "enabled", "bogus"]


@FUZZ
@given(
    st.lists(
        st.dictionaries(
            st.sampled_from(CATALOG_FIELDS),
            toml_values
            | st.sampled_from(["openai-news", "my-feed", "https://example.com/rss", "{bridge}/x", "rss", "zh", "lab"]),
            max_size=8,
        )
        | toml_values,
        max_size=5,
    )
)
def test_catalog_loader_on_generated_user_files(tmp_path_factory, entries):
    folder = tmp_path_factory.mktemp("cat")
    user = folder / "mine.toml"
    user.write_text(tomli_w.dumps({"source": entries}), encoding="utf-8")
    sources, errors = load_catalog(Settings(data_dir=str(folder / "d")), user_file=user)
    assert len(sources) > 60 and all("\n" not in e for e in errors)
    ids = [s.id for s in sources]
    assert len(ids) == len(set(ids))
    for s in sources:
        assert s.kind in SOURCE_KINDS and s.language in LANGUAGES and 1 <= s.tier <= 3 and s.url.startswith("http")


def test_the_fuzzers_reach_real_documents(fixtures):
    """A sanity anchor: the same checks hold on the real fixture feeds the generators imitate."""
    for path in sorted((fixtures / "feeds/ai-blogs/2026-07-04").glob("*.xml"))[:5]:
        parsed = parse_feed(Path(path).read_bytes(), SRC, fetched_at=NOW)
        assert parsed.items
        _check_items(parsed)
