"""Coverage independence: how many outlets covered an event, and how many of them on their own.

Breadth of coverage is not confirmation (a reference event analysis: "3 个来源用同一标题覆盖 HalluScope，这更像
arXiv 自动分发和 Hugging Face 论文流同步，不是媒体独立确认"). Members are grouped into origins;
each origin counts once:
- a duplicate or syndicated copy belongs to its origin item;
- the arXiv category feeds and paper mirrors (Hugging Face papers) carrying one arXiv id are
  one paper, however many feeds list it;
- outlets running the same headline (near-identical title) are one origin repackaged;
- several items from one outlet are that outlet once, and so are the channels of one owner (the
  catalog's `owner`: Anthropic News, Claude Blog and Anthropic Research are Anthropic speaking three
  times, not three outlets confirming it).
"""

from __future__ import annotations

import re

from newsdesk.cluster.dedup import canonical_url, shingles

_ARXIV_ID = re.compile(r"(?<![\d.])(\d{4}\.\d{4,5})(?:v\d+)?(?![\d])")
SAME_HEADLINE_JACCARD = 0.8


def arxiv_id(member: dict) -> str | None:
    """The arXiv id an item is a copy of, from its feed metadata, link or guid."""
    extra = member.get("extra") or {}
    for key in ("arxiv_id", "arxiv"):
        if extra.get(key):
            m = _ARXIV_ID.search(str(extra[key]))
            if m:
                return m.group(1)
    for field in ("url", "guid"):
        value = member.get(field) or ""
        if "arxiv" in value.lower() or "huggingface.co/papers" in value.lower():
            m = _ARXIV_ID.search(value)
            if m:
                return m.group(1)
    return None


def _same_headline(a: str, b: str) -> bool:
    sa, sb = shingles(a, 3), shingles(b, 3)
    if min(len(sa), len(sb)) < 8:  # "Weekly links" is not a shared origin
        return False
    return len(sa & sb) / len(sa | sb) >= SAME_HEADLINE_JACCARD


def _origin_keys(m: dict) -> list[tuple]:
    """What a member shares with every other report of its origin: its outlet, its outlet's owner,
    the arXiv paper it lists, its address."""
    keys = [("source", m.get("source_id"))]
    if m.get("owner"):
        keys.append(("owner", m["owner"]))
    if arxiv_id(m):
        keys.append(("arxiv", arxiv_id(m)))
    if canonical_url(m.get("url")):
        keys.append(("url", canonical_url(m.get("url"))))
    return keys


def origin_groups(members: list[dict]) -> list[list[int]]:
    """Members (dicts with item_id, source_id, owner, role, origin_item_id, title, url, guid, extra)
    grouped by origin."""
    ids = [m["item_id"] for m in members]
    parent = {i: i for i in ids}

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(a, b):
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)

    by_key: dict[tuple, int] = {}
    for m in members:
        i = m["item_id"]
        if m.get("origin_item_id") in parent:
            union(i, m["origin_item_id"])
        for key in _origin_keys(m):
            if key in by_key:
                union(i, by_key[key])
            else:
                by_key[key] = i
    for n, a in enumerate(members):
        for b in members[n + 1 :]:
            if find(a["item_id"]) != find(b["item_id"]) and _same_headline(a.get("title") or "", b.get("title") or ""):
                union(a["item_id"], b["item_id"])
    groups: dict[int, list[int]] = {}
    for i in ids:
        groups.setdefault(find(i), []).append(i)
    return sorted(groups.values(), key=lambda g: min(g))


def coverage(members: list[dict]) -> dict:
    """Distinct outlets, independent outlets and the origin groups behind them.

    A duplicate (the same link or guid from another feed) is the same article, not another
    outlet's report, and readers are shown no link for it: counting its feed would put "4 个来源"
    above two links."""
    shown = [m for m in members if m.get("role") != "duplicate"] or members
    groups = origin_groups(shown)
    return {
        "outlets": len({m.get("source_id") for m in shown}),
        "independent_outlets": len(groups),
        "origin_groups": groups,
    }
