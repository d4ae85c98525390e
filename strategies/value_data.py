"""Positions for fitting the learned value: games played to the end, each turn's start
recorded from both seats' view, and who won.

``record_game`` plays one game as ``sim.kernel.game.play_game`` does and, before every
turn, writes a row per seat into the preallocated ``par`` buffer: the seat's
``FEATURES`` (``strategies.value_features``), the seat, and the heuristic's
``rollout_value`` of the position for that seat (the figure the learned value is
compared with, ``benchmarks/bench_value.py``). The game's output row says who won.
"""

from __future__ import annotations

from sim.base import layout as L
from sim.compiler import kernel
from sim.kernel.game import finish_game, setup
from sim.kernel.turn import play_turn
from strategies.lookahead import rollout_value
from strategies.value_features import N_FEATURES, value_features

# Columns of a recorded row after the features.
ROW_SEAT = N_FEATURES
ROW_ROLLOUT = N_FEATURES + 1
ROW_W = N_FEATURES + 2


@kernel
def record_game(st, tab, fp, ask, seed, game, out, mask, par, cap):
    """Play game ``game`` of run ``seed`` to its end (``out``, ``mask`` as ``play_game``),
    writing ``ROW_W`` floats per seat before each turn into ``par`` while fewer than
    ``cap`` rows are written; returns the rows written."""
    setup(st, tab, fp, ask, seed, game)
    rows = 0
    while st[L.GAME_OVER] == 0:
        for p in range(2):
            if rows < cap:
                base = rows * ROW_W
                value_features(st, tab, p, par[base : base + N_FEATURES])
                par[base + ROW_SEAT] = p
                par[base + ROW_ROLLOUT] = rollout_value(st, tab, p)
                rows += 1
        play_turn(st, tab, fp, ask)
    finish_game(st, tab, out, mask)
    return rows
