"""Positions described card by card: what ``Scenario.build`` writes into a fresh state.

Rule tests state a rulebook example as the cards in each zone; this module
turns that description into the kernel's state, taking each named card's
physical copy from the mix and leaving every unnamed card in the deck.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from sim.data import vocab as V
from sim.kernel import game as G
from sim.kernel import layout as L
from sim.kernel.rng import seed_streams
from sim.run.scripting import ScenarioError

if TYPE_CHECKING:
    from sim.run.scenario import Scenario


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

    A Reign of War: ``enraged[c][p]`` lists the slot positions of seat
    ``p``'s units in city ``c`` that start enraged (set as given, without
    the Enrage checks); ``feats[p]`` names the feats seat ``p`` has
    already completed (turned face down).
    """
    st, pool = sc.st, sc.pool
    G.reset(st)
    seed_streams(st, seed, 0)
    if sc.rule("RU_GODS"):
        G.deal_structures(st, sc.tab)
        st[L.FAVOR] = V.GODS[favor] if favor else st[L.GOD + 1 - active]
    free = {k: [] for k in range(len(pool.units))}
    for card, k in enumerate(sc.tables.card_kind):
        free[int(k)].append(card)

    def take(name: str) -> int:
        k = sc.kind_index(name)
        if not free[k]:
            raise ScenarioError(f"more copies of {name!r} named than the mix has")
        return free[k].pop(0)

    for p, names in (hands or {}).items():
        for name in names:
            card = take(name)
            st[L.HAND + p * L.MAX_CARDS + st[L.HAND_N + p]] = card
            st[L.HAND_N + p] += 1
    for name in discard:
        st[L.DISC + st[L.DISC_N]] = take(name)
        st[L.DISC_N] += 1
    for c, sides in (cities or {}).items():
        for p, names in sides.items():
            for name in names:
                s = 2 * c + p
                st[L.SLOT + s * L.N_SLOTS + st[L.SIDE_N + s]] = take(name)
                st[L.SIDE_N + s] += 1
    for c, sides in (enraged or {}).items():
        for p, slots in sides.items():
            for i in slots:
                if not 0 <= i < st[L.SIDE_N + 2 * c + p]:
                    raise ScenarioError(f"no unit in slot {i} of seat {p} in city {c}")
                st[L.ENRAGED + (2 * c + p) * L.N_SLOTS + i] = 1
    for p, names in (feats or {}).items():
        for name in names:
            st[L.FEAT_DONE + p * L.MAX_FEATS + sc.feat_index(name)] = 1
    top = [take(name) for name in deck_top]
    rest = [card for cards in free.values() for card in cards]
    for p, names in (built or {}).items():
        for name in names:
            st[L.STRUCT_DONE + p * L.MAX_STRUCTS + sc.structure_slot(p, name)] = 1
    for p, counts in (under or {}).items():
        for name, k in counts.items():
            s = sc.structure_slot(p, name)
            for _ in range(k):
                if not rest:
                    raise ScenarioError("no unnamed cards left to put under structures")
                card = rest.pop()
                st[L.UNDER + p * L.MAX_CARDS + st[L.UNDER_N + p]] = card
                st[L.UNDER_N + p] += 1
                st[L.STRUCT_UNDER + p * L.MAX_STRUCTS + s] += 1
    rng = np.random.default_rng(seed)
    rng.shuffle(rest)
    deck = rest + top[::-1]
    st[L.DECK : L.DECK + len(deck)] = deck
    st[L.DECK_N] = len(deck)
    tiles_free = {k: [] for k in range(len(pool.rewards))}
    for t, k in enumerate(sc.tables.tile_kind):
        tiles_free[int(k)].append(t)

    def take_tile(name: str) -> int:
        k = pool.reward_index(name)
        if not tiles_free[k]:
            raise ScenarioError(f"more copies of reward {name!r} named than the mix has")
        return tiles_free[k].pop(0)

    for c in range(L.N_CITIES):
        for name in (stacks or {}).get(c, ()):
            st[L.STACK + c * L.MAX_STACK + st[L.STACK_N + c]] = take_tile(name)
            st[L.STACK_N + c] += 1
    for p, won in (rewards or {}).items():
        for name, used in won:
            r = st[L.REW_N + p]
            st[L.REW + p * L.MAX_REWARDS + r] = take_tile(name)
            st[L.REW_USED + p * L.MAX_REWARDS + r] = int(used)
            st[L.REW_N + p] = r + 1
    st[L.COINS], st[L.COINS + 1] = coins
    total = sc.rule("RU_COIN_SUPPLY")
    st[L.SUPPLY] = total - sum(coins) if supply is None else supply
    st[L.VP], st[L.VP + 1] = vp_tokens
    st[L.VP_SUPPLY] = sc.rule("RU_VP_TOKENS") - sum(vp_tokens)
    st[L.ACTIVE] = active
    st[L.FIRST] = active if turn % 2 == 0 else 1 - active
    st[L.TURN] = turn
