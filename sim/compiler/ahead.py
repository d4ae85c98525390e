"""A first run's cold compile on two processes: a child fills numba's cache beside this one.

This process and a child walk one list of large kernels, each compiling the next one the
other has not taken; a kernel's compile holds a ``flock`` on a file of its own (its claim),
so a process reaching a kernel the other is compiling waits and loads it (``docs/compile.md``).
If the child fails, this process compiles its part; it waits for the child before it returns.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import shutil
import subprocess
import sys
import tempfile
import types
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from sim.compiler.linkage import SIGNATURES, kernel_name

try:
    import fcntl
except ImportError:  # not POSIX
    fcntl = None  # type: ignore[assignment]

AVAILABLE = fcntl is not None  # not POSIX: the compile stays in one process

_FOLDER: list[Path] = []
_HELD: set[str] = set()


@contextlib.contextmanager
def claiming(folder: Path) -> Iterator[None]:
    """While it lasts, every kernel compiled here holds its claim in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    _FOLDER.append(folder)
    try:
        yield
    finally:
        _FOLDER.pop()


@contextlib.contextmanager
def _locked(name: str, wait: bool) -> Iterator[bool]:
    fd = os.open(_FOLDER[-1] / name, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        _HELD.add(name)
        try:
            yield True
        finally:
            _HELD.discard(name)
    finally:
        os.close(fd)  # releases the lock


@contextlib.contextmanager
def claim(name: str) -> Iterator[None]:
    """While it lasts, this process alone compiles kernel ``name`` (waiting for another first)."""
    with _locked(name, wait=True) if _FOLDER and name not in _HELD else contextlib.nullcontext():
        yield


@contextlib.contextmanager
def claim_if_free(name: str) -> Iterator[bool]:
    """Claim kernel ``name`` unless held or done elsewhere, never waiting; yields whether it did."""
    if not _FOLDER or is_done(name):
        yield not _FOLDER
        return
    with _locked(name, wait=False) as mine:
        # Done while this process opened the file: the other one has just released it.
        yield mine and not is_done(name)


def is_done(name: str) -> bool:
    """Whether a process has marked kernel ``name`` done."""
    return bool(_FOLDER) and (_FOLDER[-1] / f"{name}.done").exists()


def mark_done(name: str) -> None:
    """Record that kernel ``name`` is in the cache, so no process takes it again."""
    if _FOLDER:
        (_FOLDER[-1] / f"{name}.done").touch()


WORK = (  # a kernel well before its callers, so neither process waits long for the other
    "sim.kernel.abilities:run_op",  # first: every step but the set-up reaches it
    "strategies.greedy:score_option",
    "strategies.greedy:choose_greedy",
    "sim.kernel.abilities:run_ability",
    "sim.kernel.abilities:_fire_trigger",
    "sim.kernel.surge:surge_rest",
    "sim.kernel.war:war_step",
    "sim.kernel.wealth:wealth_step",
    "sim.kernel.offering:offering_step",
    "sim.kernel.game:finish_game",
    "sim.kernel.turn:end_turn",
    # Well after the Surge's rest, which it calls: taken earlier, it waited for the other.
    "sim.kernel.surge:surge_step",
)

SETUPS = ("sim.kernel.game:setup", "sim.kernel.game:setup_shared_deck")
REIGN_STEPS = ("sim.kernel.portent:portent_step", "sim.kernel.feats:feat_step")


def work_of(top: Any, ask: Any) -> tuple[str, ...]:
    """:data:`WORK` with the set-up and Reign steps entry point ``top`` calls (read off its
    tree: each must be listed, or both would meet it unclaimed), then ``top`` and ``ask``."""
    setup, reign = ([n for n in ns if calls(top, kernel_named(n))] for ns in (SETUPS, REIGN_STEPS))
    end = WORK.index("sim.kernel.turn:end_turn")
    return (*WORK[:1], *setup, *WORK[1:end], *reign, *WORK[end:], name_of(top), name_of(ask))


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


def kernel_named(name: str) -> Any:
    """The kernel (dispatcher) ``module:function`` names."""
    module, _, attr = name.partition(":")
    return getattr(importlib.import_module(module), attr)


def name_of(dispatcher: Any) -> str:
    """``module:function`` of a kernel, for the child's command line."""
    return kernel_name(dispatcher.py_func)


def compile_named(names: Iterable[str]) -> None:
    """Compile (or load) each named kernel for its declared argument types, in order."""
    for name in names:
        kernel_named(name).compile(SIGNATURES[name])


def compile_free(names: Iterable[str]) -> None:
    """Compile each named kernel no process claiming beside this one has taken or compiled."""
    for name in names:
        with claim_if_free(name) as mine:
            if mine:
                compile_named([name])
                mark_done(name)


class CompileAhead:
    """A two-core cold compile under way (:func:`compiling_ahead`)."""

    def __init__(self, child: subprocess.Popen[str]) -> None:
        self.child = child

    def finish(self, ask: Any, top: Any, meanwhile: Iterable[Callable[[], None]] = ()) -> None:
        """Compile entry point ``top`` and bot dispatcher ``ask`` with the child (given all of
        :func:`work_of`), calling each of ``meanwhile`` (a run's warm-ups) first."""
        work = work_of(top, ask)
        with contextlib.suppress(OSError):  # a child that died gets nothing: done here
            self.child.stdin.write("".join(f"{name}\n" for name in work))
            self.child.stdin.close()  # nothing more: it exits once its work is done
        for warm in meanwhile:
            warm()
        compile_free(work)
        compile_named([name_of(top), name_of(ask)])


@contextlib.contextmanager
def compiling_ahead(child_work: Iterable[str] = WORK) -> Iterator[CompileAhead]:
    """While it lasts, a child compiles ``child_work`` (then what ``finish`` gives it), and every
    kernel compiled here is claimed; cold cache only. On leaving, waits for the child (killed
    first if the block raised, a Ctrl-C included)."""
    folder = Path(tempfile.mkdtemp(prefix="omensim-claims-"))
    child = subprocess.Popen(
        # -P: a checkout in the working directory cannot stand in for the code this one runs.
        [sys.executable, "-P", "-m", __name__, str(folder), *child_work],
        env=os.environ.copy(),
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        with claiming(folder):
            yield CompileAhead(child)
    except BaseException:
        child.kill()  # interrupted: the child's part alone is no use to anyone
        raise
    finally:
        with contextlib.suppress(OSError):
            child.stdin.close()
        child.wait()  # the child compiles nothing more than asked: by now it is exiting
        shutil.rmtree(folder, ignore_errors=True)


def compile_on_two_cores(ask: Any, top: Any, meanwhile: Iterable[Callable[[], None]] = ()) -> None:
    """Compile ``top`` and ``ask`` on two cores (:func:`compiling_ahead`); cold cache only."""
    with compiling_ahead(work_of(top, ask)) as ahead:
        ahead.finish(ask, top, meanwhile)


def child_main(folder: str, names: list[str]) -> None:
    """The child: compile ``names``, then each name its parent sends, until it is done."""
    with claiming(Path(folder)):
        compile_free(names)
        for line in sys.stdin:
            compile_free([line.strip()] if line.strip() else [])


if __name__ == "__main__":
    child_main(sys.argv[1], sys.argv[2:])
