"""The kernel never imports a bot: bots are handed to it as the ``ask`` dispatcher.

``strategies`` imports ``sim.kernel`` (the layout, the decisions, the board
queries), and the run layer passes ``strategies.policy``'s dispatcher into the
kernel's entry points, so the dependency points one way only.
"""

from __future__ import annotations

import ast
from pathlib import Path

KERNEL = Path(__file__).resolve().parents[2] / "sim" / "kernel"


def imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports, at any depth of its syntax tree."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def test_no_kernel_module_imports_strategies() -> None:
    """No module of sim/kernel imports ``strategies`` (or anything under it)."""
    files = sorted(KERNEL.glob("*.py"))
    assert len(files) > 10, "the walk found the kernel"
    offenders = {
        f.name: sorted(m for m in imported_modules(f) if m.split(".")[0] == "strategies")
        for f in files
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_the_walk_sees_imports(tmp_path: Path) -> None:
    """The check can fail: both import forms, nested in a function, are found."""
    src = tmp_path / "m.py"
    src.write_text("def f():\n    import strategies.greedy\n    from strategies import policy\n")
    assert imported_modules(src) == {"strategies.greedy", "strategies"}
