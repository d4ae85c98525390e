"""Compiled card tables: readable NamedTuple in Python, one flat array in numba.

``Tables`` keeps the card data as separate 2-D arrays for people and tests;
``flatten`` packs them into the single ``tab`` vector the kernel reads
through ``sim.kernel.tab`` (offsets in its header, see ``layout.TB_*``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sim.kernel import layout as L


class Tables(NamedTuple):
    """Compiled card data and rules of one mix (columns named in ``sim.kernel.layout``)."""

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
    """Pack ``T`` into one int64 vector with an offset header (``layout.TB_*``)."""
    parts = [
        T.kind.ravel(),
        T.card_kind,
        T.abil.ravel(),
        T.ops.ravel(),
        T.reward.ravel(),
        T.tile_kind,
        T.struct.ravel(),
        T.feat.ravel(),
    ]
    offsets = np.cumsum([L.TB_HEADER] + [len(p) for p in parts])
    tab = np.zeros(offsets[-1], np.int64)
    tab[L.TB_KIND] = offsets[0]
    tab[L.TB_N_KINDS] = T.kind.shape[0]
    tab[L.TB_CARD_KIND] = offsets[1]
    tab[L.TB_N_CARDS] = T.card_kind.shape[0]
    tab[L.TB_ABIL] = offsets[2]
    tab[L.TB_OPS] = offsets[3]
    tab[L.TB_REWARD] = offsets[4]
    tab[L.TB_TILE_KIND] = offsets[5]
    tab[L.TB_N_TILES] = T.tile_kind.shape[0]
    tab[L.TB_N_REWARD_KINDS] = T.reward.shape[0]
    tab[L.TB_STRUCT] = offsets[6]
    tab[L.TB_N_STRUCTS] = T.struct.shape[0]
    tab[L.TB_FEAT] = offsets[7]
    tab[L.TB_N_FEATS] = T.feat.shape[0]
    tab[L.TB_RULES : L.TB_RULES + L.RU_COUNT] = T.rules
    for off, p in zip(offsets[:-1], parts, strict=True):
        tab[off : off + len(p)] = p
    return tab
