"""How the embedded model is served: the measurements behind llm/embedded.py's settings.

Four analysis-shaped requests (the real zh analysis prefix, then different demo-pack
material, 200 tokens each) under three llama.cpp set-ups, in one run:

  1 slot, flash attention off (llama.cpp's CPU default), one request after another
  1 slot, flash attention on, one request after another          (what newsdesk runs)
  4 slots, flash attention on, all four at once

Prints wall time, prompt tokens/s and generated tokens/s of each, and the ratios.

    .venv/bin/python benchmarks/embedded_speed.py
"""

from __future__ import annotations

import gc
import threading
import time
from importlib import resources
from pathlib import Path

import httpx
import xllamacpp as xlc

from newsdesk.llm.embedded import ensure_model_file
from newsdesk.write.analysis import system_prompt

REQUESTS = 4
MAX_TOKENS = 200


def materials() -> list[str]:
    """Four different pieces of demo-pack material: the first 2,500 characters of four feeds."""
    feeds = sorted((Path(str(resources.files("newsdesk") / "data" / "demo")) / "feeds").rglob("*.*"))
    return [p.read_text(encoding="utf-8")[:2500] for p in feeds[:REQUESTS]]


def serve(model: Path, slots: int, flash: bool):
    p = xlc.CommonParams()
    p.model.path = str(model)
    p.hostnames, p.port = ["127.0.0.1"], 0
    p.n_ctx, p.n_parallel = 8192 * slots, slots
    p.cpuparams.n_threads = p.cpuparams_batch.n_threads = 2
    p.cache_prompt, p.verbosity, p.warmup = True, -1, False
    p.flash_attn_type = 1 if flash else 0
    server = xlc.Server(p)
    base = server.listening_address.rstrip("/")
    while True:
        try:
            if httpx.get(base + "/health", timeout=2).status_code == 200:
                return server, base
        except httpx.HTTPError:
            pass
        time.sleep(0.2)


def run(model: Path, slots: int, flash: bool, texts: list[str]) -> dict:
    server, base = serve(model, slots, flash)
    system = system_prompt("zh")
    timings: list[dict] = []

    def ask(text: str) -> None:
        body = {
            "model": "m",
            "max_tokens": MAX_TOKENS,
            "temperature": 0.0,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": "材料：\n" + text}],
        }
        timings.append(httpx.post(base + "/v1/chat/completions", json=body, timeout=1800).json()["timings"])

    started = time.perf_counter()
    if slots == 1:
        for t in texts:
            ask(t)
    else:
        threads = [threading.Thread(target=ask, args=(t,)) for t in texts]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    wall = time.perf_counter() - started
    del server
    gc.collect()
    return {
        "wall": wall,
        "prompt": sum(t["prompt_n"] for t in timings),
        "prompt_s": sum(t["prompt_ms"] for t in timings) / 1000,
        "generated": sum(t["predicted_n"] for t in timings),
    }


def main() -> None:
    model = ensure_model_file()
    texts = materials()
    rows = {}
    for label, slots, flash in (
        ("1 slot, flash attention off", 1, False),
        ("1 slot, flash attention on", 1, True),
        ("4 slots at once, flash attention on", 4, True),
    ):
        r = rows[label] = run(model, slots, flash, texts)
        print(
            f"{label:38s} wall {r['wall']:6.1f} s  prompt tokens computed {r['prompt']:5d}  "
            f"generated {r['generated']:4d} ({r['generated'] / r['wall']:.1f} tokens/s over the wall)"
        )
    off, on, four = rows.values()
    print(
        f"flash attention on / off, wall: {on['wall'] / off['wall']:.2f}; "
        f"4 slots / 1 slot, wall: {four['wall'] / on['wall']:.2f} "
        f"(4 slots compute {four['prompt'] / max(1, on['prompt']):.1f}x the prompt tokens: no prefix shared between slots)"
    )


if __name__ == "__main__":
    main()
