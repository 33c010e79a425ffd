"""Does the embedded model help as the clusterer's arbiter? Calls, seconds and gain on gold files.

    PYTHONPATH=src .venv/bin/python benchmarks/cluster_arbiter.py [--budget 60] [--bands 0.05 0.10 0.15]
        [--threads 1] [--minutes 28] [--log RULINGS.jsonl] [FILE...]

Each file is embedded once (USE), then clustered at the default ClusterConfig:
- "score only": no arbiter. A silent arbiter (it never rules, so the score decides) counts the
  borderline placements a run would put to the model and how often the score alone is right on them;
- "arbiter ±band": llm_arbiter over the embedded Qwen2.5-0.5B (llama.cpp, 1 thread), at most
  --budget rulings per run, for each band (0.05 is the default; a wider one gives more rulings).

Each ruling is judged against gold: the item belongs with the event when its gold event is that
of the event's first member (what the arbiter reads as "the event"). Beside it, the score's own
call on the same placement (join when score >= 0): the arbiter helps only where it beats that.
A ruling asked twice (the same pair in a later run) is asked once; its seconds are those of the
first asking. --minutes after the start the arbiter stops asking (counted as "no ruling"); --log
writes every ruling (texts, score, gold, reply) as a JSON line.

Results: eval/clusters/arbiter.md. On 2 shared cores (load 1.5-5) a whole run, both files and three
bands, took 4-15 minutes (1.7-8 s a ruling; a reply cut off at max_tokens costs a repair, ~24 s).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import SimpleNamespace

from newsdesk.cluster.arbiter import llm_arbiter
from newsdesk.cluster.embed import UseEmbedder
from newsdesk.cluster.events import ClusterConfig, Clusterer, Doc
from newsdesk.core.config import Settings
from newsdesk.eval.clusters import read_eval_file, scores
from newsdesk.llm.client import LLMError, open_llm
from newsdesk.store import open_store

ROOT = Path(__file__).resolve().parents[1]
FILES = [ROOT / "eval/clusters/ai-news-dev.jsonl", ROOT / "eval/clusters/itn/itn-dev.jsonl"]


@dataclass
class Tally:
    """What one run's arbiter was asked and how it ruled, against gold."""

    calls: int = 0  # placements put to the arbiter
    seconds: list[float] = field(default_factory=list)  # model time of each ruling asked
    no_ruling: int = 0
    rulings: dict[str, int] = field(default_factory=dict)  # "keep right", "split wrong", ...
    score: dict[str, int] = field(default_factory=dict)  # the score's own call on the same placements

    def note(self, table: dict, keep: bool, belongs: bool) -> None:
        label = f"{'keep' if keep else 'split'} {'right' if keep == belongs else 'wrong'}"
        table[label] = table.get(label, 0) + 1


class Judged:
    """An arbiter that judges every placement it is asked about against gold, then asks `inner` (or no one).

    `inner(event_text, item_text)` -> (ruling or None, why there is none or None).
    """

    def __init__(self, gold: dict, inner=None, memo: dict | None = None, deadline: float = float("inf"), log=None):
        self.gold, self.inner, self.memo, self.deadline = gold, inner, memo if memo is not None else {}, deadline
        self.log = log  # a file: one JSON line per ruling, to read the wrong ones
        self.tally = Tally()

    def __call__(self, event_text: str, item_text: str):
        # The clusterer hands an arbiter texts only; its caller (Clusterer._match) holds the item, the
        # event (keyed by its first member, see cluster()) and the score the arbiter would overrule.
        caller = sys._getframe(1).f_locals
        doc, event, score = caller["doc"], caller["key"], caller["score"]
        belongs = self.gold[doc.key] == self.gold[event]
        t = self.tally
        t.calls += 1
        t.note(t.score, score >= 0, belongs)
        if self.inner is None:
            return None
        pair = (event_text, item_text)
        if pair not in self.memo:
            if time.monotonic() > self.deadline:
                t.no_ruling += 1
                return None
            started = time.perf_counter()
            self.memo[pair] = (*self.inner(event_text, item_text), time.perf_counter() - started)
        ruling, error, seconds = self.memo[pair]
        t.seconds.append(seconds)
        if ruling is None:
            t.no_ruling += 1
        else:
            t.note(t.rulings, ruling[0], belongs)
        if self.log:
            self.log.write(
                json.dumps(
                    {
                        "item": doc.key,
                        "event": event,
                        "belongs": belongs,
                        "score": round(score, 3),
                        "ruling": ruling,
                        "error": error,
                        "seconds": round(seconds, 1),
                        "event_text": event_text,
                        "item_text": item_text,
                    },
                    ensure_ascii=False,
                )
                + "\n"
            )
        return ruling


def cluster(rows, vectors, config: ClusterConfig, arbiter) -> list:
    """evaluate.cluster_items, with each event keyed by its first member's id (what the judge looks up)."""
    docs = [Doc(r.id, r.text, r.lang, r.ts, vectors[i]) for i, r in enumerate(rows)]
    clusterer = Clusterer(config, new_event=lambda doc: doc.key, arbiter=arbiter)
    out: list = [None] * len(docs)
    for i in sorted(range(len(docs)), key=lambda i: (docs[i].ts, str(docs[i].key))):
        out[i] = clusterer.add(docs[i]).event
    return out


def counts(table: dict, kind: str) -> str:
    return f"{table.get(kind + ' right', 0)} / {table.get(kind + ' wrong', 0)}"


def line(label: str, t: Tally, s: dict) -> str:
    xl = s["cross_lingual_recall"]
    secs = f"{sum(t.seconds):.0f} / {statistics.median(t.seconds):.1f}" if t.seconds else "–"
    ruled = f"{counts(t.rulings, 'keep')} | {counts(t.rulings, 'split')}" if t.rulings or t.no_ruling else "– | –"
    return (
        f"| {label} | {t.calls} | {t.no_ruling} | {secs} | {ruled} | {counts(t.score, 'keep')} | {counts(t.score, 'split')} | "
        f"{s['pairwise_precision']:.3f} | {s['pairwise_recall']:.3f} | {s['pairwise_f1']:.3f} | {s['bcubed_f1']:.3f} | "
        f"{'n/a' if xl is None else f'{xl:.3f}'} | {s['events']} |"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", type=Path, default=FILES)
    ap.add_argument("--budget", type=int, default=60, help="arbiter calls per run (ClusterConfig.arbiter_budget)")
    ap.add_argument("--bands", type=float, nargs="+", default=[0.05, 0.10, 0.15], help="arbiter bands, one run each")
    # One thread: on a shared, overloaded machine llama.cpp's threads wait for each other (benchmarks/embedded_drafts.py).
    ap.add_argument("--threads", type=int, default=1, help="llama.cpp threads (llm.embedded_threads)")
    ap.add_argument("--minutes", type=float, default=28.0, help="stop asking the model this long after the start")
    ap.add_argument("--log", type=Path, help="write every ruling here, one JSON line each")
    args = ap.parse_args()
    started = time.monotonic()
    deadline = started + args.minutes * 60
    embedder = UseEmbedder(threads=1)
    log = args.log.open("w", encoding="utf-8") if args.log else None
    with tempfile.TemporaryDirectory() as tmp:
        s = Settings(data_dir=tmp, site_dir=f"{tmp}/site")
        s.llm.backend, s.llm.embedded_threads = "embedded", args.threads
        llm = open_llm(s, open_store(s.database))  # loads the model: a failure here says why it cannot run
        errors: list[str] = []  # llm_arbiter turns a failed call into "no ruling"; this keeps why

        def chat(asked, **kwargs):
            try:
                return llm.chat(asked, **kwargs)
            except LLMError as exc:
                errors.append(str(exc))
                raise

        rule = llm_arbiter(SimpleNamespace(chat=chat))

        def model(event_text: str, item_text: str):
            n = len(errors)
            ruling = rule(event_text, item_text)
            return ruling, errors[-1] if len(errors) > n else None

        for path in args.files:
            rows = read_eval_file(path)
            gold = {r.id: r.event for r in rows}
            vectors = embedder.embed([r.text for r in rows])
            print(
                f"\n{path.name}: {len(rows)} items, {len(set(gold.values()))} gold events; default ClusterConfig, "
                f"at most {args.budget} rulings a run\n"
            )
            print(
                "| run | asked | no ruling | model s total / median | arbiter keep right / wrong | arbiter split right / wrong "
                "| score keep right / wrong | score split right / wrong | pair P | pair R | pair F1 | B³ F1 | zh–en R | events |"
            )
            print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
            memo: dict = {}
            for band in args.bands:
                config = replace(ClusterConfig(), arbiter_band=band, arbiter_budget=args.budget)
                silent = Judged(gold)  # it never rules: every borderline placement counted, none changed
                unlimited = replace(config, arbiter_budget=len(rows))
                print(
                    line(
                        f"score only (±{band:g} borderline)",
                        silent.tally,
                        scores(cluster(rows, vectors, unlimited, silent), rows),
                    ),
                    flush=True,
                )
                judged = Judged(gold, model, memo, deadline, log)
                print(
                    line(f"arbiter ±{band:g}", judged.tally, scores(cluster(rows, vectors, config, judged), rows)),
                    flush=True,
                )
        print(f"\n{llm.calls} model calls (schema repairs included), {time.monotonic() - started:.0f}s in all")


if __name__ == "__main__":
    main()
