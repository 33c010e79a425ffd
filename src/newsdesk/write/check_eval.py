"""Precision and recall of the checker on labelled document / claim pairs (SummaC format).

A flag is a prediction that the claim is NOT supported by its document (label 0). The
naive baseline flags a claim when a digit string in it does not occur in the document.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from newsdesk.errors import EvalFileError
from newsdesk.write.check import check_content

_DIGITS = re.compile(r"\d+(?:[.,]\d+)*")


@dataclass
class Score:
    name: str
    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0

    def add(self, flagged: bool, inconsistent: bool) -> None:
        if flagged and inconsistent:
            self.tp += 1
        elif flagged:
            self.fp += 1
        elif inconsistent:
            self.fn += 1
        else:
            self.tn += 1

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def flagged(self) -> int:
        return self.tp + self.fp


def baseline_flags(claim: str, document: str) -> bool:
    return any(d not in document for d in _DIGITS.findall(claim))


def checker_flags(claim: str, document: str) -> list[str]:
    findings = check_content(claim, [document], language="en")
    return [f.detail for f in findings if f.severity == "error"]


def load_pairs(path: str | Path) -> list[dict]:
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise EvalFileError(f"{p}: file not found") from None
    except json.JSONDecodeError as exc:
        raise EvalFileError(f"{p}: not valid JSON ({exc})") from None
    rows = list(data.values()) if isinstance(data, dict) else data
    pairs = []
    for i, r in enumerate(rows):
        claim = r.get("claim") or r.get("summary")
        if not isinstance(r, dict) or not claim or "document" not in r or r.get("label") not in (0, 1):
            raise EvalFileError(f"{p}: entry {i} needs document, claim (or summary) and label 0/1")
        pairs.append({"document": r["document"], "claim": claim, "label": r["label"]})
    return pairs


def evaluate(path: str | Path) -> tuple[Score, Score, int]:
    pairs = load_pairs(path)
    base, ours = Score("baseline (digit string absent)"), Score("checker")
    for pair in pairs:
        inconsistent = pair["label"] == 0
        base.add(baseline_flags(pair["claim"], pair["document"]), inconsistent)
        ours.add(bool(checker_flags(pair["claim"], pair["document"])), inconsistent)
    return base, ours, len(pairs)
