"""Prompt files: Jinja templates in the package's write/prompts/, rendered as text or as chat messages.

Here, beside the model, not among the writers: the clusterer's arbiter asks the model too, and the
layers below the writers must not import them (tests/test_structure.py). A file with a line
`=== user ===` is a whole chat: the system part above it, the user part below.
"""

from __future__ import annotations

import hashlib
from functools import cache
from importlib import resources

import jinja2

USER_MARK = "=== user ==="
FOLDER = "write/prompts"


@cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("newsdesk", FOLDER),
        undefined=jinja2.StrictUndefined,  # a value the caller forgot is an error, not an empty string
        keep_trailing_newline=False,
        autoescape=False,
    )


def render(name: str, **values) -> str:
    """One prompt file rendered as text."""
    return _environment().get_template(name).render(**values)


def messages(name: str, **values) -> list[dict]:
    """A prompt file rendered into chat messages: the system part, then the user part."""
    system, _, user = render(name, **values).partition(USER_MARK)
    return [{"role": "system", "content": system.strip()}, {"role": "user", "content": user.strip()}]


def prompts_fingerprint(prefixes: tuple[str, ...]) -> str:
    """Changes when a prompt file of these names (or the packaged policy) changes, so what was
    written with the old prompts is written again."""
    h = hashlib.sha256()
    folder = resources.files("newsdesk").joinpath(*FOLDER.split("/"))
    for entry in sorted(folder.iterdir(), key=lambda p: p.name):
        if entry.name.startswith(prefixes) or entry.name == "policy.md":
            h.update(entry.name.encode() + b"\0" + entry.read_bytes())
    return h.hexdigest()
