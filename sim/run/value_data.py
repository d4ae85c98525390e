"""Self-play positions labelled with the winner: the learned value's training and test data.

``record_positions`` plays ``games`` games of a mix between two bots and returns, for
every turn's start and both seats, the seat's features, the heuristic's
``rollout_value`` and whether that seat won (``strategies.value_data``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sim.base import layout as L
from sim.data.spec import RunSpec
from sim.kernel.batch import scratch_states
from sim.run.compiled import compile_run
from strategies.greedy import FP_VALUE
from strategies.value_data import ROW_ROLLOUT, ROW_SEAT, ROW_W, record_game
from strategies.value_features import N_FEATURES

# Rows a game can write: two per turn, and the turn cap ends every game.
MAX_ROWS_PER_GAME = 2 * 256


class Positions(NamedTuple):
    """Recorded positions, one row per (turn start, seat)."""

    x: np.ndarray
    """float64[n, N_FEATURES]: the seat's features."""
    won: np.ndarray
    """int8[n]: 1 if the seat won the game outright."""
    rollout: np.ndarray
    """float64[n]: the heuristic's ``rollout_value`` of the position for the seat."""
    game: np.ndarray
    """int64[n]: the game's index in its run."""
    seat: np.ndarray
    """int8[n]: the seat."""


def record_positions(
    mix: str,
    p0: str,
    p1: str,
    games: int,
    seed: int,
    start: int = 0,
    weights: np.ndarray | None = None,
) -> Positions:
    """Every turn start of games ``start .. start+games-1`` of run ``seed`` (``p0`` against
    ``p1`` on ``mix``), from both seats' view, with the outcome; bots that read the learned
    value read ``weights`` (a row of ``strategies.value_features``' layout) if given."""
    run = compile_run(RunSpec(games=max(games, 1), mix=mix, seed=seed, p0=p0, p1=p1))
    fp = run.fp
    if weights is not None:
        fp = fp.copy()  # the compiled run's rows are shared
        fp[:, FP_VALUE:] = weights
    st = scratch_states(run.bots, 1)[0]
    out = np.zeros(L.O_COLS, np.int64)
    mask = np.zeros(4 * L.MASK_WORDS, np.int64)
    buf = np.zeros(MAX_ROWS_PER_GAME * ROW_W, np.float64)
    parts, won, games_of = [], [], []
    for g in range(start, start + games):
        n = int(record_game(st, run.tab, fp, run.ask, seed, g, out, mask, buf, MAX_ROWS_PER_GAME))
        rows = buf[: n * ROW_W].reshape(n, ROW_W).copy()
        parts.append(rows)
        seat = rows[:, ROW_SEAT].astype(np.int64)
        won.append((seat == out[L.O_WINNER]).astype(np.int8))
        games_of.append(np.full(n, g, np.int64))
    rows = np.concatenate(parts) if parts else np.zeros((0, ROW_W))
    return Positions(
        rows[:, :N_FEATURES],
        np.concatenate(won) if won else np.zeros(0, np.int8),
        rows[:, ROW_ROLLOUT],
        np.concatenate(games_of) if games_of else np.zeros(0, np.int64),
        rows[:, ROW_SEAT].astype(np.int8),
    )
