"""Real drafts of the embedded model, kept as checker fixtures: what the checks are measured on.

The embedded Qwen2.5-0.5B writes through the real writers on the demo pack, under small caps:
an analysis of the most important event (zh + en), a weekly of 3 themes x 2 events + 3 briefs,
an episode digest of the demo podcast cut to 2 sections, and its English translation. Every
text a writer hands to the checker (first drafts, rewrites, and the digests they assemble) is
saved as one JSON file in tests/fixtures/drafts/embedded/ with the material it was checked
against, the prompt and raw reply of the model call behind it, the model id and the seconds
that call took; so is every answer no checker saw (JSON cut off at the token limit, that fit
no schema), its prose against the prompt's material. Then it prints, per check, how many
drafts it flagged.

    PYTHONPATH=src .venv/bin/python benchmarks/embedded_drafts.py [--minutes 28] [--threads 1]
        [--writers analysis weekly episode translation] [--out DIR] [--store DIR]

Each writer gets an equal share of --minutes (what one leaves unused goes to the next); past
its share a call that would reach the model is answered as a spent budget and the writer
stops, so the run ends near --minutes even on a loaded machine (one call already under way
runs to its end). On 2 shared cores under load 11-18 a call took 4-15 minutes (median 10). --store keeps the
store: a re-run writes everything again, the answers given before come from its cache at no
cost, and only what was not reached asks the model. A file of the same draft and material
keeps its `labels` (the defects a person found by reading it; null: not labelled yet), `note`
and seconds. `newsdesk eval checker --drafts DIR` scores each check against those labels.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import tempfile
import time
from collections import Counter
from importlib import resources
from pathlib import Path

from sqlalchemy import select

from newsdesk.core.config import Settings
from newsdesk.core.errors import NewsdeskError
from newsdesk.editions.weekly import build_weekly
from newsdesk.eval.checker import check_draft
from newsdesk.llm.client import BudgetExhausted, LLMError, open_llm
from newsdesk.run.pipeline import run_pipeline
from newsdesk.store import open_store
from newsdesk.store.schema import analyses, editions, llm_usage
from newsdesk.write import analysis, episode, translate, weekly
from newsdesk.write.episode_plan import EpisodeOptions

PACK = Path(str(resources.files("newsdesk") / "data" / "demo"))
OUT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "drafts" / "embedded"
MAX_TOKENS = 450  # per answer: room for a short analysis or a 2-item section, not for a long loop
WRITERS = ("analysis", "weekly", "episode", "translation")
EPISODE = EpisodeOptions(min_sections=2, max_sections=2, summary_min=2, summary_max=3, summary_target=3, max_tokens=300)


class Recorder:
    """The real model, each answer noted (prompt, reply, seconds), schema repairs and cached answers included.
    Past the deadline a call that would reach the model is answered as a spent budget; cached answers still come."""

    def __init__(self, llm, engine):
        self.llm, self.engine, self.deadline, self.calls = llm, engine, float("inf"), []
        ask, complete = llm.backend.chat, llm._complete  # the HTTP call; one attempt, cached or not (the client's own)

        def timed(*args, **kwargs):
            if time.monotonic() > self.deadline:
                raise BudgetExhausted("this writer's share of --minutes is spent")
            return ask(*args, **kwargs)

        def noted(messages, **kwargs):
            started = time.perf_counter()
            reply = complete(messages, **kwargs)
            seconds = self._first_seconds(reply) if reply.cache_hit else round(time.perf_counter() - started, 1)
            self.calls.append(
                {
                    "messages": messages,
                    "reply": reply.text,
                    "finish_reason": reply.finish_reason,
                    "model": reply.model,
                    "seconds": seconds,
                    "output": kwargs.get("output"),
                    "prompt_tokens": reply.prompt_tokens,
                    "completion_tokens": reply.completion_tokens,
                }
            )
            return reply

        llm.backend.chat, llm._complete = timed, noted

    def _first_seconds(self, reply) -> float | None:
        """A cached answer took its time when it was first asked: the ledger's row with the same token counts."""
        with self.engine.connect() as conn:
            ms = conn.execute(
                select(llm_usage.c.latency_ms).where(
                    llm_usage.c.cache_hit.is_(False),
                    llm_usage.c.prompt_tokens == reply.prompt_tokens,
                    llm_usage.c.completion_tokens == reply.completion_tokens,
                )
            ).scalar()
        return round(ms / 1000, 1) if ms else None

    def chat(self, messages, **kwargs):
        return self.llm.chat(messages, **kwargs)

    def __getattr__(self, name):
        return getattr(self.llm, name)


def _reply_text(reply: str) -> str:
    """The prose of a raw reply: the string values of its JSON, cut off or not, one a line; else the text."""
    values = re.findall(r'"(?:[^"\\]|\\.)*"\s*(?=[,}\]]|$)|"(?:[^"\\]|\\.)*$', reply.strip())
    if not reply.lstrip().startswith("{") or not values:
        return reply
    out = []
    for v in (v.rstrip() for v in values):
        try:
            out.append(json.loads(v if v.endswith('"') and len(v) > 1 else v + '"'))
        except json.JSONDecodeError:
            out.append(v.strip('"'))
    return "\n".join(v for v in out if v.strip())


class Drafts:
    """Every text the writers hand to the checker, with its material and the model call behind it."""

    def __init__(self, recorder: Recorder):
        self.recorder, self.saved, self.writer, self.used = recorder, [], "", set()
        self.seen = 0  # calls looked at by unchecked()

    def unchecked(self) -> None:
        """The answers no checker saw (a reply that fit no schema, cut off at the token limit, then repaired or
        dropped): kept too, their prose against the prompt's last user message, since readers never see them
        only because the form failed."""
        for n, call in enumerate(self.recorder.calls[self.seen :], self.seen):
            if n not in self.used:
                user = [m["content"] for m in call["messages"] if m["role"] == "user"]
                self.saved.append(
                    {
                        "kind": f"{self.writer} (unchecked reply)",
                        "language": "en" if call["output"] == "translation" else "zh",
                        "material": user[:1],
                        "draft": _reply_text(call["reply"]),
                        "model": call["model"],
                        "seconds": call["seconds"],
                        "finish_reason": call["finish_reason"],
                        "prompt": call["messages"],
                        "reply": call["reply"],
                        "labels": None,
                        "note": "",
                    }
                )
        self.seen = len(self.recorder.calls)

    def _keep(self, draft: str, material: list[str], language: str, own: list[str] | None = None) -> None:
        call = self.recorder.calls[-1] if self.recorder.calls else {}
        caller = sys._getframe(2).f_code.co_name  # the writer's step: check, wrong_event, _section_from, _check …
        self.used.add(len(self.recorder.calls) - 1)
        self.saved.append(
            {
                "kind": f"{self.writer} ({caller})",
                "language": language,
                "material": list(material),
                **({"own": list(own)} if own is not None else {}),
                "draft": draft,
                "model": call.get("model"),
                "seconds": call.get("seconds"),
                "finish_reason": call.get("finish_reason"),
                "prompt": call.get("messages"),
                "reply": call.get("reply"),
                "labels": None,
                "note": "",
            }
        )

    def watch(self) -> None:
        """Wrap the checker where each writer calls it: the wrapper notes the text, then checks as before."""

        def check_output(original):
            def noted(text, material_texts, **kw):
                self._keep(text, material_texts, kw.get("language", "zh"))
                return original(text, material_texts, **kw)

            return noted

        def checker_errors(original):
            def noted(text, material, language="zh"):
                self._keep(text, material, language)
                return original(text, material, language)

            return noted

        def check_subject(original):
            def noted(text, own, wider, **kw):
                self._keep(text, wider, kw.get("language", "zh"), own)
                return original(text, own, wider, **kw)

            return noted

        for module, name, wrap in (
            (analysis, "check_output", check_output),
            (weekly, "check_output", check_output),
            (weekly, "check_subject", check_subject),
            (episode, "checker_errors", checker_errors),
            (translate, "checker_errors", checker_errors),
        ):
            setattr(module, name, wrap(getattr(module, name)))


def _name(case: dict) -> str:
    digest = hashlib.sha256(json.dumps([case["draft"], case["material"], case.get("own")], ensure_ascii=False).encode())
    return f"{case['kind'].split()[0]}_{digest.hexdigest()[:10]}"


def save(cases: list[dict], out: Path) -> dict[str, dict]:
    """One file per distinct draft; hand labels of a file with the same name (same draft and material) are kept."""
    out.mkdir(parents=True, exist_ok=True)
    kept = {}
    for case in cases:
        name = _name(case)
        path = out / f"{name}.json"
        if path.exists():
            old = json.loads(path.read_text(encoding="utf-8"))
            case["labels"], case["note"] = old.get("labels"), old.get("note", "")
            case["seconds"] = case["seconds"] or old.get("seconds")
            for key in ("checker_misses", "checker_false_flags"):
                if key in old:
                    case[key] = old[key]
        path.write_text(json.dumps(case, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        kept[name] = case
    return kept


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=28.0, help="stop asking the model after about this long")
    ap.add_argument("--out", type=Path, default=OUT, help="where the drafts go")
    ap.add_argument("--store", type=Path, help="keep the store here (a re-run reuses the model's cached answers)")
    # One thread by default: on a shared, overloaded machine llama.cpp's threads wait for each other at every
    # step (a 2-thread run here got no answer in 14 minutes); one thread alone gets its share of a core.
    ap.add_argument("--threads", type=int, default=1, help="llama.cpp threads (llm.embedded_threads)")
    ap.add_argument(
        "--writers",
        nargs="+",
        default=list(WRITERS),
        choices=WRITERS,
        help="which writers, in this order (a re-run with --store can go on with the ones not reached)",
    )
    args = ap.parse_args()
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.store or Path(tmp)
        s = Settings(data_dir=str(folder), site_dir=str(folder / "site"))
        s.llm.backend, s.llm.max_tokens, s.llm.embedded_threads = "embedded", MAX_TOKENS, args.threads
        engine = open_store(s.database)
        report = run_pipeline(engine, s, stages=["ingest", "cluster", "rank"], source=PACK)
        print(
            f"demo pack stored and clustered in {report.total_seconds:.0f}s; problems: {report.problems or 'none'}",
            flush=True,
        )
        with engine.begin() as conn:  # written again each run: with --store, answers given before come from the cache
            conn.execute(analyses.delete())
            conn.execute(editions.delete())
        recorder = Recorder(open_llm(s, engine), engine)
        drafts = Drafts(recorder)
        drafts.watch()
        from newsdesk.ingest.transcripts import load_transcript

        title, turns = load_transcript(str(PACK / "transcripts" / "newsdesk-week-in-review.vtt"), s.fetch)
        zh = []
        steps = [
            ("analysis", lambda: analysis.write_analyses(engine, s, recorder, limit=1)),
            ("weekly", lambda: build_weekly(engine, s, recorder, max_sections=3, per_section=2, max_briefs=3)),
            (
                "episode",
                lambda: zh.append(episode.write_episode(engine, s, recorder, turns, title=title, options=EPISODE)),
            ),
            (
                "translation",
                lambda: (
                    zh
                    and translate.translate_episode(
                        engine, s, recorder, zh[0], turns, original_title=title, options=EPISODE
                    )
                ),
            ),
        ]
        steps = [(writer, run) for writer, run in steps if writer in args.writers]
        steps.sort(key=lambda step: args.writers.index(step[0]))
        for n, (writer, run) in enumerate(steps):
            end = started + args.minutes * 60
            recorder.deadline = time.monotonic() + (end - time.monotonic()) / (len(steps) - n)
            drafts.writer, t = writer, time.perf_counter()
            try:
                run()
            except (
                NewsdeskError,
                LLMError,
            ) as exc:  # one writer failing (no usable reply) leaves the others their turn
                print(f"{writer}: {type(exc).__name__}: {exc}", flush=True)
            drafts.unchecked()
            kept = save(drafts.saved, args.out)  # after each writer: a killed run keeps what it had
            print(
                f"{writer}: {time.perf_counter() - t:.0f}s, {len(kept)} drafts so far, "
                f"{len(recorder.calls)} model calls",
                flush=True,
            )
    seconds = [c["seconds"] for c in recorder.calls]
    print(
        f"{len(kept)} drafts saved in {args.out} from {len(seconds)} model calls "
        f"({sum(seconds):.0f}s of model time, median {sorted(seconds)[len(seconds) // 2] if seconds else 0:.0f}s a call, "
        f"{time.monotonic() - started:.0f}s in all)"
    )
    flagged = Counter(kind for case in kept.values() for kind in {f.kind for f in check_draft(case)})
    print("drafts flagged, per check: " + ", ".join(f"{k} {flagged[k]}" for k in sorted(flagged)))


if __name__ == "__main__":
    main()
