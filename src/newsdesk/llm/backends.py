"""Which model answers: one registry of backends, keyed by `llm.backend`, and the protocols they meet.

    BACKENDS["openai"]    any OpenAI-compatible endpoint (llm.base_url, llm.model)
    BACKENDS["embedded"]  Qwen2.5-0.5B through llama.cpp, in this process

Who writes is another setting (`[write] by`, write/writers.py): a backend only answers chat
calls. Adding a backend is one entry here; open_llm, the run's lazy model and the settings'
check all read this table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from newsdesk.llm.errors import LLMUnavailable


class ChatBackend(Protocol):
    """A backend's raw call (no cache, ledger or retries: llm.client.LLM adds those)."""

    name: str
    model: str

    def chat(self, messages: list[dict], *, max_tokens: int, temperature: float, schema: dict | None): ...


class ChatModel(Protocol):
    """What a writer asks: llm.client.LLM, a run's LazyLLM, or a test's scripted model."""

    model: str  # the name writers key their outputs on
    concurrency: int  # calls it answers at once

    def chat(self, messages: list[dict], *, stage: str, schema: dict | None = None, max_tokens: int | None = None,
             temperature: float | None = None): ...


@dataclass(frozen=True)
class Backend:
    name: str
    open: Callable[[object], ChatBackend]  # settings -> a backend ready to answer
    model_name: Callable[[object], str]  # settings -> its model's name, known without opening it
    concurrency: Callable[[object], int]  # llm settings -> calls at once


def _openai(settings) -> ChatBackend:
    from newsdesk.llm.openai_backend import OpenAIBackend

    cfg = settings.llm
    return OpenAIBackend(cfg.base_url, cfg.model, api_key_env=cfg.api_key_env, timeout=cfg.timeout, json_mode=cfg.json_mode)


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
