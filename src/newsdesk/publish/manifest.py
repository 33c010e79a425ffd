"""The site's manifest (site_dir/.publish-manifest.json): what the last publish wrote, so the next one
can skip unchanged inputs and remove the files it no longer makes.

The manifest lives in the site folder, which others may be able to write (a synced or shared static
host, a CI job), so what it names is not trusted: a path is removed only when it resolves, symlinks
followed, to a file inside site_dir.
"""

from __future__ import annotations

from pathlib import Path

MANIFEST = ".publish-manifest.json"
NAMED = 3  # refused paths the warning line names; the rest are counted


def inside(site_dir: Path, path: object) -> Path | None:
    """The file `path` (as the manifest lists it) names inside site_dir, or None when it names anything
    else: a path leaving the folder (../, an absolute path, a symlink out), the folder itself, a folder,
    or something that is not a path at all (a NUL byte, a number)."""
    if not isinstance(path, str) or not path or "\x00" in path:
        return None
    try:
        root = site_dir.resolve()
        target = (site_dir / path).resolve()
    except (OSError, RuntimeError, ValueError):  # a symlink loop, a name too long
        return None
    if target == root or not target.is_relative_to(root) or target.is_dir():
        return None
    return target


def refused_line(refused: list[str], site_dir: Path) -> str:
    """One line naming the paths the manifest listed outside the site, which were left alone."""
    named = ", ".join(repr(p)[:120] for p in refused[:NAMED])
    more = f" and {len(refused) - NAMED} more" if len(refused) > NAMED else ""
    return (
        f"{site_dir / MANIFEST} names {len(refused)} file(s) outside the site folder, not removed: "
        f"{named}{more}; newsdesk never wrote them there, so check who can write {site_dir}"
    )
