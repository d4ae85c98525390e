"""Counter-based random streams: one per (run seed, game index, purpose).

A game's draws depend only on its seed and global index, never on which
thread or chunk plays it. Each stream is a SplitMix64 counter, so seeding is a
hash and drawing is an add plus a mix: no shared state, nothing to lock.
Streams are separated by purpose (deck, reward stacks, each seat's bot, set-up)
so that, say, a bot drawing one more number does not reshuffle the deck.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.base import layout as L
from sim.compiler import kernel

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)
_TWO53 = 1.0 / 9007199254740992.0


@njit(cache=True, inline="always")
def _mix(z):
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@kernel
def seed_streams(st, seed, game):
    """Seed the game's random streams (``st[RNG:RNG+N_STREAMS]``) from (seed, game)."""
    base = _mix(np.uint64(seed) * _GOLDEN + _mix(np.uint64(game) + _GOLDEN))
    for k in range(L.N_STREAMS):
        st[L.RNG + k] = np.int64(_mix(base + np.uint64(k + 1) * _M2))


@njit(cache=True, inline="always")
def next_u64(st, k):
    """Advance stream ``k`` and return its next 64 random bits."""
    z = np.uint64(st[L.RNG + k]) + _GOLDEN
    st[L.RNG + k] = np.int64(z)
    return _mix(z)


@njit(cache=True, inline="always")
def randint(st, k, n):
    """A uniform integer in ``[0, n)`` from stream ``k`` (``n >= 1``)."""
    return np.int64((next_u64(st, k) >> _S11) % np.uint64(n))


@njit(cache=True, inline="always")
def uniform(st, k):
    """A uniform float in ``[0, 1)`` from stream ``k``."""
    return np.float64(next_u64(st, k) >> _S11) * _TWO53


@kernel
def shuffle(st, off, n, k):
    """Fisher-Yates shuffle of ``st[off:off+n]`` in place with stream ``k``."""
    for i in range(n - 1, 0, -1):
        j = off + randint(st, k, i + 1)
        t = st[off + i]
        st[off + i] = st[j]
        st[j] = t
