"""Strategy names a run may use, and the bot id and parameter vector each compiles to."""

from __future__ import annotations

import numpy as np

from sim.spec import SpecError
from strategies.greedy import DEFAULT_PARAMS
from strategies.policy import BOT_GREEDY, BOT_RANDOM

N_PARAMS = 16  # length of every bot's parameter vector


def _params(values: np.ndarray) -> np.ndarray:
    out = np.zeros(N_PARAMS, np.float64)
    out[: len(values)] = values
    return out


STRATEGIES: dict[str, tuple[int, np.ndarray, str]] = {
    "random": (BOT_RANDOM, _params(np.zeros(0)), "uniform over the legal options"),
    "greedy": (BOT_GREEDY, _params(DEFAULT_PARAMS), "one-step heuristic (strategies/greedy.py)"),
}


def strategy_arrays(p0: str, p1: str) -> tuple[np.ndarray, np.ndarray]:
    """Bot ids (int64[2]) and parameters (float64[2, N_PARAMS]) for the two seats."""
    bots = np.zeros(2, np.int64)
    fp = np.zeros((2, N_PARAMS), np.float64)
    for seat, name in enumerate((p0, p1)):
        if name not in STRATEGIES:
            raise SpecError(
                f"unknown strategy {name!r} for --p{seat}; valid strategies: "
                f"{', '.join(sorted(STRATEGIES))}"
            )
        bots[seat], fp[seat], _ = STRATEGIES[name]
    return bots, fp
