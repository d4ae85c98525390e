"""A kernel's tree copied with some of its callees replaced, from the same Python functions.

An entry point of rules without A Reign of War's Portent and Feat steps (``sim.kernel.batch``)
is :func:`with_replaced` of the general one: the kernels from the entry point down to the
steps are copied, their globals pointing at the copies and the steps at empty kernels, so a
first run of those sets never compiles the steps. The copies are named apart, so numba caches
them in files of their own; they play the same games (``tests/kernel/test_entry_points.py``).
"""

from __future__ import annotations

import types
from typing import Any

from sim.compiler import copy_function
from sim.compiler.extension import kernel
from sim.compiler.mode import PLAIN

COPIES: dict[tuple[int, str], Any] = {}
"""Each copy by (id of the kernel, the copy's name): one per process, shared by the trees."""


def is_kernel(value: Any) -> bool:
    """Whether ``value`` is a kernel of the extension (``@kernel``, with its flags)."""
    return isinstance(getattr(value, "flags", None), dict) and hasattr(value, "py_func")


def kernel_globals(fn: Any) -> dict[str, Any]:
    """The kernels Python function ``fn`` names as globals, by name."""
    g = fn.__globals__
    return {n: g[n] for n in set(fn.__code__.co_names) if is_kernel(g.get(n))}


def module_kernels(fn: Any) -> list[Any]:
    """The kernels Python function ``fn`` may reach as attributes of a module global."""
    names = set(fn.__code__.co_names)
    modules = [m for n in names if isinstance(m := fn.__globals__.get(n), types.ModuleType)]
    return [getattr(m, a) for m in modules for a in names if is_kernel(getattr(m, a, None))]


def call_graph(disp: Any, attributes: bool = False) -> dict[int, tuple[Any, list[Any]]]:
    """``disp`` and every kernel it calls, directly or not, by id: the kernel and those it
    names as globals (with ``attributes``, and those it may reach as a module's attributes)."""
    graph: dict[int, tuple[Any, list[Any]]] = {}
    todo = [disp]
    while todo:
        d = todo.pop()
        if id(d) not in graph:
            callees = list(kernel_globals(d.py_func).values())
            callees += module_kernels(d.py_func) if attributes else []
            graph[id(d)] = (d, callees)
            todo += callees
    return graph


def calls(disp: Any, target: Any) -> bool:
    """Whether compiling kernel ``disp`` compiles kernel ``target``."""
    return id(target) in call_graph(disp, attributes=True)


def with_replaced(disp: Any, replace: dict[Any, Any], qualname: str) -> Any:
    """Kernel ``disp``'s tree with each kernel that is a key of ``replace`` replaced, where it
    is called, by its value: ``disp`` is copied as ``qualname``, every kernel between it and
    such a call with ``.without-`` and the replaced kernels' names. In plain mode, ``disp``."""
    if PLAIN:
        return disp
    targets = {id(k): v for k, v in replace.items()}
    tag = ".without-" + "-".join(sorted(k.py_func.__name__ for k in replace))
    graph = call_graph(disp)
    reach = set(targets) & set(graph)
    while new := {k for k, (_, cs) in graph.items() if any(id(c) in reach for c in cs)} - reach:
        reach |= new
    for d, _ in graph.values():
        for callee in module_kernels(d.py_func):
            if id(callee) in reach or id(callee) in targets:
                raise TypeError(
                    f"{d.py_func.__qualname__} reaches {callee.py_func.__qualname__}, which "
                    "its copy must replace, through a module attribute: import it by name"
                )

    def copy_of(d: Any, name: str) -> Any:
        if id(d) in targets or id(d) not in reach:
            return targets.get(id(d), d)
        if (id(d), name) not in COPIES:
            fn = d.py_func
            globs = dict(fn.__globals__)
            # Stored before its callees are copied: a cycle reaches this copy.
            COPIES[id(d), name] = kernel(copy_function(fn, globs, name), d.flags)
            for global_name, callee in kernel_globals(fn).items():
                globs[global_name] = copy_of(callee, callee.py_func.__qualname__ + tag)
        return COPIES[id(d), name]

    return copy_of(disp, qualname)
