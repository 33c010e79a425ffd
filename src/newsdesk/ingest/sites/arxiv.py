"""arXiv: the paper's id and version in its guid or link, its announce type at the head of the
summary (or in arxiv:announce_type), and every author in one dc:creator."""

from __future__ import annotations

import re

from newsdesk.ingest.sites.fields import Fields

KIND = "arxiv"

_GUID = re.compile(r"oai:arXiv\.org:([\w./-]+?)(v\d+)?$", re.I)
_LINK = re.compile(r"arxiv\.org/(?:abs|pdf)/([\w./-]+?)(v\d+)?(?:\.pdf)?/?$", re.I)
_PREFIX = re.compile(r"^\s*arXiv:\S+\s+Announce Type:\s*(\S+)\s*(?:Abstract:\s*)?", re.I)


def _paper(fields: Fields) -> re.Match | None:
    return _GUID.search(fields.guid) or (_LINK.search(fields.link) if "arxiv.org" in fields.link else None)


def recognizes(entry, fields: Fields) -> bool:
    return _paper(fields) is not None


def shape(entry, fields: Fields) -> None:
    """The id, version and announce type go to extra; the authors are split one a name."""
    paper = _paper(fields)
    if paper is None:  # an arXiv source's entry that names no paper: nothing to take
        return
    fields.extra["arxiv_id"] = paper.group(1)
    if paper.group(2):
        fields.extra["arxiv_version"] = paper.group(2)
    if m := _PREFIX.match(fields.summary):
        fields.extra.setdefault("arxiv_announce_type", m.group(1).lower())
        fields.summary = fields.summary[m.end() :]
    if entry.get("arxiv_announce_type"):
        fields.extra["arxiv_announce_type"] = entry["arxiv_announce_type"].strip().lower()
    if len(fields.authors) == 1 and "," in fields.authors[0]:  # every author in one dc:creator
        fields.authors = [a.strip() for a in fields.authors[0].split(",") if a.strip()]
