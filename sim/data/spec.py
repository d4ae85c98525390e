"""What a run is: the validated, hashable description every layer agrees on."""

from __future__ import annotations

from dataclasses import dataclass, field

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
    gods: str = "alternate"  # Heir to the Dunes: GOD_MODES, how the gods go to the seats
    subset_seed: int | None = None  # draws a SET:N mix's cards; None: the run seed

    def __post_init__(self) -> None:
        if self.games < 1:
            raise SpecError(f"--games must be at least 1, got {self.games}")
        if not 0 <= self.seed < 2**63:
            raise SpecError(f"--seed must be between 0 and 2**63-1, got {self.seed}")
        if self.first not in FIRST_MODES:
            raise SpecError(f"--first must be one of {', '.join(FIRST_MODES)}, got {self.first!r}")
        if self.subset_seed is not None and not 0 <= self.subset_seed < 2**63:
            raise SpecError(f"--subset-seed must be between 0 and 2**63-1, got {self.subset_seed}")
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
