"""Everything published (HTML, Markdown, RSS, JSON Feed) goes through one cleaning: no NUL or other
control characters anywhere, and Markdown files that other tools render carry no live HTML or script links."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from datetime import UTC, datetime
from pathlib import Path

from test_publish import weekly_meta

from newsdesk.core.config import Settings
from newsdesk.publish.markdown import split_front_matter
from newsdesk.publish.site import publish_site
from newsdesk.store.edition_rows import store_edition

BODY = (
    "Summary\x00 with a NUL\n\n<script>alert(1)</script> and [click](javascript:alert(1)) and "
    "[ok](https://example.com/a) and `a<b>` kept\n\n```\nif a < b: print('<p>')\n```\n\n[ref]: JavaScript:alert(2)\n"
)


def test_published_files_carry_no_control_characters_or_live_markup(engine, tmp_path):
    settings = Settings(site_dir=str(tmp_path / "site"), site_url="https://news.example/")
    # PostgreSQL text cannot hold NUL at all (the store cleans it out); other control characters it keeps.
    nul = "\x00" if engine.dialect.name == "sqlite" else "\x01"
    body = BODY.replace("\x00", nul)
    when = datetime(2026, 3, 16, 1, 0, tzinfo=UTC)
    meta = weekly_meta("2026-W11")
    meta["summary"] = f"weekly{nul} summary\x07"
    with engine.begin() as conn:
        store_edition(
            conn,
            kind="episode",
            key="ep1",
            language="en",
            title=f"Talk{nul} one\x1b",
            body=body,
            meta={},
            status="clean",
            material_key="e",
            now=when,
        )
        store_edition(
            conn,
            kind="weekly",
            key="2026-W11",
            language="zh",
            title=f"AI周报{nul} 2026-W11",
            body="x",
            meta=meta,
            status="clean",
            material_key="w",
            now=when,
        )
    publish_site(engine, settings)
    site = Path(settings.site_dir)
    files = [p for p in site.rglob("*") if p.is_file()]
    assert files
    for path in files:
        data = path.read_text(encoding="utf-8")
        assert not re.search("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", data), path
        assert "\\u0000" not in data, path
        if path.suffix == ".xml":
            ET.fromstring(data.encode())  # well-formed: XML 1.0 cannot hold a NUL at all
        if path.suffix == ".json":
            json.loads(data)
        if path.suffix == ".html":
            assert not re.search(r"<script\b", data, re.I) and not re.search(r"href=.\s*javascript:", data, re.I), path
    fields, body = split_front_matter((site / "en/episodes/ep1.md").read_text(encoding="utf-8"))
    assert fields["title"] == "Talk one"
    outside_code = body.split("```")[0] + body.split("```")[2]
    assert "<script" not in outside_code and "javascript:" not in outside_code.lower()
    assert "&lt;script>alert(1)&lt;/script>" in body  # shown as text, as the site shows it
    assert "[ok](https://example.com/a)" in body and "`a<b>`" in body and "if a < b: print('<p>')" in body
