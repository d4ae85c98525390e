"""Invariants every reachable game state satisfies (a helper for the tests, not a test file).

``check_state`` reads the raw state vector, so it works on any ``st`` a test
holds; ``check_invariants`` is the same check on a :class:`sim.scenario.Scenario`.
Each failed assertion says which invariant broke and the figures involved.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from sim.kernel import layout as L
from sim.kernel.board import is_war_torn, side_weight
from sim.scenario import Scenario


def _zone(st: np.ndarray, count: int, base: int) -> list[int]:
    return [int(x) for x in st[base : base + count]]


def card_locations(st: np.ndarray) -> dict[str, list[int]]:
    """Every zone of physical unit cards, by a readable name, as lists of card ids."""
    zones: dict[str, list[int]] = {}
    for d in range(2):
        zones[f"deck{d}"] = _zone(st, int(st[L.DECK_N + d]), L.DECK + d * L.MAX_CARDS)
        zones[f"discard{d}"] = _zone(st, int(st[L.DISC_N + d]), L.DISC + d * L.MAX_CARDS)
    for p in range(2):
        zones[f"hand{p}"] = _zone(st, int(st[L.HAND_N + p]), L.HAND + p * L.MAX_CARDS)
        zones[f"out{p}"] = _zone(st, int(st[L.OUT_N + p]), L.OUT + p * L.MAX_CARDS)
        if hasattr(L, "UNDER"):  # Heir to the Dunes: cards tucked under structures
            zones[f"under{p}"] = _zone(st, int(st[L.UNDER_N + p]), L.UNDER + p * L.MAX_CARDS)
    for c in range(L.N_CITIES):
        for p in range(2):
            s = 2 * c + p
            zones[f"city{c}.p{p}"] = _zone(st, int(st[L.SIDE_N + s]), L.SLOT + s * L.N_SLOTS)
    return zones


def check_state(st: np.ndarray, tab: np.ndarray) -> None:
    """Assert the conservation, capacity and war-torn invariants on a raw state."""
    rule = lambda k: int(tab[L.TB_RULES + k])  # noqa: E731
    n_cards = int(tab[L.TB_N_CARDS])
    n_tiles = int(tab[L.TB_N_TILES])

    # --- no negative (or overflowing) counts --------------------------------
    counts = {
        "supply": st[L.SUPPLY],
        "vp_supply": st[L.VP_SUPPLY],
        "turn": st[L.TURN],
        "rewards_used_turn": st[L.REWARDS_USED_TURN],
    }
    for p in range(2):
        counts[f"coins{p}"] = st[L.COINS + p]
        counts[f"vp{p}"] = st[L.VP + p]
        counts[f"hand_n{p}"] = st[L.HAND_N + p]
        counts[f"out_n{p}"] = st[L.OUT_N + p]
        counts[f"rew_n{p}"] = st[L.REW_N + p]
        counts[f"played_n{p}"] = st[L.PLAYED_N + p]
        if hasattr(L, "UNDER_N"):
            counts[f"under_n{p}"] = st[L.UNDER_N + p]
    for d in range(2):
        counts[f"deck_n{d}"] = st[L.DECK_N + d]
        counts[f"disc_n{d}"] = st[L.DISC_N + d]
    for c in range(L.N_CITIES):
        counts[f"stack_n{c}"] = st[L.STACK_N + c]
        for p in range(2):
            counts[f"side_n{c}.{p}"] = st[L.SIDE_N + 2 * c + p]
    negative = {k: int(v) for k, v in counts.items() if v < 0}
    assert not negative, f"negative counts: {negative}"
    for c in range(L.N_CITIES):
        assert st[L.STACK_N + c] <= L.MAX_STACK, f"city {c} stack over {L.MAX_STACK}"
        for p in range(2):
            assert st[L.SIDE_N + 2 * c + p] <= L.N_SLOTS, f"city {c} seat {p}: > {L.N_SLOTS}"
    for p in range(2):
        assert st[L.REW_N + p] <= L.MAX_REWARDS, f"seat {p} holds > {L.MAX_REWARDS} tiles"

    # --- every physical card exactly once --------------------------------------
    zones = card_locations(st)
    seen = Counter(card for cards in zones.values() for card in cards)
    where = {
        card: [z for z, cards in zones.items() if card in cards]
        for card, n in seen.items()
        if n > 1
    }
    assert not where, f"cards in more than one place: {where}"
    missing = sorted(set(range(n_cards)) - set(seen))
    assert not missing, f"cards in no zone: {missing}"
    bogus = sorted(set(seen) - set(range(n_cards)))
    assert not bogus, f"unknown card ids in zones: {bogus} ({zones})"
    for c in range(L.N_CITIES):
        for p in range(2):
            s = 2 * c + p
            n = int(st[L.SIDE_N + s])
            rest = st[L.SLOT + s * L.N_SLOTS + n : L.SLOT + (s + 1) * L.N_SLOTS]
            assert (rest == L.NO_CARD).all(), f"city {c} seat {p}: stale slots {rest}"
    if hasattr(L, "STRUCT_UNDER"):
        for p in range(2):
            per = st[L.STRUCT_UNDER + p * L.MAX_STRUCTS : L.STRUCT_UNDER + (p + 1) * L.MAX_STRUCTS]
            assert per.sum() == st[L.UNDER_N + p], (
                f"seat {p}: structures hold {per}, pile {st[L.UNDER_N + p]}"
            )
    if not st[L.OWN_DECKS]:
        assert st[L.DECK_N + 1] == 0 and st[L.DISC_N + 1] == 0, "second pile used in a shared game"

    # --- coins and VP tokens conserved -------------------------------------------
    coins = int(st[L.SUPPLY] + st[L.COINS] + st[L.COINS + 1])
    assert coins == rule(L.RU_COIN_SUPPLY), (
        f"coins not conserved: supply {st[L.SUPPLY]} + {st[L.COINS]} + {st[L.COINS + 1]}"
        f" != {rule(L.RU_COIN_SUPPLY)}"
    )
    vp = int(st[L.VP_SUPPLY] + st[L.VP] + st[L.VP + 1])
    assert vp == rule(L.RU_VP_TOKENS), (
        f"VP tokens not conserved: supply {st[L.VP_SUPPLY]} + {st[L.VP]} + {st[L.VP + 1]}"
        f" != {rule(L.RU_VP_TOKENS)}"
    )

    # --- reward tiles: each at most once, in a stack or won -------------------------
    tiles = []
    for c in range(L.N_CITIES):
        tiles += _zone(st, int(st[L.STACK_N + c]), L.STACK + c * L.MAX_STACK)
    for p in range(2):
        tiles += _zone(st, int(st[L.REW_N + p]), L.REW + p * L.MAX_REWARDS)
        used = st[L.REW_USED + p * L.MAX_REWARDS : L.REW_USED + p * L.MAX_REWARDS + st[L.REW_N + p]]
        assert set(used.tolist()) <= {0, 1}, f"seat {p}: used flags {used}"
    assert len(tiles) == len(set(tiles)), f"a reward tile is in two places: {sorted(tiles)}"
    assert len(tiles) <= n_tiles, f"{len(tiles)} tiles in play, the mix has {n_tiles}"
    assert all(0 <= t < n_tiles for t in tiles), f"unknown tile ids: {tiles}"
    assert st[L.REWARDS_USED_TURN] <= rule(L.RU_REWARDS_PER_SURGE), "too many tiles used"

    # --- capacity (COLOSSAL counts 2) and war-torn --------------------------------
    cap = rule(L.RU_CAPACITY)
    for c in range(L.N_CITIES):
        for p in range(2):
            w = int(side_weight(st, tab, c, p))
            assert w <= cap, f"city {c} seat {p}: {w} unit-slots > capacity {cap}"
        if st[L.STACK_N + c] == 0:
            for active in range(2):
                assert not is_war_torn(st, tab, c, active), f"empty city {c} is war-torn"
            assert st[L.WARTORN + c] == 0, f"empty city {c} has its war-torn token flipped"


def check_invariants(sc: Scenario) -> None:
    """Assert every invariant of ``check_state`` on a scenario's current position."""
    check_state(sc.st, sc.tab)
