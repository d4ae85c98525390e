"""The learned value of a position: the probability that a seat wins, from what it may see.

``position_value(st, tab, fp, p)`` reads seat ``p``'s features of ``st``
(``strategies.value_features``, written into the state's ``VALUE_SCRATCH``, so
nothing is allocated) and evaluates the network whose weights sit in ``p``'s
parameter row at ``FP_VALUE`` (``strategies.registry`` puts the shipped ones there,
``configs/values/``). ``leaf_value`` is what a play-out of a bot that scores by
the value returns: the outcome if the game is over, else the value, in
``VALUE_SCALE`` points per unit of win probability.
"""

from __future__ import annotations

import numpy as np

from sim.base import layout as L
from sim.compiler import kernel
from sim.kernel.scoring import score_into, winner_of
from strategies.greedy import FP_VALUE
from strategies.value_features import HIDDEN, N_FEATURES, V_B1, V_B2, V_W1, V_W2, value_features

# A play-out's value in points per unit of win probability: the look-ahead's tallies
# add values in thousandths of a point, so a probability keeps five digits.
VALUE_SCALE = 100.0


@kernel
def position_value(st, tab, fp, p):
    """The learned probability that seat ``p`` wins from position ``st`` (``p``'s weights)."""
    x = st[L.VALUE_SCRATCH : L.VALUE_SCRATCH + N_FEATURES].view(np.float64)
    value_features(st, tab, p, x)
    w = fp[st[L.PROW + p], FP_VALUE:]
    z = w[V_B2]
    # Four hidden units at a time, each feature read once for the four and skipped where
    # it is 0 (about half of them): four running sums instead of one, each waiting only
    # on itself. Each unit's sum still adds its features in order, so the value is the
    # one-unit-at-a-time loop's to the bit (``benchmarks/profile_search.py`` times it).
    for j in range(0, HIDDEN, 4):
        o0 = V_W1 + j * N_FEATURES
        o1 = o0 + N_FEATURES
        o2 = o1 + N_FEATURES
        o3 = o2 + N_FEATURES
        a0 = w[V_B1 + j]
        a1 = w[V_B1 + j + 1]
        a2 = w[V_B1 + j + 2]
        a3 = w[V_B1 + j + 3]
        for i in range(N_FEATURES):
            xi = x[i]
            if xi != 0.0:
                a0 += w[o0 + i] * xi
                a1 += w[o1 + i] * xi
                a2 += w[o2 + i] * xi
                a3 += w[o3 + i] * xi
        z += w[V_W2 + j] * np.tanh(a0)
        z += w[V_W2 + j + 1] * np.tanh(a1)
        z += w[V_W2 + j + 2] * np.tanh(a2)
        z += w[V_W2 + j + 3] * np.tanh(a3)
    return 1.0 / (1.0 + np.exp(-z))


@kernel
def leaf_value(ro, tab, fp, p):
    """How good the play-out's end ``ro`` is for seat ``p``, by the learned value: 1 or 0 (a
    shared victory 0.5) if the game is over, else ``position_value``; times ``VALUE_SCALE``."""
    if ro[L.GAME_OVER]:
        out = ro[L.LA_SCRATCH : L.LA_SCRATCH + L.O_COLS]
        score_into(ro, tab, out)
        w = winner_of(tab, out)
        return VALUE_SCALE * (1.0 if w == p else (0.5 if w < 0 else 0.0))
    return VALUE_SCALE * position_value(ro, tab, fp, p)
