"""Readers of the flat card table ``tab`` (see ``sim.kernel.tables.flatten``).

Inlined into their callers at numba's IR level, so ``kind_col(tab, k, K_COST)``
costs what an array index costs. Kept IR-inlined while every other small kernel
is inlined by LLVM (``@kernel(inline=True)``): as LLVM-inlined kernels these
readers made a turn ~4% slower (``bench_min.py``, A/B, issue 15), a worse
trade than the ~6 s of cold-compile CPU their IR copies cost.
"""

from __future__ import annotations

from numba import njit

from sim.kernel import layout as L


@njit(cache=True, inline="always")
def rule(tab, r):
    """Rule parameter ``r`` (``layout.RU_*``)."""
    return tab[L.TB_RULES + r]


@njit(cache=True, inline="always")
def kind_col(tab, k, col):
    """Column ``col`` (``layout.K_*``) of card kind ``k``."""
    return tab[tab[L.TB_KIND] + k * L.K_COLS + col]


@njit(cache=True, inline="always")
def card_kind(tab, card):
    """The kind of physical card ``card`` (one load: the map is at a fixed offset)."""
    return tab[L.TB_CARD_KINDS + card]


@njit(cache=True, inline="always")
def card_col(tab, card, col):
    """Column ``col`` of the kind of physical card ``card``.

    One load from the card's own copy of its kind row, at a fixed offset; going
    through the header and the card's kind was a chain of three dependent loads.
    """
    return tab[L.TB_CARD_ROWS + card * L.K_COLS + col]


@njit(cache=True, inline="always")
def abil_col(tab, a, col):
    """Column ``col`` (``layout.A_*``) of ability row ``a``."""
    return tab[tab[L.TB_ABIL] + a * L.A_COLS + col]


@njit(cache=True, inline="always")
def op_col(tab, o, col):
    """Column ``col`` (``layout.OP_*``) of op row ``o``."""
    return tab[tab[L.TB_OPS] + o * L.OP_COLS + col]


@njit(cache=True, inline="always")
def reward_col(tab, rk, col):
    """Column ``col`` (``layout.R_*``) of reward kind ``rk``."""
    return tab[tab[L.TB_REWARD] + rk * L.R_COLS + col]


@njit(cache=True, inline="always")
def tile_kind(tab, t):
    """The reward kind of physical tile ``t``."""
    return tab[tab[L.TB_TILE_KIND] + t]


@njit(cache=True, inline="always")
def n_cards(tab):
    """Physical unit cards in the mix."""
    return tab[L.TB_N_CARDS]


@njit(cache=True, inline="always")
def n_tiles(tab):
    """Physical reward tiles in the mix."""
    return tab[L.TB_N_TILES]


@njit(cache=True, inline="always")
def struct_col(tab, s, col):
    """Column ``col`` (``layout.S_*``) of structure row ``s``."""
    return tab[tab[L.TB_STRUCT] + s * L.S_COLS + col]


@njit(cache=True, inline="always")
def feat_col(tab, f, col):
    """Column ``col`` (``layout.FT_*``) of feat row ``f``."""
    return tab[tab[L.TB_FEAT] + f * L.FT_COLS + col]
