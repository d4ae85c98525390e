"""Strategy names a run may use, and the bot id and parameter row each compiles to."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from sim.data.spec import SpecError
from strategies.greedy import FP_VALUE, FP_WIDTH, N_WEIGHTS, P_LEAF_VALUE, prepare
from strategies.heuristic import BOT_LOOKAHEAD, BOT_SEARCH, BOT_VALUE
from strategies.profiles import Profile, ProfileError, load_profile, shipped_profiles
from strategies.value_model import ValueFileError, shipped_value


def _shipped() -> dict[str, Profile]:
    try:
        return shipped_profiles()
    except ProfileError as e:
        raise SpecError(str(e)) from None


STRATEGIES: dict[str, Profile] = _shipped()


def resolve(name: str, seat: int | None = None) -> Profile:
    """The profile called ``name`` (shipped), or read from ``name`` if it is a .toml path."""
    if name in STRATEGIES:
        return STRATEGIES[name]
    if name.endswith(".toml"):
        try:
            return load_profile(Path(name))
        except ProfileError as e:
            raise SpecError(str(e)) from None
    where = f" for --p{seat}" if seat is not None else ""
    raise SpecError(
        f"unknown strategy {name!r}{where}; valid strategies: {', '.join(sorted(STRATEGIES))} "
        "(or the path of a profile .toml)"
    )


def _reads_value(bot: int, row: np.ndarray) -> bool:
    """Whether a seat of bot id ``bot`` with parameter row ``row`` reads the learned value."""
    return bot == BOT_VALUE or (bot in (BOT_SEARCH, BOT_LOOKAHEAD) and row[P_LEAF_VALUE] > 0)


def strategy_arrays(p0: str, p1: str, tab: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bot ids (int64[2]) and parameter rows (float64[2, FP_WIDTH]) for the two seats.

    Each row holds the strategy's weights, then values the bot works out once
    per card table (see ``strategies.greedy.prepare``), then the learned value's weights
    (``strategies.value_model``).
    """
    bots = np.zeros(2, np.int64)
    fp = np.zeros((2, FP_WIDTH), np.float64)
    for seat, name in enumerate((p0, p1)):
        prof = resolve(name, seat)
        bots[seat] = prof.bot
        fp[seat, :N_WEIGHTS] = prof.weights
    try:
        fp[:, FP_VALUE:] = shipped_value()
    except ValueFileError as e:
        # Seats that never read the value play without it: the games that fit a new value
        # (tools/train_value.py) must run when the shipped one no longer fits the features.
        if any(_reads_value(bots[s], fp[s]) for s in range(2)):
            raise SpecError(str(e)) from None
    prepare(tab, fp)
    return bots, fp
