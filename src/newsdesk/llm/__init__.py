"""LLM access for every writing stage: one interface (client.LLM), two backends (OpenAI-compatible HTTP, embedded llama.cpp)."""

from newsdesk.llm.client import LLM, BudgetExhausted, LLMError, LLMUnavailable, Reply, open_llm

__all__ = ["LLM", "BudgetExhausted", "LLMError", "LLMUnavailable", "Reply", "open_llm"]
