"""Compiled card tables: readable NamedTuple in Python, one flat array in numba.

``Tables`` keeps the card data as separate 2-D arrays for people and tests;
``flatten`` packs them into the single ``tab`` vector the kernel reads
through ``sim.kernel.tab`` (offsets in its header, see ``layout.TB_*``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sim.base import layout as L


class Tables(NamedTuple):
    """Compiled card data and rules of one mix (columns named in ``sim.base.layout``)."""

    kind: np.ndarray  # int64[K, K_COLS]
    card_kind: np.ndarray  # int64[n_cards]: physical card -> kind
    abil: np.ndarray  # int64[A, A_COLS]
    ops: np.ndarray  # int64[M, OP_COLS]
    reward: np.ndarray  # int64[RK, R_COLS]
    tile_kind: np.ndarray  # int64[n_tiles]: physical reward tile -> reward kind
    rules: np.ndarray  # int64[RU_COUNT]
    struct: np.ndarray  # int64[S, S_COLS]: structures (Heir to the Dunes)
    feat: np.ndarray  # int64[F, FT_COLS]: feats (A Reign of War)


def flatten(T: Tables) -> np.ndarray:
    """Pack ``T`` into one int64 vector with an offset header (``layout.TB_*``).

    Each physical card's kind row and the card -> kind map come first, at the fixed
    offsets ``layout.TB_CARD_ROWS`` and ``layout.TB_CARD_KINDS`` (``MAX_CARDS`` rows
    reserved), then the tables the header points at.
    """
    n_cards = T.card_kind.shape[0]
    if n_cards > L.MAX_CARDS:
        raise ValueError(f"{n_cards} physical cards; the table holds at most {L.MAX_CARDS}")
    card_rows = np.zeros((L.MAX_CARDS, L.K_COLS), np.int64)
    card_rows[:n_cards] = T.kind[T.card_kind]
    card_kinds = np.zeros(L.MAX_CARDS, np.int64)
    card_kinds[:n_cards] = T.card_kind
    parts = [
        card_rows.ravel(),
        card_kinds,
        T.kind.ravel(),
        T.abil.ravel(),
        T.ops.ravel(),
        T.reward.ravel(),
        T.tile_kind,
        T.struct.ravel(),
        T.feat.ravel(),
    ]
    offsets = np.cumsum([L.TB_HEADER] + [len(p) for p in parts])
    assert offsets[0] == L.TB_CARD_ROWS and offsets[1] == L.TB_CARD_KINDS
    tab = np.zeros(offsets[-1], np.int64)
    tab[L.TB_KIND] = offsets[2]
    tab[L.TB_N_KINDS] = T.kind.shape[0]
    tab[L.TB_CARD_KIND] = L.TB_CARD_KINDS
    tab[L.TB_N_CARDS] = n_cards
    tab[L.TB_ABIL] = offsets[3]
    tab[L.TB_OPS] = offsets[4]
    tab[L.TB_REWARD] = offsets[5]
    tab[L.TB_TILE_KIND] = offsets[6]
    tab[L.TB_N_TILES] = T.tile_kind.shape[0]
    tab[L.TB_N_REWARD_KINDS] = T.reward.shape[0]
    tab[L.TB_STRUCT] = offsets[7]
    tab[L.TB_N_STRUCTS] = T.struct.shape[0]
    tab[L.TB_FEAT] = offsets[8]
    tab[L.TB_N_FEATS] = T.feat.shape[0]
    tab[L.TB_RULES : L.TB_RULES + L.RU_COUNT] = T.rules
    for off, p in zip(offsets[:-1], parts, strict=True):
        tab[off : off + len(p)] = p
    return tab
