"""Chinese segmentation: rjieba (jieba-rs) beside jieba, word for word, on the harvest.

Every title and summary of tests/fixtures/news/ai-daily-harvest.jsonl, except the items dated
2026-03-09 … 03-15 (held out), is cut by both in each way newsdesk cuts (accurate mode with and
without HMM, search mode without HMM) and the word lists compared. Also the part-of-speech tags
(jieba.posseg vs rjieba.tag). Prints, per way, texts identical / all, the texts that differ, and
each backend's seconds (dictionary load not counted).

    .venv/bin/python benchmarks/segment_equality.py [--show 5]
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from pathlib import Path

import jieba
import jieba.posseg
import rjieba

from newsdesk.text import segment

ROOT = Path(__file__).resolve().parents[1]
HARVEST = ROOT / "tests" / "fixtures" / "news" / "ai-daily-harvest.jsonl"
HELD_OUT = ("2026-03-09", "2026-03-15")


def texts() -> list[str]:
    out = []
    for line in HARVEST.read_text("utf-8").splitlines():
        row = json.loads(line)
        if HELD_OUT[0] <= (row.get("pub_date") or "")[:10] <= HELD_OUT[1]:
            continue
        out += [t for t in (row.get("title"), row.get("summary")) if t]
    return out


WAYS = {
    "cut HMM": (lambda t: jieba.lcut(t), lambda t: rjieba.cut(t, True)),
    "cut no HMM": (lambda t: jieba.lcut(t, HMM=False), lambda t: rjieba.cut(t, False)),
    "search no HMM": (lambda t: list(jieba.cut_for_search(t, HMM=False)), lambda t: rjieba.cut_for_search(t, False)),
    "words() HMM": (lambda t: jieba.lcut(t), lambda t: segment.words(t)),
    "tags HMM": (
        lambda t: [(w.word, w.flag) for w in jieba.posseg.lcut(t)],
        lambda t: [tuple(p) for p in rjieba.tag(t, True)],
    ),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--show", type=int, default=5, help="differing texts to print per way")
    args = ap.parse_args()
    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()
    jieba.posseg.lcut("预热")
    rjieba.cut("预热")
    segment.words("预热 All-in")
    corpus = texts()
    print(f"{len(corpus)} texts (titles and summaries; {HELD_OUT[0]} … {HELD_OUT[1]} left out)")
    for way, (old, new) in WAYS.items():
        t0 = time.perf_counter()
        a = [old(t) for t in corpus]
        t1 = time.perf_counter()
        b = [new(t) for t in corpus]
        t2 = time.perf_counter()
        same = sum(x == y for x, y in zip(a, b, strict=True))
        words = sum(len(x) for x in a)
        print(
            f"{way:14s} identical {same}/{len(corpus)} texts ({words} words)  "
            f"jieba {t1 - t0:.2f}s  rjieba {t2 - t1:.2f}s  ({(t1 - t0) / max(t2 - t1, 1e-9):.1f}x)"
        )
        for x, y in [(x, y) for x, y in zip(a, b, strict=True) if x != y][: args.show]:
            diff = [(p, q) for p, q in zip(x, y, strict=False) if p != q][:3]
            print(f"    jieba {len(x)} words, rjieba {len(y)}; first differences {diff}")


if __name__ == "__main__":
    main()
