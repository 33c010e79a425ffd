"""Copy one split of QMSum (github Yale-LILY/QMSum, `data/ALL/jsonl/<split>.jsonl`) into
eval/digest/data/, checking that every line is a meeting `newsdesk eval digest` can read:
speaker turns, topic spans and a general query's answer.

    PYTHONPATH=src python eval/digest/convert_qmsum.py /work/.mirror/Yale-LILY+QMSum/repo \
        eval/digest/data/qmsum-test.jsonl --split test

The source is a checkout or a bare git directory (the search tool's `fetch` leaves one); a bare
one is read at HEAD. Lines are copied byte for byte, so a rerun on the same commit writes the
same file. QMSum is MIT-licensed (Zhong et al., NAACL 2021; LICENSE-qmsum beside the data).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path


def read_split(source: Path, split: str) -> tuple[bytes, str]:
    """The split's bytes and the commit they came from ('' for a plain folder that is no git tree)."""
    rel = f"data/ALL/jsonl/{split}.jsonl"
    if (source / rel).is_file():
        data = (source / rel).read_bytes()
    else:  # a bare git directory
        data = subprocess.run(
            ["git", "--git-dir", str(source), "show", f"HEAD:{rel}"], capture_output=True, check=True
        ).stdout
    git_dir = source if not (source / ".git").exists() else source / ".git"
    commit = subprocess.run(["git", "--git-dir", str(git_dir), "rev-parse", "HEAD"], capture_output=True, text=True)
    return data, commit.stdout.strip()


def check(line: bytes, no: int) -> None:
    row = json.loads(line)
    turns = row["meeting_transcripts"]
    if not turns or not all("content" in t for t in turns):
        raise ValueError(f"line {no}: no speaker turns")
    if len(row["topic_list"]) < 2 or not all(t.get("relevant_text_span") for t in row["topic_list"]):
        raise ValueError(f"line {no}: fewer than two topics with spans")
    if not any(q.get("answer") for q in row["general_query_list"]):
        raise ValueError(f"line {no}: no reference summary")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("source", type=Path, help="a QMSum checkout or bare git directory")
    ap.add_argument("out", type=Path)
    ap.add_argument("--split", default="test", choices=("test", "val"))
    args = ap.parse_args()
    data, commit = read_split(args.source, args.split)
    lines = [ln for ln in data.splitlines(keepends=True) if ln.strip()]
    for no, line in enumerate(lines, 1):
        check(line, no)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(b"".join(lines))
    print(f"{len(lines)} meetings of QMSum's {args.split} split (commit {commit[:7] or '?'}) -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
