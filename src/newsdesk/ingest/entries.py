"""A feed document cut into its entries, so a changed feed's entries seen before are not parsed again.

A feed that changed since the last poll mostly repeats what it said then: a new post on top, the
channel's build date, and the same 20-250 entries below, byte for byte. feedparser is pure Python and
was most of a refresh's time (0.8 s CPU for 19 changed feeds of 1,900 entries, 1,545 of them the same
bytes as before). expat (C) finds each entry's bytes in a few milliseconds; an entry whose digest was
stored with the source at its last parse is left out of the document feedparser reads, and the item
stored for it stands.

What an entry means can depend on what surrounds it: the XML declaration and DOCTYPE (encoding,
entities), the namespaces and the xml:base / xml:lang of its ancestors, the feed's format (the root
element and its version), the source's settings and the URL it came from. All of that is in every
entry's digest (`context`), so a change to any of it makes every entry new. The channel's own text
(its title, build date, ttl) is not: no entry is read differently for it.

Only a document expat reads whole (well-formed, an encoding it knows, ASCII-compatible so that byte
offsets cut cleanly) is cut; any other is parsed whole, as before.
"""

from __future__ import annotations

import hashlib
import re
import xml.parsers.expat
from dataclasses import dataclass

# The elements feedparser makes an entry of (RSS <item>, Atom <entry>), by namespace: none, RSS 0.90,
# RSS 1.0, Atom 0.3 and 1.0. An entry is a child of the root (RSS 1.0, Atom) or of the channel (RSS 2.0).
_ENTRY_NAMES = {
    f"{ns} {name}" if ns else name
    for ns in ("", "http://my.netscape.com/rdf/simple/0.9/", "http://purl.org/rss/1.0/")
    for name in ("item", "entry")
} | {"http://purl.org/atom/ns# entry", "http://www.w3.org/2005/Atom entry"}
_ENTRY_DEPTH = 3  # root = 1, channel = 2, an RSS 2.0 item = 3
DIGEST_HEX = 32  # 128 bits of sha256: tells entries apart, and keeps the stored map small


@dataclass
class Cut:
    spans: list[tuple[int, int]]  # each entry's bytes, [start, end), in document order
    digests: list[str]  # each entry's digest: its bytes read in their context


class _Unsplittable(Exception):
    """An entry written as an empty element (<item/>): expat reports its end where the next tag starts."""


_END_TAG = re.compile(rb"</(?:[\w.-]+:)?(item|entry)\s*>")


def cut_entries(body: bytes, context: str) -> Cut | None:
    """The entries of an XML feed document; None when it cannot be cut safely (then parse it whole).
    `context` is what else its entries are read with (the source's settings, its URL)."""
    head = body[:200]
    if body.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] != b"<" or b"\x00" in head:
        return None  # not ASCII-compatible (UTF-16/32): byte offsets would not cut characters cleanly
    surround = hashlib.sha256(context.encode("utf-8", "surrogatepass"))
    spans: list[tuple[int, int]] = []
    local: list[bytes] = []  # each entry's element name, without its namespace
    depth = 0
    entry_depth = 0  # depth of the entry being read; 0 outside one
    root_at = -1
    parser = xml.parsers.expat.ParserCreate(namespace_separator=" ")

    def start(name: str, attrs: dict[str, str]) -> None:
        nonlocal depth, entry_depth, root_at
        depth += 1
        if entry_depth:
            return
        if root_at < 0:
            root_at = parser.CurrentByteIndex
        if depth <= _ENTRY_DEPTH and name in _ENTRY_NAMES:
            entry_depth = depth
            spans.append((parser.CurrentByteIndex, -1))
            local.append(name.rsplit(" ", 1)[-1].encode())
        elif depth < _ENTRY_DEPTH:  # the root and the channel: their names and attributes frame every entry
            surround.update(repr((depth, name, sorted(attrs.items()))).encode("utf-8", "surrogatepass"))

    def end(_name: str) -> None:
        nonlocal depth, entry_depth
        if entry_depth == depth:
            # Its own end tag, not its parent's (an entry's parent is never an item or entry itself).
            closing = _END_TAG.match(body, parser.CurrentByteIndex)
            if closing is None or closing.group(1) != local[-1]:
                raise _Unsplittable
            spans[-1] = (spans[-1][0], closing.end())
            entry_depth = 0
        depth -= 1

    def namespace(prefix: str | None, uri: str) -> None:
        if not entry_depth:  # a declaration outside the entries changes what their prefixes mean
            surround.update(repr(("xmlns", prefix, uri)).encode("utf-8", "surrogatepass"))

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.StartNamespaceDeclHandler = namespace
    try:
        parser.Parse(body, True)
    except (xml.parsers.expat.ExpatError, _Unsplittable, ValueError):
        return None
    surround.update(body[: max(root_at, 0)])  # the XML declaration, DOCTYPE and entities
    frame = surround.digest()
    digests = [hashlib.sha256(frame + body[a:b]).hexdigest()[:DIGEST_HEX] for a, b in spans]
    return Cut(spans, digests)


def without(body: bytes, spans: list[tuple[int, int]]) -> bytes:
    """The document with these entries' bytes left out (spans in document order)."""
    pieces, at = [], 0
    for a, b in spans:
        pieces.append(body[at:a])
        at = b
    pieces.append(body[at:])
    return b"".join(pieces)
