"""Strategy profiles: ``configs/strategies/*.toml`` turned into bot ids and weight rows.

A profile names its bot (``random``, ``heuristic`` or ``lookahead``) and the
weights it plays with; weights left out take the ``greedy`` baseline's value.
A designer makes a new style by writing a profile, not code, and passes its
name (or the path of a TOML file) to ``--p0``/``--p1``. A bad profile gets
one line naming the file and the field.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from sim.base.errors import Error
from sim.data import schema as S
from sim.data.cards import CONFIG_DIR
from strategies.greedy import LOOKAHEAD_KNOBS, N_GREEDY_PARAMS, N_WEIGHTS, WEIGHTS
from strategies.policy import BOT_GREEDY, BOT_LOOKAHEAD, BOT_RANDOM

PROFILE_DIR = CONFIG_DIR / "strategies"
BASELINE = PROFILE_DIR / "greedy.toml"
"""The baseline profile: it states every weight, and any other profile's missing ones come
from it."""
BOTS: dict[str, int] = {"random": BOT_RANDOM, "heuristic": BOT_GREEDY, "lookahead": BOT_LOOKAHEAD}
# Look-ahead knobs: default, as the shipped lookahead.toml (a profile may leave any out);
# their ranges are sim.data.schema.KNOBS (the budget stays bounded).
KNOB_DEFAULTS: dict[str, int] = {
    "width": 3,
    "rollouts": 4,
    "horizon": 2,
    "wealth": 0,
    "offer": 1,
    "war_order": 0,
    "keep": 0,
    "draft": 1,
}
KNOB_MAX: dict[str, int] = {k: int(b.hi) for k, b in S.KNOBS.items()}


class ProfileError(Error):
    """A strategy profile that cannot be used; the message is one line."""


@dataclass(frozen=True)
class Profile:
    """One strategy: its bot, its weight row and a line for people."""

    name: str
    bot: int
    weights: np.ndarray  # float64[N_WEIGHTS]
    description: str
    path: Path | None = None


def _fail(path: Path, fld: str, problem: str) -> ProfileError:
    return ProfileError(f"{path.name}: field '{fld}': {problem}")


def _number(path: Path, table: dict, key: str, section: str) -> float:
    # Finite and bounded: nan, inf or 1e308 make every option's value nan/inf (no choice).
    try:
        return S.check_number(table[key], S.WEIGHT, "value")
    except S.SchemaError as e:
        raise _fail(path, f"{section}.{key}", str(e).removeprefix("value: ")) from None


def load_profile(path: Path | str) -> Profile:
    """Read and validate one profile file."""
    path = Path(path)
    try:
        raw = S.read_toml(path, "strategy profile")
    except S.SchemaError as e:
        raise ProfileError(str(e)) from None
    extra = sorted(set(raw) - set(S.TABLES["profile"]))
    if extra:
        raise _fail(path, extra[0], "unknown table; valid: strategy, weights, lookahead")
    head = raw.get("strategy")
    if not isinstance(head, dict):
        raise _fail(path, "strategy", "missing [strategy] table with name and bot")
    name = head.get("name")
    if not isinstance(name, str) or not name.strip():
        raise _fail(path, "strategy.name", "missing or empty")
    bot = head.get("bot", "heuristic")
    if bot not in BOTS:
        raise _fail(path, "strategy.bot", f"unknown bot {bot!r}; valid: {', '.join(BOTS)}")
    weights = np.zeros(N_WEIGHTS, np.float64)
    table = raw.get("weights", {})
    if not isinstance(table, dict):
        raise _fail(path, "weights", "must be a table of name = number")
    if path.resolve() == BASELINE.resolve():
        missing = [k for k in WEIGHTS if k not in table]
        if missing:
            raise _fail(path, f"weights.{missing[0]}", "the baseline profile states every weight")
    elif bot != "random":
        weights[:N_GREEDY_PARAMS] = default_weights()
    for key in table:
        if key not in WEIGHTS:
            raise _fail(path, f"weights.{key}", f"unknown weight; valid: {', '.join(WEIGHTS)}")
        weights[WEIGHTS[key]] = _number(path, table, key, "weights")
    knobs = raw.get("lookahead", {})
    if knobs and bot != "lookahead":
        raise _fail(path, "lookahead", "only a profile with bot = 'lookahead' takes it")
    if not isinstance(knobs, dict):
        raise _fail(path, "lookahead", "must be a table of name = number")
    if bot == "lookahead":
        for key, default in KNOB_DEFAULTS.items():
            weights[LOOKAHEAD_KNOBS[key]] = default
        for key in knobs:
            if key not in LOOKAHEAD_KNOBS:
                raise _fail(
                    path, f"lookahead.{key}", f"unknown knob; valid: {', '.join(LOOKAHEAD_KNOBS)}"
                )
            try:
                v = S.check_int(knobs[key], S.KNOBS[key], "value")
            except S.SchemaError as e:
                raise _fail(path, f"lookahead.{key}", str(e).removeprefix("value: ")) from None
            weights[LOOKAHEAD_KNOBS[key]] = v
    return Profile(name.strip(), BOTS[bot], weights, str(head.get("description", "")), path)


@cache
def default_weights() -> np.ndarray:
    """The baseline weights (``configs/strategies/greedy.toml``), a read-only row."""
    row = load_profile(BASELINE).weights[:N_GREEDY_PARAMS].copy()
    row.flags.writeable = False
    return row


def shipped_profiles() -> dict[str, Profile]:
    """Every profile in ``configs/strategies``, by name, plus the built-in ``random``."""
    out = {
        "random": Profile(
            "random",
            BOT_RANDOM,
            np.zeros(N_WEIGHTS),
            "uniform over legal options, never a play or move into a city without tiles",
        )
    }
    for path in sorted(PROFILE_DIR.glob("*.toml")):
        prof = load_profile(path)
        if prof.name != path.stem:
            raise _fail(path, "strategy.name", f"must match the file name {path.stem!r}")
        out[prof.name] = prof
    return out
