"""The operator's status page and /api/status: when each stage last ran, how long, what it did,
what failed, when it is next due; sources backing off first. Rendered by the app and in Chromium."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from conftest import ARTIFACTS, PACK
from fastapi.testclient import TestClient
from loopback import serve_app
from sqlalchemy import select

from newsdesk.core.config import Settings
from newsdesk.ingest.poll import schedule_next_poll
from newsdesk.run.pipeline import STAGE_NAMES, run_pipeline
from newsdesk.serve.app import create_app
from newsdesk.store.schema import sources
from newsdesk.store.stage_runs import set_next_due

DUE = datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC)


@pytest.fixture
def operated(tmp_path, sqlite_engine):
    """A store after a run whose publish stage failed, one source backing off, the later stages scheduled."""
    blocker = tmp_path / "site"
    blocker.write_text("a file where the site folder should be")
    s = Settings(data_dir=str(tmp_path), site_dir=str(blocker))
    report = run_pipeline(sqlite_engine, s, stages=["ingest", "cluster", "publish", "search"], source=PACK)
    assert report.status["publish"] == "failed"
    failing = sorted(report_sources(sqlite_engine))[0]
    with sqlite_engine.begin() as conn:
        for _ in range(3):
            schedule_next_poll(conn, failing, "error", None, s.schedule, datetime.now(UTC))
    set_next_due(sqlite_engine, STAGE_NAMES[1:], DUE)
    return s, failing, str(blocker)


def report_sources(engine) -> list[str]:
    with engine.connect() as conn:
        return list(conn.execute(select(sources.c.id).where(sources.c.enabled.is_(True))).scalars())


def test_the_status_page_and_api_show_each_stage_and_the_sources_backing_off(sqlite_engine, operated):
    s, failing, blocker = operated
    with TestClient(create_app(sqlite_engine, s)) as client:
        html = client.get("/status?ui=en").text
        data = client.get("/api/status").json()
    rows = dict(re.findall(r'<tr id="stage-(\w+)" class="[^"]*">(.*?)</tr>', html, re.S))
    assert list(rows) == STAGE_NAMES  # every stage, in pipeline order, run or not
    assert ">ok<" in rows["ingest"] and "items_new" in rows["ingest"] and " s</td>" in rows["ingest"]
    assert ">failed<" in rows["publish"] and "cannot write the site to" in rows["publish"]
    assert "not run yet" in rows["write"] and "2030" not in rows["ingest"]
    assert "01-02" in rows["write"]  # next due (local time)
    backoff = html.split('class="polls backoff"')[1].split("</table>")[0]
    assert f'id="poll-{failing}"' in backoff and "backing off after 3 failed fetches in a row" in backoff
    assert '<a href="/status">' in html

    stages = {st["stage"]: st for st in data["stages"]}
    assert [st["stage"] for st in data["stages"]] == STAGE_NAMES
    assert stages["publish"]["last"]["status"] == "failed" and stages["publish"]["failed_24h"] == 1
    assert stages["publish"]["last"]["error"].startswith(f"cannot write the site to {blocker!r}")
    assert stages["ingest"]["last"]["facts"]["items_new"] > 0 and stages["ingest"]["last"]["seconds"] >= 0
    assert stages["write"]["last"] is None and stages["write"]["next_due_at"].startswith("2030-01-02T03:04:05")
    first = data["sources"][0]
    assert first["id"] == failing and first["poll_failures"] == 3 and first["poll_basis"].startswith("backing off")
    assert all(src["poll_failures"] == 0 for src in data["sources"][1:])


@pytest.mark.browser
def test_the_status_page_in_chromium(sqlite_engine, operated, page):
    s, failing, _ = operated
    app = create_app(sqlite_engine, s)
    with serve_app(app) as url:
        errors: list[str] = []
        page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
        page.goto(url + "/")
        page.click('nav a[href="/status"]')
        assert page.locator("h1").inner_text() == "运行状态"
        assert page.locator("#stage-publish").inner_text().count("failed") >= 1
        assert "cannot write the site to" in page.locator("#stage-publish").inner_text()
        assert page.locator(f"table.backoff #poll-{failing}").is_visible()
        assert page.locator("table.status tbody tr").count() == len(STAGE_NAMES)
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "status.png"), full_page=True)
        assert errors == []
