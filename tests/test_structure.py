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

