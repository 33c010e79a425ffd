"""The one LLM interface every stage uses: cache, ledger, retries, budget, structured output.

    llm = open_llm(settings, engine, run_id="2026-04-23T06:00")
    reply = llm.chat(messages, output="analysis", max_tokens=900)

A call first looks in the store's response cache (same model, messages and parameters:
no model call, a ledger row with cache_hit). Otherwise it checks the run's budget, waits
for a concurrency slot, calls the backend, retries timeouts / 429 / 5xx with backoff
(Retry-After wins when the server sends it), records a ledger row per attempt and caches
the answer. With a `schema`, the reply must be JSON that fits it; one repair call is made
with the problems spelled out, then the call fails.
"""

from __future__ import annotations

import json
import random
import re
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from sqlalchemy.engine import Engine

from newsdesk.llm import cache
from newsdesk.llm.backends import backend
from newsdesk.llm.chat import ChatModel, RawReply
from newsdesk.llm.errors import BudgetExhausted, FatalError, LLMError, LLMUnavailable, TransientError
from newsdesk.llm.schema_check import problems
from newsdesk.llm.usage import PriceTable, record, spent

__all__ = [
    "LLM",
    "LazyLLM",
    "BudgetExhausted",
    "LLMError",
    "LLMUnavailable",
    "Reply",
    "in_parallel",
    "open_llm",
    "parse_json",
]


@dataclass
class Reply:
    text: str
    data: dict | list | None
    model: str
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int
    cache_hit: bool
    latency_ms: int
    finish_reason: str = "stop"  # "length" = cut off at max_tokens

    @property
    def truncated(self) -> bool:
        return self.finish_reason == "length"


_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.S)


def parse_json(text: str):
    """The JSON value in a reply, tolerating a ``` fence around it; raises ValueError."""
    m = _FENCE.match(text)
    body = m.group(1) if m else text.strip()
    return json.loads(body)


def in_parallel(llm: ChatModel, fn: Callable, work: Iterable) -> list:
    """fn(x) for each x, up to llm.concurrency at once; results in the order of `work`.

    For calls that do not depend on each other (events, passages, sections), which a
    remote endpoint answers side by side; the embedded model's concurrency is 1 (see
    concurrency()). The first exception cancels what has not started and is raised once
    the running calls end.
    """
    work = list(work)
    workers = min(len(work), getattr(llm, "concurrency", 1))
    if workers <= 1:
        return [fn(x) for x in work]
    with ThreadPoolExecutor(workers, thread_name_prefix="llm") as pool:
        futures = [pool.submit(fn, x) for x in work]
        try:
            return [f.result() for f in futures]
        except BaseException:
            for f in futures:
                f.cancel()
            raise


class LLM:
    def __init__(
        self,
        backend,
        engine: Engine,
        *,
        run_id: str | None = None,
        concurrency: int = 4,
        retries: int = 3,
        backoff_base: float = 1.0,
        max_retry_after: float = 60.0,
        max_tokens: int = 1200,
        temperature: float = 0.3,
        budget_tokens: int = 0,
        budget_usd: float = 0.0,
        prices: PriceTable | None = None,
    ):
        self.backend = backend
        self.engine = engine
        self.run_id = run_id
        self.model = backend.model
        self.retries = retries
        self.backoff_base = backoff_base
        self.max_retry_after = max_retry_after
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.budget_tokens = budget_tokens
        self.budget_usd = budget_usd
        self.price = (prices or PriceTable([])).price(backend.model)
        self.concurrency = max(concurrency, 1)
        self._slots = threading.BoundedSemaphore(self.concurrency)
        self._lock = threading.Lock()
        self.spent_tokens = 0
        self.spent_usd = 0.0
        self.calls = 0  # model calls made (cache hits excluded)

    # -- public ---------------------------------------------------------------------

    def chat(
        self,
        messages: list[dict],
        *,
        output: str,
        schema: dict | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> Reply:
        reply = self._complete(messages, output=output, schema=schema, max_tokens=max_tokens, temperature=temperature)
        if schema is None:
            return reply
        issues = self._validate(reply.text, schema)
        if not issues:
            reply.data = parse_json(reply.text)
            return reply
        # One repair: show the model its own answer and exactly what is wrong with it.
        repair = messages + [
            {"role": "assistant", "content": reply.text},
            {
                "role": "user",
                "content": "That reply does not fit the required JSON schema: "
                + "; ".join(issues[:8])
                + ". Reply again with only the corrected JSON value, no prose, no code fence.",
            },
        ]
        fixed = self._complete(repair, output=output, schema=schema, max_tokens=max_tokens, temperature=temperature)
        issues = self._validate(fixed.text, schema)
        if issues:
            raise LLMError(
                f"model {self.model} ({output}): reply is not valid JSON for the schema after one repair ({issues[0]})"
            )
        fixed.data = parse_json(fixed.text)
        return fixed

    def close(self) -> None:
        close = getattr(self.backend, "close", None)
        if close:
            close()

    # -- internals ------------------------------------------------------------------

    @staticmethod
    def _validate(text: str, schema: dict) -> list[str]:
        try:
            value = parse_json(text)
        except ValueError as exc:
            return [f"not parseable JSON ({exc})"]
        return problems(value, schema)

    def _complete(self, messages, *, output, schema, max_tokens, temperature) -> Reply:
        params = {
            "max_tokens": max_tokens or self.max_tokens,
            "temperature": self.temperature if temperature is None else temperature,
        }
        if schema is not None:
            params["schema"] = schema
        key = cache.cache_key(self.model, messages, params)
        hit = cache.lookup(self.engine, key)
        if hit is not None:
            record(
                self.engine,
                run_id=self.run_id,
                output=output,  # the output the call is for: llm_usage.output
                backend=self.backend.name,
                model=self.model,
                cache_hit=True,
            )
            return Reply(
                text=hit["text"],
                data=None,
                model=hit.get("model", self.model),
                prompt_tokens=hit.get("prompt_tokens", 0),
                completion_tokens=hit.get("completion_tokens", 0),
                cached_tokens=hit.get("cached_tokens", 0),
                cache_hit=True,
                latency_ms=0,
                finish_reason=hit.get("finish_reason", "stop"),
            )
        raw = self._call(
            messages, output=output, schema=schema, max_tokens=params["max_tokens"], temperature=params["temperature"]
        )
        cache.store(
            self.engine,
            key,
            self.model,
            {"messages": messages, "params": params},
            {
                "text": raw.text,
                "finish_reason": raw.finish_reason,
                "model": raw.model,
                "prompt_tokens": raw.prompt_tokens,
                "completion_tokens": raw.completion_tokens,
                "cached_tokens": raw.cached_tokens,
            },
        )
        return Reply(
            text=raw.text,
            data=None,
            model=raw.model,
            prompt_tokens=raw.prompt_tokens,
            completion_tokens=raw.completion_tokens,
            cached_tokens=raw.cached_tokens,
            cache_hit=False,
            latency_ms=raw.latency_ms,
            finish_reason=raw.finish_reason,
        )

    def _spent(self) -> tuple[int, float]:
        """What the run has spent. With a run id, the store's ledger says: every process and worker
        that records calls for the run draws on one budget. Without one, this object's own count."""
        if self.run_id is None:
            with self._lock:
                return self.spent_tokens, self.spent_usd
        return spent(self.engine, self.run_id)

    def _check_budget(self, output: str) -> None:
        if not (self.budget_tokens or self.budget_usd):
            return
        tokens, usd = self._spent()
        if self.budget_tokens and tokens >= self.budget_tokens:
            raise BudgetExhausted(
                f"run budget of {self.budget_tokens} tokens (llm.budget_tokens) is spent; "
                f"the rest of '{output}' waits for the next run"
            )
        if self.budget_usd and usd >= self.budget_usd:
            raise BudgetExhausted(
                f"run budget of ${self.budget_usd:.2f} (llm.budget_usd) is spent; "
                f"the rest of '{output}' waits for the next run"
            )

    def _call(self, messages, *, output, schema, max_tokens, temperature) -> RawReply:
        attempt = 0
        while True:
            self._check_budget(output)
            started = time.monotonic()
            try:
                with self._slots:
                    raw = self.backend.chat(messages, max_tokens=max_tokens, temperature=temperature, schema=schema)
            except (TransientError, FatalError) as exc:
                record(
                    self.engine,
                    run_id=self.run_id,
                    output=output,
                    backend=self.backend.name,
                    model=self.model,
                    latency_ms=int((time.monotonic() - started) * 1000),
                    error=str(exc),
                )
                if isinstance(exc, TransientError):
                    if attempt >= self.retries:
                        raise LLMUnavailable(f"{exc}; gave up after {attempt + 1} attempts (llm.retries)") from None
                    wait = (
                        exc.retry_after
                        if exc.retry_after is not None
                        else self.backoff_base * (2**attempt) * (0.5 + random.random())
                    )
                    time.sleep(min(wait, self.max_retry_after))
                    attempt += 1
                    continue
                raise (LLMUnavailable if exc.unavailable else LLMError)(str(exc)) from None
            cost = self.price.cost(raw.prompt_tokens, raw.completion_tokens, raw.cached_tokens)
            with self._lock:
                self.spent_tokens += raw.prompt_tokens + raw.completion_tokens
                self.spent_usd += cost
                self.calls += 1
            record(
                self.engine,
                run_id=self.run_id,
                output=output,  # the output the call is for: llm_usage.output
                backend=self.backend.name,
                model=raw.model,
                prompt_tokens=raw.prompt_tokens,
                completion_tokens=raw.completion_tokens,
                cached_tokens=raw.cached_tokens,
                latency_ms=raw.latency_ms,
                cost_usd=cost,
            )
            return raw


def concurrency(cfg) -> int:
    """Calls at once: what the backend's registry entry allows (llm.concurrency for an endpoint; one for
    the embedded model, whose single llama.cpp slot would only queue them)."""
    return backend(cfg.backend).concurrency(cfg)


def open_llm(settings, engine: Engine, *, run_id: str | None = None) -> LLM:
    """The LLM for this run, with the backend settings.llm.backend names (see llm/backends.py)."""
    cfg = settings.llm
    chosen = backend(cfg.backend)
    return LLM(
        chosen.open(settings),
        engine,
        run_id=run_id,
        concurrency=concurrency(cfg),
        retries=cfg.retries,
        backoff_base=cfg.backoff_base,
        max_retry_after=cfg.max_retry_after,
        max_tokens=cfg.max_tokens,
        temperature=cfg.temperature,
        budget_tokens=cfg.budget_tokens,
        budget_usd=cfg.budget_usd,
        prices=PriceTable.load(cfg.prices_file or None),
    )


class LazyLLM:
    """Opens the model only when a writer actually asks it something.

    Starting the embedded model costs seconds; a run with nothing to write must not pay it.
    `run_id` is keyword-only: it keys the run's budget in the ledger, so a constant passed there
    (a command's name) would make one budget of every run.
    """

    def __init__(self, settings, engine: Engine, *, run_id: str | None):
        self._args = (settings, engine)
        self._run_id = run_id
        self._llm: LLM | None = None
        self._opening = threading.Lock()  # writers call from several threads: one model, not one each

    @property
    def model(self) -> str:
        """Known without starting anything: writers key their outputs on it."""
        if self._llm is not None:
            return self._llm.model
        return backend(self._args[0].llm.backend).model_name(self._args[0])

    @property
    def concurrency(self) -> int:
        return self._llm.concurrency if self._llm is not None else concurrency(self._args[0].llm)

    @property
    def run_id(self) -> str | None:
        return self._run_id

    def chat(
        self,
        messages: list[dict],
        *,
        output: str,
        schema: dict | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> Reply:
        return self._open().chat(messages, output=output, schema=schema, max_tokens=max_tokens, temperature=temperature)

    def __getattr__(self, name):
        if name.startswith("_"):  # not the model's: asked before __init__ ran (copy, pickle)
            raise AttributeError(name)
        return getattr(self._open(), name)

    def _open(self) -> LLM:
        with self._opening:
            if self._llm is None:
                self._llm = open_llm(*self._args, run_id=self._run_id)
        return self._llm

    @property
    def opened(self) -> bool:
        return self._llm is not None
