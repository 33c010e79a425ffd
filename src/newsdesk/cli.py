"""The `newsdesk` command. Thin: parses options, calls stages, prints results.

Two rules hold for everything it prints:
- an error a user or a remote server caused (a NewsdeskError) becomes one line and the
  error's exit code in one place, NewsdeskGroup.invoke; a command whose sources or parts
  partly failed exits PARTIAL (see newsdesk.core.errors);
- nothing printed is read as Rich markup: text from feeds, files and servers holds `[…]`
  (`[fe80::1]`, `[[source]]`, a URL with `[/x]`), so the consoles have markup off, and
  colour, status and progress text are Text objects (`line()`), never markup strings.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text
from sqlalchemy.exc import DBAPIError
from typer.core import TyperGroup

from newsdesk.core.config import Settings, load_settings
from newsdesk.core.errors import OK, PARTIAL, NewsdeskError, error_line
from newsdesk.store import StoreError, damaged, open_store, unusable_store

if TYPE_CHECKING:  # the command imports what it runs when it runs it
    from newsdesk.llm.client import LazyLLM

# The pipeline's stages as `run --stage` names them (pipeline.STAGE_NAMES, which tests/test_docs.py
# holds this to), without importing the pipeline (a second) or the edition kinds (publish.outputs,
# 0.6 s: every command, `ingest` included, paid it) for every command's help.
STAGES_HELP = ", ".join(
    ["ingest", "cluster", "stories", "rank", "write", "daily", "weekly", "episode", "publish", "search", "push"]
)


class NewsdeskGroup(TyperGroup):
    """Turns a NewsdeskError from any command into its one line and exit code."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except NewsdeskError as exc:
            err.print(line(("error:", "red"), str(exc)), soft_wrap=True)
            raise typer.Exit(exc.exit_code) from None
        except DBAPIError as exc:  # the store failed under a command (damaged, gone): one line, exit 2
            url = str(_state["engine"].url) if "engine" in _state else "the store"
            # Opened, it passed quick_check (store.check_store): the damage showed while the command ran.
            found = f"while `newsdesk {ctx.invoked_subcommand}` ran (what it committed before is in the file)"
            problem = unusable_store(exc, url, found_while=found) if damaged(exc) else StoreError(error_line(exc))
            err.print(line(("error:", "red"), str(problem)), soft_wrap=True)
            raise typer.Exit(problem.exit_code) from None


def _typer(help: str, **kw) -> typer.Typer:
    return typer.Typer(help=help, cls=NewsdeskGroup, **({"no_args_is_help": True} | kw))


app = _typer("A self-hosted newsroom for the AI industry.")
eval_app = _typer("Measure a stage against a labelled file.")
app.add_typer(eval_app, name="eval")
sources_app = _typer("The source catalog and each source's health.", invoke_without_command=True, no_args_is_help=False)
app.add_typer(sources_app, name="sources")

console = Console(markup=False, emoji=False, highlight=False)
err = Console(stderr=True, markup=False, emoji=False, highlight=False)

_state: dict = {}


def line(*parts: str | tuple[str, str]) -> Text:
    """One printed line: plain strings as they are, (text, style) pairs coloured; never markup."""
    text = Text()
    for i, part in enumerate(parts):
        text.append(" " if i else "")
        text.append(*((part,) if isinstance(part, str) else part))
    return text


def _version(asked: bool) -> None:
    if asked:
        from importlib.metadata import version

        console.print(f"newsdesk {version('newsdesk')}")
        raise typer.Exit(OK)


@app.callback()
def main(
    config: Path = typer.Option(None, "--config", help="Settings file (default ./newsdesk.toml)."),
    version: bool = typer.Option(
        False, "--version", is_eager=True, callback=_version, help="Print newsdesk's version and exit."
    ),
    debug: bool = typer.Option(
        False,
        "--debug",
        help="Also print newsdesk's debug log on stderr: what an error's "
        "line leaves out, such as a database error's statement and parameters.",
    ),
) -> None:
    _state["config"] = config
    if debug:
        import logging

        log = logging.getLogger("newsdesk")
        log.setLevel(logging.DEBUG)
        log.addHandler(logging.StreamHandler())


def settings() -> Settings:
    if "settings" not in _state:
        _state["settings"] = load_settings(_state.get("config"))
    return _state["settings"]


def engine():
    if "engine" not in _state:
        _state["engine"] = open_store(settings().database)
    return _state["engine"]


@app.command("migrate")
def migrate_cmd() -> None:
    """Upgrade the store's schema to this version's (every command does it when it opens the store)."""
    from newsdesk.store.migrate import current

    with engine().connect() as conn:
        console.print(f"store schema at revision {current(conn)}, the newest this newsdesk knows")


class Eta(ProgressColumn):
    """Time left at the stage's own pace so far: elapsed / done × what remains. Rich's estimate needs
    several units done in its last 30 seconds, which a model writing one analysis a minute never gives."""

    def render(self, task) -> Text:
        if not task.total or not task.completed or task.elapsed is None:
            return Text("ETA -:--:--", style="progress.remaining")
        left = task.elapsed / task.completed * max(0.0, task.total - task.completed)
        h, rest = divmod(int(left + 0.5), 3600)
        return Text(f"ETA {h}:{rest // 60:02d}:{rest % 60:02d}", style="progress.remaining")


def _bar(**kw) -> Progress:
    """A stage's bar: done / total, time so far, and the time left once the stage knows its total."""
    return Progress(
        SpinnerColumn(),
        TextColumn("{task.description}", markup=False),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        Eta(),
        console=err,
        transient=True,
        **kw,
    )


def _catalog(s: Settings) -> list:
    from newsdesk.ingest.catalog import load_catalog

    catalog, errors = load_catalog(s)
    for problem in errors:
        err.print(line(("catalog:", "yellow"), problem), soft_wrap=True)
    return catalog


# --- sources and ingest -------------------------------------------------------------------


@app.command("ingest")
def ingest_cmd(
    source: Path = typer.Option(
        None,
        "--from",
        help="Replay a directory of feed files (name = source id) or one feed file, or import a .jsonl file.",
    ),
    only: list[str] = typer.Option(None, "--source", help="Only these source ids (repeatable)."),
    verbose: bool = typer.Option(
        False,
        "--verbose",
        "-v",
        help="Each failing source on its own line (else one line by cause when more than 3 fail).",
    ),
) -> None:
    """Fetch every source the store has enabled (or replay / import files) into the store."""
    import atexit
    import gc

    from newsdesk.ingest import failures
    from newsdesk.ingest.run import ingest

    # What the imports made lives until exit: frozen, the run's collections do not walk it again.
    # At exit, what is still alive is the OS's to free: frozen too, the interpreter's last collection
    # skips it (0.2 s of CPU of a 0.8 s refresh); the store's connections are closed before (LIFO).
    gc.freeze()
    atexit.register(gc.freeze)
    atexit.register(engine().dispose)

    with _bar() as bar:
        task = bar.add_task("ingest", total=None)
        report = ingest(
            engine(),
            settings(),
            source,
            only,
            progress=lambda done, total: bar.update(task, completed=done, total=total),
        )
    for problem in report.catalog_errors:
        err.print(line(("catalog:", "yellow"), problem), soft_wrap=True)
    unchanged = sum(o.status == "not_modified" for o in report.outcomes)
    console.print(
        line(
            f"ingested {len(report.outcomes)} sources:",
            (f"{report.new} new,", "green"),
            f"{report.updated} updated, {unchanged} not modified,",
            (f"{len(report.skipped)} skipped,", "yellow"),
            (f"{len(report.failed)} failed", "red"),
        )
    )
    attempted = len(report.outcomes) - len(report.skipped)
    for said in failures.lines([(o.source_id, o.error or "") for o in report.failed], attempted, verbose=verbose):
        err.print(line(("problem:", "yellow"), said), soft_wrap=True)
    for refused in report.refused if source is not None else []:  # what the user gave and was not stored
        err.print(line(("not imported:", "red"), refused), soft_wrap=True)
    for o in report.skipped:  # not fetched by this run (disabled, or another live worker has it): said, never silent
        err.print(line((f"{o.source_id}:", "yellow"), o.error or ""), soft_wrap=True)
    if report.failed or report.skipped or report.catalog_errors:
        raise typer.Exit(PARTIAL)


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
            *map(
                Text,
                (
                    h.source_id
                    + ("" if h.enabled else " (disabled)")
                    + (
                        ""
                        if h.polled
                        else " (replayed feed file, not polled)"
                        if h.replayed
                        else " (imported outlet, not polled)"
                    ),
                    when(h.last_success),
                    (when(h.last_error_at) + " " + (h.last_error or "")[:70]) if h.last_error else "—",
                    str(h.items_7d),
                    str(h.consecutive_failures) if h.consecutive_failures else "",
                    "stale" if h.stale else "",
                ),
            )
        )
    console.print(table)


@sources_app.command("import")
def sources_import(
    opml: Path = typer.Argument(..., help="OPML file exported from a feed reader."),
    to: Path = typer.Option(
        None, "--to", help="User catalog to append to (default: sources_file, else DATA_DIR/sources.toml)."
    ),
) -> None:
    """Add an OPML file's feeds to your catalog (feeds already there are not added again). Each outline
    left out is named with why; the exit code is 1 when any was."""
    from newsdesk.ingest.catalog import import_opml, user_catalog_path

    s = settings()
    report = import_opml(s, opml, to)
    target = report.target
    for already in report.already:
        console.print(Text(already), soft_wrap=True)
    for skipped in report.skipped:
        err.print(line((skipped, "yellow")), soft_wrap=True)
    console.print(
        f"imported {len(report.added)} sources into {target} ({len(report.already)} already in the catalog, "
        f"{len(report.skipped)} skipped)"
    )
    read = user_catalog_path(s)
    if report.added and (read is None or read.resolve() != target.resolve()):
        console.print(f'newsdesk does not read {target} yet: set sources_file = "{target}" in newsdesk.toml')
    if report.skipped:
        raise typer.Exit(PARTIAL)


@sources_app.command("add")
def sources_add(
    name: str = typer.Argument(..., help="The source's id, a slug like 'openai-blog'."),
    url: str = typer.Argument(..., help="Its feed's http(s) URL."),
    title: str = typer.Option(None, "--title", help="Its display name (default NAME)."),
    kind: str = typer.Option("rss", "--kind", help="rss, atom, jsonfeed, arxiv, hn, reddit or podcast."),
    language: str = typer.Option("en", "--language", help="zh, en or other."),
    tier: int = typer.Option(2, "--tier", help="1 (a primary source), 2 or 3 (an aggregator)."),
    category: str = typer.Option("media", "--category", help="lab, company, research, papers, media, …"),
    fulltext: bool = typer.Option(False, "--fulltext", help="Also fetch each article's page for its full text."),
    owner: str = typer.Option(
        None, "--owner", help="The company speaking through it, when it has other channels (e.g. Anthropic)."
    ),
) -> None:
    """Add one source to your catalog file (as `sources import` does) and the store; the next ingest fetches it."""
    from newsdesk.ingest import edit

    entry = {"id": name, "name": title or name, "url": url, "kind": kind, "language": language, "tier": tier}
    entry |= {"category": category, "fulltext": fulltext} | ({"owner": owner} if owner is not None else {})
    source, target = edit.add(engine(), settings(), entry)
    console.print(f"added {source.id} ({source.url}) to {target}; the next ingest fetches it", soft_wrap=True)


@sources_app.command("remove")
def sources_remove(name: str = typer.Argument(..., help="The source's id.")) -> None:
    """Take a source you added out of your catalog file and the store (its stored items stay)."""
    from newsdesk.ingest import edit

    console.print(edit.remove(engine(), settings(), name), soft_wrap=True)


@sources_app.command("disable")
def sources_disable(name: str = typer.Argument(..., help="The source's id.")) -> None:
    """Stop fetching a source (the web app's switch; it holds until your catalog file's `enabled` changes)."""
    from newsdesk.ingest import edit

    changed = edit.set_enabled(engine(), settings(), name, False)
    console.print(f"disabled {name}" + ("" if changed else " (it was already off)"), soft_wrap=True)


@sources_app.command("enable")
def sources_enable(name: str = typer.Argument(..., help="The source's id.")) -> None:
    """Fetch a switched-off source again."""
    from newsdesk.ingest import edit

    changed = edit.set_enabled(engine(), settings(), name, True)
    console.print(f"enabled {name}" + ("" if changed else " (it was already on)"), soft_wrap=True)


@sources_app.command("export")
def sources_export(opml: Path = typer.Argument(..., help="OPML file to write.")) -> None:
    """Write every enabled source (the catalog files' and those added in the web app) to an OPML file."""
    from newsdesk.ingest.catalog import stored_sources, write_opml
    from newsdesk.store.items import sync_sources

    with engine().begin() as conn:
        sync_sources(conn, _catalog(settings()))
        catalog = [c for c in stored_sources(conn) if c.enabled]
    try:
        write_opml(catalog, opml)
    except OSError as exc:
        raise NewsdeskError(
            f"{opml}: cannot write ({exc.strerror})", "check the folder exists and is writable"
        ) from None
    console.print(f"exported {len(catalog)} sources to {opml}")


# --- the stages one by one ----------------------------------------------------------------


@app.command("cluster")
def cluster_cmd() -> None:
    """Place new items into events (dedup, embed, join or open), then refresh those events."""
    from newsdesk.cluster import cluster_new_items

    arbiter = None
    if settings().llm.arbitrate_merges:
        import uuid

        from newsdesk.cluster.arbiter import llm_arbiter
        from newsdesk.llm.client import LazyLLM

        # A run of its own: the budget (llm.budget_tokens) is each run's, counted by run id in the ledger.
        arbiter = llm_arbiter(LazyLLM(settings(), engine(), run_id=uuid.uuid4().hex[:12]))
    with _bar() as bar:
        task = bar.add_task("clustering", total=None)
        stats = cluster_new_items(
            engine(),
            settings(),
            arbiter=arbiter,
            waiting=lambda says: console.print(says, soft_wrap=True),
            progress=lambda done, total: bar.update(task, completed=done, total=total),
        )
    console.print(
        f"{stats.items} items placed: {stats.joined} joined an event ({stats.duplicates} duplicates, "
        f"{stats.syndicated} syndicated copies), {stats.opened} opened one; {stats.events_touched} events updated "
        f"in {stats.seconds:.1f}s"
    )


@app.command("stories")
def stories_cmd() -> None:
    """Link each new or changed event to the earlier event it follows up, threading stories."""
    from newsdesk.stories.threads import link_stories

    stats = link_stories(engine(), settings())
    console.print(
        f"{stats.checked} events looked at: {stats.linked} follow-ups linked, "
        f"{stats.stories_opened} stories begun, {stats.stories_merged} merged into an earlier one"
    )


@app.command("rank")
def rank_cmd(
    learn: bool = typer.Option(
        False, "--learn", help="Learn this installation's adjustment from the readers' votes, say what moved, rank."
    ),
    undo_learn: bool = typer.Option(False, "--undo-learn", help="Take the newest learned adjustment back, rank."),
) -> None:
    """Score every event (what the happening is, coverage, authority, engagement, feedback, recency) and set its tab."""
    from newsdesk.rank import teach
    from newsdesk.rank.score import rank_events

    if learn and undo_learn:
        raise typer.BadParameter("--learn or --undo-learn, not both")
    if learn:
        for line in teach.learn(engine(), settings()).lines:
            console.print(line, markup=False)
    if undo_learn:
        for line in teach.undo(settings()):
            console.print(line, markup=False)
    console.print(f"{rank_events(engine(), settings())} events ranked")


@app.command("write")
def write_cmd(
    limit: int = typer.Option(
        None, "--limit", help="Only the N most important events get analyses (events already current cost nothing)."
    ),
) -> None:
    """Write the analysis (zh, and en when configured) of every event without a current one; check and store each."""
    s, eng = settings(), engine()
    llm, w = _writers(s, eng)
    with err.status(Text("writing analyses")) as status:
        stats = w.cards(eng, s, limit=limit, progress=lambda note: status.update(Text(note)))
    console.print(
        f"{stats.written} analyses written ({stats.clean} clean, {stats.flagged} failed their checks: "
        "extractive card published, draft kept for the operator), "
        f"{stats.unchanged} unchanged, {stats.failed} failed; {_calls(llm)}; [write] by = {w.by}"
    )
    for problem in stats.errors[:10]:
        err.print(f"  - {problem}", soft_wrap=True)
    _said_unavailable(w)
    if stats.stopped:
        err.print(line(("stopped early:", "yellow"), stats.stopped), soft_wrap=True)
    if stats.failed or stats.stopped:
        raise typer.Exit(PARTIAL)


@app.command("daily")
def daily_cmd(
    day: str = typer.Option(
        None, "--date", help="YYYY-MM-DD in settings.timezone (default: the newest day with news)."
    ),
) -> None:
    """Build the daily edition of one day (全部 + featured / p1 / category tabs) in every language."""
    from datetime import date

    from newsdesk.editions.daily import build_daily

    if day is not None:
        try:
            date.fromisoformat(day)
        except ValueError:
            raise NewsdeskError(f"--date {day!r} is not a date", "write it as YYYY-MM-DD, e.g. 2026-03-12") from None
    stats = build_daily(engine(), settings(), day)
    if stats.quiet:
        console.print(f"daily {stats.date}: {stats.events} events, none of them news (all under Other); no edition")
        return
    state = f"built {', '.join(stats.built)}" if stats.built else "unchanged"
    if stats.unchanged and stats.built:
        state += f"; unchanged {', '.join(stats.unchanged)}"
    console.print(f"daily {stats.date}: {stats.events} events; {state}")


@app.command("weekly")
def weekly_cmd(
    week: str = typer.Option(None, "--week", help="ISO week, e.g. 2026-W42 (default: the week of the newest event)."),
) -> None:
    """Write the weekly report (title line, properties, overview, themed sections, briefs) in every
    edition language and print each, the Chinese one first."""
    from newsdesk.editions.weekly import weekly_editions
    from newsdesk.store.edition_rows import stored_edition
    from newsdesk.write.writers import edition_languages

    s, eng = settings(), engine()
    llm, w = _writers(s, eng)
    with err.status(Text("writing the weekly report")):
        stats = weekly_editions(eng, s, w, week)
    for part in stats.replaced:
        err.print(
            line(
                ("  failed its checks:", "yellow"), f"{part}: extractive version published, draft kept for the operator"
            ),
            soft_wrap=True,
        )
    with eng.connect() as conn:
        reports = {
            language: report
            for language in edition_languages(s)
            if (report := stored_edition(conn, "weekly", stats.week, language)) is not None
        }
    typer.echo("\n\n".join(r["body"].rstrip("\n") for r in reports.values()))
    shape = f"{stats.sections} sections, {stats.briefs} briefs, " if stats.sections else ""
    zh = reports.get("zh") or next(iter(reports.values()), {"status": stats.status})
    state = f"{shape}{zh['status']}" if stats.built else "unchanged, stored report kept"
    editions = ", ".join(f"{language} {r['status']}" for language, r in reports.items())
    err.print(f"weekly {stats.week}: {w.by}; {state}; {_calls(llm)}; printed {editions}", soft_wrap=True)
    _said_unavailable(w)


def _writers(s: Settings, eng):
    """This command's model (opened only if it writes) and its writers, as [write] by says."""
    import uuid

    from newsdesk.llm.client import LazyLLM
    from newsdesk.write.writers import writers

    llm = LazyLLM(s, eng, run_id=uuid.uuid4().hex[:12])
    return llm, writers(s, llm)


def _said_unavailable(w) -> None:
    """A command whose model endpoint could not answer: what it stored came from the extractive writer
    (readers never get "No analysis yet."); it ends with the endpoint's one line, exit 2."""
    why = getattr(w, "unavailable", None)
    if why:
        from newsdesk.llm.errors import LLMUnavailable

        stood_in = f"; the extractive writer (no model) wrote in its place: {', '.join(w.stood_in)}"
        raise LLMUnavailable(why + (stood_in if w.stood_in else ""))


def _calls(llm: LazyLLM) -> str:
    if not llm.opened:
        return "0 model calls"
    return f"{llm.calls} model calls, {llm.spent_tokens} tokens, ${llm.spent_usd:.4f}"


def _transcribe_audio(file: Path, s: Settings) -> list:
    from newsdesk.ingest.audio import transcribe

    with err.status(Text(f"transcribing {file.name}")):
        result = transcribe(file, s)
    how = (
        "from the cache"
        if result.cached
        else f"in {result.seconds:.1f}s (real-time factor {result.real_time_factor:.2f})"
    )
    err.print(
        f"{file.name}: {result.audio_seconds:.0f}s of audio, {len(result.turns)} chunks, {result.model}, {how}",
        soft_wrap=True,
    )
    return result.turns


@app.command("episode")
def episode_cmd(
    transcript: str = typer.Argument(
        ...,
        help="Transcript: a VTT / SRT / JSON / HTML / text file, FILE.jsonl#N (line N), an http(s) URL, or an audio file (mp3, m4a, wav, flac, ogg: transcribed first).",
    ),
    title: str = typer.Option(None, "--title", help="The episode's own title (default: the file name)."),
    number: str = typer.Option(None, "--number", help="Episode number, shown as 'N. title'."),
) -> None:
    """Write an episode digest (摘要 + 精读) and its English edition from a transcript or audio; print both."""
    from newsdesk.ingest.audio import is_audio
    from newsdesk.ingest.transcripts import load_transcript
    from newsdesk.store.edition_rows import stored_edition

    s, eng = settings(), engine()
    if is_audio(transcript) and Path(transcript).is_file():
        default_title, turns = Path(transcript).stem, _transcribe_audio(Path(transcript), s)
    else:
        default_title, turns = load_transcript(transcript, s.fetch)
    title = title or default_title
    llm, w = _writers(s, eng)
    from newsdesk.editions.episode import episode_editions

    with err.status(Text(f"digesting {len(turns)} turns")):
        results = episode_editions(eng, s, w, turns, title=title, number=number)
    for r in results:
        typer.echo(r.text)
    with eng.connect() as conn:
        metas = {
            r.language: (stored_edition(conn, "episode", r.key, r.language) or {}).get("meta") or {} for r in results
        }
    for r in results:
        meta = metas[r.language]
        how = (
            "extractive, in place of a written draft that failed its checks (kept for the operator)"
            if meta.get("replaces_failed")
            else "extractive"
            if meta.get("extractive")
            else "written"
        )
        state = "unchanged, stored edition reused" if r.reused else r.status
        err.print(f"episode {r.key} [{r.language}]: {how}; {state}; {len(r.findings)} findings", soft_wrap=True)
        for f in r.findings[:10]:
            err.print(f"  - {f}", soft_wrap=True)
    err.print(_calls(llm))
    _said_unavailable(w)


@app.command("publish")
def publish_cmd() -> None:
    """Render every edition into settings.site_dir: HTML (zh / en), Markdown with front matter, RSS and JSON Feed."""
    from newsdesk.publish.site import publish_site

    s = settings()
    stats = publish_site(engine(), s)
    if urlsplit(s.site_url).hostname in ("localhost", "127.0.0.1", "::1"):
        console.print(
            f"site_url is {s.site_url}: feeds, Markdown and canonical links point there; set site_url "
            "(or NEWSDESK_SITE_URL) to the address the site is served from"
        )
    for warning in stats.warnings:
        err.print(f"publish: {warning}", soft_wrap=True)
    if stats.skipped:
        console.print(f"site {stats.site_dir}: nothing changed ({stats.pages} files)")
    else:
        console.print(
            f"site {stats.site_dir}: {stats.written} files written, {stats.unchanged} unchanged, "
            f"{stats.removed} removed"
        )
    console.print(f"open {Path(stats.site_dir).resolve() / 'index.html'}")


# --- the whole pipeline -------------------------------------------------------------------


class _Stages:
    """Draws the pipeline's stages on the terminal: a live bar for the running one, a line for each done."""

    def __init__(self, bar: Progress):
        self.bar, self.task = bar, None

    def started(self, name: str) -> None:
        self.task = self.bar.add_task(name, total=None)

    def progress(self, name: str, done: int, total: int | None) -> None:
        self.bar.update(self.task, completed=done, total=total)

    def note(self, name: str, note: str) -> None:
        self.bar.update(self.task, description=f"{name}: {note}"[:100])

    def finished(self, name: str, seconds: float, result) -> None:
        self.bar.remove_task(self.task)
        mark = ("failed", "red") if result is None else ("problems", "yellow") if result.problems else ("done", "green")
        self.bar.console.print(line((f"{name:8s}", "dim"), (f"{seconds:6.1f}s", "dim"), mark))


class _StageLines:
    """The stages as plain lines (beside a web server's log, where a live bar would tangle)."""

    def started(self, name: str) -> None: ...

    def progress(self, name: str, done: int, total: int | None) -> None: ...

    def note(self, name: str, note: str) -> None: ...

    def finished(self, name: str, seconds: float, result) -> None:
        state = "failed" if result is None else "problems" if result.problems else "done"
        facts = ", ".join(f"{k}={v}" for k, v in (result.facts if result else {}).items() if k != "site_dir")
        err.print(
            line(("schedule:", "dim"), f"{name} {state} in {seconds:.1f}s" + (f" ({facts})" if facts else "")),
            soft_wrap=True,
        )


def _run(
    s: Settings,
    source: Path | None,
    limits,
    stages: list[str] | None = None,
    serve_with: str = "newsdesk serve",
    verbose: bool = False,
):
    """Run the pipeline, drawing its stages; print what it did (its problems in short unless `verbose`).
    Returns its RunReport."""
    from newsdesk.run.pipeline import edition_counts, run_pipeline

    eng = engine()
    with _bar() as bar:
        report = run_pipeline(eng, s, stages=stages, limits=limits, source=source, watcher=_Stages(bar))
    for problem in report.problems if verbose else report.in_short:
        err.print(line(("problem:", "yellow"), problem), soft_wrap=True)
    facts = ", ".join(f"{k}={v}" for k, v in report.facts.items() if k != "site_dir")
    calls = f"{report.model_calls} model calls" + (f" ({report.model_failed} failed)" if report.model_failed else "")
    if report.model_unavailable:  # said in the one line a scheduler's log keeps, not only among the problems
        calls += "; the model endpoint did not answer, so the extractive writer (no model) wrote for readers"
    console.print(f"run {report.run_id}: {report.total_seconds:.1f}s, {calls}; {facts}", soft_wrap=True)
    console.print(f"editions: {edition_counts(eng)}")
    if report.facts.get("site_dir"):
        index = Path(str(report.facts["site_dir"])).resolve() / "index.html"
        console.print(
            line("site:", (str(index), "bold"), f"(or `{serve_with}` to read it in the web app)"), soft_wrap=True
        )
    return report


@app.command("run")
def run_cmd(
    source: Path = typer.Option(None, "--from", help="Replay a directory / import a .jsonl file instead of fetching."),
    analyses: int = typer.Option(None, "--analyses", help="Only the N most important events get analyses."),
    stages: list[str] = typer.Option(
        None,
        "--stage",
        help=f"Only these stages, in pipeline order (repeatable): {STAGES_HELP}.",
    ),
    every: str = typer.Option(
        None,
        "--every",
        help="Keep running: poll each source at its own interval and run "
        "the later stages every DURATION with its unit (30m, 6h, 1d; a minute or more); Ctrl-C / SIGTERM stops between stages.",
    ),
    verbose: bool = typer.Option(
        False,
        "--verbose",
        "-v",
        help="Each failing source on its own line (else one line by cause when more than 3 fail).",
    ),
) -> None:
    """ingest → cluster → stories → rank → write → editions → publish → search → push; a re-run with nothing new does nothing."""
    from newsdesk.run.pipeline import STAGE_NAMES, Limits, stage

    for name in stages or []:
        stage(name)  # an unknown name is a usage error before any stage runs
    if every is not None:
        if source is not None or stages:
            raise NewsdeskError(
                "--every runs every stage on the configured sources",
                "leave out --from and --stage, or leave out --every for a single run",
            )
        _run_every(settings(), every, Limits(analyses=analyses))
    chosen = [n for n in STAGE_NAMES if n in stages] if stages else None
    report = _run(settings(), source, Limits(analyses=analyses), chosen, verbose=verbose)
    raise typer.Exit(PARTIAL if report.problems else OK)


ENDPOINT_HOWTO = """for the event analysis, the weekly report and the episode digest in written prose, have the model write
and point [llm] at an OpenAI-compatible endpoint in newsdesk.toml, then `newsdesk run`:
  [write]
  by = "model"
  [llm]
  backend = "openai"
  base_url = "https://api.deepseek.com/v1"     # or http://localhost:11434/v1 (Ollama), a vLLM server, ...
  model = "deepseek-chat"
  api_key_env = "DEEPSEEK_API_KEY"             # the environment variable holding the key"""


def _every(s: Settings, every: str | None) -> float:
    """--every as seconds (default: [schedule] every); it also sets how often a source with no rhythm is polled."""
    from newsdesk.core.config import parse_every

    if every is not None:
        s.schedule.every = every
    return parse_every(s.schedule.every, "--every", s.schedule.shortest_every)


def _stop_on_signals(stop) -> None:
    """Ctrl-C / SIGTERM: finish the stage running, then stop; a second one stops at once."""
    import signal

    def handle(signum, _frame) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()
        err.print(
            f"{signal.Signals(signum).name}: stopping after the stage now running (Ctrl-C again to stop at once)",
            soft_wrap=True,
        )

    signal.signal(signal.SIGINT, handle)
    signal.signal(signal.SIGTERM, handle)


def _run_every(s: Settings, every: str, limits) -> None:
    import threading

    from newsdesk.run.schedule import run_every

    seconds, stop = _every(s, every), threading.Event()
    _stop_on_signals(stop)
    console.print(
        f"running every {every}: each source polled at its own interval "
        f"({s.schedule.poll_min} .. {s.schedule.poll_max}); Ctrl-C or SIGTERM stops between stages",
        soft_wrap=True,
    )
    with _bar() as bar:
        say = lambda text: bar.console.print(text, soft_wrap=True)  # noqa: E731
        try:
            done = run_every(engine(), s, seconds, stop, watcher=_Stages(bar), say=say, limits=limits)
        except KeyboardInterrupt:
            err.print("stopped at once: the stage running was cut short (its store transaction rolled back)")
            raise typer.Exit(130) from None
    console.print(f"stopped cleanly after {done.passes} pass{'es' if done.passes != 1 else ''}")
    raise typer.Exit(OK)


@app.command("demo")
def demo_cmd(
    out: Path = typer.Option(Path("demo-output"), "--out", help="Where the demo store and site go."),
    model: bool = typer.Option(
        False, "--model", help="Also run the embedded model's narrow tasks (those measured to serve)."
    ),
) -> None:
    """The whole pipeline on the bundled demo pack, offline: every part chosen from the material by code."""
    import dataclasses
    import time
    from importlib import resources

    from newsdesk.run.pipeline import Limits, published_parts

    started = time.perf_counter()
    s = settings()
    serve_with = _serve_demo_command(out, s)
    s.data_dir = str(out)
    s.database_url = ""
    s.site_dir = str(out / "site")
    s.write = dataclasses.replace(s.write, by="extractive")  # the demo is offline whatever [write] and [llm] say
    s.llm = dataclasses.replace(s.llm, arbitrate_merges=False)
    _state["engine"] = open_store(s.database)
    pack = Path(str(resources.files("newsdesk") / "data" / "demo"))
    console.print(
        f"demo pack: {pack}\noffline: no model writes; every card, the weekly and the episode digests are "
        "chosen from the material by code",
        soft_wrap=True,
    )
    report = _run(s, pack, Limits(), serve_with=serve_with)
    parts = published_parts(engine())
    console.print(
        "extractive (chosen from the material by code, no model): " + "; ".join(parts.extractive or ["nothing"]),
        soft_wrap=True,
    )
    console.print("written by a model: " + ("; ".join(parts.written) or "nothing"), soft_wrap=True)
    if model:
        # The embedded 0.5B model serves only narrow tasks measured to serve, each behind the checker
        # with the extractive text as fallback. None has been measured to serve yet, so none runs.
        asked = time.perf_counter()
        console.print(
            "--model: no narrow task of the embedded model has been measured to serve yet, so none ran "
            f"({time.perf_counter() - asked:.1f}s); what was published above is all extractive",
            soft_wrap=True,
        )
    console.print(ENDPOINT_HOWTO, soft_wrap=True)
    console.print(f"demo wall time: {time.perf_counter() - started:.1f}s", soft_wrap=True)
    console.print(f"read the demo in the web app (http://127.0.0.1:8000):\n  {serve_with}", soft_wrap=True)
    raise typer.Exit(PARTIAL if report.problems else OK)


def _serve_demo_command(out: Path, s: Settings) -> str:
    """The one command that serves the demo's store: a bare `newsdesk serve` opens the store the
    settings name (data/newsdesk.db, or database_url), not the demo's."""
    import shlex
    import shutil
    import sys

    env = f"NEWSDESK_DATA_DIR={shlex.quote(str(out))}"
    if s.database_url:  # the settings name another store; an empty one means <data_dir>/newsdesk.db
        env += " NEWSDESK_DATABASE_URL="
    # The program as it was started (`make demo` runs .venv/bin/newsdesk, often not on PATH).
    program = sys.argv[0] if Path(sys.argv[0]).name == "newsdesk" else "newsdesk"
    on_path = shutil.which("newsdesk")
    if on_path and Path(on_path).resolve() == Path(program).resolve():
        program = "newsdesk"
    return f"{env} {shlex.quote(program)} serve"


@app.command("doctor")
def doctor_cmd() -> None:
    """Check the store (integrity, schema revision, stage rows left running), the sources failing or stale
    for days, disk space for the site and the model endpoint: one line each, with the fix. Exit 1 on a fault."""
    import time

    from newsdesk.run.doctor import diagnose
    from newsdesk.store import open_store as open_unchecked

    started = time.perf_counter()
    s = settings()
    # Not engine(): that checks and migrates the store at open, and stops at what doctor is here to report.
    checks = diagnose(s, open_unchecked(s.database, migrate_schema=False))
    for c in checks:
        console.print(
            line(("ok   " if c.ok else "FAULT", "green" if c.ok else "red"), f"{c.name}:", c.line), soft_wrap=True
        )
    faults = [c.name for c in checks if not c.ok]
    took = f"{len(checks)} checks in {time.perf_counter() - started:.1f}s"
    console.print(f"all clear ({took})" if not faults else f"{len(faults)} fault(s): {', '.join(faults)} ({took})")
    raise typer.Exit(PARTIAL if faults else OK)


# --- reading and measuring ----------------------------------------------------------------


@app.command()
def serve(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to bind; loopback unless you mean to share it."),
    port: int = typer.Option(8000, "--port", min=1, max=65535, help="Port to listen on (1-65535)."),
    every: str = typer.Option(
        None, "--every", help="Also keep the newsroom running, as `run --every` does, in this process (30m, 6h, 1d)."
    ),
    workers: int = typer.Option(
        None,
        "--workers",
        min=1,
        max=64,
        help="Server processes (1-64; default one per CPU, 2 to 4, or 1 for an in-memory SQLite store).",
    ),
) -> None:
    """Run the web app: feed, events, editions, sources, status, usage, search and feedback."""
    import os
    import socket

    from newsdesk.serve.app import default_workers, serve_app

    s = settings()
    seconds = _every(s, every) if every is not None else None  # a bad --every is refused before anything runs
    engine()  # opened (and migrated) once here, before the server processes open it
    workers = workers or default_workers(s.database)
    if _state.get("config"):  # each server process loads the same settings file
        os.environ["NEWSDESK_CONFIG"] = str(Path(_state["config"]).resolve())
    serve = lambda: serve_app("newsdesk.serve.app:app_from_environment", host=host, port=port, workers=workers)  # noqa: E731
    # uvicorn only logs a busy port and exits; check first so the message names the fix.
    try:
        with socket.create_server((host, port)):
            pass
    except OSError as exc:
        raise NewsdeskError(
            f"cannot listen on {host}:{port} ({exc.strerror})", "pick another --port or --host"
        ) from None
    if not s.web_token:
        console.print("writes are disabled (feedback, sources): set NEWSDESK_WEB_TOKEN to enable them")
    if host not in ("127.0.0.1", "localhost", "::1"):
        console.print(f"serving on {host}: anyone who can reach it can read the newsroom")
    if every is None:
        serve()
        return
    import threading

    from newsdesk.run.schedule import run_every

    stop = threading.Event()
    # uvicorn handles Ctrl-C / SIGTERM while it serves, then hands the signal on to these handlers.
    _stop_on_signals(stop)
    say = lambda text: err.print(line(("schedule:", "dim"), text), soft_wrap=True)  # noqa: E731
    loop = threading.Thread(
        target=run_every,
        args=(engine(), s, seconds, stop),
        kwargs={"watcher": _StageLines(), "say": say},
        name="scheduler",
    )
    loop.start()
    console.print(f"running every {every} beside the web app; the status page is /status")
    try:
        serve()
    finally:
        stop.set()
        if loop.is_alive():
            err.print("waiting for the stage now running to finish (Ctrl-C again to stop at once)")
        loop.join()


# --- many machines: the task queue ----------------------------------------------------------


@app.command("worker")
def worker_cmd(
    queues: str = typer.Option(
        "fetch,cluster,write,editions,publish",
        "--queues",
        "-Q",
        help="Queues to take work from, comma-separated (fetch, cluster, write, editions, publish).",
    ),
    concurrency: int = typer.Option(4, "--concurrency", "-c", min=1, help="Units of work at once in this worker."),
    pool: str = typer.Option(
        "threads",
        "--pool",
        help="threads (default: the work waits on feeds, the model and the store), prefork or solo.",
    ),
) -> None:
    """Run a Celery worker: takes units of work (fetch a source, place items, one analysis, one edition,
    publish, search) from the broker in workers.broker_url and writes to the store in database_url."""
    from newsdesk.run.workers import run_worker

    run_worker(
        settings(), queues=[q.strip() for q in queues.split(",") if q.strip()], concurrency=concurrency, pool=pool
    )


@app.command("beat")
def beat_cmd(
    every: str = typer.Option(
        None,
        "--every",
        help="Start a pass this often (90s, 30m, 6h, 1d: a unit, a minute or more); default [schedule] every.",
    ),
) -> None:
    """Start a pass of the newsroom now and then every EVERY, for the workers to do (run exactly one beat)."""
    from newsdesk.run.workers import run_beat

    s = settings()
    run_beat(s, seconds=_every(s, every))


@app.command("mcp")
def mcp_cmd() -> None:
    """Serve the newsroom to an AI assistant over the Model Context Protocol on stdin / stdout."""
    from newsdesk.serve.mcp import build_server

    build_server(engine(), settings()).run("stdio")


# --- push ---------------------------------------------------------------------------------

push_app = _typer(
    "Push events and editions to subscribers (email, Telegram, Slack, Discord, Feishu, DingTalk, WeCom).",
    invoke_without_command=True,
    no_args_is_help=False,
)
app.add_typer(push_app, name="push")


@push_app.callback()
def push_cmd(ctx: typer.Context) -> None:
    """Send every subscription what is due: featured events at once, the daily and the weekly at their local time."""
    if ctx.invoked_subcommand is not None:
        return
    from newsdesk.push.send import push_due

    report = push_due(engine(), settings(), say=lambda said: console.print(line((said, "dim"))))
    console.print(f"push: {report.sent} sent, {report.failed} failed, {report.waiting} waiting for a failing channel")
    for problem in report.problems:
        err.print(line(("problem:", "yellow"), problem), soft_wrap=True)
    if report.failed:
        raise typer.Exit(PARTIAL)


@push_app.command("add")
def push_add(
    name: str = typer.Argument(..., help="A short name, e.g. team-telegram."),
    target: str = typer.Argument(
        ...,
        help="An Apprise URL: tgram://BOT_TOKEN/CHAT_ID, mailtos://user:pass@host?to=..., slack://..., discord://..., feishu://..., dingtalk://..., wecombot://...",
    ),
    schedule: str = typer.Option("instant", "--schedule", help="instant (featured events at once), daily or weekly."),
    send_at: str = typer.Option("08:00", "--at", help="Local time (settings.timezone) for daily and weekly, HH:MM."),
    tab: str = typer.Option("all", "--tab", help="all, featured or a category."),
    min_importance: float = typer.Option(0.0, "--min-importance", help="Only events at least this important."),
    keywords: list[str] = typer.Option(None, "--keyword", help="Only events mentioning one of these (repeatable)."),
    languages: list[str] = typer.Option(
        None, "--coverage", help="Only events covered in these languages: zh, en (repeatable)."
    ),
    language: str = typer.Option("zh", "--language", help="The messages' language: zh or en."),
    since: str = typer.Option(
        None, "--since", help="YYYY-MM-DD: also send what was published since then (default: from now on)."
    ),
) -> None:
    """Add a subscription."""
    from newsdesk.push.subscriptions import add_subscription

    fields = {
        "name": name,
        "target": target,
        "schedule": schedule,
        "send_at": send_at,
        "tab": tab,
        "min_importance": min_importance,
        "keywords": keywords,
        "languages": languages,
        "language": language,
        "since": since,
    }
    with engine().begin() as conn:
        add_subscription(conn, fields)
    console.print(f"subscription {name} added; `newsdesk push test {name}` sends a sample")


@push_app.command("list")
def push_list() -> None:
    """Every subscription with its channel, schedule, filters and health (targets masked)."""
    from rich.table import Table

    from newsdesk.push.subscriptions import list_subscriptions

    with engine().connect() as conn:
        rows = list_subscriptions(conn)
    table = Table("name", "channel", "target", "schedule", "filters", "last success", "last error", "failures")
    when = lambda t: t.strftime("%Y-%m-%d %H:%M") if t else "—"  # noqa: E731
    for r in rows:
        filters = ", ".join(
            f
            for f in (
                f"tab {r['tab']}" if r["tab"] != "all" else "",
                f">= {r['min_importance']}" if r["min_importance"] else "",
                " | ".join(r["keywords"]),
                "/".join(r["languages"]),
            )
            if f
        )
        table.add_row(
            *map(
                Text,
                (
                    r["name"] + ("" if r["enabled"] else " (disabled)"),
                    r["channel"],
                    r["target"],
                    r["schedule"] + (f" {r['send_at']}" if r["schedule"] != "instant" else ""),
                    filters or "—",
                    when(r["last_success_at"]),
                    (when(r["last_error_at"]) + " " + (r["last_error"] or "")[:60]) if r["last_error"] else "—",
                    str(r["consecutive_failures"] or ""),
                ),
            )
        )
    console.print(table)


@push_app.command("test")
def push_test_cmd(subscription: str = typer.Argument(..., help="The subscription's name or id.")) -> None:
    """Send a sample message (the newest featured event) to one subscription now."""
    from newsdesk.push.send import push_test

    message, problem = push_test(engine(), settings(), subscription)
    if problem:
        raise NewsdeskError(
            f"{subscription}: the sample did not go through: {problem}",
            "check the subscription's Apprise URL (`newsdesk push list`)",
        )
    console.print(f"{subscription}: sample sent ({message.title})")


@push_app.command("remove")
def push_remove(subscription: str = typer.Argument(..., help="The subscription's name or id.")) -> None:
    """Remove a subscription and its delivery record."""
    from newsdesk.push.subscriptions import remove_subscription

    with engine().begin() as conn:
        remove_subscription(conn, subscription)
    console.print(f"subscription {subscription} removed")


@eval_app.command("clusters")
def eval_clusters(
    file: Path = typer.Argument(
        ..., help="JSON Lines: {id, text | title (+ summary), lang, published, event (, story)}."
    ),
    out: Path = typer.Option(None, "--out", help="Write each item's assigned event as JSON Lines {id, event}."),
    folds: int = typer.Option(
        0,
        "--folds",
        min=0,
        help="Tune the thresholds on K-1 folds (split by event) and score the held-apart one, K times.",
    ),
) -> None:
    """B-cubed and pairwise precision / recall, cross-lingual pair recall and items/s of the clusterer; with
    story ids in the file, story-level pairwise precision / recall of the story linker too."""
    from newsdesk.cluster.embed import make_embedder
    from newsdesk.eval.clusters import (
        cross_validate,
        evaluate,
        evaluate_stories,
        has_stories,
        read_eval_file,
        scores,
    )

    rows = read_eval_file(file)
    if folds == 1:
        raise NewsdeskError(
            "--folds 1 leaves nothing to tune on", "give --folds 2 or more (5 is usual), or leave it out"
        )
    pred: list = []
    if folds:
        vectors = make_embedder(settings()).embed([r.text for r in rows])
        pred, chosen = cross_validate(rows, vectors, folds)
        _print_tuned("fold", chosen, folds)
        result = scores(pred, rows)
        console.print(f"held-apart folds ({folds}, split by event):")
    else:
        result = evaluate(rows, make_embedder(settings()))
    _print_cluster_scores(result, folds)
    if has_stories(rows):
        vectors = vectors if folds else make_embedder(settings()).embed([r.text for r in rows])
        story, chosen = evaluate_stories(rows, vectors, folds)
        _print_tuned("stories, fold", chosen, folds)
        _print_story_scores(story, folds)
    if out:
        _write_assigned(out, result.get("assigned") or {r.id: f"{e[0]}-{e[1]}" for r, e in zip(rows, pred)})


def _print_tuned(what: str, chosen: list[dict], folds: int) -> None:
    for n, c in enumerate(chosen):
        console.print(f"{what} {n}: tuned on the other {folds - 1}: " + ", ".join(f"{k} {v:g}" for k, v in c.items()))


def _print_cluster_scores(result: dict, folds: int) -> None:
    xl = result["cross_lingual_recall"]
    console.print(f"{result['items']} items, {result['gold_events']} gold events, {result['events']} events found")
    console.print(
        f"B-cubed   P {result['bcubed_precision']:.3f}  R {result['bcubed_recall']:.3f}  F1 {result['bcubed_f1']:.3f}"
    )
    console.print(
        f"pairwise  P {result['pairwise_precision']:.3f}  R {result['pairwise_recall']:.3f}  F1 {result['pairwise_f1']:.3f}"
    )
    console.print("cross-lingual (zh–en) pair recall " + ("n/a (no such pairs)" if xl is None else f"{xl:.3f}"))
    if not folds:
        console.print(
            f"{result['items_per_s']:.0f} items/s with embedding ({result['cluster_items_per_s']:.0f} items/s clustering alone)"
        )


def _print_story_scores(story: dict, folds: int) -> None:
    where = f"held-apart folds ({folds}, split by story)" if folds else "default thresholds, whole file"
    console.print(
        f"stories ({where}): {story['gold_stories']} gold stories, {story['followup_pairs']} same-story pairs across events"
    )
    console.print(
        f"story pairwise  P {story['story_pairwise_precision']:.3f}  R {story['story_pairwise_recall']:.3f}  "
        f"F1 {story['story_pairwise_f1']:.3f}"
    )
    console.print(
        f"  across events P {story['followup_precision']:.3f}  R {story['followup_recall']:.3f}  "
        f"F1 {story['followup_f1']:.3f}"
    )
    console.print(
        f"follow-up links P {story['link_precision']:.3f}  R {story['link_recall']:.3f}  "
        f"F1 {story['link_f1']:.3f}  ({story['links']} links, {story['links_right']} right, "
        f"{story['links_split']} inside one gold event; {story['links_needed']} needed)"
    )


def _write_assigned(out: Path, assigned: dict) -> None:
    """Each item's assigned event, as JSON Lines {id, event}."""
    import json

    try:
        with out.open("w", encoding="utf-8") as fh:
            for item_id, event in assigned.items():
                fh.write(json.dumps({"id": item_id, "event": event}, ensure_ascii=False) + "\n")
    except OSError as exc:
        raise NewsdeskError(
            f"{out}: cannot write ({exc.strerror})", "check the folder exists and is writable"
        ) from None


@eval_app.command("checker")
def eval_checker(
    files: list[Path] = typer.Argument(
        None, help="SummaC-style JSON: {id: {document, claim, label}} with label 1 = consistent."
    ),
    drafts: list[Path] = typer.Option(
        None,
        "--drafts",
        help="A folder of hand-labelled drafts (tests/fixtures/drafts/embedded): "
        "each check's precision / recall against the labels. Repeatable.",
    ),
) -> None:
    """Precision / recall of the output checker's flags against human labels, beside the naive digit baseline."""
    from newsdesk.eval.checker import draft_scores, evaluate

    if not files and not drafts:
        raise NewsdeskError("nothing to score", "give SummaC-style JSON files and/or --drafts FOLDER")
    for folder in drafts or []:
        scores, unlabelled = draft_scores(folder)
        labelled = scores[0].tp + scores[0].fp + scores[0].fn + scores[0].tn
        console.print(
            f"{folder}: {labelled} labelled drafts"
            + (f" ({unlabelled} not labelled, left out)" if unlabelled else "")
            + "; a flag of a check predicts the defect a reader labelled",
            soft_wrap=True,
        )
        for score in scores:
            console.print(
                f"  {score.name:8s} P {score.precision:.3f}  R {score.recall:.3f}  labelled {score.tp + score.fn}, "
                f"flags {score.flagged} (tp {score.tp}, fp {score.fp}, fn {score.fn})",
                soft_wrap=True,
            )
    for file in files or []:
        scores, n = evaluate(file)
        inconsistent = scores[0].tp + scores[0].fn
        console.print(
            f"{file.name}: {n} pairs, {inconsistent} labelled inconsistent (a flag predicts inconsistent)",
            soft_wrap=True,
        )
        for score in scores:
            console.print(
                f"  {score.name:31s} P {score.precision:.3f}  R {score.recall:.3f}  "
                f"flags {score.flagged} (tp {score.tp}, fp {score.fp})",
                soft_wrap=True,
            )


@eval_app.command("digest")
def eval_digest(
    file: Path = typer.Argument(
        ..., help="QMSum-style JSON Lines: meeting_transcripts, topic_list, general_query_list."
    ),
    folds: int = typer.Option(5, "--folds", help="Cross-validation folds over the meetings."),
    embed: bool = typer.Option(
        False, "--embed", help="Also try embedding vectors (USE) for the sections: slow on a CPU."
    ),
    defaults: bool = typer.Option(
        False,
        "--defaults",
        help="Score the shipped parameters on every meeting, no tuning (a held-out file; seconds, not the folds' half hour).",
    ),
) -> None:
    """Sections (Pk, WindowDiff) and summary (ROUGE) of the extractive episode digest, held-apart folds, beside baselines."""
    from newsdesk.eval.digest import evaluate, evaluate_defaults, report_lines

    embedder = None
    if embed:
        from newsdesk.cluster.embed import make_embedder

        embedder = make_embedder(settings()).embed
    problems: list[str] = []
    if defaults:
        report = evaluate_defaults(file, embed=embedder, problems=problems, progress=err.print)
    else:
        report = evaluate(file, folds=folds, embed=embedder, problems=problems, progress=err.print)
    for problem in problems:
        err.print(problem, soft_wrap=True)
    for text in report_lines(report):
        console.print(text, soft_wrap=True)


@eval_app.command("external")
def eval_external(
    days: str = typer.Option(
        None,
        "--days",
        help="Days to replay: FIRST..LAST and single days, comma-separated (default: every allowed day of "
        "Juya AI Daily, 76 days). 2026-04-06…05-03 is held out and refused.",
    ),
    data: Path = typer.Option(
        Path("eval/external/data"), "--data", help="The converted outside sets (eval/external/README.md)."
    ),
    out: Path = typer.Option(None, "--out", help="Also write each editor's measures and per-day counts as JSON."),
) -> None:
    """Replay two outside editors' days (Juya AI Daily, smol.ai AINews) through the real stages on a fresh
    store (extractive) and measure the day pages against each editor: top story first, leads in the
    top 5, NDCG@10, the newsletter's lead in the top 3, featured precision, glue@10, cross-language pairs."""
    import dataclasses
    import json

    from newsdesk.eval.external import default_days, evaluate, parse_days, report_lines

    chosen = parse_days(days) if days else default_days(data)
    with err.status(Text(f"replaying {len(chosen)} days of two outside editors")):
        scores, run, _ = evaluate(data, settings(), chosen)
    for problem in run.problems:
        err.print(line(("replay:", "yellow"), problem), soft_wrap=True)
    for text in report_lines(scores):
        console.print(text, soft_wrap=True)
    if out:
        record = {
            s.editor: {**s.summary(), "days": [{**dataclasses.asdict(d), "day": d.day.isoformat()} for d in s.days]}
            for s in scores
        }
        try:
            out.write_text(json.dumps(record, ensure_ascii=False, indent=1), encoding="utf-8")
        except OSError as exc:
            raise NewsdeskError(
                f"{out}: cannot write ({exc.strerror})", "check the folder exists and is writable"
            ) from None


@eval_app.command("cards")
def eval_cards(
    data_dir: Path = typer.Argument(..., help="A data folder whose store holds published daily editions."),
    day: str = typer.Option(
        None, "--day", help="Only this day's editions (YYYY-MM-DD), or those of a span (FIRST..LAST)."
    ),
    examples: int = typer.Option(3, "--examples", help="Examples to print per class and language."),
    site: Path | None = typer.Option(
        None,
        "--site",
        help="The published site folder, whose English pages are read for plurals too "
        "(default: DATA_DIR/site, else DATA_DIR/../site, where one is).",
    ),
) -> None:
    """A reader's lint over the published daily editions, both languages: blank cards with material,
    repeated facts, dangling openings, openings about the article, other-language parts unmarked,
    headline and lead telling different events, later reports, repeated updates, counts that disagree
    with the links shown. Counts per class, then examples."""
    from datetime import date

    from newsdesk.eval.cards import lint_site, lint_store, report_lines

    first = last = None
    if day is not None:
        try:
            first, last = (date.fromisoformat(d.strip()).isoformat() for d in (day.split("..") + [day])[:2])
        except ValueError:
            raise NewsdeskError(f"--day {day!r} is not a date", "give it as YYYY-MM-DD or FIRST..LAST") from None
    local = Settings(data_dir=str(data_dir))
    if not Path(data_dir).is_dir() or (not local.database_url and not (Path(data_dir) / "newsdesk.db").is_file()):
        raise NewsdeskError(f"{data_dir}: no newsdesk store here", "give the data folder a run wrote (its newsdesk.db)")
    store = open_store(local.database)
    try:
        report = lint_store(store, first, last)
    finally:
        store.dispose()
    found = site or next((d for d in (Path(data_dir) / "site", Path(data_dir).parent / "site") if d.is_dir()), None)
    if found is not None and first is None:  # a day's pages are not told apart: the whole site, or none
        lint_site(report, found)
    for text in report_lines(report, examples):
        console.print(text, soft_wrap=True)


@eval_app.command("editorial")
def eval_editorial(
    files: list[Path] = typer.Argument(
        ..., help="Editorial labels (eval/editorial/*.jsonl): {event, day, tier, rank, title, reason}."
    ),
    harvest: Path = typer.Option(
        None,
        "--harvest",
        help="The JSON Lines the labelled items came from (default: tests/fixtures/news/ai-daily-harvest.jsonl).",
    ),
    clusters: list[Path] = typer.Option(
        None,
        "--clusters",
        help="Cluster label files naming each item's event "
        "(default: every eval/clusters/*.jsonl beside the editorial folder). Repeatable.",
    ),
    folds: bool = typer.Option(
        False, "--folds", help="Report each labelled week as a held-apart fold, one column each, and their mean."
    ),
    out: Path = typer.Option(None, "--out", help="Also write each week's measures and per-day counts as JSON Lines."),
) -> None:
    """Replay each labelled week through the real stages on a fresh store (extractive) and measure the
    published day pages and weekly against an editor's tiers: placement, NDCG@10, glue / split / noise in
    the top ten, featured precision, zh cards opening about the article, the weekly's tier-3 coverage."""
    import json

    from newsdesk.eval.editorial import as_record, day_lines, evaluate, fold_lines, week_lines

    harvest = harvest or Path("tests/fixtures/news/ai-daily-harvest.jsonl")  # the checkout's copy, run from its root
    if not harvest.is_file():
        raise NewsdeskError(
            f"{harvest}: no such harvest file", "give --harvest the JSON Lines file the labelled items came from"
        )
    weeks = []
    for file in files:
        found = clusters or sorted((file.resolve().parent.parent / "clusters").glob("*.jsonl"))
        if not found:
            raise NewsdeskError(
                f"{file}: no cluster label files beside it (../clusters/*.jsonl)",
                "give --clusters FILE, the labels that name each item's event",
            )
        with err.status(Text(f"replaying {file.name}")):
            scores, problems = evaluate(file, settings(), harvest=harvest, clusters=found)
        for problem in problems:
            err.print(line(("replay:", "yellow"), problem), soft_wrap=True)
        weeks += scores
        if folds:
            continue
        for ws in scores:
            console.print(
                f"{file.name}: {ws.week}, {sum(d.cards for d in ws.days)} cards over {len(ws.days)} days",
                soft_wrap=True,
            )
            for text in day_lines(ws) + week_lines(ws):
                console.print("  " + text, soft_wrap=True)
    if folds:
        console.print(
            f"held-apart folds: each labelled week alone ({len(weeks)}); nothing here is tuned on any of them",
            soft_wrap=True,
        )
        for text in fold_lines(weeks):
            console.print(text, soft_wrap=True)
    if out:
        try:
            out.write_text(
                "".join(json.dumps(as_record(w), ensure_ascii=False) + "\n" for w in weeks), encoding="utf-8"
            )
        except OSError as exc:
            raise NewsdeskError(
                f"{out}: cannot write ({exc.strerror})", "check the folder exists and is writable"
            ) from None
