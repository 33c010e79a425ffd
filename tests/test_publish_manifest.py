"""The site's manifest is not trusted: it lives in a folder others may write (a synced or shared static
host, a CI job). A path it names is removed only inside site_dir (a manifest naming
../../victim/precious.txt or an absolute path made the next publish delete it)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_publish import published  # noqa: F401 (the fixture)

from newsdesk.publish.manifest import inside
from newsdesk.publish.site import publish_site
from newsdesk.run.pipeline import run_pipeline

MANIFEST = ".publish-manifest.json"


def tamper(site: Path, *paths: str) -> None:
    """Add `paths` to the manifest as files the last publish wrote, and make the next publish run."""
    manifest = json.loads((site / MANIFEST).read_text("utf-8"))
    manifest["key"] = "changed"
    manifest["files"].update({p: "0" * 64 for p in paths})
    (site / MANIFEST).write_text(json.dumps(manifest), "utf-8")


def test_a_manifest_naming_files_outside_the_site_removes_none_of_them(published, tmp_path):  # noqa: F811
    settings, site, _, engine = published
    victim = tmp_path / "victim"
    victim.mkdir()
    precious = {name: victim / name for name in ("relative.txt", "absolute.txt", "via-folder.txt", "linked.txt")}
    for path in precious.values():
        path.write_text("the operator's own file", "utf-8")
    (site / "zh" / "out").symlink_to(victim, target_is_directory=True)  # a folder link leading out
    (site / "zh" / "old.html").symlink_to(precious["linked.txt"])  # a page that is a link out
    (site / "zh" / "daily" / "stale.html").write_text("a page no edition makes any more", "utf-8")
    outside = ["../victim/relative.txt", str(precious["absolute.txt"]), "zh/out/via-folder.txt", "zh/old.html"]
    tamper(site, *outside, "zh/daily/stale.html")

    stats = publish_site(engine, settings)

    assert all(path.read_text("utf-8") == "the operator's own file" for path in precious.values())
    assert not (site / "zh" / "daily" / "stale.html").exists()  # a stale page inside the site still goes
    assert stats.removed == 1
    [line] = stats.warnings
    assert "\n" not in line and "4 file(s) outside the site folder, not removed" in line
    assert "'../victim/relative.txt'" in line and "and 1 more" in line and "check who can write" in line
    # The manifest it writes lists only what this publish made; the next publish has nothing to say.
    again = publish_site(engine, settings)
    assert again.skipped and again.warnings == []


def test_a_manifest_naming_the_site_or_its_folders_removes_nothing(published):  # noqa: F811
    settings, site, first, engine = published
    tamper(site, ".", "zh", "zh/daily/", "", "zh/../..")
    stats = publish_site(engine, settings)
    assert stats.removed == 0 and stats.pages == first.pages and (site / "zh" / "daily").is_dir()
    assert "5 file(s) outside the site folder" in stats.warnings[0]


# A child process publishes under a file-size limit (RLIMIT_FSIZE, as a full disk would stop it): the
# pages are already on disk and unchanged, so the manifest is the one file it writes, and it does not fit.
FULL_DISK = """
import resource, signal, sys
from newsdesk.core.config import Settings
from newsdesk.core.errors import NewsdeskError
from newsdesk.run.pipeline import run_pipeline
from newsdesk.publish.manifest import inside
from newsdesk.publish.site import publish_site
from newsdesk.store import open_store

engine = open_store(sys.argv[1])
settings = Settings(site_dir=sys.argv[2], site_name="测试台", site_url="https://news.example/ai/")
with engine.connect():
    pass  # the store's files are opened before the limit
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG) instead of killing
resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))
try:
    publish_site(engine, settings)
except NewsdeskError as exc:
    sys.exit(str(exc))
"""


def test_a_full_disk_while_writing_the_manifest_leaves_the_last_one_whole(published, sqlite_url):  # noqa: F811
    settings, site, first, engine = published
    manifest = json.loads((site / MANIFEST).read_text("utf-8"))
    assert len(json.dumps(manifest, indent=1)) > 1024  # larger than the limit the child writes under
    manifest["key"] = "an older publish"  # the next publish must run: its pages compare equal
    (site / MANIFEST).write_text(json.dumps(manifest, indent=1), "utf-8")

    child = subprocess.run(
        [sys.executable, "-c", FULL_DISK, sqlite_url, str(site)], capture_output=True, text=True, timeout=120
    )

    assert child.returncode == 1 and "File too large" in child.stderr and "Traceback" not in child.stderr
    assert json.loads((site / MANIFEST).read_text("utf-8")) == manifest  # whole: the one before
    assert not list(site.rglob("*.tmp"))
    again = publish_site(engine, settings)  # and the next publish works, with nothing to warn of
    assert not again.skipped and again.written == 0 and again.pages == first.pages and again.warnings == []
    assert publish_site(engine, settings).skipped


def _cut(text: bytes) -> bytes:
    return text[: len(text) // 2]


DAMAGE = {
    "cut short": lambda good: _cut(good),
    "empty": lambda good: b"",
    "not JSON": lambda good: b"<html>not a manifest</html>",
    "not UTF-8": lambda good: b"\xff\xfe" + good,
    "a list": lambda good: b"[]",
    "files not a table": lambda good: b'{"key": "k", "files": 5}',
    "hashes not text": lambda good: b'{"key": "k", "files": {"index.html": 1}}',
    "nested past the parser": lambda good: b"[" * 200_000,
}


@pytest.mark.parametrize("damage", DAMAGE, ids=list(DAMAGE))
def test_a_damaged_manifest_is_one_warning_and_the_site_is_published(published, damage):  # noqa: F811
    settings, site, first, engine = published
    (site / MANIFEST).write_bytes(DAMAGE[damage]((site / MANIFEST).read_bytes()))

    stats = publish_site(engine, settings)

    [line] = stats.warnings
    assert "\n" not in line and f"{site / MANIFEST} was damaged (" in line
    assert stats.pages == first.pages and stats.written == 0 and stats.removed == 0
    again = publish_site(engine, settings)
    assert again.skipped and again.warnings == []


def test_a_damaged_manifest_is_one_problem_line_in_a_run_and_the_next_pass_is_clean(published):  # noqa: F811
    settings, site, _, engine = published
    (site / MANIFEST).write_bytes(b'{"key": "cut sh')
    first = run_pipeline(engine, settings, stages=["publish"])
    assert first.status == {"publish": "problems"}
    [line] = first.problems
    assert line.startswith("publish: ") and "was damaged (not JSON" in line
    second = run_pipeline(engine, settings, stages=["publish"])
    assert second.status == {"publish": "ok"} and second.problems == []


def test_a_manifest_that_is_not_a_file_is_replaced_not_read(published, tmp_path):  # noqa: F811
    """A folder, or a link to one (newsdesk reads no pipe or device either: a link to /dev/zero would never end)."""
    settings, site, _, engine = published
    (site / MANIFEST).unlink()
    (site / MANIFEST).symlink_to(tmp_path, target_is_directory=True)
    stats = publish_site(engine, settings)
    assert "was damaged (not a file)" in stats.warnings[0]
    assert not (site / MANIFEST).is_symlink() and json.loads((site / MANIFEST).read_text("utf-8"))["files"]


# --- the property layer: whatever paths a manifest names, nothing outside the site is touched ---------

segments = st.sampled_from(["..", ".", "", "zh", "daily", "out", "loop", "page.html", "victim.txt", "/", "~", "a\x00b"])
manifest_paths = (
    st.lists(segments, min_size=1, max_size=6).map("/".join)
    | st.text(max_size=40)
    | st.builds(lambda p: "/" + p, st.text(max_size=20))
    | st.just("x" * 5000)
)


@pytest.fixture
def tree(tmp_path):
    """A site folder with a link to a folder outside it, a link loop, and a file outside beside it."""
    site, outside = tmp_path / "site", tmp_path / "outside"
    (site / "zh" / "daily").mkdir(parents=True)
    outside.mkdir()
    (outside / "victim.txt").write_text("keep", "utf-8")
    (site / "zh" / "daily" / "page.html").write_text("page", "utf-8")
    (site / "out").symlink_to(outside, target_is_directory=True)
    (site / "loop").symlink_to(site / "loop")
    return site


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=manifest_paths)
def test_inside_names_only_files_within_the_site(tree, path):
    found = inside(tree, path)
    if found is not None:
        assert found.is_relative_to(tree.resolve()) and found != tree.resolve() and not found.is_dir()


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(paths=st.lists(manifest_paths, min_size=1, max_size=10))
def test_any_manifest_removes_nothing_outside_the_site(published, tmp_path, paths):  # noqa: F811
    settings_, site, first, engine = published
    victim = tmp_path / "victim.txt"
    victim.write_text("keep", "utf-8")
    if not (site / "out").exists():
        (site / "out").symlink_to(tmp_path, target_is_directory=True)
    tamper(site, *paths, "../victim.txt", "out/victim.txt", str(victim))
    stats = publish_site(engine, settings_)
    assert victim.read_text("utf-8") == "keep" and stats.pages == first.pages
    assert all("\n" not in line for line in stats.warnings)


def test_newsdesk_publish_says_a_damaged_manifest_in_one_line(published, sqlite_url, monkeypatch):  # noqa: F811
    from typer.testing import CliRunner

    from newsdesk import cli

    settings_, site, _, _ = published
    (site / MANIFEST).write_bytes(b"\xff\xfe not a manifest")
    env = {"DATABASE_URL": sqlite_url, "SITE_DIR": str(site), "SITE_NAME": settings_.site_name}
    for key, value in {**env, "SITE_URL": settings_.site_url}.items():
        monkeypatch.setenv(f"NEWSDESK_{key}", value)
    monkeypatch.delenv("NEWSDESK_CONFIG", raising=False)
    monkeypatch.chdir(site.parent)  # no newsdesk.toml there
    monkeypatch.setattr(cli, "_state", {})
    monkeypatch.setattr(cli.err, "width", 400)
    result = CliRunner().invoke(cli.app, ["publish"])
    assert result.exit_code == 0 and "Traceback" not in result.output, result.output
    [line] = [ln for ln in result.output.splitlines() if "was damaged" in ln]
    assert line.startswith(f"publish: {site / MANIFEST} was damaged (not UTF-8")
