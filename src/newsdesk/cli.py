"""The `newsdesk` command. Thin: parses options, calls stages, prints results."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

from newsdesk.config import ConfigError, Settings, load_settings
from newsdesk.store import StoreError, open_store

app = typer.Typer(help="A self-hosted newsroom for the AI industry.", no_args_is_help=True)
eval_app = typer.Typer(help="Measure a stage against a labelled file.", no_args_is_help=True)
app.add_typer(eval_app, name="eval")
console = Console()
err = Console(stderr=True)

_state: dict = {}


@app.callback()
def main(config: Path = typer.Option(None, "--config", help="Settings file (default ./newsdesk.toml).")) -> None:
    _state["config"] = config


def settings() -> Settings:
    if "settings" not in _state:
        try:
            _state["settings"] = load_settings(_state.get("config"))
        except ConfigError as exc:
            fail(str(exc))
    return _state["settings"]


def engine():
    if "engine" not in _state:
        try:
            _state["engine"] = open_store(settings().database)
        except StoreError as exc:
            fail(str(exc))
    return _state["engine"]


def fail(message: str) -> None:
    err.print(f"[red]error:[/red] {message}")
    raise typer.Exit(2)


sources_app = typer.Typer(help="The source catalog and each source's health.", invoke_without_command=True)
app.add_typer(sources_app, name="sources")


def _catalog(s: Settings) -> list:
    from newsdesk.catalog import load_catalog

    catalog, errors = load_catalog(s)
    for line in errors:
        err.print(f"[yellow]catalog:[/yellow] {line}")
    return catalog


def _print_outcomes(outcomes) -> None:
    new = sum(o.new for o in outcomes)
    updated = sum(o.updated for o in outcomes)
    failed = [o for o in outcomes if o.status == "error"]
    unchanged = sum(o.status == "not_modified" for o in outcomes)
    console.print(
        f"ingested {len(outcomes)} sources: [green]{new} new[/green], {updated} updated, "
        f"{unchanged} not modified, [red]{len(failed)} failed[/red]"
    )
    for o in failed:
        err.print(f"[red]{o.source_id}:[/red] {o.error}")


def run_ingest(s: Settings, eng, source: Path | None = None, only: list[str] | None = None) -> list:
    """Ingest the catalog over the network, or replay a directory / import a JSON Lines file."""
    import asyncio

    from rich.progress import Progress

    from newsdesk.ingest import run as ingest

    catalog = _catalog(s)
    getter = None
    if source is not None and source.is_file():
        return ingest.import_jsonl(eng, source)
    if source is not None:
        if not source.is_dir():
            fail(f"{source}: no such directory or file; --from takes a directory of feed files or a .jsonl file")
        catalog, feeds = ingest.replay_sources(source, {c.id: c for c in catalog})
        getter = ingest.DirectoryGetter(source, feeds)
    if only:
        unknown = set(only) - {c.id for c in catalog}
        if unknown:
            fail(f"unknown source id(s): {', '.join(sorted(unknown))}; `newsdesk sources` lists them")
        catalog = [c for c in catalog if c.id in only]
    with Progress(console=console, transient=True) as bar:
        task = bar.add_task("ingest", total=sum(c.enabled for c in catalog))
        outcomes = asyncio.run(
            ingest.ingest_all(eng, s, catalog, getter=getter, on_done=lambda o: bar.advance(task))
        )
    return outcomes


@app.command("ingest")
def ingest_cmd(
    source: Path = typer.Option(None, "--from", help="Replay a directory of feed files (name = source id) or import a .jsonl file."),
    only: list[str] = typer.Option(None, "--source", help="Only these source ids (repeatable)."),
) -> None:
    """Fetch every enabled source (or replay / import files) into the store."""
    _print_outcomes(run_ingest(settings(), engine(), source, only))


@sources_app.callback()
def sources_cmd(ctx: typer.Context) -> None:
    """Show each source's health: last success, last error, items in 7 days, failures, stale."""
    if ctx.invoked_subcommand is not None:
        return
    from rich.table import Table

    from newsdesk.ingest.health import source_health
    from newsdesk.store.items import sync_sources

    eng = engine()
    with eng.begin() as conn:
        sync_sources(conn, _catalog(settings()))
        rows = source_health(conn)
    table = Table("source", "last success", "last error", "7 days", "failures", "stale")
    when = lambda t: t.strftime("%Y-%m-%d %H:%M") if t else "—"  # noqa: E731
    for h in rows:
        table.add_row(
            h.source_id + ("" if h.enabled else " (disabled)"),
            when(h.last_success),
            (when(h.last_error_at) + " " + (h.last_error or "")[:70]) if h.last_error else "—",
            str(h.items_7d),
            str(h.consecutive_failures) if h.consecutive_failures else "",
            "stale" if h.stale else "",
        )
    console.print(table)


@sources_app.command("import")
def sources_import(
    opml: Path = typer.Argument(..., help="OPML file exported from a feed reader."),
    to: Path = typer.Option(None, "--to", help="User catalog to append to (default: sources_file, else DATA_DIR/sources.toml)."),
) -> None:
    """Add an OPML file's feeds to your catalog (feeds already there are skipped)."""
    from newsdesk.catalog import CatalogError, import_opml, user_catalog_path

    s = settings()
    try:
        added, skipped, target = import_opml(s, opml, to)
    except CatalogError as exc:
        fail(str(exc))
    console.print(f"imported {len(added)} sources into {target} ({skipped} already in the catalog)")
    read = user_catalog_path(s)
    if added and (read is None or read.resolve() != target.resolve()):
        console.print(f"newsdesk does not read {target} yet: set sources_file = \"{target}\" in newsdesk.toml")


@sources_app.command("export")
def sources_export(opml: Path = typer.Argument(..., help="OPML file to write.")) -> None:
    """Write every enabled source of the catalog to an OPML file."""
    from newsdesk.catalog import write_opml

    catalog = [c for c in _catalog(settings()) if c.enabled]
    try:
        write_opml(catalog, opml)
    except OSError as exc:
        fail(f"{opml}: cannot write ({exc.strerror}); check the folder exists and is writable")
    console.print(f"exported {len(catalog)} sources to {opml}")


@app.command()
def serve(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to bind; loopback unless you mean to share it."),
    port: int = typer.Option(8000, "--port", help="Port to listen on."),
) -> None:
    """Run the web app: feed, events, editions, sources, usage, search and feedback."""
    import socket

    import uvicorn

    from newsdesk.web.app import create_app

    s = settings()
    # uvicorn only logs a busy port and exits; check first so the message names the fix.
    try:
        with socket.create_server((host, port)):
            pass
    except OSError as exc:
        fail(f"cannot listen on {host}:{port} ({exc.strerror}); pick another --port or --host")
    if not s.web_token:
        console.print("writes are disabled (feedback, sources): set NEWSDESK_WEB_TOKEN to enable them")
    if host not in ("127.0.0.1", "localhost", "::1"):
        console.print(f"serving on {host}: anyone who can reach it can read the newsroom")
    uvicorn.run(create_app(engine(), s), host=host, port=port, log_level="info")


@app.command("cluster")
def cluster_cmd() -> None:
    """Place new items into events (dedup, embed, join or open), then refresh those events."""
    from rich.progress import Progress

    from newsdesk.cluster import cluster_new_items
    from newsdesk.cluster.embed import EmbeddingError

    arbiter = None
    if settings().llm.arbitrate_merges:
        from newsdesk.cluster.arbiter import llm_arbiter
        from newsdesk.pipeline import LazyLLM

        arbiter = llm_arbiter(LazyLLM(settings(), engine(), "cluster"))
    with Progress(console=console, transient=True) as bar:
        task = bar.add_task("clustering", total=None)
        try:
            stats = cluster_new_items(engine(), settings(), arbiter=arbiter,
                                      progress=lambda done, total: bar.update(task, completed=done, total=total))
        except EmbeddingError as exc:
            fail(str(exc))
    console.print(
        f"{stats.items} items placed: {stats.joined} joined an event ({stats.duplicates} duplicates, "
        f"{stats.syndicated} syndicated copies), {stats.opened} opened one; {stats.events_touched} events updated "
        f"in {stats.seconds:.1f}s"
    )


@app.command("rank")
def rank_cmd() -> None:
    """Score every event (coverage, authority, engagement, feedback, recency) and set its tab."""
    from newsdesk.rank import rank_events

    console.print(f"{rank_events(engine(), settings())} events ranked")


@eval_app.command("clusters")
def eval_clusters(
    file: Path = typer.Argument(..., help="JSON Lines: {id, text | title (+ summary), lang, published, event}."),
    out: Path = typer.Option(None, "--out", help="Write each item's assigned event as JSON Lines {id, event}."),
) -> None:
    """B-cubed and pairwise precision / recall, cross-lingual pair recall and items/s of the clusterer."""
    import json

    from newsdesk.cluster.embed import EmbeddingError, make_embedder
    from newsdesk.cluster.evaluate import EvalFileError, evaluate, read_eval_file

    try:
        rows = read_eval_file(file)
        result = evaluate(rows, make_embedder(settings()))
    except (EvalFileError, EmbeddingError) as exc:
        fail(str(exc))
    xl = result["cross_lingual_recall"]
    console.print(f"{result['items']} items, {result['gold_events']} gold events, {result['events']} events found")
    console.print(f"B-cubed   P {result['bcubed_precision']:.3f}  R {result['bcubed_recall']:.3f}  F1 {result['bcubed_f1']:.3f}")
    console.print(f"pairwise  P {result['pairwise_precision']:.3f}  R {result['pairwise_recall']:.3f}")
    console.print("cross-lingual (zh–en) pair recall " + ("n/a (no such pairs)" if xl is None else f"{xl:.3f}"))
    console.print(f"{result['items_per_s']:.0f} items/s with embedding ({result['cluster_items_per_s']:.0f} items/s clustering alone)")
    if out:
        try:
            with out.open("w", encoding="utf-8") as fh:
                for item_id, event in result["assigned"].items():
                    fh.write(json.dumps({"id": item_id, "event": event}, ensure_ascii=False) + "\n")
        except OSError as exc:
            fail(f"{out}: cannot write ({exc.strerror}); check the folder exists and is writable")


def _load_transcript(source: str, s: Settings) -> tuple[str, list]:
    """(default title, turns) from a file, a line of a .jsonl file (FILE.jsonl#N) or a URL."""
    from newsdesk.ingest.transcripts import TranscriptError, parse_transcript

    if source.startswith(("http://", "https://")):
        import asyncio

        from newsdesk.ingest.fetch import Fetcher

        async def get():
            async with Fetcher(s.fetch) as fetcher:
                return await fetcher.get(source, accept="text/vtt, application/x-subrip, application/json, text/html, text/plain, */*;q=0.5")

        result = asyncio.run(get())
        if not result.ok:
            fail(result.error or f"{source}: no transcript came back")
        hint = (result.headers.get("content-type") or "").split(";")[0].strip() or source.rsplit(".", 1)[-1]
        name, data = source, result.body
        title = source.rstrip("/").rsplit("/", 1)[-1].rsplit(".", 1)[0]
    else:
        path, _, line = source.partition("#")
        file = Path(path)
        if not file.is_file():
            fail(f"{file}: no such transcript file; give a VTT, SRT, JSON, HTML or text file, or an http(s) URL")
        data, name, hint, title = file.read_bytes(), str(file), file.suffix.lstrip(".").lower(), file.stem
        if hint == "jsonl":  # one transcript per line (QMSum): FILE.jsonl#N picks line N
            rows = [r for r in data.decode("utf-8", "replace").splitlines() if r.strip()]
            n = int(line) if line.isdigit() else 1
            if not 1 <= n <= len(rows):
                fail(f"{file}: has {len(rows)} lines; pick one with {path}#N, N from 1 to {len(rows)}")
            data, name, title = rows[n - 1].encode(), f"{file} line {n}", f"{file.stem} #{n}"
    try:
        _, turns = parse_transcript(data, fmt=hint or None, name=name)
    except TranscriptError as exc:
        fail(str(exc))
    return title, turns


@app.command("episode")
def episode_cmd(
    transcript: str = typer.Argument(..., help="Transcript: a VTT / SRT / JSON / HTML / text file, FILE.jsonl#N (line N), or an http(s) URL."),
    title: str = typer.Option(None, "--title", help="The episode's own title (default: the file name)."),
    number: str = typer.Option(None, "--number", help="Episode number, shown as 'N. title'."),
) -> None:
    """Write an episode digest (摘要 + 精读) and its English edition from a transcript; print both."""
    from newsdesk.llm.client import LLMError, open_llm
    from newsdesk.write.episode import write_episode
    from newsdesk.write.translate import translate_episode

    s, eng = settings(), engine()
    default_title, turns = _load_transcript(transcript, s)
    title = title or default_title
    try:
        llm = open_llm(s, eng)
        with err.status(f"writing the digest of {len(turns)} turns"):
            zh = write_episode(eng, s, llm, turns, title=title, number=number)
        with err.status("writing the English edition"):
            en = translate_episode(eng, s, llm, zh, turns, original_title=title)
    except (LLMError, ValueError) as exc:
        fail(str(exc))
    typer.echo(zh.text)
    typer.echo(en.text)
    for r in (zh, en):
        state = "unchanged, stored edition reused" if r.reused else r.status
        err.print(f"episode {r.key} [{r.language}]: {state}; {len(r.findings)} findings")
        for f in r.findings[:10]:
            err.print(f"  - {f}")
    err.print(f"{llm.calls} model calls")


@app.command("write")
def write_cmd(
    limit: int = typer.Option(None, "--limit", help="Only the N most important events get analyses (events already current cost nothing)."),
) -> None:
    """Write the analysis (zh, and en when configured) of every event without a current one; check and store each."""
    import uuid

    from newsdesk.llm.client import LLMError, open_llm
    from newsdesk.write.analysis import write_analyses

    s, eng = settings(), engine()
    try:
        llm = open_llm(s, eng, run_id=uuid.uuid4().hex[:12])
        with err.status("writing analyses") as status:
            stats = write_analyses(eng, s, llm, limit=limit, progress=lambda line: status.update(line))
    except LLMError as exc:
        fail(str(exc))
    console.print(f"{stats.written} analyses written ({stats.clean} clean, {stats.flagged} flagged), "
                  f"{stats.unchanged} unchanged, {stats.failed} failed; {llm.calls} model calls, "
                  f"{llm.spent_tokens} tokens, ${llm.spent_usd:.4f}")
    for line in stats.errors[:10]:
        err.print(f"  - {line}")
    if stats.unavailable:
        fail(stats.stopped)
    if stats.stopped:
        err.print(f"[yellow]stopped early:[/yellow] {stats.stopped}", soft_wrap=True)


@eval_app.command("checker")
def eval_checker(
    files: list[Path] = typer.Argument(..., help="SummaC-style JSON: {id: {document, claim, label}} with label 1 = consistent."),
) -> None:
    """Precision / recall of the output checker's flags against human labels, beside the naive digit baseline."""
    from newsdesk.write.check_eval import evaluate

    for file in files:
        try:
            base, ours, n = evaluate(file)
        except ValueError as exc:
            fail(str(exc))
        inconsistent = ours.tp + ours.fn
        console.print(f"{file.name}: {n} pairs, {inconsistent} labelled inconsistent (a flag predicts inconsistent)",
                      soft_wrap=True)
        for score in (base, ours):
            console.print(f"  {score.name:31s} P {score.precision:.3f}  R {score.recall:.3f}  "
                          f"flags {score.flagged} (tp {score.tp}, fp {score.fp})", soft_wrap=True)


# --- editions and publishing ------------------------------------------------------------


@app.command("daily")
def daily_cmd(
    day: str = typer.Option(None, "--date", help="YYYY-MM-DD in settings.timezone (default: the newest day with events)."),
) -> None:
    """Build the daily edition of one day (全部 + tier / category tabs) in every language."""
    from datetime import date

    from newsdesk.editions.daily import build_daily

    if day is not None:
        try:
            date.fromisoformat(day)
        except ValueError:
            fail(f"--date {day!r} is not a date; write it as YYYY-MM-DD, e.g. 2026-03-12")
    stats = build_daily(engine(), settings(), day)
    state = f"built {', '.join(stats.built)}" if stats.built else "unchanged"
    if stats.unchanged and stats.built:
        state += f"; unchanged {', '.join(stats.unchanged)}"
    console.print(f"daily {stats.date}: {stats.events} events; {state}")


@app.command("weekly")
def weekly_cmd(
    week: str = typer.Option(None, "--week", help="ISO week, e.g. 2026-W42 (default: the week of the newest event)."),
) -> None:
    """Write the weekly report (seed 003's form) and print it."""
    from sqlalchemy import select

    from newsdesk.llm.client import LLMError, open_llm
    from newsdesk.store.schema import editions
    from newsdesk.write.weekly import LANGUAGE, WeeklyError, build_weekly

    s, eng = settings(), engine()
    try:
        llm = open_llm(s, eng)
        with err.status("writing the weekly report"):
            stats = build_weekly(eng, s, llm, week)
    except (LLMError, WeeklyError) as exc:
        fail(str(exc))
    with eng.connect() as conn:
        row = conn.execute(select(editions.c.body, editions.c.status, editions.c.meta).where(
            editions.c.kind == "weekly", editions.c.key == stats.week, editions.c.language == LANGUAGE)).one()
    typer.echo(row.body)
    state = f"{stats.sections} sections, {stats.briefs} briefs, {row.status}" if stats.built else "unchanged, stored report kept"
    err.print(f"weekly {stats.week}: {stats.events} events; {state}; {llm.calls} model calls")
    for flag in row.meta.get("flags", []):
        err.print(f"  [yellow]flagged[/yellow] {flag['part']}: {'; '.join(map(str, flag['findings']))[:300]}")


@app.command("publish")
def publish_cmd() -> None:
    """Render every edition into settings.site_dir: HTML (zh / en), Markdown with front matter, RSS and JSON Feed."""
    from newsdesk.publish.site import publish_site

    s = settings()
    try:
        stats = publish_site(engine(), s)
    except OSError as exc:
        fail(f"cannot write the site to {s.site_dir!r} ({exc.strerror}); check site_dir and its permissions")
    if stats.skipped:
        console.print(f"site {stats.site_dir}: nothing changed ({stats.pages} files)")
    else:
        console.print(f"site {stats.site_dir}: {stats.written} files written, {stats.unchanged} unchanged, "
                      f"{stats.removed} removed")
    console.print(f"open {Path(stats.site_dir).resolve() / 'index.html'}")


# --- the whole pipeline -----------------------------------------------------------------

def _run(s: Settings, replay: Path | None, limits) -> None:
    from newsdesk.pipeline import edition_counts, run_pipeline

    eng = engine()
    report = run_pipeline(
        eng,
        s,
        limits=limits,
        ingest=lambda: run_ingest(s, eng, replay),
        say=lambda line: console.print(f"[dim]{line}[/dim]"),
    )
    for line in report.problems:
        err.print(f"[yellow]problem:[/yellow] {line}")
    facts = ", ".join(f"{k}={v}" for k, v in report.facts.items() if k != "site_dir")
    console.print(f"run {report.run_id}: {report.total_seconds:.1f}s, {report.model_calls} model calls; {facts}")
    console.print(f"editions: {edition_counts(eng)}")
    if report.facts.get("site_dir"):
        index = Path(str(report.facts["site_dir"])).resolve() / "index.html"
        console.print(f"site: [bold]{index}[/bold]  (or `newsdesk serve` to read it in the web app)")


@app.command("run")
def run_cmd(
    source: Path = typer.Option(None, "--from", help="Replay a directory / import a .jsonl file instead of fetching."),
    analyses: int = typer.Option(None, "--analyses", help="Only the N most important events get analyses."),
) -> None:
    """ingest → cluster → rank → write → editions → publish; a re-run with nothing new does nothing."""
    from newsdesk.pipeline import Limits

    _run(settings(), source, Limits(analyses=analyses))


@app.command("demo")
def demo_cmd(
    out: Path = typer.Option(Path("demo-output"), "--out", help="Where the demo store and site go."),
) -> None:
    """The whole pipeline on the bundled demo pack, offline, with the embedded model."""
    from importlib import resources

    s = settings()
    s.data_dir = str(out)
    s.database_url = ""
    s.site_dir = str(out / "site")
    _state["engine"] = open_store(s.database)
    pack = Path(str(resources.files("newsdesk") / "data" / "demo"))
    from newsdesk.pipeline import DEMO_LIMITS as d

    console.print(f"demo pack: {pack}\nkept small for a 0.5B model on a laptop CPU: a full analysis (zh + en) for the "
                  f"{d.analyses} most important event (the others list their sources); a weekly of {d.weekly_sections} "
                  f"themes x {d.weekly_items} events + {d.weekly_briefs} briefs; the podcast episode in zh + en")
    _run(s, pack, d)
