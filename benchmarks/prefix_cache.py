"""Prefix-cache reuse on the embedded model: shared-prefix prompt layout vs material-first, same run.

Writes N analyses (default 10) of real news items (tests/fixtures/news) twice through the
OpenAI-compatible HTTP path against the embedded llama.cpp server:

  shared prefix   system = policy + instructions + example (identical bytes), user = the event's material
  material first  the event's material, then the same policy and instructions

and prints, per layout, the share of prompt tokens the server served from its prefix cache
(usage.prompt_tokens_details.cached_tokens) and the wall time. Generation is capped at a few
tokens so the figures measure prompt processing, which is what the layout changes.

    .venv/bin/python benchmarks/prefix_cache.py [--n 10] [--max-tokens 8]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from newsdesk.core.config import Settings
from newsdesk.llm import open_llm
from newsdesk.store import open_store
from newsdesk.write.analysis import material_view, system_prompt, user_prompt

HARVEST = Path(__file__).resolve().parents[1] / "tests/fixtures/news/ai-daily-harvest.jsonl"


def briefs(n: int) -> list[dict]:
    out = []
    with HARVEST.open(encoding="utf-8") as fh:
        for i, line in enumerate(fh):
            if len(out) == n:
                break
            row = json.loads(line)
            when = datetime.fromisoformat(row["pub_date"]).replace(tzinfo=UTC)
            summary = (row.get("summary") or "") + ("\n" + row["core_point"] if row.get("core_point") else "")
            out.append(
                {
                    "event_id": i,
                    "title": row["title"],
                    "outlets": 1,
                    "independent_outlets": 1,
                    "languages": ["zh"],
                    "first_published_at": when,
                    "last_published_at": when,
                    "anchors": [],
                    "members": [
                        {
                            "source_name": row["source"],
                            "title": row["title"],
                            "url": row["link"],
                            "published_at": when,
                            "language": "zh",
                            "material_level": "summary",
                            "role": "lead",
                            "summary": summary,
                            "body": None,
                        }
                    ],
                }
            )
    return out


def run(llm, layouts: dict, events: list[dict], max_tokens: int) -> dict:
    results = {}
    system = system_prompt("zh")
    for name, build in layouts.items():
        prompt = cached = 0
        started = time.monotonic()
        for brief in events:
            reply = llm.chat(
                build(system, user_prompt(material_view(brief))), output=f"bench-{name}", max_tokens=max_tokens
            )
            prompt += reply.prompt_tokens
            cached += reply.cached_tokens
            print(
                f"  {name:15s} event {brief['event_id']:2d}: {reply.prompt_tokens:5d} prompt tokens, "
                f"{reply.cached_tokens:5d} from cache, {reply.latency_ms / 1000:6.1f}s",
                flush=True,
            )
        results[name] = {
            "prompt_tokens": prompt,
            "cached_tokens": cached,
            "share": cached / prompt if prompt else 0.0,
            "seconds": time.monotonic() - started,
        }
    return results


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10)
    ap.add_argument("--max-tokens", type=int, default=8)
    args = ap.parse_args()
    settings = Settings()
    settings.llm.backend = "embedded"
    with tempfile.TemporaryDirectory() as tmp:
        # A fresh store: the response cache must not answer for the model.
        engine = open_store(f"sqlite:///{tmp}/bench.db")
        llm = open_llm(settings, engine, run_id="bench-prefix")
        layouts = {
            "shared prefix": lambda system, material: [
                {"role": "system", "content": system},
                {"role": "user", "content": material},
            ],
            "material first": lambda system, material: [
                {"role": "system", "content": material + "\n\n" + system},
                {"role": "user", "content": "请写这个事件的分析。"},
            ],
        }
        res = run(llm, layouts, briefs(args.n), args.max_tokens)
    a, b = res["shared prefix"], res["material first"]
    print(f"\n{args.n} analyses each, max_tokens={args.max_tokens}, embedded {llm.model}")
    for name, r in res.items():
        print(
            f"{name:15s} {r['cached_tokens']:6d} / {r['prompt_tokens']:6d} prompt tokens from the prefix cache "
            f"= {r['share']:.1%}   wall {r['seconds']:.1f}s"
        )
    print(f"shared-prefix layout: {b['seconds'] / a['seconds']:.2f}x faster than material-first in this run")
    return 0


if __name__ == "__main__":
    sys.exit(main())
