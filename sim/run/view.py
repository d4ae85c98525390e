"""Reading a game state by name: the one place outside the kernel that knows its offsets.

The kernel keeps a game in one flat ``int64`` vector (``sim.base.layout``).
:class:`StateView` reads it back as zones of card ids or card names, seats'
coins and VP tokens, the Favor, structures, feats, war-torn tokens and the
turn, so that the Scenario stepper, the replay, the invariant checker and the
tests never index the vector with raw offsets.
"""

from __future__ import annotations

from collections.abc import Iterable
from math import prod
from typing import Any

import numpy as np

from sim.base import events as E
from sim.base import layout as L
from sim.base.layout import ZONES, Zone
from sim.base.tables import Tables
from sim.data.cards import CardPool
from sim.kernel.trace import require_hooks

GOD_WORDS = ("none", "anubis", "horus", "both")
"""The ``vocab.DEV_*`` codes a god or the Favor can hold, by name."""


__all__ = [
    "GOD_WORDS",
    "ZONE",
    "ZONES",
    "StateField",
    "StateView",
    "TraceOverflow",
    "Zone",
    "new_state",
    "with_trace",
]

ZONE: dict[str, Zone] = {z.name: z for z in ZONES}
# card_zones' order: zones read instance by instance within a group.
_ZONE_GROUPS = (("deck", "discard"), ("hand", "out", "under"), ("box",), ("city",))


def new_state(bots: tuple[int, int] = (0, 0), trace: int = 0) -> np.ndarray:
    """A zeroed state for seats playing strategy ids ``bots``, each seat reading its own
    row of the heuristic parameter matrix (how ``sim.kernel.batch`` sets one up).

    ``trace`` > 0: the state records up to that many events (``sim.kernel.trace``) in
    rows after it (the kernels must have the trace hooks: ``sim.kernel.trace.require_hooks``);
    0, as in every run, records none."""
    if trace > 0:
        require_hooks()
    st = np.zeros(L.STATE_SIZE + E.EV_W * trace, np.int64)
    view = StateView(st)
    view.bot_ids = bots
    view.param_rows = (0, 1)
    st[L.TRACE_CAP] = trace
    return st


def with_trace(st: np.ndarray, trace: int) -> np.ndarray:
    """A copy of state ``st`` that records up to ``trace`` events from now on (the kernels
    must have the trace hooks: ``sim.kernel.trace.require_hooks``)."""
    require_hooks()
    out = np.zeros(L.STATE_SIZE + E.EV_W * trace, np.int64)
    out[: L.STATE_SIZE] = st[: L.STATE_SIZE]
    out[L.TRACE_CAP] = trace
    out[L.TRACE_N] = 0
    return out


class TraceOverflow(RuntimeError):
    """A traced game reported more events than its trace buffer holds."""


class StateField:
    """A named region of the state: an ``int`` (``shape=None``) or a writable array view.

    Assigning to it writes the state (an array field takes anything numpy broadcasts).
    """

    def __init__(self, start: int, shape: tuple[int, ...] | None = None) -> None:
        self.start = start
        self.shape = shape

    def __get__(self, obj: StateView | None, owner: type | None = None) -> Any:
        if obj is None:
            return self
        if self.shape is None:
            return int(obj.st[self.start])
        return obj.st[self.start : self.start + prod(self.shape)].reshape(self.shape)

    def __set__(self, obj: StateView, value: object) -> None:
        if self.shape is None:
            obj.st[self.start] = value
        else:
            self.__get__(obj)[...] = value


class StateView:
    """A game state ``st`` read (and, for tests and position set-up, written) by name,
    with the compiled cards that name its ids.

    ``pool`` and ``tables`` are only needed for names; the id and count readers
    work on any state without them. Fields indexed by seat have shape ``(2, ...)``;
    city sides are numbered ``2 * c + p``.
    """

    # --- header fields (settable) ----------------------------------------------------
    turns_done = StateField(L.TURN)
    """Turns completed so far."""
    active = StateField(L.ACTIVE)
    """The seat whose turn it is."""
    first = StateField(L.FIRST)
    """The seat that took (or takes) the first turn."""
    supply = StateField(L.SUPPLY)
    """Coins left in the supply."""
    vp_supply = StateField(L.VP_SUPPLY)
    """VP tokens left to earn."""
    favor_code = StateField(L.FAVOR)
    """The Favored god as a ``vocab.DEV_*`` code (0 without gods)."""
    rewards_used_turn = StateField(L.REWARDS_USED_TURN)
    """Reward tiles used in the current Surge."""
    discount_used = StateField(L.DISCOUNT_USED)
    """1 once the active seat's devoted-unit discount is spent this turn."""
    opp_discarded = StateField(L.OPP_DISCARDED)
    """Cards the opponent discarded this turn."""
    error = StateField(L.ERROR)
    """Non-zero when a scripted choice matched no legal option."""
    script_n = StateField(L.SCRIPT_N)
    """Scripted choices queued."""
    script_pos = StateField(L.SCRIPT_POS)
    """The next scripted choice to use."""
    coin_counts = StateField(L.COINS, (2,))
    """Coins of each seat."""
    vp_counts = StateField(L.VP, (2,))
    """VP tokens of each seat."""
    god_codes = StateField(L.GOD, (2,))
    """Each seat's god as a ``vocab.DEV_*`` code."""
    played_counts = StateField(L.PLAYED_N, (2,))
    """Units each seat has played."""
    enraged_counts = StateField(L.ENRAGED_N, (2,))
    """Units each seat has enraged."""
    bot_ids = StateField(L.BOT, (2,))
    """Each seat's strategy id."""
    param_rows = StateField(L.PROW, (2,))
    """The row of the heuristic parameter matrix each seat reads."""
    rng_streams = StateField(L.RNG, (L.N_STREAMS,))
    """The random streams' states."""
    war_torn_tokens = StateField(L.WARTORN, (L.N_CITIES,))
    """1 where a city's war-torn token is flipped (Reign)."""
    stack_counts = StateField(L.STACK_N, (L.N_CITIES,))
    """Reward tiles left in each city."""
    stack_slots = StateField(L.STACK, (L.N_CITIES, L.MAX_STACK))
    """Each city's reward tile ids, bottom first (only the first ``stack_counts`` mean anything)."""
    reward_counts = StateField(L.REW_N, (2,))
    """Reward tiles each seat has won."""
    reward_slots = StateField(L.REW, (2, L.MAX_REWARDS))
    """Each seat's won tile ids (the first ``reward_counts``)."""
    reward_used_flags = StateField(L.REW_USED, (2, L.MAX_REWARDS))
    """1 where a seat's won tile is used."""
    struct_kinds = StateField(L.STRUCT_KIND, (2, L.MAX_STRUCTS))
    """Each seat's structure rows by slot, -1 for none."""
    struct_under = StateField(L.STRUCT_UNDER, (2, L.MAX_STRUCTS))
    """Cards under each seat's structures by slot."""
    struct_done = StateField(L.STRUCT_DONE, (2, L.MAX_STRUCTS))
    """1 where a seat's structure is completed."""
    feat_done = StateField(L.FEAT_DONE, (2, L.MAX_FEATS))
    """1 where a seat has completed a feat (by feat row)."""
    enraged_slots = StateField(L.ENRAGED, (2 * L.N_CITIES, L.N_SLOTS))
    """1 where the unit in a city side's slot is enraged."""
    side_totals = StateField(L.SIDE_TOT, (2 * L.N_CITIES, L.TOT_COLS))
    """Each city side's running totals (row ``2*c + p``, columns ``layout.TOT_*``); the kernel
    keeps them, ``Scenario.sync_totals`` recomputes them after a write from Python."""
    kind_masks = StateField(L.PLAYED, (4 * L.MASK_WORDS,))
    """The kinds-played then cards-held bit words of both seats, as a run copies them out."""
    held_masks = StateField(L.HELD, (2, L.MASK_WORDS))
    """A bit per physical card that ever entered each seat's hand."""
    options = StateField(L.OPTS, (L.MAX_OPTS, 4))
    """The current decision's legal options, one row each."""
    script_queue = StateField(L.SCRIPT, (L.MAX_SCRIPT, L.SCRIPT_W))
    """Scripted choices as ``(decision, a, b, c, d, card kind)`` rows."""
    header = StateField(0, (L.HEADER,))
    """Every counter and flag a new game resets (all but the zones and scratch)."""
    drafting = StateField(L.DRAFTING)
    """1 while a draft is building the decks (``sim.kernel.draft``)."""
    draft_pick = StateField(L.DRAFT_PICK)
    """Picks made so far in the draft."""
    draft_seat = StateField(L.DRAFT_SEAT)
    """The seat making the draft's next pick."""
    draft_table = StateField(L.DRAFT, (L.MAX_CARDS,))
    """The draft's cards on the table (layout in ``sim.base.layout``; -1 once taken)."""
    lookahead_tallies = StateField(L.LA_SCRATCH, (3 * L.LA_MAX_WIDTH,))
    """The look-ahead bot's last candidates and their summed rollout values."""

    def __init__(
        self, st: np.ndarray, pool: CardPool | None = None, tables: Tables | None = None
    ) -> None:
        self.st = st
        self.pool = pool
        self.tables = tables

    def trace_events(self) -> np.ndarray:
        """The events recorded so far (``sim.base.events`` rows of ``EV_W`` integers, in the
        order they happened); raises :class:`TraceOverflow` when some did not fit."""
        n = int(self.st[L.TRACE_N])
        cap = int(self.st[L.TRACE_CAP])
        if n > cap:
            raise TraceOverflow(f"the game reported {n} events; its trace holds {cap}")
        return self.st[L.TRACE : L.TRACE + E.EV_W * n].reshape(n, E.EV_W).copy()

    @property
    def trace_count(self) -> int:
        """Events reported so far (0 for a state that does not trace)."""
        return int(self.st[L.TRACE_N])

    def rollout(self) -> StateView:
        """The look-ahead's rollout game (the second game state), as a view of its own."""
        return StateView(self.st[L.ROLLOUT : L.ROLLOUT + L.GAME_SIZE], self.pool, self.tables)

    # --- card ids ------------------------------------------------------------------

    def zone_ids(self, zone: str, i: int = 0) -> list[int]:
        """Card ids in instance ``i`` of ``zone`` (``ZONES``), bottom (or slot 0) first."""
        z = ZONE[zone]
        n = int(self.st[z.count + i])
        base = z.base + i * z.stride
        return [int(x) for x in self.st[base : base + n]]

    def zone_counts(self, zone: str) -> np.ndarray:
        """The card counts of every instance of ``zone``, as a writable view."""
        z = ZONE[zone]
        return self.st[z.count : z.count + z.instances]

    def zone_slots(self, zone: str, i: int = 0) -> np.ndarray:
        """All of instance ``i``'s card slots (the first ``zone_counts`` are its cards),
        as a writable view."""
        z = ZONE[zone]
        base = z.base + i * z.stride
        return self.st[base : base + z.stride]

    def zone_positions(self, zone: str, i: int = 0) -> range:
        """Where instance ``i``'s cards stand in the state (to permute them in place)."""
        z = ZONE[zone]
        base = z.base + i * z.stride
        return range(base, base + int(self.st[z.count + i]))

    def push(self, zone: str, i: int, card: int) -> None:
        """Put ``card`` on top of (after the last card of) instance ``i`` of ``zone``."""
        z = ZONE[zone]
        n = int(self.st[z.count + i])
        if n >= z.stride:
            raise IndexError(f"{zone} {i} is full ({z.stride} cards)")
        self.st[z.base + i * z.stride + n] = card
        self.st[z.count + i] = n + 1

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

    def vp_tokens(self, p: int) -> int:
        """VP tokens seat ``p`` has earned."""
        return int(self.st[L.VP + p])

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
