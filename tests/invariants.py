"""Invariants every reachable game state satisfies (a helper for the tests, not a test file).

``check_state`` reads the raw state vector, so it works on any ``st`` a test
holds; ``check_invariants`` is the same check on a :class:`sim.run.scenario.Scenario`.
Each failed assertion says which invariant broke and the figures involved.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from sim.data import vocab as V
from sim.kernel import layout as L
from sim.kernel.board import is_war_torn, side_weight, weight
from sim.run.scenario import Scenario
from sim.run.view import StateView


def card_locations(st: np.ndarray) -> dict[str, list[int]]:
    """Every zone of physical unit cards, by a readable name, as lists of card ids."""
    return {".".join(map(str, key)): ids for key, ids in StateView(st).card_zones().items()}


def check_state(st: np.ndarray, tab: np.ndarray) -> None:
    """Assert the conservation, capacity, war-torn and structure invariants on a raw state."""
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
    view = StateView(st)
    tiles = []
    for c in range(L.N_CITIES):
        tiles += view.stack_tiles(c)
    for p in range(2):
        tiles += [t for t, _used in view.reward_tiles(p)]
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

    check_gods_and_structures(st, tab)
    check_enraged_and_feats(st, tab)


def check_enraged_and_feats(st: np.ndarray, tab: np.ndarray) -> None:
    """A Reign of War: enraged units and feat cards (trivially true without Reign).

    Reign, Enrage: "Only soldiers and oracles can be enraged. An enraged unit is
    flipped over: it counts as a beast ... A unit whose enraging would put its
    side of the city over capacity (a beast counts as 2) is not enraged."
    """
    rule = lambda k: int(tab[L.TB_RULES + k])  # noqa: E731
    cap = rule(L.RU_CAPACITY)
    for c in range(L.N_CITIES):
        for p in range(2):
            s = 2 * c + p
            n = int(st[L.SIDE_N + s])
            flags = st[L.ENRAGED + s * L.N_SLOTS : L.ENRAGED + (s + 1) * L.N_SLOTS]
            assert set(flags.tolist()) <= {0, 1}, f"city {c} seat {p}: enraged flags {flags}"
            assert not flags[n:].any(), f"city {c} seat {p}: enraged flag on an empty slot {flags}"
            w = 0
            for i in range(n):
                card = int(st[L.SLOT + s * L.N_SLOTS + i])
                kind = int(tab[tab[L.TB_CARD_KIND] + card])
                typ = int(tab[tab[L.TB_KIND] + kind * L.K_COLS + L.K_TYPE])
                if flags[i]:
                    assert typ in (V.T_SOLDIER, V.T_ORACLE), (
                        f"city {c} seat {p}: card {card} of type {typ} is enraged"
                    )
                # an enraged unit is a Beast: 2 unit-slots (side_weight counts it so too)
                w += 2 if flags[i] else int(weight(tab, card))
            assert w == side_weight(st, tab, c, p), f"city {c} seat {p}: side_weight != {w}"
            assert w <= cap, f"city {c} seat {p}: {w} unit-slots (enraged count 2) > capacity {cap}"
    for p in range(2):
        assert st[L.ENRAGED_N + p] >= 0, f"seat {p}: enraged count {st[L.ENRAGED_N + p]}"
    assert st[L.OPP_DISCARDED] >= 0, f"opponent discarded {st[L.OPP_DISCARDED]}"
    n_feats = int(tab[L.TB_N_FEATS])
    feats = st[L.FEAT_DONE : L.FEAT_DONE + 2 * L.MAX_FEATS].reshape(2, L.MAX_FEATS)
    assert set(feats.ravel().tolist()) <= {0, 1}, f"feat flags {feats}"
    assert not feats[:, n_feats:].any(), f"feat flags beyond the {n_feats} feat rows: {feats}"
    if not rule(L.RU_FEAT_STEP):
        assert not feats.any(), f"feats completed without a Feat step: {feats}"


def check_gods_and_structures(st: np.ndarray, tab: np.ndarray) -> None:
    """Heir to the Dunes: gods, the Favor card and structures (trivial without gods).

    Cards never leave a structure, so a completed one still holds at least its
    build cost (a ``Scenario.build(built=...)`` position with nothing ``under``
    is not a reachable state and fails here).
    """
    rule = lambda k: int(tab[L.TB_RULES + k])  # noqa: E731
    gods = (int(st[L.GOD]), int(st[L.GOD + 1]))
    favor = int(st[L.FAVOR])
    kinds = st[L.STRUCT_KIND : L.STRUCT_KIND + 2 * L.MAX_STRUCTS].reshape(2, L.MAX_STRUCTS)
    under = st[L.STRUCT_UNDER : L.STRUCT_UNDER + 2 * L.MAX_STRUCTS].reshape(2, L.MAX_STRUCTS)
    done = st[L.STRUCT_DONE : L.STRUCT_DONE + 2 * L.MAX_STRUCTS].reshape(2, L.MAX_STRUCTS)
    assert st[L.DISCOUNT_USED] in (0, 1), f"discount flag {st[L.DISCOUNT_USED]}"
    if not rule(L.RU_GODS):
        assert gods == (0, 0) and favor == 0, f"gods {gods}, Favor {favor} without gods"
        assert (kinds == -1).all() and not under.any() and not done.any(), "structures w/o gods"
        assert st[L.UNDER_N] == 0 and st[L.UNDER_N + 1] == 0, "cards under no structure"
        return
    assert gods == (V.DEV_ANUBIS, V.DEV_HORUS), f"seat gods {gods}, want (Anubis, Horus)"
    assert favor in gods, f"Favor {favor} is neither god"
    n_structs = int(tab[L.TB_N_STRUCTS])
    for p in range(2):
        assert under[p].sum() == st[L.UNDER_N + p], (
            f"seat {p}: structures hold {under[p]} cards, its pile {st[L.UNDER_N + p]}"
        )
        assert (under[p] >= 0).all(), f"seat {p}: negative cards under {under[p]}"
        assert set(done[p].tolist()) <= {0, 1}, f"seat {p}: completed flags {done[p]}"
        rows = [int(r) for r in kinds[p] if r >= 0]
        assert len(rows) == len(set(rows)) <= rule(L.RU_STRUCTS), f"seat {p}: structures {rows}"
        building = []
        for s in range(L.MAX_STRUCTS):
            row = int(kinds[p, s])
            if row < 0:
                assert under[p, s] == 0 and done[p, s] == 0, f"seat {p}: empty slot {s} in use"
                continue
            assert row < n_structs, f"seat {p}: unknown structure row {row}"
            col = lambda c: int(tab[tab[L.TB_STRUCT] + row * L.S_COLS + c])  # noqa: B023, E731
            assert col(L.S_GOD) == gods[p], f"seat {p}: structure {row} of another god"
            if done[p, s]:
                assert under[p, s] >= col(L.S_BUILD_COST), (
                    f"seat {p}: structure {row} completed with {under[p, s]} cards under it,"
                    f" build cost {col(L.S_BUILD_COST)}"
                )
            elif under[p, s] > 0:
                building.append(row)
        # "A player can never have cards under more than 1 of their structures at any time."
        assert len(building) <= 1, f"seat {p}: incomplete structures {building} all have cards"


def check_invariants(sc: Scenario) -> None:
    """Assert every invariant of ``check_state`` on a scenario's current position."""
    check_state(sc.st, sc.tab)
