"""A kernel's tree copied with some of its callees replaced, from the same Python functions:
so a first run compiles only the steps its rules have (``docs/compile.md``)."""

from __future__ import annotations

from typing import Any

from sim.compiler import copy_function
from sim.compiler.ahead import call_graph, kernel_globals
from sim.compiler.extension import kernel
from sim.compiler.mode import PLAIN

COPIES: dict[tuple[int, str], Any] = {}
"""Each copy by (id of the kernel, the copy's name): one per process, shared by the trees."""


def with_replaced(disp: Any, replace: dict[Any, Any], qualname: str) -> Any:
    """Kernel ``disp``'s tree with each key of ``replace`` called by a global name replaced by
    its value: ``disp`` copied as ``qualname``, every kernel between with ``.without-`` and the
    replaced kernels' names, so numba caches the copies apart. In plain mode, ``disp``."""
    if PLAIN:
        return disp
    targets = {id(k): v for k, v in replace.items()}
    tag = ".without-" + "-".join(sorted(k.py_func.__name__ for k in replace))
    graph = call_graph(disp)
    reach = set(targets) & set(graph)
    while new := {k for k, (_, cs) in graph.items() if any(id(c) in reach for c in cs)} - reach:
        reach |= new

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
