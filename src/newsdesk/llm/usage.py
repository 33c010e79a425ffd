"""The usage ledger: one `llm_usage` row per chat call, and cost from an editable price table.

Prices are USD per million tokens, matched by model-name pattern (fnmatch, first match wins).
The packaged table is llm/prices.toml; `llm.prices_file` points at a user's own copy.
"""

from __future__ import annotations

import fnmatch
import tomllib
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path

from sqlalchemy import func, insert, select
from sqlalchemy.engine import Engine

from newsdesk.llm.errors import LLMUnavailable
from newsdesk.store.schema import llm_usage


@dataclass(frozen=True)
class Price:
    input: float = 0.0  # USD per million prompt tokens not served from the provider's cache
    cached_input: float = 0.0  # USD per million prompt tokens served from the cache
    output: float = 0.0  # USD per million completion tokens

    def cost(self, prompt_tokens: int, completion_tokens: int, cached_tokens: int) -> float:
        fresh = max(prompt_tokens - cached_tokens, 0)
        return (fresh * self.input + cached_tokens * self.cached_input + completion_tokens * self.output) / 1e6


class PriceTable:
    def __init__(self, rows: list[tuple[str, Price]]):
        self.rows = rows

    @classmethod
    def load(cls, path: str | Path | None = None) -> PriceTable:
        if path:
            p = Path(path)
            try:
                data = tomllib.loads(p.read_text(encoding="utf-8"))
            except FileNotFoundError:
                raise LLMUnavailable(
                    f"llm.prices_file {p}: not found; fix the path or leave it empty for the packaged prices"
                ) from None
            except tomllib.TOMLDecodeError as exc:
                raise LLMUnavailable(f"llm.prices_file {p}: not valid TOML ({exc})") from None
            where = str(p)
        else:
            data = tomllib.loads(resources.files("newsdesk.llm").joinpath("prices.toml").read_text(encoding="utf-8"))
            where = "packaged prices.toml"
        rows = []
        for entry in data.get("model", []):
            try:
                rows.append(
                    (
                        str(entry["match"]),
                        Price(
                            float(entry.get("input", 0)),
                            float(entry.get("cached_input", entry.get("input", 0))),
                            float(entry.get("output", 0)),
                        ),
                    )
                )
            except (KeyError, TypeError, ValueError):
                raise LLMUnavailable(
                    f'{where}: each [[model]] needs match = "pattern" and numeric input/cached_input/output'
                ) from None
        return cls(rows)

    def price(self, model: str) -> Price:
        name = model.lower()
        for pattern, price in self.rows:
            if fnmatch.fnmatch(name, pattern.lower()):
                return price
        return Price()


def record(
    engine: Engine,
    *,
    run_id: str | None,
    output: str,
    backend: str,
    model: str,
    prompt_tokens: int = 0,
    completion_tokens: int = 0,
    cached_tokens: int = 0,
    latency_ms: int = 0,
    cost_usd: float = 0.0,
    cache_hit: bool = False,
    error: str | None = None,
) -> None:
    with engine.begin() as conn:
        conn.execute(
            insert(llm_usage).values(
                at=datetime.now(UTC),
                run_id=run_id,
                output=output,
                backend=backend,
                model=model,
                prompt_tokens=prompt_tokens,
                completion_tokens=completion_tokens,
                cached_tokens=cached_tokens,
                latency_ms=latency_ms,
                cost_usd=cost_usd,
                cache_hit=cache_hit,
                error=error,
            )
        )


def spent(engine: Engine, run_id: str) -> tuple[int, float]:
    """Tokens and dollars the run `run_id` has spent so far, by every process that recorded calls for it."""
    with engine.connect() as conn:
        tokens, usd = conn.execute(
            select(
                func.coalesce(func.sum(llm_usage.c.prompt_tokens + llm_usage.c.completion_tokens), 0),
                func.coalesce(func.sum(llm_usage.c.cost_usd), 0.0),
            ).where(llm_usage.c.run_id == run_id)
        ).one()
    return int(tokens), float(usd)
