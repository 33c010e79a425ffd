"""LLM access for every writing stage: one interface (client.LLM), backends from one registry (backends.py)."""

from newsdesk.llm.backends import BACKENDS
from newsdesk.llm.chat import ChatModel
from newsdesk.llm.client import LLM, LazyLLM, Reply, open_llm
from newsdesk.llm.errors import BudgetExhausted, LLMError, LLMUnavailable

__all__ = [
    "BACKENDS",
    "LLM",
    "BudgetExhausted",
    "ChatModel",
    "LLMError",
    "LLMUnavailable",
    "LazyLLM",
    "Reply",
    "open_llm",
]
