"""Many games at once: blocks of games in parallel, one scratch state per block."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from sim.kernel import layout as L
from sim.kernel.game import play_game


@njit(cache=True, parallel=True, nogil=True)
def _play_blocks(tab, fp, seed, start, n, states, out, masks):
    """Play games ``start .. start+n-1``; block ``b`` reuses state ``states[b]``.

    Every array is allocated by the caller, so nothing is allocated per game;
    each game writes only its own rows of ``out`` and ``masks``.
    """
    n_blocks = states.shape[0]
    per = (n + n_blocks - 1) // n_blocks
    for b in prange(n_blocks):
        st = states[b]
        for i in range(b * per, min(n, (b + 1) * per)):
            play_game(st, tab, fp, seed, start + i, out[i], masks[i])


def play_batch(
    tab: np.ndarray, fp: np.ndarray, bots: np.ndarray, seed: int, start: int, n: int, n_blocks: int
) -> tuple[np.ndarray, np.ndarray]:
    """Play ``n`` games from global index ``start``; returns (out[n, O_COLS], masks[n, 4*W]).

    ``masks`` rows: played-kind bits of seat 0, seat 1, then held-card bits of seat 0, seat 1.

    ``n_blocks`` only splits the work between threads; results do not depend on it.
    """
    n_blocks = max(1, min(n_blocks, n))
    states = np.zeros((n_blocks, L.STATE_SIZE), np.int64)
    states[:, L.BOT] = bots[0]
    states[:, L.BOT + 1] = bots[1]
    states[:, L.PROW + 1] = 1
    out = np.zeros((n, L.O_COLS), np.int64)
    masks = np.zeros((n, 4 * L.MASK_WORDS), np.int64)
    _play_blocks(tab, fp, np.int64(seed), np.int64(start), np.int64(n), states, out, masks)
    return out, masks
