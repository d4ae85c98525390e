"""Reading a game state by name: the one place outside the kernel that knows its offsets.

The kernel keeps a game in one flat ``int64`` vector (``sim.kernel.layout``).
:class:`StateView` reads it back as zones of card ids or card names, seats'
coins and VP tokens, the Favor, structures, feats, war-torn tokens and the
turn, so that the Scenario stepper, the replay, the invariant checker and the
tests never index the vector with raw offsets.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from sim.data.cards import CardPool
from sim.kernel import layout as L
from sim.kernel.layout import ZONES, Zone
from sim.kernel.tables import Tables

GOD_WORDS = ("none", "anubis", "horus", "both")
"""The ``vocab.DEV_*`` codes a god or the Favor can hold, by name."""


__all__ = ["GOD_WORDS", "ZONE", "ZONES", "StateView", "Zone"]

ZONE: dict[str, Zone] = {z.name: z for z in ZONES}
# card_zones' order: zones read instance by instance within a group.
_ZONE_GROUPS = (("deck", "discard"), ("hand", "out", "under"), ("box",), ("city",))


class StateView:
    """A game state ``st`` read by name, with the compiled cards that name its ids.

    ``pool`` and ``tables`` are only needed for names; the id and count readers
    work on any state without them.
    """

    def __init__(
        self, st: np.ndarray, pool: CardPool | None = None, tables: Tables | None = None
    ) -> None:
        self.st = st
        self.pool = pool
        self.tables = tables

    # --- card ids ------------------------------------------------------------------

    def zone_ids(self, zone: str, i: int = 0) -> list[int]:
        """Card ids in instance ``i`` of ``zone`` (``ZONES``), bottom (or slot 0) first."""
        z = ZONE[zone]
        n = int(self.st[z.count + i])
        base = z.base + i * z.stride
        return [int(x) for x in self.st[base : base + n]]

    def side_ids(self, c: int, p: int) -> list[int]:
        """Card ids on seat ``p``'s side of city ``c``, in slot order."""
        return self.zone_ids("city", 2 * c + p)

    def card_zones(self) -> dict[tuple, list[int]]:
        """Every zone of physical cards, keyed ``(name, i)``, ``("box",)`` or
        ``("city", c, p)``, as lists of card ids.

        The order is the piles' (deck and discard of each pile), then each seat's
        hand, cards out of play and cards under structures, the box, the cities.
        """
        out: dict[tuple, list[int]] = {}
        for group in _ZONE_GROUPS:
            for i in range(ZONE[group[0]].instances):
                for name in group:
                    if name == "city":
                        key: tuple = ("city", i // 2, i % 2)
                    elif name == "box":
                        key = ("box",)
                    else:
                        key = (name, i)
                    out[key] = self.zone_ids(name, i)
        return out

    def stack_tiles(self, c: int) -> list[int]:
        """Reward tile ids left in city ``c``'s stack, bottom first."""
        n = int(self.st[L.STACK_N + c])
        base = L.STACK + c * L.MAX_STACK
        return [int(t) for t in self.st[base : base + n]]

    def reward_tiles(self, p: int) -> list[tuple[int, bool]]:
        """Seat ``p``'s won reward tiles as ``(tile id, used)``."""
        out = []
        for r in range(int(self.st[L.REW_N + p])):
            t = int(self.st[L.REW + p * L.MAX_REWARDS + r])
            out.append((t, bool(self.st[L.REW_USED + p * L.MAX_REWARDS + r])))
        return out

    def enraged_flags(self, c: int, p: int) -> list[bool]:
        """Whether each of seat ``p``'s units in city ``c`` is enraged, in slot order."""
        base = L.ENRAGED + (2 * c + p) * L.N_SLOTS
        return [bool(self.st[base + i]) for i in range(int(self.st[L.SIDE_N + 2 * c + p]))]

    # --- names -----------------------------------------------------------------------

    def card_name(self, card: int) -> str:
        """The printed name of physical card ``card``."""
        return self.pool.units[int(self.tables.card_kind[card])]["name"]

    def tile_name(self, t: int) -> str:
        """The printed name of reward tile ``t``."""
        return self.pool.rewards[int(self.tables.tile_kind[t])]["name"]

    def _names(self, cards: Iterable[int]) -> list[str]:
        return [self.card_name(int(c)) for c in cards]

    def hand(self, p: int) -> list[str]:
        """Names of the cards in seat ``p``'s hand."""
        return self._names(self.zone_ids("hand", p))

    def city(self, c: int, p: int) -> list[str]:
        """Names of seat ``p``'s units in city ``c``, in slot order."""
        return self._names(self.side_ids(c, p))

    def discard_pile(self, d: int = 0) -> list[str]:
        """Names in discard pile ``d`` (0: the shared pile), bottom first."""
        return self._names(self.zone_ids("discard", d))

    def deck_size(self, d: int = 0) -> int:
        """Cards left in deck ``d``."""
        return int(self.st[L.DECK_N + d])

    def deck_top(self, k: int, d: int = 0) -> list[str]:
        """Names of the top ``k`` cards of deck ``d``, top first."""
        deck = self.zone_ids("deck", d)
        return self._names(deck[len(deck) - k :][::-1])

    def out_of_play(self, p: int) -> list[str]:
        """Names of seat ``p``'s cards taken out of play (exalted Keres)."""
        return self._names(self.zone_ids("out", p))

    def under_cards(self, p: int) -> list[str]:
        """Names of the cards tucked under seat ``p``'s structures, in the order they went."""
        return self._names(self.zone_ids("under", p))

    def box_size(self) -> int:
        """Cards a variant left out of the game."""
        return int(self.st[L.BOX_N])

    def stack(self, c: int) -> list[str]:
        """Names of the reward tiles left in city ``c``, bottom first."""
        return [self.tile_name(t) for t in self.stack_tiles(c)]

    def rewards(self, p: int) -> list[tuple[str, bool]]:
        """Seat ``p``'s reward tiles as (name, used)."""
        return [(self.tile_name(t), used) for t, used in self.reward_tiles(p)]

    def enraged(self, c: int, p: int) -> list[bool]:
        """Whether each of seat ``p``'s units in city ``c`` is enraged, in slot order."""
        return self.enraged_flags(c, p)

    # --- counts ------------------------------------------------------------------------

    def coins(self, p: int) -> int:
        """Coins seat ``p`` holds."""
        return int(self.st[L.COINS + p])

    @property
    def supply(self) -> int:
        """Coins left in the supply."""
        return int(self.st[L.SUPPLY])

    def vp_tokens(self, p: int) -> int:
        """VP tokens seat ``p`` has earned."""
        return int(self.st[L.VP + p])

    @property
    def vp_supply(self) -> int:
        """VP tokens left to earn."""
        return int(self.st[L.VP_SUPPLY])

    @property
    def active(self) -> int:
        """The seat whose turn it is."""
        return int(self.st[L.ACTIVE])

    @property
    def first(self) -> int:
        """The seat that took (or takes) the first turn."""
        return int(self.st[L.FIRST])

    @property
    def turns_done(self) -> int:
        """Turns completed so far."""
        return int(self.st[L.TURN])

    @property
    def over(self) -> bool:
        """Whether the game has ended."""
        return bool(self.st[L.GAME_OVER])

    @property
    def own_decks(self) -> bool:
        """Whether each seat draws from its own deck and discard pile (a deck-building variant)."""
        return bool(self.st[L.OWN_DECKS])

    def war_torn_token(self, c: int) -> bool:
        """Whether city ``c``'s war-torn token is flipped (Reign)."""
        return bool(self.st[L.WARTORN + c])

    # --- gods, structures, feats ------------------------------------------------------

    @property
    def favor_code(self) -> int:
        """The Favored god as a ``vocab.DEV_*`` code (0 without gods)."""
        return int(self.st[L.FAVOR])

    @property
    def favor(self) -> str:
        """The Favored god ("none" without gods)."""
        return GOD_WORDS[self.favor_code]

    def god_code(self, p: int) -> int:
        """Seat ``p``'s god as a ``vocab.DEV_*`` code (0 without gods)."""
        return int(self.st[L.GOD + p])

    def god(self, p: int) -> str:
        """Seat ``p``'s god ("none" without gods)."""
        return GOD_WORDS[self.god_code(p)]

    def structure_slots(self, p: int) -> list[tuple[int, int, bool]]:
        """Seat ``p``'s structures as ``(structure row, cards under it, completed)``."""
        out = []
        for s in range(L.MAX_STRUCTS):
            i = p * L.MAX_STRUCTS + s
            row = int(self.st[L.STRUCT_KIND + i])
            if row >= 0:
                out.append(
                    (row, int(self.st[L.STRUCT_UNDER + i]), bool(self.st[L.STRUCT_DONE + i]))
                )
        return out

    def structures(self, p: int) -> list[tuple[str, int, bool]]:
        """Seat ``p``'s structures as (name, cards under it, completed)."""
        return [
            (self.pool.structures[row]["name"], under, done)
            for row, under, done in self.structure_slots(p)
        ]

    def structure_index(self, p: int, name: str) -> int | None:
        """Seat ``p``'s structure slot holding ``name``, or ``None``."""
        for s in range(L.MAX_STRUCTS):
            row = int(self.st[L.STRUCT_KIND + p * L.MAX_STRUCTS + s])
            if row >= 0 and self.pool.structures[row]["name"] == name:
                return s
        return None

    def feat_flags(self, p: int) -> list[bool]:
        """For each feat slot, whether seat ``p`` has completed it."""
        base = L.FEAT_DONE + p * L.MAX_FEATS
        return [bool(self.st[base + f]) for f in range(L.MAX_FEATS)]

    def feats(self, p: int) -> list[str]:
        """Names of the feats seat ``p`` has completed (face down), in the set file's order."""
        done = self.feat_flags(p)
        return [fd["name"] for f, fd in enumerate(self.pool.feats) if done[f]]
