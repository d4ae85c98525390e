"""A first run's cold compile on two processes: a child fills numba's cache beside this one,
each process taking the kernels the other has not claimed (``docs/compile.md``)."""

from __future__ import annotations

import contextlib
import importlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from sim.compiler.linkage import SIGNATURES, kernel_name

try:
    import fcntl
except ImportError:  # not POSIX
    fcntl = None  # type: ignore[assignment]

AVAILABLE = fcntl is not None  # not POSIX: the compile stays in one process

CHILD_CODE = f"import sys; from {__name__} import child_main; child_main(sys.argv[1], sys.argv[2:])"
"""What the child runs (``python -P -c CHILD_CODE folder names...``)."""
_FOLDER: list[Path] = []
_HELD: set[str] = set()


@contextlib.contextmanager
def claiming(folder: Path) -> Iterator[None]:
    """While it lasts, every kernel compiled here holds its claim in ``folder``."""
    _FOLDER.append(folder)
    try:
        yield
    finally:
        _FOLDER.pop()


@contextlib.contextmanager
def claim(name: str, wait: bool = True) -> Iterator[bool]:
    """While it lasts, this process alone compiles kernel ``name``: yields whether it should,
    after waiting for the other process (``wait``), else only if nobody holds or did it."""
    if not _FOLDER or name in _HELD:  # not claiming, or within this process's own claim
        yield True
        return
    done = _FOLDER[-1] / f"{name}.done"
    try:
        fd = os.open(_FOLDER[-1] / name, os.O_RDWR | os.O_CREAT, 0o600)
    except FileNotFoundError:  # the folder was removed (a temporary-files cleaner): unclaimed
        yield True
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        _HELD.add(name)
        try:
            mine = wait or not done.exists()
            yield mine
            if mine:
                done.touch()  # in the cache now: the other process need not take it
        finally:
            _HELD.discard(name)
    finally:
        os.close(fd)  # releases the lock


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
    """:data:`WORK` with the set-up and Reign steps entry point ``top`` calls, then ``top``
    and ``ask``: the list both processes walk."""
    graph = call_graph(top)
    setup, reign = ([n for n in ns if id(kernel_named(n)) in graph] for ns in (SETUPS, REIGN_STEPS))
    end = WORK.index("sim.kernel.turn:end_turn")
    return (*WORK[:1], *setup, *WORK[1:end], *reign, *WORK[end:], *map(kernel_name, (top, ask)))


def kernel_globals(fn: Any) -> dict[str, Any]:
    """The kernels Python function ``fn`` names as globals, by name."""
    kernels = {n: fn.__globals__.get(n) for n in set(fn.__code__.co_names)}
    return {n: k for n, k in kernels.items() if isinstance(getattr(k, "flags", None), dict)}


def call_graph(disp: Any) -> dict[int, tuple[Any, list[Any]]]:
    """``disp`` and every kernel it calls by a global name, directly or not, by id: the
    kernel and those it names."""
    graph: dict[int, tuple[Any, list[Any]]] = {}
    todo = [disp]
    while todo:
        d = todo.pop()
        if id(d) not in graph:
            graph[id(d)] = (d, list(kernel_globals(d.py_func).values()))
            todo += graph[id(d)][1]
    return graph


def kernel_named(name: str) -> Any:
    """The kernel (dispatcher), or the warm-up, ``module:function`` names."""
    module, _, attr = name.partition(":")
    return getattr(importlib.import_module(module), attr)


def compile_named(names: Iterable[str]) -> None:
    """Compile (or load) each named kernel for its declared argument types, in order."""
    for name in names:
        kernel_named(name).compile(SIGNATURES[name])


def compile_free(names: Iterable[str]) -> None:
    """Compile each named kernel no process claiming beside this one has taken or compiled;
    a name without declared types is a warm-up, called instead."""
    for name in names:
        with claim(name, wait=False) as mine:
            if mine and name in SIGNATURES:
                compile_named([name])
            elif mine:
                kernel_named(name)()


def claims_folder() -> Path:
    """A new claims folder, named for this process; those of processes no longer running
    (killed before they could remove theirs) are removed first."""
    prefix = "omensim-claims-"
    for folder in Path(tempfile.gettempdir()).glob(f"{prefix}*"):
        try:
            os.kill(int(folder.name.split("-")[2]), 0)  # signal 0: only whether it runs
        except ProcessLookupError:
            shutil.rmtree(folder, ignore_errors=True)
        except (ValueError, IndexError, OSError):
            continue  # not named by this function, or another user's live process
    return Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-"))


@contextlib.contextmanager
def compiling_ahead(then: Iterable[str] = ()) -> Iterator[Callable[..., None]]:
    """While it lasts (cold cache only), a child compiles :data:`WORK` and every kernel compiled
    here is claimed; yields ``finish``, which compiles entry point ``top`` and bot dispatcher
    ``ask`` with the child, then the ``module:function`` warm-ups of ``then`` (needed only after
    ``top``). On leaving, waits for the child (killed first if the block raised or on Ctrl-C)."""
    folder = claims_folder()
    child = subprocess.Popen(
        # -P: a checkout in the working directory cannot stand in for the code this one runs;
        # -c, not -m: as __main__ this file would be a copy whose claims the kernels never see.
        [sys.executable, "-P", "-c", CHILD_CODE, str(folder), *WORK],
        env=os.environ.copy(),
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
    )

    def finish(ask: Any, top: Any) -> None:
        work = (*work_of(top, ask), *then)  # whichever process is free takes the next
        with contextlib.suppress(OSError):  # a child that died gets nothing: done here
            child.stdin.write("".join(f"{name}\n" for name in work))
            child.stdin.close()  # nothing more: it exits once its work is done
        compile_free(work)
        compile_named([kernel_name(top), kernel_name(ask)])

    try:
        with claiming(folder):
            yield finish
    except BaseException:
        child.kill()  # interrupted: the child's part alone is no use to anyone
        raise
    finally:
        with contextlib.suppress(OSError):
            child.stdin.close()
        child.wait()  # the child compiles nothing more than asked: by now it is exiting
        shutil.rmtree(folder, ignore_errors=True)


def child_main(folder: str, names: list[str]) -> None:
    """The child: compile ``names``, then each name its parent sends, until it is done."""
    with claiming(Path(folder)):
        compile_free(names)
        compile_free(line.strip() for line in sys.stdin if line.strip())
