"""Every kind of edition (publish/outputs.py) has what the site, the Markdown files, the feeds, the
pipeline, the web app, the JSON API and the MCP server read of it; and a new kind takes only the
files docs/adding-an-output.md names: a throwaway kind, added the way the checklist says, is built by
its stage, published, served, listed by the API and offered as an MCP tool."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import anyio
import pytest
from fastapi.testclient import TestClient
from jinja2 import TemplateNotFound
from sqlalchemy import select

from newsdesk.core.config import Settings
from newsdesk.core.labels import LABELS, UI_LANGUAGES
from newsdesk.publish.markdown import split_front_matter
from newsdesk.publish.outputs import BY_SEGMENT, EDITION_KINDS, KINDS, EditionKind
from newsdesk.publish.site import _environment, publish_site
from newsdesk.run import pipeline
from newsdesk.serve.app import create_app
from newsdesk.serve.mcp import build_server
from newsdesk.store.edition_rows import store_edition
from newsdesk.store.schema import editions

ROOT = Path(__file__).resolve().parents[1]
NOW = datetime(2026, 3, 13, 4, 0, tzinfo=UTC)

# One stored edition of each kind, as its build stores it (the least its templates read).
SAMPLES = {
    "daily": (
        "2026-03-12",
        "日报 2026-03-12",
        "# 日报 2026-03-12\n\n全部 · 2026-03-12\n",
        {"cards": [], "tabs": [{"id": "all", "label": "全部", "events": []}]},
    ),
    "weekly": (
        "2026-W11",
        "AI周报 2026-W11 | newsdesk",
        "AI周报 2026-W11 | newsdesk\n",
        {"week": "2026-W11", "summary": "本周概要", "overview": ["概览一"], "sections": [], "briefs": []},
    ),
    "episode": (
        "110-a-talk",
        "110. A talk",
        "110. A talk\n\n摘要\n\n• 第一点\n\n精读\n\n1. 第一节\n\n正文\n",
        {"summary": "第一点"},
    ),
}


def store_samples(engine, kinds=SAMPLES) -> None:
    with engine.begin() as conn:
        for name, (key, title, body, meta) in kinds.items():
            for language in ("zh", "en"):
                store_edition(
                    conn,
                    kind=name,
                    key=key,
                    language=language,
                    title=title,
                    body=body,
                    meta=meta,
                    status="clean",
                    material_key=f"{name}-{key}",
                    now=NOW,
                )


def test_every_kind_has_a_sample_here():
    assert set(SAMPLES) == set(EDITION_KINDS), "add a stored sample of the new kind to SAMPLES"


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_every_kind_has_its_templates_words_stage_and_renderers(kind):
    env = _environment()
    for template in filter(None, (kind.page, kind.feed)):
        try:
            env.get_template(template)
        except TemplateNotFound:
            pytest.fail(f"{kind.name}: its template {template} is not in publish/templates")
    assert set(LABELS[kind.name]) >= set(UI_LANGUAGES), f"{kind.name}: add its name to core/labels.py in every language"
    assert kind.name in pipeline.STAGE_NAMES and kind.tool and kind.about and kind.key.help

    key, title, body, meta = SAMPLES[kind.name]
    row = {"kind": kind.name, "key": key, "language": "zh", "title": title, "body": body, "meta": meta}
    fields, text = split_front_matter(kind.markdown({**row, "updated_at": NOW}, "Asia/Shanghai"))
    assert fields["title"] == title and fields["tags"] == ["AI", kind.name] and fields["status"] == "Published"
    assert fields["slug"] and isinstance(fields["summary"], str) and text.strip()
    assert kind.time({**row, "updated_at": datetime(2030, 1, 1, tzinfo=UTC)}, "UTC").year == (
        2026 if kind.key.last_day else 2030
    ), "an edition of a past period is dated within it"
    assert kind.key.problem(key) is None and (kind.key.pattern is None or kind.key.problem("not a key"))


def test_kinds_do_not_share_a_place():
    for field in ("name", "segment", "folder", "tool"):
        values = [getattr(k, field) for k in KINDS]
        assert len(values) == len(set(values)), f"two kinds share a {field}"
    assert set(BY_SEGMENT) == {k.segment for k in KINDS}


def _mcp(engine, settings, name: str, arguments: dict):
    server = build_server(engine, settings)

    async def call():
        tools = {t.name for t in await server.list_tools()}
        return tools, await server.call_tool(name, arguments)

    return anyio.run(call)


def _is_reachable(engine, settings, kind: EditionKind, key: str, title: str) -> None:
    """The edition is on the site, in its Markdown file, in its feed, on the web app's pages and menu,
    in the JSON API and behind the kind's MCP tool."""
    site = Path(settings.site_dir)
    page = (site / f"zh/{kind.folder}/{key}.html").read_text("utf-8")
    assert (key if kind.cards else title) in page  # a day's page is titled by its day and tab
    fields, _ = split_front_matter((site / f"zh/{kind.folder}/{key}.md").read_text("utf-8"))
    assert fields["title"] == title and fields["tags"] == ["AI", kind.name]
    assert (site / f"zh/{kind.name}.xml").exists() == bool(kind.feed)
    assert f"{kind.folder}/{key}.html" in (site / "zh/index.html").read_text("utf-8")  # the language page lists it

    with TestClient(create_app(engine, settings)) as client:
        assert client.get(f"/{kind.segment}/{key}").status_code == 200
        newest = client.get(f"/{kind.segment}")
        assert newest.status_code == 200 and f"<strong>{key}</strong>" in newest.text  # the newest, in its archive
        assert (f'href="/{kind.segment}"' in client.get("/sources").text) == kind.menu
        assert [e["key"] for e in client.get(f"/api/editions/{kind.name}").json()] == [key]
        assert client.get(f"/api/editions/{kind.name}/{key}").json()["kind"] == kind.name
        assert kind.name in client.get("/openapi.json").text
    tools, result = _mcp(engine, settings, kind.tool, {kind.key.name: key, "language": "en"})
    assert kind.tool in tools and not result.is_error, result.content
    found = result.structured_content.get("result", result.structured_content)
    assert (found["kind"], found["key"], found["language"]) == (kind.name, key, "en")


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_every_kind_is_published_served_and_offered(sqlite_engine, tmp_path, kind):
    settings = Settings(data_dir=str(tmp_path), site_dir=str(tmp_path / "site"))
    store_samples(sqlite_engine)
    publish_site(sqlite_engine, settings)
    key, title, _, _ = SAMPLES[kind.name]
    _is_reachable(sqlite_engine, settings, kind, key, title)


# --- a throwaway kind -------------------------------------------------------------------
#
# tests/memo_kind.py holds it (the `memo_kind` fixture in conftest.py registers it and takes it out
# again): a memo per day, added as docs/adding-an-output.md's checklist says.


def test_a_new_kind_takes_only_the_checklists_files(sqlite_engine, tmp_path, memo_kind):
    settings = Settings(data_dir=str(tmp_path), site_dir=str(tmp_path / "site"))
    store_samples(sqlite_engine, {"daily": SAMPLES["daily"]})
    report = pipeline.run_pipeline(sqlite_engine, settings, stages=["memo", "publish"])
    assert report.problems == [] and report.facts["memos"] == 2
    _is_reachable(sqlite_engine, settings, memo_kind, "2026-03-12", "日报 2026-03-12 · memo")


RSS = """<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0"><channel><title>one</title>
<item><title>OpenAI releases a model</title><link>http://example.com/a/1</link><guid>g1</guid>
<description>A model was released</description><pubDate>Thu, 12 Mar 2026 10:00:00 GMT</pubDate></item>
</channel></rss>"""


def test_newsdesk_run_builds_a_new_kind(tmp_path, monkeypatch, memo_kind):
    """`newsdesk run` over a replayed feed: the day's daily edition, then the memo of it, published."""
    from typer.testing import CliRunner

    from newsdesk import cli
    from newsdesk.store import open_store

    monkeypatch.chdir(tmp_path)
    (tmp_path / "newsdesk.toml").write_text('timezone = "UTC"\n')
    monkeypatch.setenv("NEWSDESK_CONFIG", str(tmp_path / "newsdesk.toml"))
    monkeypatch.setenv("NEWSDESK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("NEWSDESK_SITE_DIR", str(tmp_path / "site"))
    monkeypatch.setattr(cli, "_state", {})
    (tmp_path / "feeds").mkdir()
    (tmp_path / "feeds" / "one.xml").write_text(RSS)
    result = CliRunner().invoke(cli.app, ["run", "--from", str(tmp_path / "feeds")])
    assert result.exit_code == 0 and "memo " in result.output, result.output
    engine = open_store(f"sqlite:///{tmp_path / 'data' / 'newsdesk.db'}")
    with engine.connect() as conn:
        memos = conn.execute(select(editions.c.key, editions.c.language).where(editions.c.kind == "memo")).all()
    engine.dispose()
    assert sorted(memos) == [("2026-03-12", "en"), ("2026-03-12", "zh")]
    assert (tmp_path / "site" / "zh" / "memos" / "2026-03-12.html").exists()


def test_the_checklist_names_the_files_a_new_kind_takes():
    """The docs' checklist and this module's throwaway kind agree on what a kind takes."""
    page = (ROOT / "docs" / "adding-an-output.md").read_text("utf-8")
    checklist = page.split("## A new kind of edition", 1)[1].split("\n## ", 1)[0]
    named = re.findall(r"^\d+\. `([^`]+)`", checklist, re.M)
    assert named == [
        "src/newsdesk/publish/outputs.py",
        "src/newsdesk/editions/build.py",
        "src/newsdesk/core/labels.py",
        "tests/test_outputs.py",
    ]
    for path in named:
        assert (ROOT / path).exists(), path
