"""One chat call to an OpenAI-compatible endpoint through the `openai` SDK.

The SDK's own retries are off: the client (llm/client.py) retries, so every attempt is
visible in the ledger and Retry-After is honoured the same way for every backend.
"""

from __future__ import annotations

import json
import os
import time
from urllib.parse import urlparse

import openai

from newsdesk.llm.chat import RawReply
from newsdesk.llm.errors import FatalError, LLMUnavailable, TransientError


def _is_loopback(url: str) -> bool:
    host = (urlparse(url).hostname or "").lower()
    return host in ("localhost", "127.0.0.1", "::1") or host.startswith("127.")


def _retry_after(exc: openai.APIStatusError) -> float | None:
    value = exc.response.headers.get("retry-after") if exc.response is not None else None
    if not value:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        return None  # an HTTP date: fall back to our own backoff


def _cut(body: str, keep: int = 120) -> str:
    """What a server answered, as one short quoted line for an error."""
    line = " ".join(body.split())
    return repr(line if len(line) <= keep else line[:keep] + "…") if line else "an empty body"


class OpenAIBackend:
    name = "openai"

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key_env: str = "OPENAI_API_KEY",
        timeout: float = 120.0,
        json_mode: str = "schema",
        name: str = "openai",
    ):
        if not base_url:
            raise LLMUnavailable(
                'llm.base_url is empty; set it to your endpoint (e.g. https://api.deepseek.com/v1) or use llm.backend = "embedded"'
            )
        if not model:
            raise LLMUnavailable(f"llm.model is empty; set the model name {base_url} serves")
        key = os.environ.get(api_key_env, "")
        if not key:
            if not _is_loopback(base_url):
                raise LLMUnavailable(
                    f"model endpoint {base_url}: environment variable {api_key_env} (llm.api_key_env) is not set; export the API key"
                )
            key = "no-key"  # local servers (llama.cpp, vLLM, Ollama) accept any key
        self.base_url = base_url
        self.model = model
        self.json_mode = json_mode
        self.name = name
        self._client = openai.OpenAI(base_url=base_url, api_key=key, timeout=timeout, max_retries=0)

    def chat(self, messages: list[dict], *, max_tokens: int, temperature: float, schema: dict | None) -> RawReply:
        kwargs: dict = {"model": self.model, "messages": messages, "max_tokens": max_tokens, "temperature": temperature}
        if schema is not None and self.json_mode == "schema":
            kwargs["response_format"] = {"type": "json_schema", "json_schema": {"name": "reply", "schema": schema}}
        elif schema is not None and self.json_mode == "object":
            kwargs["response_format"] = {"type": "json_object"}
        started = time.monotonic()
        try:
            answer = self._client.chat.completions.with_raw_response.create(**kwargs)
        except openai.APITimeoutError:
            raise TransientError(f"model endpoint {self.base_url}: timed out") from None
        except openai.APIConnectionError as exc:
            cause = exc.__cause__
            if "refused" in f"{cause} {exc}".lower():
                raise FatalError(
                    f"model endpoint {self.base_url}: connection refused; check llm.base_url or start the server"
                ) from None
            raise TransientError(f"model endpoint {self.base_url}: connection failed ({cause or exc})") from None
        except openai.RateLimitError as exc:
            raise TransientError(f"model endpoint {self.base_url}: rate limited (429)", _retry_after(exc)) from None
        except openai.InternalServerError as exc:
            raise TransientError(
                f"model endpoint {self.base_url}: server error {exc.status_code}", _retry_after(exc)
            ) from None
        except openai.AuthenticationError:
            raise FatalError(
                f"model endpoint {self.base_url}: the API key was refused (401); check the variable named by llm.api_key_env"
            ) from None
        except openai.NotFoundError:
            raise FatalError(
                f"model endpoint {self.base_url}: model '{self.model}' or the chat route not found (404); check llm.model and llm.base_url"
            ) from None
        except openai.APIStatusError as exc:
            if exc.status_code == 408:
                raise TransientError(f"model endpoint {self.base_url}: request timeout (408)") from None
            # e.g. 400 for a prompt longer than the context: this request fails, the next may not.
            raise FatalError(
                f"model endpoint {self.base_url}: HTTP {exc.status_code}: {str(exc)[:200]}", unavailable=False
            ) from None
        latency_ms = int((time.monotonic() - started) * 1000)
        body = answer.http_response.text
        try:
            json.loads(body)
        except ValueError:  # a web page, a proxy's error page, a truncated body: not an API that answers in JSON
            raise FatalError(
                f"model endpoint {self.base_url}: answered HTTP {answer.http_response.status_code} with "
                f"a body that is not JSON ({_cut(body)}); set llm.base_url to the root of an "
                "OpenAI-compatible API (most end in /v1)"
            ) from None
        resp = answer.parse()
        if not getattr(resp, "choices", None):
            raise TransientError(f"model endpoint {self.base_url}: reply without choices ({_cut(body)})")
        choice = resp.choices[0]
        usage = resp.usage
        details = getattr(usage, "prompt_tokens_details", None) if usage else None
        return RawReply(
            text=choice.message.content or "",
            finish_reason=choice.finish_reason or "stop",
            model=resp.model or self.model,
            prompt_tokens=(usage.prompt_tokens or 0) if usage else 0,
            completion_tokens=(usage.completion_tokens or 0) if usage else 0,
            cached_tokens=(getattr(details, "cached_tokens", 0) or 0) if details else 0,
            latency_ms=latency_ms,
        )
