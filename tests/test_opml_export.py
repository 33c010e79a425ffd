"""`newsdesk sources export` writes valid XML whatever the sources are called, and newsdesk's own import
reads it back to the same sources: names with control characters (from a JSON Lines import's outlets)
made an OPML file no XML reader, newsdesk's import included, would open."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from xml.etree import ElementTree as ET

from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from newsdesk import cli
from newsdesk.core.config import Settings
from newsdesk.core.model import LANGUAGES, SOURCE_KINDS, Source
from newsdesk.ingest.catalog import CATEGORIES, load_catalog, read_opml, write_opml
from newsdesk.store import open_store
from newsdesk.store.items import sync_sources

HOSTILE = [
    Source(
        id="outlet-x-openai", name="X\x01 @OpenAI\x1b[0m", url="https://feeds.example/x-openai.xml", origin="import"
    ),
    Source(
        id="outlet-bell",
        name="\x07Bell\x0b\x0c Labs\ufffe\uffff",
        url="https://feeds.example/bell.xml",
        origin="import",
    ),
    Source(id="outlet-tabbed", name="Tab\there, new\nline 中文", url="https://feeds.example/tabbed.xml", language="zh"),
]
CLEAN_NAMES = {
    "outlet-x-openai": "X @OpenAI[0m",
    "outlet-bell": "Bell Labs",
    "outlet-tabbed": "Tab\there, new\nline 中文",
}


def _fields(source: Source) -> tuple:
    return tuple(getattr(source, f.name) for f in dataclasses.fields(Source) if f.name not in ("name", "origin"))


def test_export_is_valid_xml_and_import_reads_back_the_same_sources(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NEWSDESK_DATA_DIR", str(tmp_path / "data"))
    (tmp_path / "data").mkdir()
    engine = open_store(Settings(data_dir=str(tmp_path / "data")).database)
    with engine.begin() as conn:
        sync_sources(conn, HOSTILE)
    engine.dispose()

    monkeypatch.setattr(cli, "_state", {})
    exported = CliRunner().invoke(cli.app, ["sources", "export", "out.opml"])
    assert exported.exit_code == 0, exported.output
    ET.parse(tmp_path / "out.opml")  # well-formed XML 1.0

    # Imported into a newsroom of its own: the three come back as they were, their names cut to XML.
    monkeypatch.setenv("NEWSDESK_DATA_DIR", str(tmp_path / "fresh"))
    monkeypatch.setattr(cli, "_state", {})
    imported = CliRunner().invoke(cli.app, ["sources", "import", "out.opml"])
    assert imported.exit_code == 0, imported.output
    back = {s.id: s for s in load_catalog(Settings(data_dir=str(tmp_path / "fresh")))[0]}
    for source in HOSTILE:
        assert _fields(back[source.id]) == _fields(source) and back[source.id].name == CLEAN_NAMES[source.id]


# --- the property layer: any names, any fields the catalog takes -------------------------------------

slugs = st.from_regex(r"[a-z0-9][a-z0-9-]{0,40}", fullmatch=True)
any_text = st.text(alphabet=st.characters(), max_size=40)  # control characters and lone surrogates included


@st.composite
def catalogs(draw) -> list[Source]:
    ids = draw(st.lists(slugs, min_size=1, max_size=6, unique=True))
    return [
        Source(
            id=sid,
            name=draw(any_text),
            url=f"https://feeds.example/{n}.xml",
            kind=draw(st.sampled_from(sorted(SOURCE_KINDS))),
            language=draw(st.sampled_from(sorted(LANGUAGES))),
            tier=draw(st.integers(1, 3)),
            weight=draw(st.floats(0.01, 100, allow_nan=False)),
            category=draw(st.sampled_from(CATEGORIES)),
            fulltext=draw(st.booleans()),
        )
        for n, sid in enumerate(ids)
    ]


@settings(max_examples=150, deadline=None)
@given(catalogs())
def test_any_catalog_round_trips_through_opml(tmp_path_factory, sources):
    path: Path = tmp_path_factory.mktemp("opml") / "out.opml"
    write_opml(sources, path)
    ET.parse(path)
    back = read_opml(path)
    assert sorted(_fields(s) for s in back) == sorted(_fields(s) for s in sources)
    for source in back:
        written = next(s for s in sources if s.id == source.id)
        kept = "".join(ch for ch in written.name if ch in "\t\n\r" or (ch >= " " and _xml_char(ch))).strip()
        assert source.name == (kept or written.url)


def _xml_char(ch: str) -> bool:
    return not ("\ud800" <= ch <= "\udfff") and ch not in "\ufffe\uffff"
