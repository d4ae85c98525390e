"""What a run is: the validated, hashable description every layer agrees on."""

from __future__ import annotations

from dataclasses import dataclass, field

FIRST_MODES: tuple[str, ...] = ("p0", "p1", "alternate", "random")
VARIANTS: tuple[str, ...] = (
    "emissary",
    "learning",
    "extra-wealth",
    "trial",
    "simple-draft",
    "pile-draft",
    "constructed",
    "draft1",
    "draft2",
)


class SpecError(ValueError):
    """A run description a user gave that cannot be played; the message is one line."""


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

    def __post_init__(self) -> None:
        if self.games < 1:
            raise SpecError(f"--games must be at least 1, got {self.games}")
        if not 0 <= self.seed < 2**63:
            raise SpecError(f"--seed must be between 0 and 2**63-1, got {self.seed}")
        if self.first not in FIRST_MODES:
            raise SpecError(f"--first must be one of {', '.join(FIRST_MODES)}, got {self.first!r}")
        for v in self.variants:
            if v not in VARIANTS:
                raise SpecError(f"unknown variant {v!r}; valid variants: {', '.join(VARIANTS)}")
        if ("constructed" in self.variants) != (self.decks is not None):
            raise SpecError("--variant constructed and --decks FILE go together")
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
