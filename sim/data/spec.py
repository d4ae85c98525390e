"""What a run is: the validated, hashable description every layer agrees on."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from sim.base.errors import Error

FIRST_MODES: tuple[str, ...] = ("p0", "p1", "alternate", "random")
GOD_MODES: tuple[str, ...] = ("alternate", "anubis,horus", "horus,anubis")
"""``--gods``: Heir to the Dunes gods alternating between the seats every second deal
(``sim.kernel.game.deal_gods``), or seat 0's and seat 1's gods fixed."""


@dataclass(frozen=True)
class Variant:
    """A run-level variant (``--variant NAME``) and what it switches."""

    name: str
    rule: str | None
    """The kernel's switch, a ``sim.base.layout`` ``RU_*`` name; ``None`` when the
    variant acts outside the rule row (``learning`` filters the pool, ``constructed``
    fills the deck lists)."""
    builds_decks: bool = False
    """It builds each player's own deck before play (a game has one such rule)."""
    cards: int = 0
    """Unit cards the draft deals out in all (30 per player); 0 when not a card draft."""


# The one table of variants: the CLI's choices, the kernel switches and the
# composition checks (sim.data.variants) are all read from it.
VARIANT_TABLE: tuple[Variant, ...] = (
    Variant("emissary", "RU_EMISSARY"),
    Variant("learning", None),
    Variant("extra-wealth", "RU_EXTRA_WEALTH"),
    Variant("trial", "RU_TRIAL", builds_decks=True),
    Variant("simple-draft", "RU_SIMPLE_DRAFT", builds_decks=True, cards=60),
    Variant("pile-draft", "RU_PILE_DRAFT", builds_decks=True),
    Variant("constructed", None, builds_decks=True),
    Variant("draft1", "RU_DRAFT1", builds_decks=True, cards=60),
    Variant("draft2", "RU_DRAFT2", builds_decks=True, cards=60),
)
VARIANTS: tuple[str, ...] = tuple(v.name for v in VARIANT_TABLE)


class SpecError(Error):
    """A run description a user gave that cannot be played; the message is one line."""


# game_id is stored as int64; keep well clear of it.
MAX_GAMES = 2**62
_SCI = re.compile(r"^\+?(\d+(\.\d*)?|\.\d+)[eE][+-]?\d+$")


def _shown(value: Any) -> str:
    """``repr(value)``, cut short: an error line names a value, it does not print a file."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check_seed(option: str, seed: int) -> None:
    """Raise :class:`SpecError` unless ``seed`` is a seed the kernel's streams take."""
    if not 0 <= seed < 2**63:
        raise SpecError(f"{option} must be between 0 and 2**63-1, got {seed}")


def games_problem(value: Any) -> tuple[int, str]:
    """``value`` read as a number of games: ``(n, "")``, or ``(0, what is wrong)``.

    The one reading of ``--games`` for the CLI and the API: a whole number from
    1 to ``MAX_GAMES``, given as an int, a whole float (``1e6``) or text
    (``"250000"``, ``"1_000"``, ``"1e6"``); never a bool, ``1.5`` or ``nan``.
    """
    whole = "must be a whole number of games such as 250000, 1_000 or 1e6, got "
    if isinstance(value, bool):
        return 0, whole + _shown(value)
    if isinstance(value, int):
        n = value
    elif isinstance(value, float):
        if not math.isfinite(value) or value != int(value):
            return 0, whole + _shown(value)
        if value > MAX_GAMES:
            return 0, f"must be at most 2**62, got {_shown(value)}"
        n = int(value)
    elif isinstance(value, str):
        text = value.strip()
        try:
            n = int(text)  # also accepts underscores: 1_000
        except ValueError:
            if not _SCI.match(text.replace("_", "")):
                return 0, whole + _shown(text)
            try:
                d = Decimal(text.replace("_", ""))
            except InvalidOperation:
                return 0, whole + _shown(text)
            # Compare before converting: int(Decimal("1e999999999")) would never finish.
            if d > MAX_GAMES:
                return 0, f"must be at most 2**62, got {_shown(text)}"
            if d != d.to_integral_value():
                return 0, whole + _shown(text)
            n = int(d)
    else:
        return 0, f"must be a whole number of games, got {type(value).__name__} {_shown(value)}"
    if n < 1:
        return 0, f"must be a positive whole number of games, got {_shown(value)}"
    if n > MAX_GAMES:
        return 0, f"must be at most 2**62, got {_shown(value)}"
    return n, ""


def parse_games(value: Any, name: str = "--games") -> int:
    """``value`` as a number of games (see :func:`games_problem`), or a SpecError."""
    n, problem = games_problem(value)
    if problem:
        raise SpecError(f"{name} {problem}")
    return n


def path_problem(value: Any) -> str | None:
    """Why ``value`` cannot name a file a command reads (``--cards``, ``--rules``,
    ``--decks``), else None: an empty (or blank) path, which ``Path`` would read as the
    current folder. The one check of the CLI's options and the API's arguments."""
    if isinstance(value, str) and not value.strip():
        return "empty path"
    return None


def split_names(
    names: str | Sequence[str],
    option: str,
    what: str,
    fold: Callable[[str], str] | None = None,
    sep: str = ",",
) -> tuple[str, ...]:
    """The names of a comma list (``"greedy, economic"``) or of a list of names, each
    stripped (and ``fold``-ed, e.g. lower-cased, where the names are compared so), in
    order; blank text names none. The one reading of every list of bots or mixes
    (``--panel``, ``--tiers``, ``--bots``, the desk's tiers and mixes): ``option`` and
    ``what`` (``bot``) name it in a refusal; ``sep``, a regular expression, is what
    separates the names (the desk's forms also take spaces).

    Raises:
        SpecError: an empty name (``"a,,b"``, ``"a,"``: a slip, never a name) or one
            named twice (which of the two was meant is the user's to say).
    """
    if isinstance(names, str):
        parts = re.split(sep, names.strip()) if names.strip() else []
    else:
        parts = list(names)
    seen: dict[str, str] = {}
    for part in parts:
        if not isinstance(part, str) or not part.strip():
            raise SpecError(
                f"{option} {_shown(names)} has an empty {what} name; "
                "separate the names with single commas"
            )
        name = fold(part.strip()) if fold is not None else part.strip()
        if name in seen:
            also = f" (also as {seen[name]!r})" if seen[name] != part.strip() else ""
            raise SpecError(
                f"{option} lists {part.strip()!r} more than once{also}; name each {what} once"
            )
        seen[name] = part.strip()
    return tuple(seen)


def _typed(name: str, value: Any, kind: type | tuple[type, ...], what: str) -> None:
    if (isinstance(value, bool) and kind is int) or not isinstance(value, kind):
        raise SpecError(f"{name} must be {what}, got {type(value).__name__} {value!r}"[:300])


@dataclass(frozen=True)
class RunSpec:
    """Everything that determines a run's games (and nothing that does not).

    Game ``i`` of a run depends only on ``(seed, i)`` and the fields here, so
    ``threads`` and ``chunk_size`` are deliberately absent: they change speed,
    never results.
    """

    games: int = 100_000
    mix: str = "aegean"
    seed: int = 0
    p0: str = "greedy"
    p1: str = "greedy"
    first: str = "alternate"
    variants: tuple[str, ...] = field(default_factory=tuple)
    turn_cap: int = 200
    decks: str | None = None  # deck-list file of the constructed variant
    rules: str | None = None  # house-rules file (--rules) overriding named rule parameters
    duplicate: bool = False  # games 2k, 2k+1: one deal, played with each seat going first
    gods: str = "alternate"  # Heir to the Dunes: GOD_MODES, how the gods go to the seats
    subset_seed: int | None = None  # draws a SET:N mix's cards; None: the run seed

    def __post_init__(self) -> None:
        # Types first, so a wrong one from the API is named here, not deep in the kernel.
        parse_games(self.games)
        _typed("--games", self.games, int, "a whole number")
        _typed("--seed", self.seed, int, "a whole number")
        for name in ("mix", "p0", "p1", "first"):
            _typed(f"--{name}", getattr(self, name), str, "text")
        _typed("--variant", self.variants, tuple, "a tuple of names")
        for v in self.variants:
            _typed("--variant", v, str, "a name")
        _typed("turn cap", self.turn_cap, int, "a whole number")
        for name in ("decks", "rules"):
            _typed(f"--{name}", getattr(self, name), (str, type(None)), "a path or None")
            problem = path_problem(getattr(self, name))
            if problem:
                raise SpecError(f"--{name}: {problem}")
        _typed("--duplicate", self.duplicate, bool, "true or false")
        check_seed("--seed", self.seed)
        if self.first not in FIRST_MODES:
            raise SpecError(f"--first must be one of {', '.join(FIRST_MODES)}, got {self.first!r}")
        if self.subset_seed is not None:
            check_seed("--subset-seed", self.subset_seed)
        if self.gods not in GOD_MODES:
            raise SpecError(
                f"--gods must be one of {', '.join(GOD_MODES)} (seat 0's god first), "
                f"got {self.gods!r}"
            )
        for v in self.variants:
            if v not in VARIANTS:
                raise SpecError(f"unknown variant {v!r}; valid variants: {', '.join(VARIANTS)}")
        if ("constructed" in self.variants) != (self.decks is not None):
            raise SpecError("--variant constructed and --decks FILE go together")
        if self.duplicate and self.first != "alternate":
            raise SpecError(
                f"--first {self.first} has no effect with --duplicate, which plays every deal "
                "with each seat going first; drop --first"
            )
        if self.duplicate and self.games % 2:
            raise SpecError(
                f"--duplicate plays every deal twice, so --games must be even, got {self.games}"
            )
        if self.turn_cap < 2:
            raise SpecError(f"turn cap must be at least 2, got {self.turn_cap}")

    @property
    def variant_label(self) -> str:
        """The variants as written to the `variant` column ("standard" when none)."""
        return ",".join(sorted(self.variants)) or "standard"
