"""`newsdesk run` on the demo pack: first run, then a second run with no new input.

Prints wall time and model calls of each, and the ratio (target: zero model calls and
under 5% of the first run's time on the second run). Uses the embedded model.

    .venv/bin/python benchmarks/pipeline_rerun.py [--analyses 5] [--demo]

--demo runs with the demo command's limits (newsdesk.run.pipeline.DEMO_LIMITS) instead; --offline as
`newsdesk demo` runs (extractive writing, no model, no arbiter); --profile prints the second run's
costliest calls (what the do-nothing pass still does).
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import pstats
import tempfile
import time
from importlib import resources
from pathlib import Path

from sqlalchemy import func, select

from newsdesk.core.config import load_settings
from newsdesk.run.pipeline import DEMO_LIMITS, Limits, run_pipeline
from newsdesk.store import open_store
from newsdesk.store.schema import llm_usage


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--analyses", type=int, default=5)
    ap.add_argument("--demo", action="store_true", help="the demo command's limits")
    ap.add_argument("--offline", action="store_true", help="as `newsdesk demo`: extractive, no model")
    ap.add_argument("--profile", action="store_true", help="profile the second run")
    args = ap.parse_args()
    limits = DEMO_LIMITS if args.demo else Limits(analyses=args.analyses)
    pack = Path(str(resources.files("newsdesk") / "data" / "demo"))
    with tempfile.TemporaryDirectory() as tmp:
        s = load_settings(env={})
        s.data_dir, s.site_dir = tmp, str(Path(tmp) / "site")
        if args.offline:
            s.write = dataclasses.replace(s.write, by="extractive")
            s.llm = dataclasses.replace(s.llm, arbitrate_merges=False)
        engine = open_store(s.database)
        rows = []
        for label in ("first run", "second run (no new input)"):
            profiler = cProfile.Profile() if args.profile and rows else None
            started = time.perf_counter()
            if profiler:
                profiler.enable()
            report = run_pipeline(engine, s, limits=limits, source=pack)
            wall = time.perf_counter() - started
            if profiler:
                profiler.disable()
                pstats.Stats(profiler).sort_stats("cumulative").print_stats(40)
            rows.append((label, wall, report.model_calls, report))
            print(
                f"{label:28s} {wall:8.1f} s  {report.model_calls:4d} model calls  "
                + "  ".join(f"{k} {v:.1f}s" for k, v in report.seconds.items())
            )
            for p in report.problems:
                print("   problem:", p)
            with engine.connect() as conn:
                per_output = conn.execute(
                    select(
                        llm_usage.c.output,
                        func.count(),
                        func.sum(llm_usage.c.prompt_tokens),
                        func.sum(llm_usage.c.cached_tokens),
                        func.sum(llm_usage.c.completion_tokens),
                    )
                    .where(llm_usage.c.run_id == report.run_id, llm_usage.c.cache_hit.is_(False))
                    .group_by(llm_usage.c.output)
                ).all()
            for output, calls, prompt, cached, completion in per_output:
                print(
                    f"   {output:10s} {calls:3d} calls  prompt {prompt or 0:6d} tokens ({cached or 0} cached)  "
                    f"completion {completion or 0:6d} tokens"
                )
        first, second = rows[0][1], rows[1][1]
        print(
            f"second / first wall time: {second / first:.3%} (target < 5%); second-run model calls: {rows[1][2]} (target 0)"
        )


if __name__ == "__main__":
    main()
