"""Site-specific feed shapes, one module per source kind (after fundus' per-publisher extractors).

Some sites write what belongs in an item's fields into the feed's summary: Hacker News (hnrss)
its points and comment counts, Reddit its "submitted by /u/…" line, arXiv its announce type and
every author in one string. Each module here knows one site: `recognizes` says whether an entry
is the site's although the source's kind is another (an hnrss feed catalogued as rss, an arXiv
paper in a lab's blog feed), and `shape` moves what it wrote into the item's fields. ingest/parse.py
applies every site whose kind the source has or that recognizes the entry, in the order below.

Adding a site: a module with KIND, recognizes(entry, fields) and shape(entry, fields), listed in SITES.
"""

from __future__ import annotations

from newsdesk.ingest.sites import arxiv, hn, reddit
from newsdesk.ingest.sites.fields import Fields

SITES = {site.KIND: site for site in (hn, reddit, arxiv)}

__all__ = ["SITES", "Fields", "shape"]


def shape(entry, kind: str, fields: Fields) -> None:
    """Let each site whose kind the source has, or that recognizes the entry, shape its fields."""
    for site_kind, site in SITES.items():
        if kind == site_kind or site.recognizes(entry, fields):
            site.shape(entry, fields)
