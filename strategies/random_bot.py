"""``random``: uniform over the legal options that keep the game going.

"Random" means: at every decision, each legal option is equally likely, the
"may"s included, with one exception: it never plays or moves a unit into a
city that has no reward tiles left (its other options, the pass or stopping
among them, stay equally likely). Such a unit can never fight a war again,
and a player that keeps doing it sinks its whole deck into dead cities: in
`random` self-play that froze some Aegean games, and more Dunes games (Dunes
structures soak up the rest of the deck), with every card on the board or under
a structure until the 200-turn cap; the rule for plays alone removes nearly all
of them. It is a floor for sanity checks, not a player.
`python benchmarks/bench_bots.py --stalls` measures the turn-capped share of every
pairing (docs/bots.md has the figures before and after the rule);
tests/strategies/test_strategies.py checks the rule itself.
"""

from __future__ import annotations

from sim.base import layout as L
from sim.compiler import kernel
from sim.kernel import decisions as D
from sim.kernel.rng import randint
from sim.kernel.zones import opt


@kernel
def into_dead_city(st, dec, i):
    """Whether option ``i`` of ``dec`` puts a unit into a city with no reward tiles left:
    a Surge play, or a move (MOVE, MANEUVER) whose destination is such a city."""
    if dec == D.D_SURGE:
        return opt(st, i, 0) == D.ACT_PLAY and st[L.STACK_N + opt(st, i, 2)] == 0
    return opt(st, i, 0) >= 0 and st[L.STACK_N + opt(st, i, 2)] == 0


@kernel
def choose_random(st, p, dec, n):
    """Pick one of the ``n`` options of decision ``dec`` with seat ``p``'s own stream.

    Uniform over all ``n``, except that a Surge play or a move into a city with
    no tiles left is never picked while another option remains (the pass, or
    stopping, always does). While no such option is offered the draw is the
    same as uniform over ``n``, so games keep their rows until a city first
    runs out of tiles.
    """
    if dec == D.D_SURGE or dec == D.D_MOVE:
        live = 0
        for i in range(n):
            if not into_dead_city(st, dec, i):
                live += 1
        if 0 < live < n:
            k = randint(st, L.RNG_SEAT + p, live)
            for i in range(n):
                if not into_dead_city(st, dec, i):
                    if k == 0:
                        return i
                    k -= 1
    return randint(st, L.RNG_SEAT + p, n)
