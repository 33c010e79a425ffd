"""Which model answers: one registry of backends, keyed by `llm.backend`, and the protocols they meet.

    BACKENDS["openai"]    any OpenAI-compatible endpoint (llm.base_url, llm.model)
    BACKENDS["embedded"]  Qwen2.5-0.5B through llama.cpp, in this process

Who writes is another setting (`[write] by`, write/writers.py): a backend only answers chat
calls (llm/chat.py says what a call is). Adding a backend is one entry here; open_llm and the run's
lazy model read this table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from newsdesk.llm.chat import ChatBackend
from newsdesk.llm.errors import LLMUnavailable


@dataclass(frozen=True)
class Backend:
    name: str
    open: Callable[[object], ChatBackend]  # settings -> a backend ready to answer
    model_name: Callable[[object], str]  # settings -> its model's name, known without opening it
    concurrency: Callable[[object], int]  # llm settings -> calls at once


def _openai(settings) -> ChatBackend:
    from newsdesk.llm.openai_backend import OpenAIBackend

    cfg = settings.llm
    return OpenAIBackend(
        cfg.base_url, cfg.model, api_key_env=cfg.api_key_env, timeout=cfg.timeout, json_mode=cfg.json_mode
    )


def _embedded(settings) -> ChatBackend:
    from newsdesk.llm.embedded import embedded_backend

    return embedded_backend(settings)


def _embedded_name(settings) -> str:
    from newsdesk.llm.embedded import MODEL_NAME

    return MODEL_NAME


BACKENDS = {
    "openai": Backend("openai", _openai, lambda s: s.llm.model, lambda cfg: max(1, cfg.concurrency)),
    # One llama.cpp slot: concurrent calls would only queue behind each other (see llm/embedded.py).
    "embedded": Backend("embedded", _embedded, _embedded_name, lambda cfg: 1),
}


def backend(name: str) -> Backend:
    if name not in BACKENDS:
        raise LLMUnavailable(f"llm.backend = {name!r} is not known; use {' or '.join(map(repr, BACKENDS))}")
    return BACKENDS[name]
