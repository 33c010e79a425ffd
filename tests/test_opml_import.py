"""`newsdesk sources import FILE.opml` names every outline it leaves out and why, exits 1 when it
left any out, and writes only entries the catalog's own loader accepts. It said "imported 11
sources" and exited 0 while dropping seven outlines unnamed, and wrote a {x} placeholder and port
99999, which loading the catalog then refused."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from newsdesk import cli
from newsdesk.core.config import Settings
from newsdesk.core.errors import PARTIAL
from newsdesk.ingest.catalog import load_catalog

GOOD = {"Good One": "https://one.example/feed.xml", "Good Two": "http://two.example:8080/rss"}
BAD = {
    "Script": ("javascript:alert(1)", "javascript: is not fetched"),
    "Local file": ("file:///etc/passwd", "file: is not fetched"),
    "FTP": ("ftp://ftp.example/feed.xml", "ftp: is not fetched"),
    "No scheme": ("feeds.example/rss", "no scheme"),
    "Broken IPv6": ("http://[::1/feed", "not a URL"),
    "Again": ("https://one.example/feed.xml", "the same feed as outline 'Good One' above"),
    "Bridge": ("{bridge}/jiqizhixin", "placeholder"),
    "Placeholder": ("https://x.example/{x}/feed", "placeholder"),
    "Port": ("https://port.example:99999/feed", "not a URL (Port out of range 0-65535)"),
}


def _opml(path: Path) -> Path:
    outlines = [(t, u) for t, u in GOOD.items()] + [(t, u) for t, (u, _) in BAD.items()]
    body = "".join(f'<outline type="rss" text="{t}" xmlUrl="{u}"/>' for t, u in outlines)
    path.write_text(
        f'<?xml version="1.0"?><opml version="2.0"><body><outline text="AI">{body}</outline></body></opml>',
        encoding="utf-8",
    )
    return path


def test_every_skipped_outline_is_named_and_the_catalog_loads_what_was_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NEWSDESK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setattr(cli, "_state", {})
    monkeypatch.setattr(cli.console, "width", 400)
    monkeypatch.setattr(cli.err, "width", 400)
    result = CliRunner().invoke(cli.app, ["sources", "import", str(_opml(tmp_path / "in.opml"))])
    assert result.exit_code == PARTIAL, result.output
    lines = result.output.splitlines()
    for title, (url, why) in BAD.items():
        [said] = [x for x in lines if f"outline '{title}' (xmlUrl {url!r}) skipped: " in x]
        assert why in said, said
    assert (
        f"imported 2 sources into {tmp_path / 'data' / 'sources.toml'} (0 already in the catalog, {len(BAD)} skipped)"
        in result.output
    )
    sources, errors = load_catalog(Settings(data_dir=str(tmp_path / "data")))
    assert errors == []
    assert {s.url for s in sources if s.origin == "user"} == set(GOOD.values())


def test_the_catalog_refuses_a_port_past_65535_in_one_line(tmp_path):
    mine = tmp_path / "mine.toml"
    mine.write_text('[[source]]\nid = "p"\nname = "p"\nurl = "https://port.example:99999/feed"\n', encoding="utf-8")
    _, errors = load_catalog(Settings(data_dir=str(tmp_path / "d")), user_file=mine)
    assert errors == [f"{mine}: entry 'p' field 'url': must be an http(s) URL: not a URL (Port out of range 0-65535)"]
