"""The response cache in the store: the same (model, messages, parameters) is never paid for twice."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime

from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Engine

from newsdesk.store.schema import llm_cache


def cache_key(model: str, messages: list[dict], params: dict) -> str:
    # Canonical JSON (sorted keys, no ASCII escaping) so a key never depends on dict order.
    blob = json.dumps(
        {"model": model, "messages": messages, "params": params},
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def lookup(engine: Engine, key: str) -> dict | None:
    with engine.connect() as conn:
        row = conn.execute(select(llm_cache.c.response).where(llm_cache.c.key == key)).first()
    return row.response if row else None


def store(engine: Engine, key: str, model: str, request: dict, response: dict) -> None:
    values = dict(key=key, model=model, request=request, response=response, created_at=datetime.now(UTC))
    with engine.begin() as conn:
        # Two workers may answer the same request at once; the first row wins, both are the same answer.
        ins = (postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert)(llm_cache)
        conn.execute(ins.values(**values).on_conflict_do_nothing(index_elements=["key"]))
