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

    with Progress(console=console, transient=True) as bar:
        task = bar.add_task("clustering", total=None)
        try:
            stats = cluster_new_items(engine(), settings(), progress=lambda done, total: bar.update(task, completed=done, total=total))
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
