"""Linked twins: a kernel tree compiled again with its steps linked into their callers.

The turn's steps and the ability interpreter are by symbol (``@kernel(by_symbol=True)``):
each is optimised once, in a module of its own that either of the two compiling processes
can take (``sim.run.compile_ahead``), so a first run's cold compile shares them out. Linked
into their callers instead, LLVM inlines the steps, passes them only what they read and
inlines the bot at each decision, about 15% more games a second; but the entry point then
becomes one module of the whole game, optimised in one process, seconds longer than a
first run may wait (``docs/compile.md``).

So both are built from the same Python functions. The kernels marked
``@kernel(by_symbol=True, twin=True)`` are by symbol in the kernel's own tree, which a first
run compiles; :func:`linked_twin` of an entry point gives a second tree in which they are
linked: each kernel that reaches one, and each such kernel itself, is copied with its
globals pointing at the copies, under a name of its own (:data:`SUFFIX`, so numba caches it
in files of its own). Kernels that reach none are shared by both trees, as are by-symbol
kernels not so marked (the set-up, the end of the game). The twin is compiled when nothing
waits for it (``sim.run.compile_later``) and played once it is in the cache; it plays the
same games as the tree it copies (``tests/kernel/test_entry_points.py``).
"""

from __future__ import annotations

import types
from typing import Any

from sim.kernel.jit import PLAIN, kernel

SUFFIX = ".linked"
"""Ends the qualified name (and so the cache files) of a twin of a kernel."""


TWINS: dict[tuple[int, str], Any] = {}
"""Each kernel's linked twin by (id of the kernel, suffix): one per process, so entry points
twinned apart share their twins' compiles."""


def is_kernel(value: Any) -> bool:
    """Whether ``value`` is a kernel of the extension (``@kernel``, with its flags)."""
    return hasattr(value, "kernel_flags") and hasattr(value, "py_func")


def kernel_globals(fn: Any) -> dict[str, Any]:
    """The kernels Python function ``fn`` names as globals, by name.

    Kernel code calls a kernel by a global name (``from ... import f``); a kernel reached
    through a module's attribute (``Z.draw``) must reach no twin, which
    :func:`reaching` checks.
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


def call_graph(disp: Any) -> dict[int, tuple[Any, list[Any]]]:
    """``disp`` and every kernel it calls, directly or not, through kernels that are linked
    in its twin (not by symbol, or marked ``twin``): by id, the kernel and the kernels it
    names as globals."""
    graph: dict[int, tuple[Any, list[Any]]] = {}
    todo = [disp]
    while todo:
        d = todo.pop()
        if id(d) in graph:
            continue
        callees = list(kernel_globals(d.py_func).values())
        graph[id(d)] = (d, callees)
        todo += [c for c in callees if c.twin or not c.by_symbol]
    return graph


def reaching(disp: Any) -> set[int]:
    """The ids of the kernels of ``disp``'s tree (:func:`call_graph`) that are marked
    ``twin`` or call one not by symbol, directly or not: those whose twin differs."""
    graph = call_graph(disp)
    reach = {key for key, (d, _) in graph.items() if d.twin}
    changed = True
    while changed:
        changed = False
        for key, (d, callees) in graph.items():
            if key in reach or (d.by_symbol and not d.twin):
                continue
            if any(id(c) in reach for c in callees):
                reach.add(key)
                changed = True
    for d, _ in graph.values():
        for callee in module_kernels(d.py_func):
            if id(callee) in reach or callee.twin:
                raise TypeError(
                    f"{d.py_func.__qualname__} reaches twin kernel "
                    f"{callee.py_func.__qualname__} through a module attribute: import it "
                    "by name so that its linked twin can replace it"
                )
    return reach


def copy_function(fn: Any, globs: dict[str, Any], suffix: str) -> Any:
    """Python function ``fn`` with globals ``globs`` and ``suffix`` on its qualified name."""
    copy = types.FunctionType(fn.__code__, globs, fn.__name__, fn.__defaults__, fn.__closure__)
    copy.__qualname__ = f"{fn.__qualname__}{suffix}"
    copy.__module__ = fn.__module__
    copy.__doc__ = fn.__doc__
    return copy


def linked_twin(disp: Any, suffix: str = SUFFIX) -> Any:
    """Kernel ``disp``'s linked twin: a copy whose tree links every ``twin`` kernel it
    reaches (the module docstring); ``disp`` itself if it reaches none. ``suffix`` ends
    the copy's qualified name (an entry point defined only to be twinned may keep its
    own: ``""``). In plain numba mode, ``disp`` (no kernel there is by symbol)."""
    if PLAIN:
        return disp
    reach = reaching(disp)

    def twin_of(d: Any, suffix: str) -> Any:
        if id(d) not in reach:
            return d
        if (id(d), suffix) in TWINS:
            return TWINS[id(d), suffix]
        fn = d.py_func
        globs = dict(fn.__globals__)
        flags = {**d.kernel_flags, "by_symbol": False, "twin": False}
        twin = kernel(copy_function(fn, globs, suffix), **flags)
        TWINS[id(d), suffix] = twin  # before its callees: a cycle reaches this copy
        for name, callee in kernel_globals(fn).items():
            globs[name] = twin_of(callee, SUFFIX)
        return twin

    return twin_of(disp, suffix)


def with_replaced(disp: Any, replace: dict[Any, Any], qualname: str) -> Any:
    """Kernel ``disp``'s tree with each kernel that is a key of ``replace`` replaced, where
    it is called, by its value: every kernel between ``disp`` and such a call (through
    calls not by symbol) is copied with its globals pointing at the copies, under the
    name ``qualname`` for ``disp`` itself and with ``.without`` and the names of the
    replaced kernels for the others. For an entry point of tables that never play a
    step: the step and its tree are then never compiled (``sim.kernel.batch``). In plain
    numba mode, ``disp``."""
    if PLAIN:
        return disp
    targets = {id(k): v for k, v in replace.items()}
    tag = ".without-" + "-".join(sorted(k.py_func.__name__ for k in replace))
    graph = call_graph(disp)
    reach = set()
    changed = True
    while changed:
        changed = False
        for key, (d, callees) in graph.items():
            if key in reach or d.by_symbol:
                continue
            if any(id(c) in targets or id(c) in reach for c in callees):
                reach.add(key)
                changed = True
    for d, _ in graph.values():
        if any(id(c) in targets for c in module_kernels(d.py_func)):
            raise TypeError(
                f"{d.py_func.__qualname__} reaches a replaced kernel through a module "
                "attribute: import it by name so that it can be replaced"
            )
    made: dict[int, Any] = {}

    def copy_of(d: Any, name: str) -> Any:
        if id(d) in targets:
            return targets[id(d)]
        if id(d) not in reach:
            return d
        if id(d) in made:
            return made[id(d)]
        fn = d.py_func
        globs = dict(fn.__globals__)
        copy_fn = copy_function(fn, globs, "")
        copy_fn.__qualname__ = name  # before @kernel: numba names the cache files after it
        copy = kernel(copy_fn, **d.kernel_flags)
        made[id(d)] = copy
        for global_name, callee in kernel_globals(fn).items():
            globs[global_name] = copy_of(callee, callee.py_func.__qualname__ + tag)
        return copy

    return copy_of(disp, qualname)
