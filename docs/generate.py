"""What cog writes into docs/*.md from the code, so the docs cannot drift from it.

`make lint` runs `cog --check` over the docs; `make fmt` (or `cog -r -I docs docs/*.md`) rewrites
the generated parts. Each function returns one block; the docs print it between cog markers.
"""

from __future__ import annotations

import ast
import dataclasses
import io
import tokenize
from collections.abc import Iterator
from pathlib import Path

import tomli_w

# The CLI's own completion options say nothing about newsdesk.
_SKIP_OPTIONS = {"--install-completion", "--show-completion", "--help"}


def commands() -> Iterator[tuple[str, object]]:
    """Every command of the Typer app as (`newsdesk a b`, click command), groups before theirs."""
    from typer.main import get_command

    from newsdesk.cli import app

    def walk(cmd, path: str):
        yield path, cmd
        for name, sub in getattr(cmd, "commands", {}).items():
            yield from walk(sub, f"{path} {name}")

    yield from walk(get_command(app), "newsdesk")


def options(cmd) -> list[tuple[str, str]]:
    """A command's arguments and options as (how it is written, its help), as `--help` shows them."""
    import typer._click as click

    ctx = click.Context(cmd)
    out = []
    for param in cmd.params:
        if param.param_type_name == "argument":
            out.append(((param.name or "").upper(), " ".join((getattr(param, "help", None) or "").split())))
        elif not _SKIP_OPTIONS & set(param.opts):
            record = param.get_help_record(ctx)  # its help with [default: …] / [required], as --help says
            out.append((", ".join(param.opts + param.secondary_opts), " ".join((record[1] if record else "").split())))
    return out


def command_table() -> str:
    """The command reference: each command, its one-line help, its arguments and options."""
    rows = ["| command | what it does | arguments and options |", "|---|---|---|"]
    for path, cmd in commands():
        summary = " ".join((cmd.help or "").split("\n\n")[0].split())
        opts = "<br>".join(f"`{how}` {help_text}".strip() for how, help_text in options(cmd))
        rows.append(f"| `{path}` | {_cell(summary)} | {_cell(opts)} |")
    return "\n".join(rows) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _field_comments(cls: type) -> dict[str, str]:
    """The comment beside, or on the lines just above, each field of a settings dataclass."""
    from newsdesk.core import config

    source = Path(config.__file__).read_text(encoding="utf-8")
    lines = source.splitlines()
    comments = {
        tok.start[0]: tok.string.lstrip("# ").rstrip()
        for tok in tokenize.generate_tokens(io.StringIO(source).readline)
        if tok.type == tokenize.COMMENT
    }
    node = next(n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.ClassDef) and n.name == cls.__name__)
    out = {}
    for stmt in node.body:
        if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
            continue
        # beside it, also inside a statement the formatter wrapped over several lines
        said = [comments[n] for n in range(stmt.lineno, (stmt.end_lineno or stmt.lineno) + 1) if n in comments]
        above, row = [], stmt.lineno - 1
        while row in comments and lines[row - 1].lstrip().startswith("#"):
            above.insert(0, comments[row])
            row -= 1
        out[stmt.target.id] = " ".join(above + said)
    return out


def _toml_value(value: object) -> str:
    if isinstance(value, list):  # on one line, as a person writes a short list
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return tomli_w.dumps({"v": value}).split("=", 1)[1].strip()


def _pad(line: str) -> str:
    """The comments of a block start in one column, as in a hand-written newsdesk.toml."""
    return line.ljust(35) if len(line) < 34 else line + "  "


def _section(obj: object) -> list[str]:
    comments = _field_comments(type(obj))
    rows = []
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        if dataclasses.is_dataclass(value):
            continue
        line = f"{f.name} = {_toml_value(value)}"
        said = comments.get(f.name, "")
        rows.append(f"{_pad(line)}# {said}" if said else line)
    return rows


def settings_block() -> str:
    """Every setting with its default and the comment the code gives it, as newsdesk.toml takes them."""
    from newsdesk.core.config import Settings

    settings = Settings()
    rows = ["```toml", *_section(settings)]
    for f in dataclasses.fields(settings):
        section = getattr(settings, f.name)
        if not dataclasses.is_dataclass(section):
            continue
        doc = (type(section).__doc__ or "").strip()
        doc = "" if doc.startswith(f"{type(section).__name__}(") else " ".join(doc.split())  # dataclass's own
        rows += ["", f"{_pad(f'[{f.name}]')}# {doc}" if doc else f"[{f.name}]", *_section(section)]
    return "\n".join([*rows, "```"]) + "\n"


def _first_sentence(doc: str | None, width: int = 100) -> str:
    text = " ".join((doc or "").split())
    end = text.find(". ")
    text = text[: end + 1] if end > 0 else text
    return text if len(text) <= width else text[: width - 1].rsplit(" ", 1)[0] + " …"


def layout() -> str:
    """CONTRIBUTING's map of the package: each floor (newsdesk.FLOORS, lowest first) with what its
    docstring says, and each module with the first sentence of its own."""
    import newsdesk

    root = Path(newsdesk.__file__).parent

    def doc(path: Path) -> str | None:
        return ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))

    lines = ["src/newsdesk/         the floors, lowest first: a module imports its own floor and those below it"]
    for floor in newsdesk.FLOORS:
        lines.append(f"  {floor + '/':<20}{_first_sentence(doc(root / floor / '__init__.py'), 110)}")
        for path in sorted((root / floor).rglob("*.py")):
            rel = path.relative_to(root / floor)
            if "migrations" in rel.parts or path.name == "__init__.py" and len(rel.parts) == 1:
                continue
            name = f"{rel.parent}/" if path.name == "__init__.py" else str(rel)  # a folder inside a floor
            lines.append(f"    {name:<24}{_first_sentence(doc(path), 100)}")
    lines.append(f"  {'cli.py':<20}{_first_sentence(doc(root / 'cli.py'), 110)}")
    return "```\n" + "\n".join(lines) + "\n```\n"
