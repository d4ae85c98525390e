"""Positions described card by card: what ``Scenario.build`` writes into a fresh state.

Rule tests state a rulebook example as the cards in each zone; this module
turns that description into the kernel's state, taking each named card's
physical copy from the mix and leaving every unnamed card in the deck.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from sim.base import vocab as V
from sim.base.layout import N_CITIES
from sim.kernel import board as B
from sim.kernel import game as G
from sim.kernel.rng import seed_streams
from sim.run.scripting import ScenarioError

if TYPE_CHECKING:
    from sim.run.scenario import Scenario


class _Copies:
    """The physical copies (unit cards or reward tiles) of each kind not named yet."""

    def __init__(self, kinds: Sequence[int], n_kinds: int, what: str) -> None:
        self.free: dict[int, list[int]] = {k: [] for k in range(n_kinds)}
        for copy, k in enumerate(kinds):
            self.free[int(k)].append(copy)
        self.what = what

    def take(self, k: int, name: str) -> int:
        """The lowest-numbered free copy of kind ``k`` (printed name ``name``)."""
        if not self.free[k]:
            raise ScenarioError(f"more copies of {self.what}{name!r} named than the mix has")
        return self.free[k].pop(0)


def place(
    sc: Scenario,
    *,
    hands: Mapping[int, Sequence[str]] | None = None,
    deck_top: Sequence[str] = (),
    discard: Sequence[str] = (),
    cities: Mapping[int, Mapping[int, Sequence[str]]] | None = None,
    coins: tuple[int, int] = (4, 4),
    supply: int | None = None,
    stacks: Mapping[int, Sequence[str]] | None = None,
    rewards: Mapping[int, Sequence[tuple[str, bool]]] | None = None,
    vp_tokens: tuple[int, int] = (0, 0),
    favor: str | None = None,
    under: Mapping[int, Mapping[str, int]] | None = None,
    built: Mapping[int, Sequence[str]] | None = None,
    enraged: Mapping[int, Mapping[int, Sequence[int]]] | None = None,
    feats: Mapping[int, Sequence[str]] | None = None,
    active: int = 0,
    turn: int = 1,
    seed: int = 0,
) -> None:
    """Write the position described card by card into ``sc``'s (fresh) state.

    ``cities[c][p]`` lists seat ``p``'s units in city ``c``; ``stacks[c]``
    the reward tiles left in city ``c`` (top last); ``rewards[p]`` the
    tiles seat ``p`` has won as ``(name, used)``. Unnamed unit cards form
    the rest of the deck below ``deck_top`` (listed top first), in a
    shuffled order; unnamed tiles stay in the box. ``supply`` defaults to
    what the set's coins leave after both seats' ``coins``.

    Heir to the Dunes: seat 0 serves Anubis, seat 1 Horus. ``favor`` names
    the Favored god; left out, it is the god of the seat that is not
    ``active``, which is the second player's god (as set-up flips it) only
    when ``turn`` is 0: later in a game no rule fixes it, so a test that
    depends on it names it. ``under[p]`` puts unnamed cards under seat
    ``p``'s structures by name, ``built[p]`` names its completed ones.

    A Reign of War: ``enraged[c][p]`` lists the slot positions of seat
    ``p``'s units in city ``c`` that start enraged (set as given, without
    the Enrage checks); ``feats[p]`` names the feats seat ``p`` has
    already completed (turned face down).
    """
    st, pool = sc.st, sc.pool
    G.reset(st)
    seed_streams(st, seed, 0)
    if sc.rule("RU_GODS"):
        G.deal_structures(st, sc.tab, 0)
        sc.favor_code = V.GODS[favor] if favor else sc.god_codes[1 - active]
    units = _Copies(sc.tables.card_kind, len(pool.units), "")

    def take(name: str) -> int:
        return units.take(sc.kind_index(name), name)

    for p, names in (hands or {}).items():
        for name in names:
            card = take(name)
            sc.push("hand", p, card)
            sc.held_masks[p, card >> 5] |= 1 << (card & 31)
    for name in discard:
        sc.push("discard", 0, take(name))
    for c, sides in (cities or {}).items():
        for p, names in sides.items():
            for name in names:
                sc.push("city", 2 * c + p, take(name))
    for c, sides in (enraged or {}).items():
        for p, slots in sides.items():
            for i in slots:
                if not 0 <= i < sc.zone_counts("city")[2 * c + p]:
                    raise ScenarioError(f"no unit in slot {i} of seat {p} in city {c}")
                sc.enraged_slots[2 * c + p, i] = 1
    for p, names in (feats or {}).items():
        for name in names:
            sc.feat_done[p, sc.feat_index(name)] = 1
    top = [take(name) for name in deck_top]
    rest = [card for cards in units.free.values() for card in cards]
    for p, names in (built or {}).items():
        for name in names:
            sc.struct_done[p, sc.structure_slot(p, name)] = 1
    for p, counts in (under or {}).items():
        for name, k in counts.items():
            s = sc.structure_slot(p, name)
            for _ in range(k):
                if not rest:
                    raise ScenarioError("no unnamed cards left to put under structures")
                sc.push("under", p, rest.pop())
                sc.struct_under[p, s] += 1
    rng = np.random.default_rng(seed)
    rng.shuffle(rest)
    deck = rest + top[::-1]
    sc.zone_slots("deck", 0)[: len(deck)] = deck
    sc.zone_counts("deck")[0] = len(deck)
    tiles = _Copies(sc.tables.tile_kind, len(pool.rewards), "reward ")

    def take_tile(name: str) -> int:
        return tiles.take(pool.reward_index(name), name)

    for c in range(N_CITIES):
        for name in (stacks or {}).get(c, ()):
            sc.stack_slots[c, sc.stack_counts[c]] = take_tile(name)
            sc.stack_counts[c] += 1
    for p, won in (rewards or {}).items():
        for name, used in won:
            r = sc.reward_counts[p]
            sc.reward_slots[p, r] = take_tile(name)
            sc.reward_used_flags[p, r] = int(used)
            sc.reward_counts[p] = r + 1
    sc.coin_counts = coins
    total = sc.rule("RU_COIN_SUPPLY")
    sc.supply = total - sum(coins) if supply is None else supply
    sc.vp_counts = vp_tokens
    sc.vp_supply = sc.rule("RU_VP_TOKENS") - sum(vp_tokens)
    sc.active = active
    sc.first = active if turn % 2 == 0 else 1 - active
    sc.turns_done = turn
    # The kernel keeps each side's running totals as it moves units; units written
    # here did not go through it.
    B.resync_totals(st, sc.tab)
