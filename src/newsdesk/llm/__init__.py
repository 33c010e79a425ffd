"""LLM access for every writing stage: one interface (client.LLM), two backends (OpenAI-compatible HTTP, embedded llama.cpp)."""

from newsdesk.llm.client import LLM, Reply, open_llm
from newsdesk.llm.errors import BudgetExhausted, LLMError, LLMUnavailable

__all__ = ["LLM", "BudgetExhausted", "LLMError", "LLMUnavailable", "Reply", "open_llm"]
