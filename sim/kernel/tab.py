"""Readers of the flat card table ``tab`` (see ``sim.base.tables.flatten``).

Inlined into their callers by LLVM (``sim.compiler.linkage.LINKAGE``), so
``kind_col(tab, k, K_COST)`` costs what an array index costs. They were
numba-IR-inlined until ``card_col`` became one load: as LLVM-inlined kernels
they then cost a measurable share of a turn; since, they cost nothing and
shorten a cold compile (``bench_min.py`` and ``profile_compile.py``).
"""

from __future__ import annotations

from sim.base import layout as L
from sim.compiler import kernel


@kernel
def rule(tab, r):
    """Rule parameter ``r`` (``layout.RU_*``)."""
    return tab[L.TB_RULES + r]


@kernel
def kind_col(tab, k, col):
    """Column ``col`` (``layout.K_*``) of card kind ``k``."""
    return tab[tab[L.TB_KIND] + k * L.K_COLS + col]


@kernel
def card_kind(tab, card):
    """The kind of physical card ``card`` (one load: the map is at a fixed offset)."""
    return tab[L.TB_CARD_KINDS + card]


@kernel
def card_col(tab, card, col):
    """Column ``col`` of the kind of physical card ``card``.

    One load from the card's own copy of its kind row, at a fixed offset; going
    through the header and the card's kind was a chain of three dependent loads.
    """
    return tab[L.TB_CARD_ROWS + card * L.K_COLS + col]


@kernel
def abil_col(tab, a, col):
    """Column ``col`` (``layout.A_*``) of ability row ``a``."""
    return tab[tab[L.TB_ABIL] + a * L.A_COLS + col]


@kernel
def op_col(tab, o, col):
    """Column ``col`` (``layout.OP_*``) of op row ``o``."""
    return tab[tab[L.TB_OPS] + o * L.OP_COLS + col]


@kernel
def reward_col(tab, rk, col):
    """Column ``col`` (``layout.R_*``) of reward kind ``rk``."""
    return tab[tab[L.TB_REWARD] + rk * L.R_COLS + col]


@kernel
def tile_kind(tab, t):
    """The reward kind of physical tile ``t``."""
    return tab[tab[L.TB_TILE_KIND] + t]


@kernel
def n_cards(tab):
    """Physical unit cards in the mix."""
    return tab[L.TB_N_CARDS]


@kernel
def n_tiles(tab):
    """Physical reward tiles in the mix."""
    return tab[L.TB_N_TILES]


@kernel
def struct_col(tab, s, col):
    """Column ``col`` (``layout.S_*``) of structure row ``s``."""
    return tab[tab[L.TB_STRUCT] + s * L.S_COLS + col]


@kernel
def feat_col(tab, f, col):
    """Column ``col`` (``layout.FT_*``) of feat row ``f``."""
    return tab[tab[L.TB_FEAT] + f * L.FT_COLS + col]
