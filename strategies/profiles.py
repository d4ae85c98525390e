"""Strategy profiles: ``configs/strategies/*.toml`` turned into bot ids and weight rows.

A profile names its bot (``random``, ``heuristic``, ``lookahead``, ``search`` or ``value``) and the
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
from strategies.greedy import (
    LOOKAHEAD_KNOBS,
    N_GREEDY_PARAMS,
    N_WEIGHTS,
    P_LEAF_VALUE,
    SEARCH_KNOBS,
    WEIGHTS,
)
from strategies.policy import BOT_GREEDY, BOT_LOOKAHEAD, BOT_RANDOM, BOT_SEARCH, BOT_VALUE
from strategies.search import SEARCH_HORIZON, SEARCH_WIDTH

PROFILE_DIR = CONFIG_DIR / "strategies"
BASELINE = PROFILE_DIR / "greedy.toml"
"""The baseline profile: it states every weight, and any other profile's missing ones come
from it."""
BOTS: dict[str, int] = {
    "random": BOT_RANDOM,
    "heuristic": BOT_GREEDY,
    "lookahead": BOT_LOOKAHEAD,
    "search": BOT_SEARCH,
    "value": BOT_VALUE,
}
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
# The search bot's budget, as the shipped search.toml (sim.data.schema.SEARCH_KNOBS bounds it).
SEARCH_DEFAULTS: dict[str, int] = {
    "simulations": 48,
    "width": SEARCH_WIDTH,
    "horizon": SEARCH_HORIZON,
    "value": 0,
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


def _read_knobs(
    path: Path,
    raw: dict,
    section: str,
    own: bool,
    names: dict[str, int],
    defaults: dict[str, int],
    bounds: dict[str, S.Bound],
    weights: np.ndarray,
) -> None:
    """Write the ``[section]`` knobs (defaults for those left out) into ``weights``; ``own``
    says whether the profile's bot takes them (a table for another bot is refused)."""
    knobs = raw.get(section, {})
    if knobs and not own:
        raise _fail(path, section, f"only a profile with bot = '{section}' takes it")
    if not isinstance(knobs, dict):
        raise _fail(path, section, "must be a table of name = number")
    if not own:
        return
    for key, default in defaults.items():
        weights[names[key]] = default
    for key in knobs:
        if key not in names:
            raise _fail(path, f"{section}.{key}", f"unknown knob; valid: {', '.join(names)}")
        try:
            v = S.check_int(knobs[key], bounds[key], "value")
        except S.SchemaError as e:
            raise _fail(path, f"{section}.{key}", str(e).removeprefix("value: ")) from None
        weights[names[key]] = v


STRATEGY_KEYS = ("name", "bot", "description")
"""The keys of a profile's ``[strategy]`` table."""


def load_profile(path: Path | str) -> Profile:
    """Read and validate one profile file."""
    path = Path(path)
    try:
        raw = S.read_toml(path, "strategy profile")
    except S.SchemaError as e:
        raise ProfileError(str(e)) from None
    extra = sorted(set(raw) - set(S.TABLES["profile"]))
    if extra:
        raise _fail(path, extra[0], "unknown table; valid: strategy, weights, lookahead, search")
    head = raw.get("strategy")
    if not isinstance(head, dict):
        raise _fail(path, "strategy", "missing [strategy] table with name and bot")
    unknown = sorted(set(head) - set(STRATEGY_KEYS))
    if unknown:
        where = "weights go in [weights]; " if unknown[0] in WEIGHTS else ""
        raise _fail(
            path, f"strategy.{unknown[0]}", f"unknown key; {where}valid: {', '.join(STRATEGY_KEYS)}"
        )
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
    # Each bot with knobs reads them from the table named after it.
    for section, names, defaults, bounds in (
        ("lookahead", LOOKAHEAD_KNOBS, KNOB_DEFAULTS, S.KNOBS),
        ("search", SEARCH_KNOBS, SEARCH_DEFAULTS, S.SEARCH_KNOBS),
    ):
        _read_knobs(path, raw, section, bot == section, names, defaults, bounds, weights)
    if bot == "value":
        weights[P_LEAF_VALUE] = 1  # its play-outs' ends are valued by the learned value
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
