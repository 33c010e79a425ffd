"""Why sources failed, said in one line: `newsdesk run` with no network meets a hundred sources that
each fail with "cannot resolve host", and one line grouped by cause ("109 of 110 sources failed:
cannot resolve host (no network?)") says what a hundred lines hide. Each source's own line stays
in the stage's record (the status page) and behind `-v`.
"""

from __future__ import annotations

import re
from collections import Counter

# The cause of a fetch error, read from the start of its message (ingest/fetch.py writes them);
# first match wins. A message no pattern knows is its own cause, cut at its first detail.
CAUSES = (
    (r"cannot resolve host", "cannot resolve host"),
    (r"resolving \S+ took longer", "DNS too slow"),
    (r"\S+ has no address", "host has no address"),
    (r"no connection to ", "connect timeout"),
    (r"cannot connect to ", "cannot connect"),
    (r"no data from ", "read timeout"),
    (r"timed out|not finished within ", "timed out"),
    (r"TLS handshake|the TLS certificate", "TLS failed"),
    (r"rate limited", "HTTP 429"),
    (r"(?:server error )?HTTP (\d{3})\b", r"HTTP \1"),
    (r"refused: \S+ resolves to", "private address refused"),
    (r"redirect loop|more than \d+ redirects", "too many redirects"),
)
SHOWN_ONE_BY_ONE = 3  # up to this many failures are each their own line; more are grouped by cause
URL_PREFIX = re.compile(r"^[a-z][a-z0-9+.-]*://\S*?: ")  # a fetch error starts with the URL it was fetching


def cause(error: str) -> str:
    """A fetch error's cause, short enough to count: 'cannot resolve host', 'HTTP 404', …"""
    message = URL_PREFIX.sub("", error.strip())
    for pattern, said in CAUSES:
        found = re.match(pattern, message)
        if found:
            return found.expand(said)
    return re.split(r" \(|;|: ", message, maxsplit=1)[0][:60] or "unknown error"


def summary(errors: list[str], attempted: int) -> str:
    """One line for `errors` (one per failed source) out of `attempted` sources, grouped by cause."""
    counts = Counter(cause(e) for e in errors).most_common()
    said = []
    for name, n in counts:
        if name == "cannot resolve host" and n * 2 > attempted:
            name += " (no network?)"  # most hosts unknown at once: the network, not the sources
        said.append(name if len(counts) == 1 else f"{n} {name}")
    return f"{len(errors)} of {attempted} sources failed: {', '.join(said)}"


def lines(failed: list[tuple[str, str]], attempted: int, *, verbose: bool = False) -> list[str]:
    """(source id, error) pairs as printed: each its own line when they are few or `verbose`, else one."""
    if verbose or len(failed) <= SHOWN_ONE_BY_ONE:
        return [f"{source_id}: {error}" for source_id, error in failed]
    return [summary([error for _, error in failed], attempted) + " (`-v` lists each source)"]
