"""Dedup: one item reaching us twice.

Two kinds, both recorded on the copy with a pointer to its origin:
- **duplicate**: the same canonical URL or guid seen from another source (an aggregator or
  HN linking the very post another feed carries);
- **syndicated**: a different URL with near-identical title + summary (arXiv category feeds,
  Hugging Face paper mirrors, wire copy). Found with MinHash LSH over character shingles,
  which works for Chinese (no word boundaries needed) as well as English.

The index only holds stories inside the clustering window, so its size (and the cost of a
lookup) does not grow with history.
"""

from __future__ import annotations

import heapq
import re
import unicodedata
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from datasketch import MinHash, MinHashLSH

# Query parameters that say how a reader arrived, not what they read.
_TRACKING = re.compile(
    r"^(utm_\w+|fbclid|gclid|dclid|mc_cid|mc_eid|ref|ref_src|ref_url|source|spm|from|share|share_token|"
    r"scene|chksm|srcid|sharer_\w+|clicktime|enterid|xtrack|s_trackid|mkt_tok|igshid|cmpid|_hsenc|_hsmi)$",
    re.IGNORECASE,
)


def canonical_url(url: str | None) -> str | None:
    """The URL as an item key: lowercase host without www, no fragment, no tracking, sorted query."""
    if not url:
        return None
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return None
    if not parts.netloc:
        return None
    host = parts.netloc.lower()
    if host.startswith("www."):
        host = host[4:]
    host = host.removesuffix(":80").removesuffix(":443")
    path = re.sub(r"/+$", "", parts.path) or "/"
    if host.endswith("arxiv.org"):
        # abs/2501.01234v2, pdf/2501.01234.pdf and abs/2501.01234 are one paper.
        m = re.search(r"(\d{4}\.\d{4,5})", path)
        if m:
            return f"arxiv.org/abs/{m.group(1)}"
    query = sorted((k, v) for k, v in parse_qsl(parts.query, keep_blank_values=False) if not _TRACKING.match(k))
    return urlunsplit(("", host, path, urlencode(query), "")).lstrip("/")


def normalize_text(text: str) -> str:
    """Lowercase, width-folded, punctuation and whitespace removed: what syndication keeps intact."""
    text = unicodedata.normalize("NFKC", text).lower()
    return "".join(ch for ch in text if ch.isalnum())


def shingles(text: str, k: int = 4) -> set[bytes]:
    norm = normalize_text(text)
    if len(norm) <= k:
        return {norm.encode("utf-8")} if norm else set()
    return {norm[i : i + k].encode("utf-8") for i in range(len(norm) - k + 1)}


class Deduper:
    """Finds the origin of an item already seen inside the window, if this item is a copy."""

    def __init__(self, *, threshold: float = 0.8, num_perm: int = 64, shingle: int = 4, min_chars: int = 24):
        self.threshold = threshold
        self.num_perm = num_perm
        self.shingle = shingle
        self.min_chars = min_chars  # shorter texts ("Weekly links") are not evidence of one origin
        self._lsh = MinHashLSH(threshold=threshold, num_perm=num_perm)
        self._hashes: dict[object, MinHash] = {}
        self._by_url: dict[str, object] = {}
        self._by_guid: dict[str, object] = {}
        self._origin: dict[object, object] = {}  # copy -> root origin
        self._expiry: list[tuple[float, int, object, str | None, str | None]] = []
        self._seq = 0
        self._empty = MinHash(
            num_perm=num_perm
        )  # copied, not rebuilt: making the permutations is most of a MinHash's cost
        self._last: tuple[str, MinHash | None] | None = None  # find() then add() of one text hash it once

    def __len__(self) -> int:
        return len(self._origin)

    def minhash(self, text: str) -> MinHash | None:
        if self._last is not None and self._last[0] == text:
            return self._last[1]
        mh = None
        if len(normalize_text(text)) >= self.min_chars:
            mh = self._empty.copy()
            mh.update_batch(list(shingles(text, self.shingle)))
        self._last = (text, mh)
        return mh

    def find(self, url: str | None, guid: str | None, text: str) -> tuple[str, object, float] | None:
        """("duplicate" | "syndicated", origin key, similarity) or None for a fresh story."""
        cu = canonical_url(url)
        for table, value in ((self._by_url, cu), (self._by_guid, guid)):
            if value and value in table:
                return "duplicate", self._origin[table[value]], 1.0
        mh = self.minhash(text)
        if mh is None:
            return None
        best = None
        for key in sorted(self._lsh.query(mh), key=str):  # sorted: the same answer on every run
            sim = mh.jaccard(self._hashes[key])
            if sim >= self.threshold and (best is None or sim > best[1]):
                best = (key, sim)
        if best is None:
            return None
        return "syndicated", self._origin[best[0]], round(best[1], 4)

    def add(self, key, url: str | None, guid: str | None, text: str, ts: float, origin=None) -> None:
        """Remember an item (or a copy, pointing at `origin`) until the window passes `ts`."""
        if key in self._origin:
            return
        self._origin[key] = self._origin.get(origin, origin) if origin is not None else key
        cu = canonical_url(url)
        if cu:
            self._by_url.setdefault(cu, key)
        if guid:
            self._by_guid.setdefault(guid, key)
        mh = self.minhash(text)
        if mh is not None:
            self._hashes[key] = mh
            self._lsh.insert(key, mh)
        self._seq += 1
        heapq.heappush(self._expiry, (ts, self._seq, key, cu, guid))

    def evict(self, before_ts: float) -> None:
        """Forget stories published before `before_ts`: they are outside every later window."""
        while self._expiry and self._expiry[0][0] < before_ts:
            _, _, key, cu, guid = heapq.heappop(self._expiry)
            if key in self._hashes:
                self._lsh.remove(key)
                del self._hashes[key]
            if cu and self._by_url.get(cu) == key:
                del self._by_url[cu]
            if guid and self._by_guid.get(guid) == key:
                del self._by_guid[guid]
            self._origin.pop(key, None)
