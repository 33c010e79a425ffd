"""The newsroom's words: every hand-written word list, read from the data files in this folder.

A word list is knowledge, not code: which words name nothing, which companies a headline may name
and how they are spelled in each language, which words say a headline is a how-to. Each lives here
once, in a file a reader can check and an editor can change without reading Python:

- ``NAME.txt``: one entry a line; ``#`` starts a comment (a whole line, or after a space). The
  header says what the list is for, who reads it and where it came from.
- ``NAME.toml``: a mapping (a spelling -> its one form, a word -> its number) or a table of
  entries with fields (companies.toml: each company's spellings, one field per view).

One stop-list (stop.txt) holds the words that name nothing to every stage that asks; a stage that
needs more names its addition (stop-cluster.txt, ...) and takes ``words("stop", "stop-cluster")``.

Each reader is cached: a list is read once a process, when its first user imports.
"""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path

HERE = Path(__file__).parent


def _path(name: str, suffix: str) -> Path:
    path = HERE / f"{name}{suffix}"
    if not path.is_file():
        known = sorted(p.name for p in HERE.iterdir() if p.suffix in (".txt", ".toml"))
        raise FileNotFoundError(f"no word list {path.name} in {HERE}: add it, or use one of {', '.join(known)}")
    return path


@cache
def entries(name: str) -> tuple[str, ...]:
    """The entries of NAME.txt in file order (for a list whose order matters, such as regex alternatives)."""
    path = _path(name, ".txt")
    out: list[str] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        entry = "" if line.lstrip().startswith("#") else line.split(" #", 1)[0].split("\t#", 1)[0].strip()
        if not entry:
            continue
        if entry in out:
            raise ValueError(f"{path.name}:{number}: {entry!r} is listed twice: delete one of them")
        out.append(entry)
    return tuple(out)


@cache
def words(*names: str) -> frozenset[str]:
    """The words of one list, or of a list and its named additions: ``words("stop", "stop-cluster")``."""
    return frozenset().union(*(entries(name) for name in names))


@cache
def table(name: str) -> dict:
    """NAME.toml as read (keys in file order). Shared by its readers: derive a view from it, never change it."""
    path = _path(name, ".toml")
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path.name}: {exc}: fix the file's TOML") from None
