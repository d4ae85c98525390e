"""Strategy names a run may use, and the bot id and parameter vector each compiles to."""

from __future__ import annotations

import numpy as np

from sim.spec import SpecError
from strategies.greedy import DEFAULT_PARAMS, FP_WIDTH, N_WEIGHTS, prepare
from strategies.policy import BOT_GREEDY, BOT_RANDOM


def _params(values: np.ndarray) -> np.ndarray:
    out = np.zeros(N_WEIGHTS, np.float64)
    out[: len(values)] = values
    return out


STRATEGIES: dict[str, tuple[int, np.ndarray, str]] = {
    "random": (BOT_RANDOM, _params(np.zeros(0)), "uniform over the legal options"),
    "greedy": (BOT_GREEDY, _params(DEFAULT_PARAMS), "one-step heuristic (strategies/greedy.py)"),
}


def strategy_arrays(p0: str, p1: str, tab: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bot ids (int64[2]) and parameter rows (float64[2, FP_WIDTH]) for the two seats.

    Each row holds the strategy's weights, then values the bot works out once
    per card table (see ``strategies.greedy.prepare``).
    """
    bots = np.zeros(2, np.int64)
    fp = np.zeros((2, FP_WIDTH), np.float64)
    for seat, name in enumerate((p0, p1)):
        if name not in STRATEGIES:
            raise SpecError(
                f"unknown strategy {name!r} for --p{seat}; valid strategies: "
                f"{', '.join(sorted(STRATEGIES))}"
            )
        bot, weights, _ = STRATEGIES[name]
        bots[seat] = bot
        fp[seat, :N_WEIGHTS] = weights
    prepare(tab, fp)
    return bots, fp
