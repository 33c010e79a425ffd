"""Two `newsdesk cluster` processes at once on one store (SQLite and PostgreSQL): the second
waits for the first, says so in one line, and places nothing twice; neither fails."""

import os
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta

from sqlalchemy import func, select

from newsdesk.cluster.stage import WAITING, _exclusive
from newsdesk.core.model import Item, Source
from newsdesk.store.items import sync_sources, upsert_item
from newsdesk.store.schema import event_members, events

T0 = datetime(2026, 5, 4, 9, 0, tzinfo=UTC)
SOURCES = [
    Source("lab-blog", "Lab Blog", "https://lab.example/rss"),
    Source("tech-daily", "Tech Daily", "https://td.example/rss"),
]
ITEMS = [
    (
        "lab-blog",
        "Lumen Robotics opens its warehouse arm to outside developers",
        "Lumen Robotics released an SDK for its warehouse picking arm and will take outside apps from June.",
    ),
    (
        "tech-daily",
        "Lumen Robotics lets developers program its warehouse arm",
        "The robotics start-up Lumen published an SDK for its picking arm; outside apps are accepted from June.",
    ),
    (
        "tech-daily",
        "City of Harlow pilots self-driving buses on two routes",
        "Two bus routes in Harlow get driverless shuttles for a six-month trial, the council said.",
    ),
]


def _cluster(url: str, tmp_path) -> subprocess.Popen:
    env = dict(os.environ, NEWSDESK_DATABASE_URL=url, NEWSDESK_DATA_DIR=str(tmp_path))
    return subprocess.Popen(
        [sys.executable, "-m", "newsdesk", "cluster"],
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )


def _wait_for_line(proc: subprocess.Popen, line: str, timeout: float = 120) -> list[str]:
    seen, deadline = [], time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = proc.stdout.readline()
        if not got:
            break
        seen.append(got.rstrip("\n"))
        if line in got:
            return seen
    raise AssertionError(f"no {line!r} from the second clusterer; it printed {seen}")


def test_two_clusterers_at_once_take_turns(engine, store_url, tmp_path):
    with engine.begin() as conn:
        sync_sources(conn, SOURCES)
        for n, (source, title, summary) in enumerate(ITEMS):
            upsert_item(
                conn,
                Item(
                    source,
                    f"g{n}",
                    f"https://{source}.example/{n}",
                    title,
                    summary,
                    language="en",
                    published_at=T0 + timedelta(hours=n),
                ),
            )
    # This test holds the store's cluster lock, so both processes start while it is taken, as a
    # second run started by cron beside a running one would; then it lets go.
    with engine.connect() as holder, _exclusive(holder):
        first, second = _cluster(store_url, tmp_path), _cluster(store_url, tmp_path)
        for proc in (first, second):
            _wait_for_line(proc, WAITING)
    outputs = [proc.communicate(timeout=300)[0] for proc in (first, second)]
    assert [first.returncode, second.returncode] == [0, 0], outputs
    assert not any("Traceback" in out or "IntegrityError" in out for out in outputs), outputs
    placed = sorted(out for out in outputs if "3 items placed" in out)
    assert len(placed) == 1, outputs  # one placed the three items; the other found nothing new
    with engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(event_members)).scalar() == 3
        assert conn.execute(select(func.count()).select_from(events)).scalar() == 2
