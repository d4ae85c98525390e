"""A first run's cold compile on two cores: a child process fills numba's cache beside us.

Numba compiles one function at a time under a global lock, so a cold compile
(tens of seconds of CPU) uses one core however many the machine has. The
kernel and the bots are separate trees (the kernel only calls the bot through
the ``ask`` function pointer), the steps and the ability interpreter are
compiled on their own (by symbol), and numba loads a function from its on-disk
cache instead of compiling it whenever a file for it is there. So this process
and a child walk one list of those kernels, each compiling the next one the
other has not taken (``sim.kernel.claims``), and a kernel either reaches that
the other is compiling is waited for and loaded, never compiled twice; the top
of the tree, compiled here, then finds the child's part on disk and only links
it.

Nothing here changes what is compiled, only which process compiles it first:
if the child fails or is slow, this process compiles that part itself (a
wait, never a wrong result), and a warm cache skips all of it.
"""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from sim.kernel import claims
from sim.kernel.jit import declared_signature

WORK = (
    # The ability interpreter first: every step but the set-up reaches it.
    "sim.kernel.abilities:run_op",
    # Trees of their own while the interpreter compiles: the greedy bot's scoring, the set-up.
    "strategies.greedy:score_option",
    "sim.kernel.game:setup_shared_deck",
    "strategies.greedy:choose_greedy",
    "sim.kernel.abilities:run_ability",
    "sim.kernel.abilities:_fire_trigger",
    "sim.kernel.surge:surge_rest",
    "sim.kernel.war:war_step",
    "sim.kernel.wealth:wealth_step",
    "sim.kernel.offering:offering_step",
    "sim.kernel.game:finish_game",
    "sim.kernel.portent:portent_step",
    "sim.kernel.feats:feat_step",
    "sim.kernel.turn:end_turn",
    # Well after the Surge's rest, which it calls: taken any earlier, its compile waited
    # for the other process to finish that.
    "sim.kernel.surge:surge_step",
)
"""Kernels both processes compile, in this order, each taking the next one the other has not
taken (``sim.kernel.claims``): the by-symbol steps, the bot and the large trees beneath them,
a kernel well before the kernels that call it, so that neither process waits long for the
other. The set-up is that of ``play_range_shared_deck``; a top that builds decks compiles its
own (:func:`work_of`)."""

SETUP_OF = {
    "sim.kernel.batch:play_range": "sim.kernel.game:setup",
    "sim.kernel.batch:play_range_shared_deck": "sim.kernel.game:setup_shared_deck",
}
"""The set-up kernel each entry point calls (``sim.kernel.batch.range_kernel``)."""


def work_of(top: Any, ask: Any) -> tuple[str, ...]:
    """:data:`WORK` with the set-up that entry point ``top`` calls (unchanged for another
    top), then the bot dispatcher ``ask``: last, so that one process compiles it while the
    other compiles the top, which does not call it."""
    setup = SETUP_OF.get(name_of(top))
    default = SETUP_OF["sim.kernel.batch:play_range_shared_deck"]
    work = WORK if setup is None else tuple(setup if name == default else name for name in WORK)
    return (*work, name_of(ask))


def kernel_named(name: str) -> Any:
    """The kernel ``module:function`` names (its dispatcher)."""
    module, _, attr = name.partition(":")
    return getattr(importlib.import_module(module), attr)


def compile_named(names: Iterable[str]) -> None:
    """Compile (or load from the cache) each named kernel's one signature, in order."""
    for name in names:
        disp = kernel_named(name)
        disp.compile(declared_signature(disp.py_func))


def compile_free(names: Iterable[str]) -> None:
    """Compile each named kernel that no process claiming beside this one has taken or
    compiled (``sim.kernel.claims``), in order; skip the others."""
    for name in names:
        with claims.claim_if_free(name) as mine:
            if mine:
                compile_named([name])
                claims.mark_done(name)


def name_of(dispatcher: Any) -> str:
    """``module:function`` of a kernel, for the child's command line."""
    return claims.kernel_name(dispatcher.py_func)


def compile_on_two_cores(
    ask: Any,
    top: Any,
    work: Iterable[str] | None = None,
    child_work: Iterable[str] | None = None,
    meanwhile: Iterable[Callable[[], None]] = (),
) -> None:
    """Compile ``top`` (the kernel's entry point) and the bot dispatcher ``ask`` on two cores.

    Starts a child, calls each of ``meanwhile`` while it starts (warm-ups of
    compiled code outside the kernel's tree, which a run needs before its first
    rows), then both processes compile ``work`` (by default :func:`work_of`
    ``top`` and ``ask``; ``child_work``: the child's, by default the same), each
    kernel once (:func:`compile_free`), except that this process leaves ``ask`` to
    the child and compiles ``top`` meanwhile, which does not call it. This
    process then compiles ``top`` and ``ask``, loading what the child compiled
    and waiting for what it is compiling, and waits for the child. Call it only
    when the cache is cold.
    """
    work = tuple(work_of(top, ask) if work is None else work)
    child_work = work if child_work is None else tuple(child_work)
    folder = Path(tempfile.mkdtemp(prefix="omensim-claims-"))
    child = subprocess.Popen(
        [sys.executable, "-m", __name__, str(folder), *child_work],
        env=os.environ.copy(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        with claims.claiming(folder):
            for warm in meanwhile:
                warm()
            # The dispatcher last, after the top: the child has most likely taken it by then.
            compile_free(name for name in work if name != name_of(ask))
            compile_named([name_of(top), name_of(ask)])
    except BaseException:
        child.kill()  # interrupted: the child's part alone is no use to anyone
        raise
    finally:
        child.wait()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    with claims.claiming(Path(sys.argv[1])):
        compile_free(sys.argv[2:])
