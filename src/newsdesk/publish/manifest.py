"""The site's manifest (site_dir/.publish-manifest.json): what the last publish wrote, so the next one
can skip unchanged inputs and remove the files it no longer makes.

It is written like the pages, to a temporary file renamed over the old one, so a full disk or a kill
leaves the last manifest whole. One damaged anyway (cut short, not JSON, not UTF-8, not a manifest's
shape) is a warning line, not a traceback: the publish renders every page, compares each with the
file on disk, and writes a new manifest of what the site now holds.

The manifest lives in the site folder, which others may be able to write (a synced or shared static
host, a CI job), so what it names is not trusted: a path is removed only when it resolves, symlinks
followed, to a file inside site_dir.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

MANIFEST = ".publish-manifest.json"
NAMED = 3  # refused paths the warning line names; the rest are counted
EMPTY = {"key": "", "files": {}}
MAX_BYTES = 100_000_000  # a manifest lists about 100 bytes a file: a million files


class _Damaged(Exception):
    pass


def read_manifest(site_dir: Path) -> tuple[dict, str | None]:
    """The last publish's manifest, or an empty one and the warning line saying why it was not usable."""
    path = site_dir / MANIFEST
    if not path.exists() and not path.is_symlink():
        return dict(EMPTY), None
    data = b""
    if path.is_file():  # not a folder, a pipe or a device (a link to /dev/zero would never end)
        with open(path, "rb") as manifest_file:
            data = manifest_file.read(MAX_BYTES + 1)
    try:
        if not path.is_file():
            raise _Damaged("not a file")
        if len(data) > MAX_BYTES:
            raise _Damaged(f"larger than {MAX_BYTES} bytes")
        manifest = json.loads(data.decode("utf-8"))
    except _Damaged as exc:
        problem: str | None = str(exc)
    except UnicodeDecodeError as exc:
        problem = f"not UTF-8 (bad byte at {exc.start})"
    except (ValueError, RecursionError) as exc:  # cut short by a full disk, or overwritten
        problem = f"not JSON ({str(exc)[:80]})" if data.strip() else "empty"
    else:
        problem = _shape_problem(manifest)
        if problem is None:
            return manifest, None
    return dict(EMPTY), (
        f"{path} was damaged ({problem}); every page was compared with the site and the manifest "
        "written anew (files of editions no longer published, if any, stay until you remove them)"
    )


def _shape_problem(manifest: object) -> str | None:
    if not isinstance(manifest, dict):
        return f"a JSON {type(manifest).__name__}, not an object"
    if not isinstance(manifest.get("key"), str):
        return "no 'key' string"
    files = manifest.get("files")
    if not isinstance(files, dict) or not all(isinstance(v, str) for v in files.values()):
        return "no 'files' object of path -> hash"
    return None


def write_atomic(path: Path, data: bytes, *, sync: bool = False) -> None:
    """`data` as the file at `path`, whole or not at all: readers (and the next publish) never see half
    a file, and a write that fails (a full disk) leaves the old file and no temporary one. `sync`
    waits for the disk, so a crash right after cannot leave an empty file renamed over the old one."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open(tmp, "wb") as out:
            out.write(data)
            if sync:
                out.flush()
                os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_manifest(site_dir: Path, manifest: dict) -> None:
    site_dir.mkdir(parents=True, exist_ok=True)
    write_atomic(site_dir / MANIFEST, json.dumps(manifest, indent=1).encode("utf-8"), sync=True)


def inside(site_dir: Path, path: object) -> Path | None:
    """The file `path` (as the manifest lists it) names inside site_dir, or None when it names anything
    else: a path leaving the folder (../, an absolute path, a symlink out), the folder itself, a folder,
    or something that is not a path at all (a NUL byte, a number)."""
    if not isinstance(path, str) or not path or "\x00" in path:
        return None
    try:
        root = site_dir.resolve()
        target = (site_dir / path).resolve()
        if target == root or not target.is_relative_to(root) or target.is_dir():
            return None
    except (OSError, RuntimeError, ValueError):  # a symlink loop, a name too long
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
