"""The package's import structure: no circle, the batch run apart from the web app, a thin CLI.

Imports inside functions count too: a lazy import that closes a circle still couples the
two modules, and the batch run must not need the web app whichever stage it runs.
"""

from __future__ import annotations

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import newsdesk

PACKAGE = Path(newsdesk.__file__).parent


def import_graph() -> dict[str, set[str]]:
    """module -> the newsdesk modules it imports (a package's own __init__ is not an edge)."""
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        parts = ("newsdesk",) + path.relative_to(PACKAGE).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path

    def resolve(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {m: set() for m in modules}
    for module, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [f"{node.module}.{a.name}" for a in node.names]
            else:
                continue
            for name in names:
                target = resolve(name) if name.startswith("newsdesk") else None
                if target and target != module and not module.startswith(target + "."):
                    graph[module].add(target)
    return graph


def reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for nxt in graph[todo.pop()] - seen:
            seen.add(nxt)
            todo.append(nxt)
    return seen


def test_no_import_circle():
    graph = import_graph()
    assert graph["newsdesk.llm.client"] >= {"newsdesk.llm.errors", "newsdesk.llm.backends", "newsdesk.llm.chat"}
    try:
        tuple(TopologicalSorter(graph).static_order())
    except CycleError as exc:
        raise AssertionError(f"import circle: {' -> '.join(exc.args[1])}") from None


def test_the_batch_run_does_not_need_the_web_app_or_the_cli():
    graph = import_graph()
    reached = reachable(graph, "newsdesk.pipeline")
    assert "newsdesk.search" in reached and "newsdesk.ingest.run" in reached
    assert not {m for m in reached if m.startswith(("newsdesk.web", "newsdesk.cli"))}
    assert {m for m, targets in graph.items() if "newsdesk.cli" in targets} == {"newsdesk.__main__"}


# The layers, lowest first. A module may import its own layer and those below it, never one above:
# what a layer means must not depend on who uses it. No exceptions are listed, so a new upward import
# fails here and is fixed where it is, by moving the shared piece down (e.g. newsdesk.findings).
LAYERS = [
    ("base", ["newsdesk", "newsdesk.errors", "newsdesk.config", "newsdesk.model", "newsdesk.findings"]),
    ("store", ["newsdesk.store", "newsdesk.days"]),
    ("services", ["newsdesk.llm", "newsdesk.render", "newsdesk.search", "newsdesk.catalog", "newsdesk.ingest"]),
    ("cluster", ["newsdesk.cluster", "newsdesk.kinds", "newsdesk.rank"]),
    ("write", ["newsdesk.write"]),  # the writers: a model's, and write/extractive's
    ("editions", ["newsdesk.editions"]),  # may use the writers; the writers never use it
    ("publish", ["newsdesk.publish", "newsdesk.push"]),
    ("run", ["newsdesk.pipeline", "newsdesk.schedule", "newsdesk.workers", "newsdesk.doctor"]),
    ("eval", ["newsdesk.editions.evaluate"]),  # replays the stages on a labelled week, so above them
    ("read", ["newsdesk.read"]),  # the queries, shapes and auth the three front ends share
    ("mcp", ["newsdesk.mcp_server"]),
    ("web", ["newsdesk.web"]),  # its pages and JSON API; it mounts the MCP server
    ("cli", ["newsdesk.cli", "newsdesk.__main__"]),
]


def layer_of(module: str) -> int:
    best, found = -1, None
    for n, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and len(p) > best:
                best, found = len(p), n
    assert found is not None, f"{module} is in no layer: add it to LAYERS"
    return found


def test_no_import_runs_up_the_layers():
    upward = sorted(
        f"{m} ({LAYERS[layer_of(m)][0]}) imports {t} ({LAYERS[layer_of(t)][0]})"
        for m, targets in import_graph().items()
        for t in targets
        if layer_of(t) > layer_of(m)
    )
    assert upward == [], "\n".join(upward)


def test_every_edition_is_built_in_editions():
    """The weekly report's and the episode digest's form and row live in editions/ beside the daily's;
    write/ only writes and hands its parts up (the layer test above fails on any write -> editions import)."""
    graph = import_graph()
    assert {"newsdesk.editions.daily", "newsdesk.editions.weekly", "newsdesk.editions.episode"} <= set(graph)
    assert not [m for m in graph if m.startswith("newsdesk.write.") and m.endswith("_edition")]
    assert not {
        t
        for m, targets in graph.items()
        if m.startswith("newsdesk.write")
        for t in targets
        if t.startswith("newsdesk.editions")
    }


def test_the_web_app_does_not_load_the_clusterer():
    """The MinHash / scipy stack costs seconds at start; only a placement needs it."""
    import subprocess
    import sys

    code = (
        "import sys; import newsdesk.web.app, newsdesk.mcp_server; "
        "print(sorted(m for m in sys.modules if m.startswith(('scipy', 'datasketch', 'newsdesk.cluster.events'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout
