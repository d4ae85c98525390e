"""Layers import downwards only, and no two modules import each other.

The layers, bottom to top: ``sim.base`` (declarations) → ``sim.data`` (config loading) →
``sim.compiler`` (numba's extension) →
``sim.kernel`` (numba) → ``strategies`` (bots) → ``sim.run`` (engine, runner, I/O) →
``sim.analysis`` → ``sim.cli`` and ``sim.api``. A module may import its own layer and the
ones below, at any depth of its code (an import inside a function counts: hiding an upward
import there only defers the tangle). ``if TYPE_CHECKING:`` blocks count too.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAYERS: dict[str, int] = {
    "sim.base": 0,
    "sim.data": 1,
    "sim.compiler": 2,
    "sim.kernel": 3,
    "strategies": 4,
    "sim.run": 5,
    "sim.analysis": 6,
    "sim.cli": 7,
    "sim.api": 7,
    "sim.desk": 7,
}


def layer_of(module: str) -> int | None:
    """The layer of a project module (None for the top package ``sim`` and outside ones)."""
    for prefix in sorted(LAYERS, key=len, reverse=True):
        if module == prefix or module.startswith(prefix + "."):
            return LAYERS[prefix]
    return None


def module_of(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING"


def _walk(tree: ast.AST, types_too: bool) -> list[ast.AST]:
    """Every node of ``tree``; without ``types_too``, not those under ``if TYPE_CHECKING:``."""
    out, todo = [], [tree]
    while todo:
        node = todo.pop()
        out.append(node)
        if types_too or not _is_type_checking(node):
            todo.extend(ast.iter_child_nodes(node))
    return out


def imports(tree: ast.AST, types_too: bool = True) -> list[tuple[str, int]]:
    """``(module, line)`` of every absolute import in ``tree``, at any depth; ``from a
    import b`` also names ``a.b``, which is a module when ``b`` is a submodule."""
    found = []
    for node in _walk(tree, types_too):
        if isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.append((node.module, node.lineno))
            found += [(f"{node.module}.{a.name}", node.lineno) for a in node.names]
    return found


def project_files() -> list[Path]:
    return [p for d in ("sim", "strategies") for p in sorted((ROOT / d).rglob("*.py"))]


def upward_imports(path: Path) -> list[str]:
    """Each import of ``path`` that reaches a layer above its own."""
    own = layer_of(module_of(path))
    if own is None:
        return []
    tree = ast.parse(path.read_text(), filename=str(path))
    return [
        f"line {line}: {m}"
        for m, line in imports(tree)
        if (lt := layer_of(m)) is not None and lt > own
    ]


def test_every_module_imports_downwards() -> None:
    files = project_files()
    assert len(files) > 50, "the walk found the project"
    found = {module_of(p): upward_imports(p) for p in files}
    assert {k: v for k, v in found.items() if v} == {}


def test_the_bottom_layer_imports_nothing_of_the_project() -> None:
    for path in sorted((ROOT / "sim" / "base").glob("*.py")):
        tree = ast.parse(path.read_text())
        outside = [m for m, _ in imports(tree) if m.split(".")[0] in ("sim", "strategies")]
        assert all(m.startswith("sim.base") for m in outside), (path.name, outside)


def _graph() -> dict[str, set[str]]:
    """Module -> the project modules it imports at run time (any depth; an import for type
    annotations only, under ``if TYPE_CHECKING:``, never runs)."""
    mods = {module_of(p): p for p in project_files()}
    graph: dict[str, set[str]] = {}
    for mod, path in mods.items():
        tree = ast.parse(path.read_text())
        graph[mod] = {m for m, _ in imports(tree, types_too=False) if m in mods and m != mod}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_two_modules_import_each_other() -> None:
    """No import cycle, not even one closed by an import inside a function."""
    assert cycles(_graph()) == []


def test_the_checks_can_fail(tmp_path: Path) -> None:
    """An upward import nested in a function is found, and so is a cycle."""
    src = tmp_path / "m.py"
    src.write_text("def f():\n    from sim.analysis import frames\n")
    tree = ast.parse(src.read_text())
    assert any(layer_of(m) == 6 for m, _ in imports(tree))
    assert layer_of("sim.kernel.game") == 3 and layer_of("sim") is None
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    typed = ast.parse("if TYPE_CHECKING:\n    import sim.run\nimport sim.data\n")
    assert [m for m, _ in imports(typed, types_too=False)] == ["sim.data"]


@pytest.mark.parametrize(
    "lower, upper",
    [("sim.data.cards", "sim.compiler"), ("sim.compiler", "sim.kernel"), ("sim.run", "sim.cli")],
)
def test_layer_order(lower: str, upper: str) -> None:
    assert layer_of(lower) < layer_of(upper)  # type: ignore[operator]


MARK = re.compile(r"#\s*(deferred|lazy):\s*\S+\s+\S+")
"""The note a deferred import carries on its line: ``# deferred: <why, in two words or
more>`` (``lazy:`` is the same)."""


def unmarked_inner_imports(path: Path) -> list[int]:
    """Lines of ``path`` that import a project module inside a function with no note saying
    why it is deferred (:data:`MARK`). A deferred import that is not for start-up time (it
    loads numba, pandas or pyarrow) or for an order of set-up buys nothing, and one that
    hides a cycle is forbidden by the tests above: such an import belongs at the top."""
    text = path.read_text()
    lines = text.splitlines()
    found = []
    for fn in ast.walk(ast.parse(text)):
        if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            for m, line in imports(fn, types_too=False):
                if m.split(".")[0] in ("sim", "strategies") and not MARK.search(lines[line - 1]):
                    found.append(line)
    return sorted(set(found))


def test_deferred_imports_say_why() -> None:
    """In every layer, an import inside a function carries its reason on its line."""
    files = project_files()
    assert {layer_of(module_of(p)) for p in files} >= set(LAYERS.values()), "every layer"
    found = {module_of(p): unmarked_inner_imports(p) for p in files}
    assert {k: v for k, v in found.items() if v} == {}


def test_an_unmarked_deferred_import_is_found(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    src.write_text(
        "def f():\n"
        "    from sim.run import io\n"
        "    from sim.run import ledger  # deferred: loads pyarrow\n"
        "    from sim.cli import run  # noqa: F401\n"
        "    from sim.api import load  # deferred:\n"
        "    import strategies.greedy  # lazy: loads numba\n"
    )
    assert unmarked_inner_imports(src) == [2, 4, 5]
