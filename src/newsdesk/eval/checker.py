"""Precision and recall of the checker on labelled document / claim pairs (SummaC format).

A flag is a prediction that the claim is NOT supported by its document (label 0). The
naive baseline flags a claim when a digit string in it does not occur in the document. The
checker is scored twice in one run: whole, and without the checks that look at the form of a text
(the prompt echoed, a sentence in a loop, a name cut mid-word), so those can be seen not to flag
consistent summaries.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from newsdesk.check.checker import check_content, check_output, check_subject, echoes, loops
from newsdesk.core.errors import EvalFileError

_DIGITS = re.compile(r"\d+(?:[.,]\d+)*")
FORM_KINDS = {"echo", "loop", "cut"}


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


def checker_findings(claim: str, document: str) -> list:
    findings = check_content(claim, [document], language="en") + echoes(claim, document) + loops(claim)
    return [f for f in findings if f.severity == "error"]


def load_pairs(path: str | Path) -> list[dict]:
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise EvalFileError(f"{p}: file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise EvalFileError(f"{p}: cannot read as UTF-8 text ({exc}); give a SummaC-style JSON file") from None
    except json.JSONDecodeError as exc:
        raise EvalFileError(f"{p}: not valid JSON ({exc})") from None
    if not isinstance(data, (dict, list)):
        raise EvalFileError(f"{p}: expected a JSON object {{id: {{document, claim, label}}}} or a list of such objects")
    rows = list(data.values()) if isinstance(data, dict) else data
    pairs = []
    for i, r in enumerate(rows):
        claim = (r.get("claim") or r.get("summary")) if isinstance(r, dict) else None
        if not isinstance(claim, str) or not isinstance(r.get("document"), str) or r.get("label") not in (0, 1):
            raise EvalFileError(f"{p}: entry {i} needs document, claim (or summary) as text and label 0/1")
        pairs.append({"document": r["document"], "claim": claim, "label": r["label"]})
    return pairs


def evaluate(path: str | Path) -> tuple[list[Score], int]:
    """Scores of the baseline, the checker without its form checks, and the whole checker; the pair count."""
    pairs = load_pairs(path)
    base, content, ours = (
        Score("baseline (digit string absent)"),
        Score("checker without echo/loop/cut"),
        Score("checker"),
    )
    for pair in pairs:
        inconsistent = pair["label"] == 0
        base.add(baseline_flags(pair["claim"], pair["document"]), inconsistent)
        found = checker_findings(pair["claim"], pair["document"])
        content.add(any(f.kind not in FORM_KINDS for f in found), inconsistent)
        ours.add(bool(found), inconsistent)
    return [base, content, ours], len(pairs)


def check_draft(case: dict) -> list:
    """The checker's errors on one labelled draft (tests/fixtures/drafts): the whole check against the
    material, and, for a part written about one item ("own" material), the subject check."""
    found = check_output(case["draft"], case["material"], language=case["language"]).errors
    if case.get("own"):
        found += [
            f
            for f in check_subject(case["draft"], case["own"], case["material"], language=case["language"])
            if f.severity == "error"
        ]
    return found


def load_drafts(folder: str | Path) -> dict[str, dict]:
    """Labelled drafts: {name: {kind, language, material, own?, draft, labels, note}}; labels are the kinds of
    error the draft should get (empty: a clean draft; null: not labelled yet)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise EvalFileError(
            f"{folder}: not a folder; give a folder of labelled drafts (tests/fixtures/drafts/embedded)"
        )
    drafts = {}
    for p in sorted(folder.glob("*.json")):
        try:
            case = json.loads(p.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise EvalFileError(f"{p}: not a readable JSON draft ({exc}); fix or remove the file") from None
        if (
            not isinstance(case, dict)
            or not isinstance(case.get("draft"), str)
            or not isinstance(case.get("material"), list)
        ):
            raise EvalFileError(f"{p}: a draft needs draft (text), material (list of texts), language and labels")
        drafts[p.stem] = case
    return drafts


DRAFT_KINDS = ("echo", "loop", "cut", "subject", "number")  # the labels a reader gives real drafts, as finding kinds


def draft_scores(folder: str | Path, kinds: tuple[str, ...] = DRAFT_KINDS) -> tuple[list[Score], int]:
    """Per check, its flags against the hand labels of the drafts in `folder` (a flag of kind K on a draft
    predicts that a reader finds defect K in it); the count of drafts not labelled yet, left out."""
    cases = load_drafts(folder)
    labelled = {n: c for n, c in cases.items() if c.get("labels") is not None}
    scores = [Score(kind) for kind in kinds]
    for case in labelled.values():
        found = {f.kind for f in check_draft(case)}
        for score in scores:
            score.add(score.name in found, score.name in case["labels"])
    return scores, len(cases) - len(labelled)


def draft_hits(folder: str | Path, kinds: tuple[str, ...] = ("echo", "loop", "cut", "subject")) -> dict[str, dict]:
    """For each kind: how many drafts labelled with it got it (hits on defective drafts, out of how many) and how
    many drafts not labelled with it got it anyway (hits on clean ones, out of how many)."""
    cases = load_drafts(folder)
    found = {name: {f.kind for f in check_draft(case)} for name, case in cases.items()}
    table = {}
    for kind in kinds:
        bad = [n for n, c in cases.items() if kind in c["labels"]]
        good = [n for n, c in cases.items() if kind not in c["labels"]]
        table[kind] = {
            "defective": (sum(kind in found[n] for n in bad), len(bad)),
            "clean": (sum(kind in found[n] for n in good), len(good)),
        }
    return table
