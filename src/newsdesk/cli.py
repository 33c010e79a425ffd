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
