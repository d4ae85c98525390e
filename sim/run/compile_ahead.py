"""A first run's cold compile on two cores: a child process fills numba's cache beside us.

Numba compiles one function at a time under a global lock, so a cold compile
(tens of seconds of CPU) uses one core however many the machine has. The
kernel and the bots are separate trees (the kernel only calls the bot through
the ``ask`` function pointer), and numba loads a function from its on-disk
cache instead of compiling it whenever a file for it is there. So while this
process compiles one part of the tree, a child compiles the other part into
the same cache; when the top of the tree is compiled here, it finds the
child's part on disk and only links it.

Nothing here changes what is compiled, only which process compiles it first:
if the child fails or is slow, this process compiles that part itself (a
duplicate, never a wrong result), and a warm cache skips all of it.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from collections.abc import Callable, Iterable
from typing import Any

from sim.kernel.jit import declared_signature

CHILD_PART = ("sim.kernel.surge:surge_step",)
"""Kernels the child compiles before the run's bot dispatcher: the Surge and the ability
interpreter beneath it, about half of the kernel's compile (``profile_compile.py``)."""

OWN_PART = (
    # The greedy bot's two largest kernels first, so the child finds them in the cache when
    # it reaches the bot: without them the child was the long pole of a cold start.
    "strategies.greedy:score_option",
    "strategies.greedy:cache_cities",
    "sim.kernel.game:setup_shared_deck",
    "sim.kernel.wealth:wealth_step",
    "sim.kernel.war:war_step",
    "sim.kernel.offering:offering_step",
    "sim.kernel.portent:portent_step",
    "sim.kernel.feats:feat_step",
    "sim.kernel.turn:end_turn",
    # The rest of the bot dispatcher's tree, cached before the child reaches it: without the
    # draft code this part was the shorter one.
    "strategies.greedy:choose_greedy",
    "strategies.random_bot:choose_random",
)
"""Kernels this process compiles while the child works: the greedy bot's largest two, the
set-up, the other steps and the rest of the heuristic bots. The set-up is that of
``play_range_shared_deck``; a top that builds decks compiles its own (:func:`own_part`)."""

SETUP_OF = {
    "sim.kernel.batch:play_range": "sim.kernel.game:setup",
    "sim.kernel.batch:play_range_shared_deck": "sim.kernel.game:setup_shared_deck",
}
"""The set-up kernel each entry point calls (``sim.kernel.batch.range_kernel``)."""


def own_part(top: Any) -> tuple[str, ...]:
    """:data:`OWN_PART` with the set-up that entry point ``top`` calls (unchanged for
    another top)."""
    setup = SETUP_OF.get(name_of(top))
    default = SETUP_OF["sim.kernel.batch:play_range_shared_deck"]
    if setup is None:
        return OWN_PART
    return tuple(setup if name == default else name for name in OWN_PART)


def kernel_named(name: str) -> Any:
    """The kernel ``module:function`` names (its dispatcher)."""
    module, _, attr = name.partition(":")
    return getattr(importlib.import_module(module), attr)


def compile_named(names: Iterable[str]) -> None:
    """Compile (or load from the cache) each named kernel's one signature, in order."""
    for name in names:
        disp = kernel_named(name)
        disp.compile(declared_signature(disp.py_func))


def name_of(dispatcher: Any) -> str:
    """``module:function`` of a kernel, for the child's command line."""
    return f"{dispatcher.py_func.__module__}:{dispatcher.py_func.__name__}"


def compile_on_two_cores(
    ask: Any,
    top: Any,
    child_part: Iterable[str] = CHILD_PART,
    own: Iterable[str] | None = None,
    meanwhile: Iterable[Callable[[], None]] = (),
) -> None:
    """Compile ``top`` (the kernel's entry point) and the bot dispatcher ``ask`` on two cores.

    Starts a child compiling ``child_part`` and ``ask``, compiles ``own`` here
    (by default :func:`own_part` of ``top``),
    then calls each of ``meanwhile`` (warm-ups of compiled code outside the
    kernel's tree, which a run needs before its first rows: without it they
    compiled after the kernel, on one core, while the other core idled), waits
    for the child, then compiles ``top`` (whose callees now load from the
    cache). Call it only when the cache is cold.
    """
    child = subprocess.Popen(
        [sys.executable, "-m", __name__, *child_part, name_of(ask)],
        env=os.environ.copy(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        compile_named(own_part(top) if own is None else own)
        for warm in meanwhile:
            warm()
    except BaseException:
        child.kill()  # interrupted: the child's half alone is no use to anyone
        raise
    finally:
        child.wait()
    compile_named([name_of(ask), name_of(top)])


if __name__ == "__main__":
    compile_named(sys.argv[1:])
