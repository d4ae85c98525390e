"""A first run's cold compile on two processes: a child fills numba's cache beside this one.

Numba compiles one function at a time under a process-wide lock, so a cold compile uses
one core however many the machine has; and it loads a function from its on-disk cache
whenever a file for it is there (a kernel's IR, for its callers to link:
``sim.compiler.lazy_code``). So this process and a child walk one list of large kernels,
each compiling the next one the other has not taken (``sim.compiler.claims``); a kernel
either reaches while the other compiles it is waited for and loaded, never compiled twice.
Nothing here changes what is compiled, only which process compiles it first: if the child
fails or is slow, this process compiles its part itself. The parent waits for the child
before it returns.
"""

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

import sim.compiler.claims as claims
from sim.compiler.copies import calls
from sim.compiler.linkage import SIGNATURES

WORK = (
    # The ability interpreter first: every step but the set-up reaches it.
    "sim.kernel.abilities:run_op",
    # Trees of their own while the interpreter compiles: the greedy bot's scoring, the
    # set-up (:func:`work_of`), the rest of the bot.
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
    # Well after the Surge's rest, which it calls: taken any earlier, its compile waited
    # for the other process to finish that.
    "sim.kernel.surge:surge_step",
)
"""Kernels both processes compile, in this order, each taking the next one the other has not
taken (``sim.compiler.claims``): the steps, the bot and the large trees beneath them,
a kernel well before the kernels that call it, so that neither process waits long for the
other. Every entry point calls them; :func:`work_of` adds the set-up, the steps of
A Reign of War and the dispatcher."""

SETUP_OF = {
    "sim.kernel.batch:play_range": "sim.kernel.game:setup",
    "sim.kernel.batch:play_range_shared_deck": "sim.kernel.game:setup_shared_deck",
    "sim.kernel.batch:play_range_without_reign_steps": "sim.kernel.game:setup",
    "sim.kernel.batch:play_range_shared_deck_without_reign_steps": (
        "sim.kernel.game:setup_shared_deck"
    ),
}
"""The set-up kernel each entry point calls (``sim.kernel.batch.range_kernel``)."""

REIGN_STEPS = ("sim.kernel.portent:portent_step", "sim.kernel.feats:feat_step")
"""A Reign of War's steps, compiled before the end of the turn by the entry points whose
tree calls them (not those made without them, ``sim.kernel.batch``)."""


def work_of(top: Any, ask: Any) -> tuple[str, ...]:
    """:data:`WORK` with the set-up that entry point ``top`` calls, after the ability
    interpreter, and the steps of A Reign of War if it calls them (:data:`REIGN_STEPS`),
    then ``top`` and the bot dispatcher ``ask``: the first process done with
    the rest compiles the top, which calls all of it but not the dispatcher, and the other
    one the dispatcher meanwhile."""
    setup = SETUP_OF.get(name_of(top))
    setups = [setup] if setup else []
    # Read off the tree, not the entry's name: a step no kernel of it calls is never
    # compiled by it, and a step it does call must be in the list, or the two processes
    # would each meet it unclaimed.
    reign = tuple(n for n in REIGN_STEPS if calls(top, kernel_named(n)))
    end = WORK.index("sim.kernel.turn:end_turn")
    return (*WORK[:1], *setups, *WORK[1:end], *reign, *WORK[end:], name_of(top), name_of(ask))


def kernel_named(name: str) -> Any:
    """The kernel ``module:function`` names (its dispatcher)."""
    module, _, attr = name.partition(":")
    return getattr(importlib.import_module(module), attr)


def compile_named(names: Iterable[str]) -> None:
    """Compile (or load from the cache) each named kernel for its declared argument types
    (``sim.compiler.linkage.SIGNATURES``), in order."""
    for name in names:
        kernel_named(name).compile(SIGNATURES[name])


def compile_free(names: Iterable[str]) -> None:
    """Compile each named kernel that no process claiming beside this one has taken or
    compiled (``sim.compiler.claims``), in order; skip the others."""
    for name in names:
        with claims.claim_if_free(name) as mine:
            if mine:
                compile_named([name])
                claims.mark_done(name)


def name_of(dispatcher: Any) -> str:
    """``module:function`` of a kernel, for the child's command line."""
    return claims.kernel_name(dispatcher.py_func)


class CompileAhead:
    """A two-core cold compile under way (:func:`compiling_ahead`): the child is walking
    :data:`WORK` (or the work it was started with) and takes more from :meth:`finish`."""

    def __init__(self, child: subprocess.Popen[str], sent: Iterable[str]) -> None:
        self.child = child
        self.sent = set(sent)
        """Kernels the child has been given."""

    def send(self, names: Iterable[str]) -> None:
        """Give the child ``names`` to compile after its own work (those it has not been
        given yet); a child that has died gets nothing, and this process compiles them."""
        new = [name for name in names if name not in self.sent]
        self.sent.update(new)
        if not new or self.child.stdin is None:
            return
        try:
            self.child.stdin.write("".join(f"{name}\n" for name in new))
            self.child.stdin.flush()
        except OSError:
            pass

    def finish(
        self,
        ask: Any,
        top: Any,
        work: Iterable[str] | None = None,
        meanwhile: Iterable[Callable[[], None]] = (),
    ) -> None:
        """Compile ``top`` (the kernel's entry point) and the bot dispatcher ``ask`` with
        the child, and have both here.

        Gives the child the rest of ``work`` (by default :func:`work_of` ``top``
        and ``ask``), calls each of ``meanwhile`` (warm-ups of compiled code
        outside the kernel's tree, which a run needs before its first rows), then
        compiles each kernel of ``work`` the child has not taken
        (:func:`compile_free`); then ``top`` and ``ask``, loading what the child
        compiled and waiting for what it is compiling.
        """
        work = tuple(work_of(top, ask) if work is None else work)
        self.send(work)
        for warm in meanwhile:
            warm()
        compile_free(work)
        compile_named([name_of(top), name_of(ask)])
        self.close()

    def close(self) -> None:
        """Tell the child nothing more is coming: it exits once its work is done."""
        if self.child.stdin is not None:
            with contextlib.suppress(OSError):
                self.child.stdin.close()


@contextlib.contextmanager
def compiling_ahead(child_work: Iterable[str] = WORK) -> Iterator[CompileAhead]:
    """While it lasts, a child compiles ``child_work`` into numba's cache (then what
    :meth:`CompileAhead.finish` gives it), and every kernel this process compiles is
    claimed (``sim.compiler.claims``): a kernel the child compiles is loaded, not compiled
    twice. Start it as early as the cache is known to be cold, so that the child's own
    start-up and the run's set-up here (the bots' figures compile) overlap; call
    ``finish`` before the first game. On leaving, waits for the child to exit (killed
    first if the block raised, a Ctrl-C included). Use it only when the cache is cold:
    the child does nothing of use otherwise."""
    child_work = tuple(child_work)
    folder = Path(tempfile.mkdtemp(prefix="omensim-claims-"))
    child = subprocess.Popen(
        # -P: the working directory is not put first on the child's path, so a checkout
        # there cannot stand in for the code this process runs.
        [sys.executable, "-P", "-m", __name__, str(folder), *child_work],
        env=os.environ.copy(),
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    ahead = CompileAhead(child, child_work)
    try:
        with claims.claiming(folder):
            yield ahead
    except BaseException:
        child.kill()  # interrupted: the child's part alone is no use to anyone
        raise
    finally:
        ahead.close()
        # Waited for whatever happened: nothing a command starts outlives it. The child
        # compiles nothing the parent has not asked for, so by now it is only exiting.
        child.wait()
        shutil.rmtree(folder, ignore_errors=True)


def compile_on_two_cores(
    ask: Any,
    top: Any,
    work: Iterable[str] | None = None,
    child_work: Iterable[str] | None = None,
    meanwhile: Iterable[Callable[[], None]] = (),
) -> None:
    """Compile ``top`` and ``ask`` on two cores at once (:func:`compiling_ahead` and
    :meth:`CompileAhead.finish`); ``child_work``: the child's, by default ``work``
    (by default :func:`work_of` ``top`` and ``ask``). Call it only when the cache is
    cold."""
    work = tuple(work_of(top, ask) if work is None else work)
    with compiling_ahead(work if child_work is None else child_work) as ahead:
        ahead.finish(ask, top, work, meanwhile)


def child_main(folder: str, names: list[str]) -> None:
    """The child: compile ``names``, then each name its parent sends, until it is done."""
    with claims.claiming(Path(folder)):
        compile_free(names)
        for line in sys.stdin:
            compile_free([line.strip()] if line.strip() else [])


if __name__ == "__main__":
    child_main(sys.argv[1], sys.argv[2:])
