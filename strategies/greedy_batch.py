"""Linked entry points for runs of two greedy seats: the bot linked in.

A run's kernel asks its bot through ``ask``, a function pointer the run layer passes, so
that one compiled kernel serves every dispatcher; a call through it passes numba's whole
calling convention, and a run of two greedy seats makes about eight calls to the bot a turn.
These entry points play the same games as ``play_range`` and ``play_range_shared_deck``
with ``choose_greedy_seats`` linked in by ``ask_of`` and inlined at each decision
(``sim.compiler.linkage.LINKAGE``), so LLVM may drop the fields it never reads and pass the
rest in registers. The set-up still gets the run's ``ask``.

``strategies.policy`` hands ``choose_greedy_seats`` to the kernel for such runs, and
:func:`sim.kernel.batch.linked_run` finds these entry points for it (registered below); the
run layer plays them once they are in the cache (``omensim compile --linked``, or a long
run: ``sim.run.engine.LINKED_AT_GAMES``). Plain numba mode has none: there ``ask_of`` makes
a caller uncacheable.
"""

from __future__ import annotations

from sim.compiler import PLAIN, ask_of, kernel
from sim.kernel.batch import LinkedBuild, linked_build
from sim.kernel.game import play_on, setup, setup_shared_deck
from strategies.heuristic import choose_greedy_seats

_greedy_seats = ask_of(choose_greedy_seats)


@kernel
def play_range_greedy_seats(tab, fp, ask, seed, start, lo, hi, st, rows, masks):
    """``sim.kernel.batch.play_range`` where ``ask`` is ``choose_greedy_seats``: the same
    rows, with the steps and the bot linked in (the module docstring)."""
    direct = _greedy_seats()
    for i in range(lo, hi):
        setup(st, tab, fp, ask, seed, start + i)
        play_on(st, tab, fp, direct, rows[i], masks[i])


@kernel
def play_range_shared_deck_greedy_seats(tab, fp, ask, seed, start, lo, hi, st, rows, masks):
    """``sim.kernel.batch.play_range_shared_deck`` where ``ask`` is ``choose_greedy_seats``."""
    direct = _greedy_seats()
    for i in range(lo, hi):
        setup_shared_deck(st, tab, fp, ask, seed, start + i)
        play_on(st, tab, fp, direct, rows[i], masks[i])


if not PLAIN:
    linked_build(
        choose_greedy_seats,
        LinkedBuild(
            play_range_greedy_seats, play_range_shared_deck_greedy_seats, choose_greedy_seats
        ),
    )
