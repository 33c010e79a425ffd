"""What a chat call is, apart from who answers it: a backend's raw reply and the two protocols.

ChatBackend  a backend's bare call (llm/openai_backend.py; the embedded model is one behind it)
ChatModel    what a writer or the arbiter asks: llm.client.LLM (cache, ledger, retries, budget),
             a run's LazyLLM, or a test's scripted model
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass
class RawReply:
    text: str
    finish_reason: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int
    latency_ms: int


class ChatBackend(Protocol):
    """A backend's raw call (no cache, ledger or retries: llm.client.LLM adds those)."""

    name: str
    model: str

    def chat(self, messages: list[dict], *, max_tokens: int, temperature: float, schema: dict | None) -> RawReply: ...


class ChatModel(Protocol):
    """What a writer asks: llm.client.LLM, a run's LazyLLM, or a test's scripted model."""

    @property
    def model(self) -> str:
        """The name writers key their outputs on."""

    @property
    def concurrency(self) -> int:
        """Calls it answers at once."""

    def chat(
        self,
        messages: list[dict],
        *,
        output: str,
        schema: dict | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ): ...
