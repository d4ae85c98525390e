"""A kernel's tree copied with some of its callees replaced, from the same Python functions.

An entry point of rules without A Reign of War's Portent and Feat steps
(``sim.kernel.batch``) is :func:`with_replaced` of the general one: the chain from the entry
point to the steps is copied, its globals pointing at the copies, with the steps replaced by
empty kernels the rules never reach, so a first run of those sets never compiles them. The
copies are named apart, so numba caches them in files of their own, and they play the same
games as the tree they copy (``tests/kernel/test_entry_points.py``).
"""

from __future__ import annotations

import types
from typing import Any

from sim.compiler import copy_function
from sim.compiler.extension import compiled
from sim.compiler.mode import PLAIN

COPIES: dict[tuple[int, str], Any] = {}
"""Each copy of a kernel by (id of the kernel, the copy's qualified name): one per process,
so trees copied apart (two entry points) share their copies' compiles."""


def is_kernel(value: Any) -> bool:
    """Whether ``value`` is a kernel of the extension (``@kernel``, with its flags)."""
    return isinstance(getattr(value, "flags", None), dict) and hasattr(value, "py_func")


def kernel_globals(fn: Any) -> dict[str, Any]:
    """The kernels Python function ``fn`` names as globals, by name.

    Kernel code calls a kernel by a global name (``from ... import f``); a kernel reached
    through a module's attribute (``Z.draw``) must reach no replaced kernel, which
    :func:`reaching_targets` checks.
    """
    names = set(fn.__code__.co_names)
    return {n: fn.__globals__[n] for n in names if is_kernel(fn.__globals__.get(n))}


def module_kernels(fn: Any) -> list[Any]:
    """The kernels Python function ``fn`` may reach as attributes of a module global."""
    names = set(fn.__code__.co_names)
    found = []
    for n in names:
        value = fn.__globals__.get(n)
        if isinstance(value, types.ModuleType):
            found += [getattr(value, a) for a in names if is_kernel(getattr(value, a, None))]
    return found


def call_graph(
    disp: Any, through: Any = lambda d: True, attributes: bool = False
) -> dict[int, tuple[Any, list[Any]]]:
    """``disp`` and every kernel it calls, directly or not, through kernels ``through``
    accepts (by default all): by id, the kernel and the kernels it
    names as globals, and with ``attributes`` those it may reach as a module's attributes
    too."""
    graph: dict[int, tuple[Any, list[Any]]] = {}
    todo = [disp]
    while todo:
        d = todo.pop()
        if id(d) in graph:
            continue
        callees = list(kernel_globals(d.py_func).values())
        if attributes:
            callees += module_kernels(d.py_func)
        graph[id(d)] = (d, callees)
        todo += [c for c in callees if through(c)]
    return graph


def calls(disp: Any, target: Any) -> bool:
    """Whether kernel ``disp`` calls kernel ``target``, directly or not, by name or as a
    module's attribute: whether compiling ``disp`` compiles ``target``."""
    return id(target) in call_graph(disp, attributes=True)


def reaching_targets(disp: Any, is_target: Any, through: Any) -> set[int]:
    """The ids of the kernels of ``disp``'s tree (:func:`call_graph` ``through``) that are
    targets or call one, through kernels ``through`` accepts, directly or not: those a
    copy of the tree must copy or replace. Raises ``TypeError`` if one of them is reached
    through a module's attribute, where a copy's globals could not replace it."""
    graph = call_graph(disp, through)
    reach = {key for key, (d, _) in graph.items() if is_target(d)}
    changed = True
    while changed:
        changed = False
        for key, (d, callees) in graph.items():
            if key in reach or not through(d):
                continue
            if any(id(c) in reach or is_target(c) for c in callees):
                reach.add(key)
                changed = True
    for d, _ in graph.values():
        for callee in module_kernels(d.py_func):
            if id(callee) in reach or is_target(callee):
                raise TypeError(
                    f"{d.py_func.__qualname__} reaches {callee.py_func.__qualname__}, which "
                    "its copy must replace, through a module attribute: import it by name"
                )
    return reach


def copy_tree(
    disp: Any,
    reach: set[int],
    name: str,
    suffix: str,
    flags: dict[str, bool],
    replace: dict[int, Any] | None = None,
) -> Any:
    """A copy of kernel ``disp``, named ``name``, and of each kernel of ``reach`` (by id)
    it reaches, named with ``suffix``, compiled with ``flags`` over their own, their
    globals pointing at the copies or, for the ids of ``replace``, at its values; a kernel
    not in ``reach`` is itself."""
    replace = replace or {}

    def copy_of(d: Any, qualname: str) -> Any:
        if id(d) in replace:
            return replace[id(d)]
        if id(d) not in reach:
            return d
        if (id(d), qualname) in COPIES:
            return COPIES[id(d), qualname]
        fn = d.py_func
        globs = dict(fn.__globals__)
        copy = compiled(copy_function(fn, globs, qualname), {**d.flags, **flags})
        COPIES[id(d), qualname] = copy  # before its callees: a cycle reaches this copy
        for global_name, callee in kernel_globals(fn).items():
            globs[global_name] = copy_of(callee, callee.py_func.__qualname__ + suffix)
        return copy

    return copy_of(disp, name)


def with_replaced(disp: Any, replace: dict[Any, Any], qualname: str) -> Any:
    """Kernel ``disp``'s tree with each kernel that is a key of ``replace`` replaced, where
    it is called, by its value: every kernel between ``disp`` and such a call is copied
    with its globals pointing at the copies, under the
    name ``qualname`` for ``disp`` itself and with ``.without`` and the names of the
    replaced kernels for the others (one set of replacements per set of replaced kernels).
    For an entry point of tables that never play a step: the step and its tree are then
    never compiled (``sim.kernel.batch``). In plain numba mode, ``disp``."""
    if PLAIN:
        return disp
    targets = {id(k): v for k, v in replace.items()}
    tag = ".without-" + "-".join(sorted(k.py_func.__name__ for k in replace))
    reach = reaching_targets(disp, lambda d: id(d) in targets, lambda d: True)
    return copy_tree(disp, reach, qualname, tag, {}, targets)
