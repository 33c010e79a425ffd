"""A finding: one thing wrong with a written output, as the checker, the writers, the store and every
reader (pages, feeds, API, MCP) name it. Its own module, below all of them: rendering a finding
must not load the checker."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass
class Finding:
    """One thing wrong with a written output. Stored as its dict (checks.findings, analyses.flags)."""

    # number | quote | name | disclosure | truncated | escape | repeat | quotes | echo | loop | cut | subject;
    # rule: a writer's own rule
    kind: str
    detail: str  # one line a person reads: what is wrong and what it names
    span: str = ""  # the exact text in the output it is about
    severity: str = "error"  # error fails the check; warn is recorded only
    part: str = ""  # which part of the output ("section 2", "summary"); empty: the whole

    def as_dict(self) -> dict:
        return asdict(self)

    def line(self) -> str:
        """Where and what, as a reader's line: "section 2: quote not found …"."""
        return f"{self.part}: {self.detail}" if self.part else self.detail

    @classmethod
    def load(cls, value) -> Finding:
        """A stored finding, in any shape ever stored: this dict; {part, finding} (the weekly,
        before one shape); a plain line (episodes, before); the kind of a plain line is unknown ("")."""
        if isinstance(value, dict) and "finding" in value:
            inner = cls.load(value["finding"])
            inner.part = inner.part or str(value.get("part") or "")
            return inner
        if isinstance(value, dict):
            return cls(
                str(value.get("kind") or ""),
                str(value.get("detail") or ""),
                str(value.get("span") or ""),
                str(value.get("severity") or "error"),
                str(value.get("part") or ""),
            )
        return cls("", str(value))


def load_findings(values: list | None) -> list[Finding]:
    """Stored findings (checks.findings, analyses.flags) as Finding objects, whatever their stored shape."""
    return [Finding.load(v) for v in values or []]
