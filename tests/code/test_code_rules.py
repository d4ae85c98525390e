"""Rules of the code base that a reader cannot see from one file: checked over the source.

- No module imports a private name (``_x``) from another of the project's modules
  (``from sim.run.runner import _Progress``); third-party privates are not checked.
- Only ``sim/kernel/``, ``strategies/``, ``sim/run/view.py`` (the
  :class:`sim.run.view.StateView` that reads and writes the state by name for everyone
  else), ``tests/data/test_layout.py`` (which tests the offsets), the njit profiler
  ``benchmarks/profile_kernel.py`` and the luck benchmark ``benchmarks/bench_luck.py``
  name a state offset: a ``layout`` region, ``HEADER``,
  ``GAME_SIZE`` or ``STATE_SIZE``, as ``L.X`` or ``from sim.base.layout import X``.
  Table columns (``K_*``, ``RU_*``, ``O_*``, ``TB_*``) and sizes (``N_CITIES``) are not
  state offsets and stay allowed. Nor may anyone else index ``st`` or ``x.st`` with a
  bare number. (A state copied under another name and indexed by number is not seen.)
- No kernel (``@kernel`` or ``@njit`` in ``sim/kernel/`` and ``strategies/``) indexes
  with a negative number: kernels are compiled without Python's wraparound, so
  ``st[-1]`` would read before the array (``sim.compiler.extension.unwrapped_indices``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from sim.base import layout as L

ROOT = Path(__file__).resolve().parents[2]
PROJECT_PACKAGES = ("sim", "strategies", "benchmarks", "tools", "tests")

# Every name that is an offset into (or the size of) the game state: the layout's
# regions, where the header and one game end, and the whole state's size.
STATE_OFFSETS = frozenset(name for name, _start, _size in L.STATE_REGIONS) | {
    "HEADER",
    "GAME_SIZE",
    "STATE_SIZE",
}
# profile_kernel.py is njit code that replays the kernel's turn step by step to time it.
OFFSET_USERS = (
    "sim/kernel/",
    "strategies/",
    "sim/run/view.py",
    "tests/data/test_layout.py",
    "tests/strategies/test_search.py",  # a decision's tallies, laid out as the search keeps them
    "benchmarks/profile_kernel.py",
    "benchmarks/bench_luck.py",  # kernel code that plays each turn again from a copy
    "benchmarks/reference_loop.py",  # the yardstick: its own state, a copy of the shared file
)


def _sources(*folders: str) -> Iterator[tuple[str, ast.Module]]:
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            yield rel, ast.parse(path.read_text(), rel)


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _private_imports(rel: str, tree: ast.Module) -> Iterator[str]:
    package = rel.rsplit("/", 1)[0].split("/")
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            parts = (node.module or "").split(".")
            if node.level:  # a relative import stays inside the project
                parts = package[: len(package) - node.level + 1] + parts
            if parts[0] not in PROJECT_PACKAGES:
                continue  # third-party privates (numba's _CacheLocator) are their API's business
            names = [a.name for a in node.names]
            if any(map(_is_private, names + parts)):
                yield f"{rel}:{node.lineno}: from {'.'.join(parts)} import {', '.join(names)}"
        elif isinstance(node, ast.Import):
            for a in node.names:
                parts = a.name.split(".")
                if parts[0] in PROJECT_PACKAGES and any(map(_is_private, parts)):
                    yield f"{rel}:{node.lineno}: import {a.name}"


def _layout_aliases(tree: ast.Module) -> set[str]:
    """Names under which a module imported ``sim.base.layout``."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "sim.kernel":
            names |= {a.asname or a.name for a in node.names if a.name == "layout"}
        elif isinstance(node, ast.Import):
            names |= {a.asname or a.name for a in node.names if a.name == "sim.base.layout"}
    return names


def _state_offsets(tree: ast.Module) -> Iterator[tuple[int, str]]:
    aliases = _layout_aliases(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "sim.base.layout":
            for a in node.names:
                if a.name in STATE_OFFSETS:
                    yield node.lineno, f"from sim.base.layout import {a.name}"
        elif isinstance(node, ast.Attribute) and node.attr in STATE_OFFSETS:
            value = ast.unparse(node.value)
            if value in aliases or value == "sim.base.layout":
                yield node.lineno, ast.unparse(node)
        elif isinstance(node, ast.Subscript) and _is_state(node.value):
            ints = (n for n in ast.walk(node.slice) if isinstance(n, ast.Constant))
            if any(type(n.value) is int for n in ints):  # a bare number is an offset too
                yield node.lineno, ast.unparse(node)


def _is_state(node: ast.expr) -> bool:
    """``st`` or ``<anything>.st``: what the code base calls a game state."""
    return (isinstance(node, ast.Name) and node.id == "st") or (
        isinstance(node, ast.Attribute) and node.attr == "st"
    )


def _is_kernel(fn: ast.FunctionDef) -> bool:
    """Decorated ``@kernel``, ``@kernel(...)``, ``@njit``/``@numba.njit`` (with or without
    arguments): numba code."""
    for d in fn.decorator_list:
        f = d.func if isinstance(d, ast.Call) else d
        name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
        if name in ("kernel", "njit"):
            return True
    return False


def _negative_indices(tree: ast.Module) -> Iterator[tuple[int, str]]:
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef) or not _is_kernel(fn):
            continue
        for node in ast.walk(fn):
            if not isinstance(node, ast.Subscript):
                continue
            parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            for part in parts:
                if (
                    isinstance(part, ast.UnaryOp)
                    and isinstance(part.op, ast.USub)
                    and isinstance(part.operand, ast.Constant)
                ):
                    yield node.lineno, ast.unparse(node)


def test_no_kernel_indexes_from_the_end() -> None:
    found = [
        f"{rel}:{line}: {text}"
        for rel, tree in _sources("sim/kernel", "strategies")
        for line, text in _negative_indices(tree)
    ]
    assert not found, "negative indices in kernel code (no wraparound there):\n" + "\n".join(found)


@pytest.mark.parametrize(
    ("source", "flagged"),
    [
        ("@kernel\ndef f(st):\n    return st[-1]\n", True),
        ("@kernel(inline=True)\ndef f(fp, p):\n    return fp[p, -2]\n", True),
        ("@numba.njit(cache=True)\ndef f(st):\n    st[-1] = 0\n", True),
        ("@kernel\ndef f(st, i):\n    return st[i - 1] + st[L.TMP + 1]\n", False),
        ("def f(a):\n    return a[-1]\n", False),  # Python, not a kernel
    ],
)
def test_the_negative_index_rule_catches_kernels_only(source: str, flagged: bool) -> None:
    assert bool(list(_negative_indices(ast.parse(source)))) is flagged


def test_no_module_imports_a_private_name_from_another() -> None:
    found = [
        line for rel, tree in _sources(*PROJECT_PACKAGES) for line in _private_imports(rel, tree)
    ]
    assert not found, "private names imported across modules:\n" + "\n".join(found)


def test_state_offsets_only_in_the_kernel_strategies_and_the_state_view() -> None:
    """Everywhere else reads and writes the state through ``StateView`` by name."""
    found = [
        f"{rel}:{line}: {text}"
        for rel, tree in _sources("sim", "tests", "benchmarks")
        if not rel.startswith(OFFSET_USERS)
        for line, text in _state_offsets(tree)
    ]
    assert not found, "raw state offsets outside the kernel and StateView:\n" + "\n".join(found)


@pytest.mark.parametrize(
    ("source", "flagged"),
    [
        ("from sim.base import layout as L\nx = st[L.COINS + 1]\n", True),
        ("import sim.base.layout\nst[sim.base.layout.FAVOR] = 2\n", True),
        ("from sim.base.layout import HAND_N\n", True),
        ("from sim.base import layout as L\nn = L.N_CITIES + L.O_WINNER + L.RU_GODS\n", False),
        ("x = sc.st[12]\n", True),
        ("st[40:48] = 0\n", True),
        ("from sim.run.view import StateView\nStateView(st).coins(1)\n", False),
        ("out[idx] = st[idx]\n", False),
    ],
)
def test_the_offset_rule_catches_offsets_and_passes_sizes(source: str, flagged: bool) -> None:
    """The check itself: state offsets are caught, table columns and sizes are not."""
    assert bool(list(_state_offsets(ast.parse(source)))) is flagged


@pytest.mark.parametrize(
    ("source", "flagged"),
    [
        ("from sim.run.runner import _Progress\n", True),
        ("from sim.run._x import y\n", True),
        ("from .runner import _check_out_dir\n", True),
        ("from numba.core.caching import _CacheLocator\n", False),
        ("from sim.run.session import Progress\n", False),
    ],
)
def test_the_private_import_rule_catches_private_names(source: str, flagged: bool) -> None:
    assert bool(list(_private_imports("sim/run/x.py", ast.parse(source)))) is flagged
