"""The site's manifest is not trusted: it lives in a folder others may write (a synced or shared static
host, a CI job). A path it names is removed only inside site_dir (a manifest naming
../../victim/precious.txt or an absolute path made the next publish delete it)."""

from __future__ import annotations

import json
from pathlib import Path

from test_publish import published  # noqa: F401 (the fixture)

from newsdesk.publish.site import publish_site

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
