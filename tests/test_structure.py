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
    reached = reachable(graph, "newsdesk.run.pipeline")
    assert "newsdesk.search.index" in reached and "newsdesk.ingest.run" in reached
    assert not {m for m in reached if m.startswith(("newsdesk.serve", "newsdesk.cli"))}
    assert {m for m, targets in graph.items() if "newsdesk.cli" in targets} == {"newsdesk.__main__"}


# The floors, lowest first: a module's layer is its folder (newsdesk.<floor>.<module>), in the order
# newsdesk.FLOORS gives, and the command above them all. A module may import its own floor and those below
# it, never one above: what a floor means must not depend on who uses it. No exceptions are listed, so a new
# upward import fails here and is fixed where it is, by moving the shared piece down (e.g. newsdesk.text.numbers
# out of the checker).
FLOORS = [*newsdesk.FLOORS, "cli"]


def layer_of(module: str) -> int:
    parts = module.split(".")
    if module == "newsdesk":
        return 0  # the package's own __init__: its version and the floor list
    if module in ("newsdesk.__main__", "newsdesk.cli"):
        return FLOORS.index("cli")
    assert parts[1] in FLOORS, f"{module} is on no floor: a module lives in one of the folders {FLOORS}"
    return FLOORS.index(parts[1])


def test_no_import_runs_up_the_layers():
    upward = sorted(
        f"{m} ({FLOORS[layer_of(m)]}) imports {t} ({FLOORS[layer_of(t)]})"
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
        "import sys; import newsdesk.serve.app, newsdesk.serve.mcp; "
        "print(sorted(m for m in sys.modules if m.startswith(('scipy', 'datasketch', 'newsdesk.cluster.events'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout


def test_nothing_at_the_package_root_but_the_command():
    """Every other module lives on a floor (a folder): the folder tree is the layer list."""
    root = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert root == ["__init__.py", "__main__.py", "cli.py"], root
    folders = sorted(p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists())
    assert folders == sorted(set(FLOORS) - {"cli"}), folders


def test_no_floor_holds_a_fifth_of_the_code():
    """A floor that grows past a fifth of the package is doing more than one job: split it into floors."""
    lines = {}
    for path in PACKAGE.rglob("*.py"):
        floor = path.relative_to(PACKAGE).parts[0] if len(path.relative_to(PACKAGE).parts) > 1 else "cli"
        lines[floor] = lines.get(floor, 0) + len(path.read_text(encoding="utf-8").splitlines())
    total = sum(lines.values())
    assert max(lines.values()) < 0.2 * total, {f: round(n / total, 3) for f, n in lines.items()}


# Module-level literals that look like word lists by shape but are code's own data. Each says why it stays.
NOT_WORD_LISTS = {
    "core/config.py:BOUNDS": "each setting's numeric range: code's limits, not words",
    "core/labels.py:LABELS": "the interface's own one table of words (core/ is below text/, so it cannot read the lexicon)",
    "eval/editorial.py:FOLD_MEASURES": "the keys and order of the evaluator's table, which its code computes",
    "write/kit.py:__all__": "Python's export list",
    "text/html.py:_TAGS": "the HTML sanitizer's allowed tags: markup the sanitizer's code is written for",
    "ingest/normalize.py:_PARAGRAPH": "HTML block tags the text extractor breaks paragraphs at: markup, not words",
    "cluster/pairs.py:FEATURES": "the pair model's input columns, in the order its shipped file was trained on: code, not words",
    "store/migrations/versions/0019_change_signal.py:TABLES": "the tables whose commits the read cache hears: schema, not words",
}


def word_list_literals(package: Path = PACKAGE) -> list[tuple[str, int]]:
    """Module-level literals of 15+ lines and 5+ elements, at least 80% of them strings: sets, lists, tuples,
    frozensets, a dict by its keys, a list added to a list, and a call's arguments (MAJOR = _words("openai",
    ...)). Each as ("path:NAME", lines)."""

    def elements(node: ast.AST) -> list[ast.AST] | None:
        if isinstance(node, (ast.Set, ast.List, ast.Tuple)):
            return node.elts
        if isinstance(node, ast.Dict):
            return [k for k in node.keys if k is not None]
        if isinstance(node, ast.BinOp):
            left, right = elements(node.left), elements(node.right)
            return None if left is None and right is None else (left or []) + (right or [])
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name) and node.func.id in ("set", "frozenset", "list", "tuple", "dict"):
                return elements(node.args[0]) if node.args else None
            return list(node.args) or None
        return None

    found = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
                continue
            elts = elements(node.value)
            lines = node.value.end_lineno - node.value.lineno + 1
            if not elts or len(elts) < 5 or lines < 15:  # a list, not one long string (a regex) over lines
                continue
            if sum(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in elts) >= 0.8 * len(elts):
                target = node.targets[0] if isinstance(node, ast.Assign) else node.target
                found.append((f"{path.relative_to(package).as_posix()}:{ast.unparse(target)}", lines))
    return found


def test_word_lists_live_in_data_files():
    """The newsroom's word lists are data in text/lexicon/ (one entry a line, or a TOML table), read through
    newsdesk.text.lexicon; none is typed into a module, where a second copy of a stop-list grows unseen."""
    found = dict(word_list_literals())
    assert set(NOT_WORD_LISTS) <= set(found), f"no longer a literal, drop it here: {set(NOT_WORD_LISTS) - set(found)}"
    lists = {name: lines for name, lines in found.items() if name not in NOT_WORD_LISTS}
    assert lists == {}, f"word lists in .py (move each to src/newsdesk/text/lexicon/): {lists}"


def test_jieba_is_set_up_once():
    """Every stage cuts Chinese through newsdesk.text.segment, so a word is the same word everywhere."""
    users = sorted(
        {
            path.relative_to(PACKAGE).as_posix()
            for path in PACKAGE.rglob("*.py")
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if (isinstance(node, ast.Import) and any(a.name.split(".")[0] == "jieba" for a in node.names))
            or (isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "jieba")
        }
    )
    assert users == ["text/segment.py"], users


def test_no_function_is_over_80_lines():
    """A function longer than a screenful does more than one named step: split it into steps with
    names (the store's migrations, written once and never changed, are left as they were)."""
    long = []
    for path in PACKAGE.rglob("*.py"):
        if "migrations" in path.relative_to(PACKAGE).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > 80:
                    long.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name} ({lines} lines)")
    assert not long, long
