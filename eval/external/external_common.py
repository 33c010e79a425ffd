"""What the converters of eval/external/ share: the held-out window, reading a fetched repository,
writing compact JSON Lines, and one spelling per cited address.

A source is either a bare git directory (the mirror a fetch leaves, e.g.
/work/.mirror/imjuya+juya-ai-daily/repo) or an ordinary checkout. Files are listed by name first and
only the names the caller keeps are read, so a day of the held-out window is never opened.
"""

from __future__ import annotations

import gzip
import json
import re
import subprocess
from collections.abc import Iterable, Iterator
from datetime import date
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from newsdesk.ingest.normalize import canonical_url

# Held out for measuring newsdesk (issue 29, HELPERS.md): no day of an outside editor's archive in
# this window is read, labelled, tuned on or stored.
HELD_OUT = (date(2026, 4, 6), date(2026, 5, 3))


class HeldOutError(ValueError):
    """A day of the held-out window reached a place that must never see one."""


def held_out(day: date) -> bool:
    return HELD_OUT[0] <= day <= HELD_OUT[1]


def refuse_held_out(day: date, where: str) -> None:
    if held_out(day):
        raise HeldOutError(
            f"{where}: {day} is in the held-out window {HELD_OUT[0]} … {HELD_OUT[1]}; "
            "it must be skipped before it is read"
        )


class Source:
    """Read-only access to one repository's files, as a git directory or a checkout."""

    def __init__(self, path: str | Path, rev: str = "HEAD"):
        self.path = Path(path)
        if not self.path.is_dir():
            raise FileNotFoundError(
                f"{self.path}: no such folder; fetch the repository first (see eval/external/README.md)"
            )
        self.rev = rev
        self.is_git = not (self.path / ".git").exists() and (self.path / "HEAD").is_file()

    def _git(self, *args: str) -> bytes:
        return subprocess.run(["git", f"--git-dir={self.path}", *args], check=True, capture_output=True).stdout

    def commit(self) -> str:
        if self.is_git:
            return self._git("rev-parse", self.rev).decode().strip()
        if (self.path / ".git").exists():
            return subprocess.run(
                ["git", "-C", str(self.path), "rev-parse", "HEAD"], check=True, capture_output=True, text=True
            ).stdout.strip()
        return "unknown"

    def list(self, folder: str) -> list[str]:
        """The file names (not paths) directly in `folder`; nothing is read."""
        if self.is_git:
            out = self._git("ls-tree", "--name-only", f"{self.rev}:{folder}").decode("utf-8")
            return sorted(line for line in out.splitlines() if line)
        return sorted(p.name for p in (self.path / folder).iterdir() if p.is_file())

    def read(self, path: str) -> str:
        if self.is_git:
            return self._git("cat-file", "blob", f"{self.rev}:{path}").decode("utf-8")
        return (self.path / path).read_text(encoding="utf-8")


def write_jsonl_gz(path: Path, rows: Iterable[dict]) -> int:
    """Write rows as gzip-compressed JSON Lines, byte-for-byte the same on a rerun (mtime 0)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    with path.open("wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz:
        for row in rows:
            gz.write((json.dumps(row, ensure_ascii=False, sort_keys=False) + "\n").encode("utf-8"))
            n += 1
    return n


def read_jsonl_gz(path: Path) -> Iterator[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


_X_STATUS = re.compile(r"^/(?:i/web|[^/]+)/status(?:es)?/(\d+)")


def url_key(url: str) -> str:
    """One spelling per cited address, for matching two editors' links: the project's canonical_url
    (lower-case host, no fragment, no utm_/tracking parameters, sorted query), then no scheme, no
    `www.`, no trailing slash; a post on x.com or twitter.com is its status number alone (editors
    cite one post under different handles' capitalisation and both hosts)."""
    url = canonical_url(url.strip().strip("<>").rstrip(".,;)"))
    parts = urlsplit(url)
    if not parts.netloc:
        return url
    host = parts.hostname or ""
    host = host.removeprefix("www.").removeprefix("mobile.")
    if host in {"twitter.com", "x.com"}:
        match = _X_STATUS.match(parts.path)
        if match:
            return f"x.com/status/{match.group(1)}"
        host = "x.com"
    path = parts.path.rstrip("/")
    return urlunsplit(("", host, path, parts.query, "")).removeprefix("//")


_MD_LINK = re.compile(r"\[([^\]]*)\]\((https?://[^)\s]+)\)")
_BARE_URL = re.compile(r"(?<![(\[])https?://[^\s)\]>\"'`]+")


def links_in(text: str) -> list[str]:
    """Every http(s) address in a piece of Markdown, in order, once each."""
    found = [m.group(2) for m in _MD_LINK.finditer(text)]
    found += _BARE_URL.findall(_MD_LINK.sub(" ", text))
    seen: dict[str, None] = {}
    for url in found:
        seen.setdefault(url.rstrip(".,;"), None)
    return list(seen)
