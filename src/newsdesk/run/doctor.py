"""`newsdesk doctor`: what an operator runs when something is odd. Each check is one line, and a
fault's line names the fix:

    store       the file's integrity (SQLite's full integrity_check) or the server's answer
    schema      the store's Alembic revision against this newsdesk's head
    stages      stage rows left `running` by a process that is gone, or running for hours
    sources     polled sources failing for days, or stale: fetched fine for days with nothing new
    disk        free space where the site is written
    model       the model endpoint answering, when [write] by = "model" or the merge arbiter asks it

It opens the store without migrating it and without the quick check every other command makes
at open (store.check_store), so it can report a store that is damaged or behind instead of
stopping at it; it writes nothing.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError

from newsdesk.core.config import Settings
from newsdesk.core.errors import error_line

FAILING_FOR = timedelta(days=2)  # a polled source with no good fetch for this long is failing, not flaky
RUNNING_FOR = timedelta(hours=6)  # a stage run this old is stuck, whichever host runs it
MIN_FREE = 1 << 30  # bytes free where the site is written: a publish writes a few MB, a year of them more
ENDPOINT_TIMEOUT = 5.0  # seconds the model endpoint gets to answer
SHOWN = 5  # sources named on a line; the rest counted


@dataclass
class Check:
    name: str
    ok: bool
    line: str  # what was found; for a fault, with the fix after '; '


def diagnose(
    settings: Settings, engine: Engine, *, now: datetime | None = None, min_free: int = MIN_FREE
) -> list[Check]:
    """Every check, in order. The store checks after a damaged or unreadable store are skipped,
    saying so: what they would read cannot be trusted."""
    now = now or datetime.now(UTC)
    checks = [_store(engine)]
    store_checks: list[tuple[str, Callable[[], Check]]] = [
        ("schema", lambda: _schema(engine)),
        ("stages", lambda: _stages(engine, now)),
        ("sources", lambda: _sources(engine, now)),
    ]
    for name, check in store_checks:
        if not checks[0].ok:
            checks.append(Check(name, False, "not checked: the store above cannot be read; fix it first"))
            continue
        try:
            checks.append(check())
        except DBAPIError as exc:
            checks.append(Check(name, False, f"could not read the store ({error_line(exc)})"))
    checks.append(_disk(settings, min_free))
    model = _model(settings)
    if model is not None:
        checks.append(model)
    return checks


def _store(engine: Engine) -> Check:
    url = engine.url.render_as_string(hide_password=True)
    try:
        with engine.connect() as conn:
            if engine.dialect.name != "sqlite":
                conn.exec_driver_sql("SELECT 1")
                return Check("store", True, f"{url} answers (the server keeps its own pages whole)")
            found = [r[0] for r in conn.exec_driver_sql("PRAGMA integrity_check(10)")]
            pages = conn.exec_driver_sql("PRAGMA page_count").scalar()
    except DBAPIError as exc:
        said = " ".join(str(exc.orig or exc).split())
        return Check("store", False, f"{url} cannot be read ({said}); {_RECOVER}")
    if found == ["ok"]:
        return Check("store", True, f"{url}: integrity_check ok ({pages:,} pages)")
    return Check("store", False, f"{url} is damaged (integrity_check: {'; '.join(found[:3])}); {_RECOVER}")


_RECOVER = (
    "stop newsdesk, restore the file from a backup, or move it aside and start a new store "
    "(`sqlite3 FILE .recover` may save its rows)"
)


def _schema(engine: Engine) -> Check:
    from alembic.script import ScriptDirectory

    from newsdesk.store.migrate import config, current, head

    with engine.connect() as conn:
        now = current(conn)
    newest = head()
    if now == newest:
        return Check("schema", True, f"revision {now}, this newsdesk's newest")
    if now is None:
        return Check("schema", False, "the store has no schema revision; run `newsdesk migrate`")
    known = {s.revision for s in ScriptDirectory.from_config(config()).walk_revisions()}
    if now in known:
        return Check("schema", False, f"revision {now}, behind this newsdesk's {newest}; run `newsdesk migrate`")
    return Check(
        "schema",
        False,
        f"revision {now} is unknown to this newsdesk (newest {newest}); the store was upgraded by a newer "
        "newsdesk: install that version",
    )


def _stages(engine: Engine, now: datetime) -> Check:
    from newsdesk.store.leases import owner_is_dead
    from newsdesk.store.schema import stage_runs

    with engine.connect() as conn:
        rows = conn.execute(
            select(stage_runs.c.id, stage_runs.c.stage, stage_runs.c.owner, stage_runs.c.started_at).where(
                stage_runs.c.status == "running"
            )
        ).all()
    stuck = [
        r for r in rows if owner_is_dead(r.owner) or (r.started_at is not None and now - r.started_at > RUNNING_FOR)
    ]
    if not stuck:
        return Check("stages", True, f"no stage row left running ({len(rows)} running now)")
    named = ", ".join(
        f"{r.stage} (row {r.id}, since {r.started_at:%Y-%m-%d %H:%M} UTC, {r.owner or 'no owner'})" for r in stuck
    )
    return Check(
        "stages",
        False,
        f"{len(stuck)} stage row{'s' if len(stuck) != 1 else ''} left running by a process that is gone or "
        f"stuck for over {RUNNING_FOR.total_seconds() / 3600:.0f} h: {named}; stop that process if it still "
        "runs; the next `newsdesk run` marks the dead ones interrupted",
    )


def _sources(engine: Engine, now: datetime) -> Check:
    from sqlalchemy import and_, case, func

    from newsdesk.ingest.health import MIN_STALE, STALE_FACTOR, source_health
    from newsdesk.store.schema import fetches

    with engine.connect() as conn:
        health = [h for h in source_health(conn, now=now) if h.enabled and h.polled]
        good = fetches.c.error.is_(None)
        seen = {
            r.source_id: r
            for r in conn.execute(
                select(
                    fetches.c.source_id,
                    func.min(fetches.c.started_at).label("first"),
                    func.max(case((good, fetches.c.started_at))).label("last_ok"),
                    func.max(case((and_(good, fetches.c.items_new > 0), fetches.c.started_at))).label("last_new"),
                ).group_by(fetches.c.source_id)
            )
        }
    # Failing since its last good fetch, or since its first fetch when it never had one.
    failing = [
        h
        for h in health
        if h.consecutive_failures
        and (since := h.last_success or (seen[h.source_id].first if h.source_id in seen else None)) is not None
        and now - since > FAILING_FOR
    ]
    # Stale, as RSSHub users meet it: fetched fine for days, and nothing new in any of those fetches.
    # Told by when newsdesk first saw something new, not by the items' dates (a replayed pack is old news).
    stale = [
        h
        for h in health
        if h not in failing
        and (f := seen.get(h.source_id)) is not None
        and f.last_ok is not None
        and f.last_ok - (f.last_new or f.first) > max(STALE_FACTOR * (h.usual_interval or timedelta(0)), MIN_STALE)
    ]
    if not failing and not stale:
        return Check("sources", True, f"{len(health)} polled sources: none failing for days, none stale")
    parts = []
    if failing:
        parts.append(
            f"{len(failing)} failing for over {FAILING_FOR.days} days: "
            + _named(
                [
                    f"{h.source_id} ({h.consecutive_failures} failures: {h.last_error or 'no error kept'})"
                    for h in failing
                ]
            )
            + "; fix or disable each (`newsdesk sources` shows its error; a bridge such as RSSHub may be down)"
        )
    if stale:
        parts.append(
            f"{len(stale)} stale (fetched fine, nothing new for days): "
            + _named([h.source_id for h in stale])
            + "; open each feed: a bridge (RSSHub) or a moved feed often answers 200 with nothing new"
        )
    return Check("sources", False, " · ".join(parts))


def _named(names: list[str]) -> str:
    shown = "; ".join(n[:160] for n in names[:SHOWN])
    return shown + (f"; and {len(names) - SHOWN} more" if len(names) > SHOWN else "")


def _disk(settings: Settings, min_free: int) -> Check:
    site = Path(settings.site_dir).expanduser().resolve()
    where = site
    while not where.exists() and where != where.parent:  # a site not yet published: the folder it goes in
        where = where.parent
    usage = shutil.disk_usage(where)
    free = f"{usage.free / (1 << 30):.1f} GiB free of {usage.total / (1 << 30):.1f} GiB"
    if not os.access(where, os.W_OK):
        return Check("disk", False, f"{where} is not writable ({free}); let newsdesk's user write it or set site_dir")
    if usage.free < min_free:
        return Check(
            "disk",
            False,
            f"{where}: {free}, under the {min_free / (1 << 30):.1f} GiB a publish needs to be safe; "
            "free space there or set site_dir to a roomier disk",
        )
    return Check("disk", True, f"{where}: {free}")


def _model(settings: Settings) -> Check | None:
    """The endpoint a run would call, asked for its model list; None when no run calls one."""
    asks = settings.write.by == "model" or settings.llm.arbitrate_merges
    if not asks:
        return None
    llm = settings.llm
    if llm.backend != "openai":
        return Check("model", True, f"backend {llm.backend!r} runs in this process; no endpoint to reach")
    if not llm.base_url:
        return Check("model", False, 'llm.base_url is empty; set it to your endpoint, or [write] by = "extractive"')
    import httpx

    key = os.environ.get(llm.api_key_env, "")
    url = llm.base_url.rstrip("/") + "/models"
    started = time.perf_counter()
    try:
        answer = httpx.get(url, headers={"Authorization": f"Bearer {key}"} if key else {}, timeout=ENDPOINT_TIMEOUT)
    except httpx.HTTPError as exc:
        said = " ".join(str(exc).split()) or type(exc).__name__
        return Check(
            "model",
            False,
            f"model endpoint {llm.base_url} did not answer ({said}); check llm.base_url and that the server is up "
            "(runs write extractive text for readers meanwhile)",
        )
    took = time.perf_counter() - started
    if answer.status_code in (401, 403):
        return Check(
            "model",
            False,
            f"model endpoint {llm.base_url} refused the key (HTTP {answer.status_code}); "
            f"check the key in ${llm.api_key_env} (llm.api_key_env)",
        )
    if answer.status_code >= 500:
        return Check(
            "model",
            False,
            f"model endpoint {llm.base_url} answers HTTP {answer.status_code}; the server is failing: check its log",
        )
    return Check("model", True, f"model endpoint {llm.base_url} answers (HTTP {answer.status_code} in {took:.2f}s)")
