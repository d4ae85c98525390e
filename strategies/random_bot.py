"""``random``: uniform over the legal options, the "may"s included."""

from __future__ import annotations

from sim.kernel import layout as L
from sim.kernel.jit import kernel
from sim.kernel.rng import randint


@kernel
def choose_random(st, p, n):
    """Pick one of ``n`` options uniformly with seat ``p``'s own stream."""
    return randint(st, L.RNG_SEAT + p, n)
