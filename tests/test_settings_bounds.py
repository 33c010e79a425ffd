"""Every numeric setting has both bounds: a value outside them, in the file or the environment, is
one line naming the key and the bounds; and fetch.total_timeout bounds a whole fetch, retries and
their waits included (fetch.retries = 10**23 was accepted, and ingest of a source answering 500 never ended)."""

from __future__ import annotations

import asyncio
import dataclasses
import re
import time
from urllib.parse import urlsplit

import pytest
import tomli_w
from hypothesis import given, settings
from hypothesis import strategies as st
from loopback import Replies, serve_http

from newsdesk.core.config import BOUNDS, ConfigError, FetchSettings, Settings, load_settings
from newsdesk.ingest.fetch import Fetcher


def _numeric_keys() -> list[tuple[str, str, object]]:
    """(section, key, default) for every int or float setting, walked from the Settings dataclasses."""
    out = []
    for section in dataclasses.fields(Settings):
        value = getattr(Settings(), section.name)
        if dataclasses.is_dataclass(value):
            out += [
                (section.name, f.name, getattr(value, f.name))
                for f in dataclasses.fields(value)
                if type(getattr(value, f.name)) in (int, float)
            ]
        elif type(value) in (int, float):
            out.append(("", section.name, value))
    return out


KEYS = _numeric_keys()


def test_the_walk_finds_the_numeric_settings():
    assert len(KEYS) >= 30 and ("fetch", "retries", 3) in KEYS


@pytest.mark.parametrize("section, key, default", KEYS, ids=[f"{s}.{k}" for s, k, _ in KEYS])
def test_every_numeric_setting_refuses_a_value_outside_its_bounds_in_one_line(tmp_path, section, key, default):
    low, high = BOUNDS[section][key]
    assert low <= default <= high  # the default itself is allowed
    path = tmp_path / "newsdesk.toml"
    for value in (type(default)(high) * 10 + 1, type(default)(low) - 1, 10**23 if type(default) is int else 1e300):
        path.write_text(f"[{section}]\n{key} = {value!r}\n", encoding="utf-8")
        with pytest.raises(ConfigError) as bad:
            load_settings(path, env={})
        message = str(bad.value)
        assert "\n" not in message and f"'{key}'" in message and f"[{section}]" in message
        assert message.endswith(f"must be from {_plain(low)} to {_plain(high)}"), message
        with pytest.raises(ConfigError, match=f"environment NEWSDESK_{section.upper()}_{key.upper()}: '{key}'"):
            load_settings(None, env={f"NEWSDESK_{section.upper()}_{key.upper()}": str(value)})
    path.write_text(f"[{section}]\n{key} = {high!r}\n", encoding="utf-8")
    assert getattr(getattr(load_settings(path, env={}), section), key) == high  # both ends are allowed


def _plain(number) -> str:
    return str(int(number)) if float(number).is_integer() else str(number)


@pytest.mark.parametrize("key", ["every", "poll_min", "poll_max"])
def test_durations_are_bounded_too(tmp_path, key):
    path = tmp_path / "newsdesk.toml"
    path.write_text(f'[schedule]\n{key} = "99999999d"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=f"{key} = '99999999d' is out of bounds; it must be from 1s to 30d$"):
        load_settings(path, env={})


def test_total_timeout_covers_every_retry_of_a_source_answering_500():
    class Always500(Replies):
        def do_GET(self):
            self.reply(500, b"down")

    httpd = serve_http(Always500)
    url = f"http://127.0.0.1:{httpd.server_address[1]}/feed.xml"
    settings = FetchSettings(allow_private=True, retries=10, backoff_base=1.0, total_timeout=2.0, per_host_delay=0)

    async def fetch():
        async with Fetcher(settings) as fetcher:
            return await fetcher.get(url)

    started = time.monotonic()
    try:
        # Ten tries with backoff 1, 2, 4 … s would take over eight minutes.
        result = asyncio.run(asyncio.wait_for(fetch(), 30))
    finally:
        httpd.shutdown()
    assert time.monotonic() - started < 5
    assert result.error and "\n" not in result.error
    assert (
        "HTTP 500" in result.error
        and "tries); no time left to try again within 2s (fetch.total_timeout)" in result.error
    )


def test_time_queued_behind_other_sources_is_not_spent():
    """Twelve feeds on one host, one at a time, each taking half a second: the last waits about
    5.5 s for its turn, longer than total_timeout (2 s), and still gets its full budget."""

    class Slow(Replies):
        def do_GET(self):
            time.sleep(0.5)
            self.reply(200, b"<rss version='2.0'><channel><title>t</title></channel></rss>")

    httpd = serve_http(Slow)
    base = f"http://127.0.0.1:{httpd.server_address[1]}"
    settings = FetchSettings(allow_private=True, retries=0, total_timeout=2.0, per_host_delay=0, per_host_concurrency=1)

    async def fetch_all():
        async with Fetcher(settings) as fetcher:
            return await asyncio.gather(*(fetcher.get(f"{base}/feed-{n}.xml") for n in range(12)))

    try:
        results = asyncio.run(asyncio.wait_for(fetch_all(), 60))
    finally:
        httpd.shutdown()
    assert [r.error for r in results] == [None] * 12


# --- the settings every published file is shaped by: one line each, in the file or the environment ---

OUTPUT_REFUSED = [
    ("site_url", "javascript:alert(1)", "site_url = 'javascript:alert(1)' is not an absolute http(s) address"),
    ("site_url", "https://news.example/\r\nX: y", "holds a space or control character"),
    ("site_url", "//news.example/", "is not an absolute http(s) address"),
    ("site_url", "https://news.example:99999/", "has a port that is not a number from 1 to 65535"),
    ("site_url", "https://news.example/?utm=1", "has a query or fragment"),
    ("languages", [], 'languages = [] names no language, so no edition would be built; list "zh" and/or "en"'),
    ("languages", ["zh", "klingon"], 'languages: \'klingon\' is not a language newsdesk writes; list "zh" and/or "en"'),
    ("languages", ["en", "en"], "names a language twice"),
    ("site_name", "", "site_name = '' must be 1 to 200 characters with no control characters"),
    ("site_name", "news\x1b[31m", "no control characters"),
    ("site_dir", "", "site_dir = '' is not a folder name"),
]


@pytest.mark.parametrize("key, value, says", OUTPUT_REFUSED, ids=[f"{k}={v!r}" for k, v, _ in OUTPUT_REFUSED])
def test_every_setting_that_shapes_the_output_is_checked_in_one_line(tmp_path, key, value, says):
    path = tmp_path / "newsdesk.toml"
    path.write_text(tomli_w.dumps({key: value}), encoding="utf-8")
    with pytest.raises(ConfigError) as bad:
        load_settings(path, env={})
    assert says in str(bad.value) and "\n" not in str(bad.value)
    env = ",".join(value) if isinstance(value, list) else value
    with pytest.raises(ConfigError, match=re.escape(says)):
        load_settings(None, env={f"NEWSDESK_{key.upper()}": env})


def test_the_output_settings_take_what_they_always_took(tmp_path):
    path = tmp_path / "newsdesk.toml"
    path.write_text(
        'site_url = "https://news.example/ai"\nlanguages = ["en"]\nsite_name = "AI 日报"\nsite_dir = "public"\n',
        encoding="utf-8",
    )
    s = load_settings(path, env={})
    assert (s.site_url, s.languages, s.site_name, s.site_dir) == (
        "https://news.example/ai",
        ["en"],
        "AI 日报",
        "public",
    )
    assert load_settings(None, env={"NEWSDESK_SITE_URL": "http://127.0.0.1:8000/"}).site_url == "http://127.0.0.1:8000/"


@settings(max_examples=200, deadline=None)
@given(
    site_url=st.sampled_from(["https://news.example/", "http://localhost:8000/", "https://a.example:8443/x/"])
    | st.text(max_size=30)
    | st.builds(
        lambda scheme, rest: f"{scheme}:{rest}",
        st.sampled_from(["http", "https", "javascript", "data", "ftp"]),
        st.text(max_size=20),
    ),
    languages=st.lists(st.sampled_from(["zh", "en", "", "ZH", "fr", "klingon", "zh\n"]), max_size=3),
)
def test_any_site_url_and_languages_load_only_within_bounds(tmp_path_factory, site_url, languages):
    path = tmp_path_factory.mktemp("cfg") / "newsdesk.toml"
    path.write_text(tomli_w.dumps({"site_url": site_url, "languages": languages}), encoding="utf-8")
    try:
        s = load_settings(path, env={})
    except ConfigError as exc:
        assert "\n" not in str(exc) and str(exc).startswith(("site_url = ", "languages"))
        return
    parts = urlsplit(s.site_url)
    assert parts.scheme in ("http", "https") and parts.hostname and not parts.query and not parts.fragment
    assert s.site_url.isprintable() and " " not in s.site_url
    assert s.languages and set(s.languages) <= {"zh", "en"} and len(set(s.languages)) == len(s.languages)
