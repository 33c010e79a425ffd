"""The docs cover the code, after sqlite-utils' test_docs.py: every command and option is in the
commands guide, every setting in the settings page, the generated parts match the code, and the
words the glossary rules out are used nowhere a reader or a contributor reads."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
sys.path.insert(0, str(DOCS))

import generate  # noqa: E402  (docs/generate.py: what cog writes into the docs)

GUIDE = (DOCS / "commands.md").read_text(encoding="utf-8").split("\n## Reference", 1)[0]
GUIDE_ROWS = [line for line in GUIDE.splitlines() if line.startswith("|")]
COMMANDS = [(path, cmd) for path, cmd in generate.commands() if path != "newsdesk"]


def _rows_for(path: str) -> list[str]:
    """The guide's rows about a command: those naming it, or naming its group and `/ `its word."""
    group, _, word = path.rpartition(" ")
    also = re.compile(rf"/ `(?:[\w-]+ )*{word}\b")  # `newsdesk push list` / `push test NAME`
    return [r for r in GUIDE_ROWS if f"`{path}" in r or (f"`{group} " in r and also.search(r))]


@pytest.mark.parametrize("path", [path for path, _ in COMMANDS])
def test_every_command_is_in_the_commands_guide(path):
    assert _rows_for(path), f"{path} is not in docs/commands.md's table: add a row saying what it does"


@pytest.mark.parametrize(
    ("path", "option"),
    [(path, how) for path, cmd in COMMANDS for how, _ in generate.options(cmd) if how.startswith("-")],
)
def test_every_option_is_in_the_commands_guide(path, option):
    names = option.split(", ")
    assert any(n in row for row in _rows_for(path) for n in names), (
        f"{path} {option} is not in its row of docs/commands.md: say what it does there"
    )


def test_every_option_the_guide_names_exists():
    """The other way round: an option the guide writes that its command no longer has is drift."""
    known = {n for _, cmd in generate.commands() for how, _ in generate.options(cmd) for n in how.split(", ")}
    written = {m for row in GUIDE_ROWS for m in re.findall(r"(?<![\w-])--[a-z][a-z-]*", row)}
    assert written <= known | {"--config"}, f"docs/commands.md names options no command has: {written - known}"


def test_every_setting_is_on_the_settings_page():
    import dataclasses

    from newsdesk.core.config import Settings

    page = (DOCS / "settings.md").read_text(encoding="utf-8")
    missing = []
    for f in dataclasses.fields(Settings()):
        section = getattr(Settings(), f.name)
        keys = [g.name for g in dataclasses.fields(section)] if dataclasses.is_dataclass(section) else [f.name]
        if dataclasses.is_dataclass(section) and f"[{f.name}]" not in page:
            missing.append(f"[{f.name}]")
        missing += [k for k in keys if not re.search(rf"^{k} = ", page, re.M)]
    assert not missing, f"docs/settings.md lacks {missing}: run `make fmt` (cog regenerates the settings block)"


@pytest.mark.parametrize(("page", "block"), [("commands.md", "command_table"), ("settings.md", "settings_block")])
def test_the_generated_parts_match_the_code(page, block):
    text = (DOCS / page).read_text(encoding="utf-8")
    marker = f"cog.out(generate.{block}())"
    assert marker in text, f"docs/{page} lost its cog block {block}"
    generated = text.split(marker, 1)[1].split("]]] -->\n", 1)[1].split("<!-- [[[end]]] -->", 1)[0]
    assert generated == getattr(generate, block)(), f"docs/{page} is behind the code: run `make fmt`"


def test_run_stage_help_names_every_stage():
    """`run --stage` once listed the stages by hand and left out `stories`."""
    from newsdesk.run.pipeline import STAGE_NAMES

    run = dict(COMMANDS)["newsdesk run"]
    (help_text,) = [h for how, h in generate.options(run) if how == "--stage"]
    assert re.findall(r"\b[a-z]+\b", help_text.split(":", 1)[1]) == STAGE_NAMES


def _glossary_bans() -> list[tuple[str, str]]:
    """The glossary's "not this word" table as (banned phrase, the word to use)."""
    page = (DOCS / "glossary.md").read_text(encoding="utf-8")
    table = page.split("## Not these words", 1)[1]
    rows = [r for r in table.splitlines() if r.startswith("| ") and not r.startswith("| not ")]
    return [tuple(re.findall(r"\*\*(.+?)\*\*", row)[:2]) for row in rows]


def _read_texts() -> list[Path]:
    """What a reader or a contributor reads: the docs, the package's code, templates and prompts."""
    files = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *DOCS.glob("*.md")]
    src = ROOT / "src" / "newsdesk"
    files += [p for p in src.rglob("*") if p.suffix in {".py", ".html", ".md", ".toml"} and "migrations" not in p.parts]
    return [p for p in files if p.name != "glossary.md"]


def test_the_glossary_bans_some_words():
    assert len(_glossary_bans()) >= 3 and all(len(ban) == 2 for ban in _glossary_bans())


@pytest.mark.parametrize(("banned", "say"), _glossary_bans())
def test_no_banned_word_is_used(banned, say):
    # A word boundary where the phrase ends in a letter: "roundup (digest)" ends in a bracket.
    pattern = re.compile(
        (r"\b" if banned[0].isalnum() else "") + re.escape(banned) + (r"\b" if banned[-1].isalnum() else ""), re.I
    )
    hits = [
        f"{p.relative_to(ROOT)}:{n}"
        for p in _read_texts()
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert not hits, f"{banned!r} is ruled out by docs/glossary.md (say {say!r}): {hits}"


def _words(phrase: str) -> tuple[str, ...]:
    return tuple(w.lower() for w in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])", phrase))


def _code_name_bans() -> list[tuple[str, tuple[str, ...]]]:
    """The banned phrases a name can spell (words only), as (phrase, its words); a phrase whose
    words are those of the word to say ("follow up of", "follow-up of") is no name's business."""
    return [
        (banned, _words(banned))
        for banned, say in _glossary_bans()
        if re.fullmatch(r"[A-Za-z -]+", banned) and _words(banned) != _words(say)
    ]


def test_no_name_in_the_code_is_a_banned_word():
    """`news_item`, `NewsItem`, `top_stories`, `lead_story`, `storyline`: a name in the package's code
    or templates spells none of the glossary's ruled-out words (each name split at _ and capitals)."""
    src = ROOT / "src" / "newsdesk"
    files = [p for p in src.rglob("*") if p.suffix in {".py", ".html"} and "migrations" not in p.parts]
    bans = _code_name_bans()
    assert ("news item", ("news", "item")) in bans and ("lead stories", ("lead", "stories")) in bans
    hits = []
    for path in files:
        for name in set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", path.read_text(encoding="utf-8"))):
            words = tuple(w for part in name.split("_") for w in _words(part))
            for banned, ban in bans:
                if any(words[i : i + len(ban)] == ban for i in range(len(words))):
                    hits.append(f"{path.relative_to(ROOT)}: {name} ({banned!r})")
    assert not hits, f"names the glossary rules out (docs/glossary.md): {sorted(hits)}"


def test_the_glossary_names_every_kind_of_edition():
    """A kind added to publish/outputs.py is a word readers meet: the glossary says what it is."""
    from newsdesk.publish.outputs import KINDS

    page = (DOCS / "glossary.md").read_text(encoding="utf-8")
    kind_row = next(r for r in page.splitlines() if r.startswith("| **kind** |"))
    missing = [k.name for k in KINDS if f"`{k.name}`" not in kind_row]
    assert not missing, f"docs/glossary.md's kind row does not name the edition kinds {missing}"


def test_every_command_the_docs_write_exists():
    """A `newsdesk …` command written in the README or the docs that the CLI does not have is drift."""
    paths = {path for path, _ in generate.commands()}
    groups = {path.rpartition(" ")[0] for path in paths}
    wrong = set()
    for page in [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *DOCS.glob("*.md")]:
        for words in re.findall(r"`newsdesk ((?:[a-z][a-z-]*)(?: [a-z][a-z-]*)?)", page.read_text(encoding="utf-8")):
            first = "newsdesk " + words.split()[0]
            two = "newsdesk " + words
            if (
                first not in paths
                and first not in groups
                or (first in groups and first not in paths and two not in paths)
            ):
                wrong.add(f"{page.name}: newsdesk {words}")
    assert not wrong, f"the docs name commands the CLI does not have: {sorted(wrong)}"
