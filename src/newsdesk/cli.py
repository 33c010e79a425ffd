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
