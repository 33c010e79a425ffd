"""Every page a reader or the operator can reach renders text, never a Python object's repr.

The web app's Sources page once headed a column `<bound method Labels.category of <…Labels
object at 0x…>>`: a label named like a method of the label table. This walks every page of the
web app over the demo store (both interface languages, logged out and logged in, following every
link it finds) and reads every file of the published site.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import DEMO_TOKEN
from fastapi.testclient import TestClient
from jinja2 import Environment

from newsdesk.core.labels import LABELS, Labels, text_only
from newsdesk.serve.app import create_app

REPR = re.compile(r"<bound method|<function |object at 0x|&lt;bound method|&lt;function ")
LINK = re.compile(r'href="(/[^"#]*)"')
START = ("/", "/sources", "/status", "/usage", "/drafts", "/subscriptions", "/login", "/search?q=OpenAI")


def crawl(client: TestClient, limit: int = 400) -> dict[str, str]:
    """Every page reachable from START by in-app links (not static files, the API or the MCP endpoint)."""
    seen: dict[str, str] = {}
    todo = list(START)
    while todo and len(seen) < limit:
        path = todo.pop()
        if path in seen or path.startswith(("/static/", "/api", "/mcp", "/ui/", "/login?")):
            continue
        r = client.get(path)
        assert r.status_code in (200, 404), (path, r.status_code)
        seen[path] = r.text
        todo += [link.replace("&amp;", "&") for link in LINK.findall(r.text)]
    return seen


@pytest.mark.parametrize("ui", ["zh", "en"])
def test_every_web_page_renders_text(demo, ui):
    settings, engine = demo
    with TestClient(create_app(engine, settings)) as client:
        client.cookies.set("ui_lang", ui)
        pages = crawl(client)
        token = re.search(r'name="csrf" value="([^"]+)"', client.get("/login").text).group(1)
        client.post("/login", data={"token": DEMO_TOKEN, "name": "op", "csrf": token, "next": "/"})
        operator = {f"{path} (logged in)": html for path, html in crawl(client).items()}
    assert len(pages) > 20 and any("/events/" in p for p in pages)  # the walk reached the events
    assert "<form" in operator["/sources (logged in)"]  # and the operator's forms
    bad = {path: REPR.search(html).group(0) for path, html in {**pages, **operator}.items() if REPR.search(html)}
    assert bad == {}
    sources = operator["/sources (logged in)"]
    t = Labels(ui)
    assert f"<th>{t.category_field}</th>" in sources and f"<th>{t.language_field}</th>" in sources


def test_every_published_file_renders_text(demo):
    settings, _ = demo
    files = [f for f in Path(settings.site_dir).rglob("*") if f.suffix in (".html", ".xml", ".json", ".md")]
    assert len(files) > 10
    bad = [str(f) for f in files if REPR.search(f.read_text("utf-8"))]
    assert bad == []


def test_no_label_is_named_like_the_label_tables_own_attributes():
    """`t.category` must mean one thing: a label named like a method or attribute would be shadowed."""
    own = {name for name in dir(Labels) if not name.startswith("__")}
    assert sorted(own & set(LABELS)) == []


def test_a_template_that_prints_a_callable_fails_loudly():
    env = Environment(finalize=text_only)
    assert env.from_string("{{ t.category_field }} {{ n }}").render(t=Labels("en"), n=3) == "Category 3"
    with pytest.raises(TypeError, match="category"):
        env.from_string("{{ t.category }}").render(t=Labels("en"))
