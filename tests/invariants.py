"""Invariants every reachable game state satisfies (a helper for the tests, not a test file).

``check_state`` reads the raw state vector, so it works on any ``st`` a test
holds; ``check_invariants`` is the same check on a :class:`sim.run.scenario.Scenario`.
Each failed assertion says which invariant broke and the figures involved.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from sim.base import layout as L
from sim.base import vocab as V
from sim.kernel.board import is_war_torn, n_units, side_strength, slot_strength, strength_scan
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
    view = StateView(st)
    sides = view.zone_counts("city")

    # --- no negative (or overflowing) counts --------------------------------
    counts = {
        "supply": view.supply,
        "vp_supply": view.vp_supply,
        "turn": view.turns_done,
        "rewards_used_turn": view.rewards_used_turn,
    }
    for p in range(2):
        counts[f"coins{p}"] = view.coin_counts[p]
        counts[f"vp{p}"] = view.vp_counts[p]
        counts[f"hand_n{p}"] = view.zone_counts("hand")[p]
        counts[f"out_n{p}"] = view.zone_counts("out")[p]
        counts[f"rew_n{p}"] = view.reward_counts[p]
        counts[f"played_n{p}"] = view.played_counts[p]
        counts[f"under_n{p}"] = view.zone_counts("under")[p]
    for d in range(2):
        counts[f"deck_n{d}"] = view.zone_counts("deck")[d]
        counts[f"disc_n{d}"] = view.zone_counts("discard")[d]
    for c in range(L.N_CITIES):
        counts[f"stack_n{c}"] = view.stack_counts[c]
        for p in range(2):
            counts[f"side_n{c}.{p}"] = sides[2 * c + p]
    negative = {k: int(v) for k, v in counts.items() if v < 0}
    assert not negative, f"negative counts: {negative}"
    for c in range(L.N_CITIES):
        assert view.stack_counts[c] <= L.MAX_STACK, f"city {c} stack over {L.MAX_STACK}"
        for p in range(2):
            assert sides[2 * c + p] <= L.N_SLOTS, f"city {c} seat {p}: > {L.N_SLOTS}"
    for p in range(2):
        assert view.reward_counts[p] <= L.MAX_REWARDS, f"seat {p} holds > {L.MAX_REWARDS} tiles"

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
            rest = view.zone_slots("city", s)[int(sides[s]) :]
            assert (rest == L.NO_CARD).all(), f"city {c} seat {p}: stale slots {rest}"
    if not view.own_decks:
        assert view.zone_counts("deck")[1] == 0 and view.zone_counts("discard")[1] == 0, (
            "second pile used in a shared game"
        )

    # --- coins and VP tokens conserved -------------------------------------------
    coin_counts, vp_counts = view.coin_counts, view.vp_counts
    coins = int(view.supply + coin_counts.sum())
    assert coins == rule(L.RU_COIN_SUPPLY), (
        f"coins not conserved: supply {view.supply} + {coin_counts[0]} + {coin_counts[1]}"
        f" != {rule(L.RU_COIN_SUPPLY)}"
    )
    vp = int(view.vp_supply + vp_counts.sum())
    assert vp == rule(L.RU_VP_TOKENS), (
        f"VP tokens not conserved: supply {view.vp_supply} + {vp_counts[0]} + {vp_counts[1]}"
        f" != {rule(L.RU_VP_TOKENS)}"
    )

    # --- reward tiles: each at most once, in a stack or won -------------------------
    tiles = []
    for c in range(L.N_CITIES):
        tiles += view.stack_tiles(c)
    for p in range(2):
        tiles += [t for t, _used in view.reward_tiles(p)]
        used = view.reward_used_flags[p, : view.reward_counts[p]]
        assert set(used.tolist()) <= {0, 1}, f"seat {p}: used flags {used}"
    assert len(tiles) == len(set(tiles)), f"a reward tile is in two places: {sorted(tiles)}"
    assert len(tiles) <= n_tiles, f"{len(tiles)} tiles in play, the mix has {n_tiles}"
    assert all(0 <= t < n_tiles for t in tiles), f"unknown tile ids: {tiles}"
    assert view.rewards_used_turn <= rule(L.RU_REWARDS_PER_SURGE), "too many tiles used"

    # --- capacity (COLOSSAL counts 2) and war-torn --------------------------------
    cap = rule(L.RU_CAPACITY)
    rescanned = rescan_totals(st, tab)
    for c in range(L.N_CITIES):
        for p in range(2):
            w = int(rescanned[2 * c + p, L.TOT_WEIGHT])
            assert w <= cap, f"city {c} seat {p}: {w} unit-slots > capacity {cap}"
        if view.stack_counts[c] == 0:
            for active in range(2):
                assert not is_war_torn(st, tab, c, active), f"empty city {c} is war-torn"
            assert not view.war_torn_token(c), f"empty city {c} has its war-torn token flipped"

    check_gods_and_structures(st, tab)
    check_enraged_and_feats(st, tab)
    check_totals(st, tab, rescanned)


def rescan_totals(st: np.ndarray, tab: np.ndarray) -> np.ndarray:
    """Each city side's totals (``layout.TOT_*``) worked out afresh from its slots, in Python.

    Row ``2*c + p``. Written from the rulebooks, not from the kernel's ``tally``,
    so a slip in the kernel's bookkeeping cannot hide behind the same slip here:
    an enraged unit is a Beast of strength ``RU_ENRAGED_STRENGTH`` filling 2
    slots with no abilities (Reign, Enrage); COLOSSAL units and Beasts fill 2.
    """
    view = StateView(st)
    sides = view.zone_counts("city")
    out = np.zeros((2 * L.N_CITIES, L.TOT_COLS), np.int64)
    for s in range(2 * L.N_CITIES):
        for i in range(int(sides[s])):
            card = int(view.zone_slots("city", s)[i])
            row = tab[L.TB_CARD_ROWS + card * L.K_COLS : L.TB_CARD_ROWS + (card + 1) * L.K_COLS]
            out[s, L.TOT_COST] += row[L.K_COST]
            for col, trigger in (
                (L.TOT_RALLY, V.TR_RALLY),
                (L.TOT_REINFORCE, V.TR_REINFORCE),
                (L.TOT_SURGE_END, V.TR_SURGE_END),
            ):
                abils = range(row[L.K_ABIL_START], row[L.K_ABIL_START] + row[L.K_ABIL_N])
                out[s, col] += any(
                    tab[tab[L.TB_ABIL] + a * L.A_COLS + L.A_TRIGGER] == trigger for a in abils
                )
            if view.enraged_slots[s, i]:
                out[s, L.TOT_WEIGHT] += 2
                out[s, L.TOT_TEXT_UNITS] += 2
                out[s, L.TOT_STRENGTH] += tab[L.TB_RULES + L.RU_ENRAGED_STRENGTH]
                continue
            big = row[L.K_KEYWORDS] & V.KW_COLOSSAL or row[L.K_TYPE] == V.T_BEAST
            out[s, L.TOT_WEIGHT] += 2 if big else 1
            out[s, L.TOT_TEXT_UNITS] += 2 if row[L.K_TYPE] == V.T_BEAST else 1
            out[s, L.TOT_STRENGTH] += row[L.K_STRENGTH]
            out[s, L.TOT_SOLDIERS] += row[L.K_TYPE] == V.T_SOLDIER
            out[s, L.TOT_INVOKE] += (row[L.K_KEYWORDS] & V.KW_INVOCATION) != 0
            ongoing = row[L.K_STATIC]
            out[s, L.TOT_COST_FX] += (ongoing & L.STATIC_COST) != 0
            out[s, L.TOT_STRENGTH_FX] += (ongoing & L.STATIC_STRENGTH) != 0
    return out


def check_totals(st: np.ndarray, tab: np.ndarray, want: np.ndarray | None = None) -> None:
    """The running totals the kernel keeps per city side equal a rescan of the slots
    (``want``, when the caller has ``rescan_totals`` already), and a side's strength read
    through them equals the unit-by-unit sum with every effect."""
    kept = StateView(st).side_totals
    if want is None:
        want = rescan_totals(st, tab)
    bad = np.argwhere(kept != want)
    assert not len(bad), (
        f"running totals (side, TOT_ column) {bad.tolist()}: kept {kept.tolist()}, "
        f"rescanned {want.tolist()}"
    )
    for c in range(L.N_CITIES):
        for p in range(2):
            fast, full = int(side_strength(st, tab, c, p)), int(strength_scan(st, tab, c, p))
            assert fast == full, f"city {c} seat {p}: side_strength {fast} != unit by unit {full}"
            # strength_scan reads each source's ops once; slot_strength, unit by unit,
            # is the reference it must match.
            units = sum(int(slot_strength(st, tab, c, p, i)) for i in range(int(n_units(st, c, p))))
            assert full == units, f"city {c} seat {p}: strength_scan {full} != slots {units}"


def check_enraged_and_feats(st: np.ndarray, tab: np.ndarray) -> None:
    """A Reign of War: enraged units and feat cards (trivially true without Reign).

    Reign, Enrage: "Only soldiers and oracles can be enraged. An enraged unit is
    flipped over: it counts as a beast ... A unit whose enraging would put its
    side of the city over capacity (a beast counts as 2) is not enraged."
    """
    rule = lambda k: int(tab[L.TB_RULES + k])  # noqa: E731
    view = StateView(st)
    for c in range(L.N_CITIES):
        for p in range(2):
            s = 2 * c + p
            n = int(view.zone_counts("city")[s])
            flags = view.enraged_slots[s]
            assert set(flags.tolist()) <= {0, 1}, f"city {c} seat {p}: enraged flags {flags}"
            assert not flags[n:].any(), f"city {c} seat {p}: enraged flag on an empty slot {flags}"
            # Capacity with enraged units counting 2 is check_state's (rescan_totals).
            for i in range(n):
                card = int(view.zone_slots("city", s)[i])
                kind = int(tab[tab[L.TB_CARD_KIND] + card])
                typ = int(tab[tab[L.TB_KIND] + kind * L.K_COLS + L.K_TYPE])
                if flags[i]:
                    assert typ in (V.T_SOLDIER, V.T_ORACLE), (
                        f"city {c} seat {p}: card {card} of type {typ} is enraged"
                    )
    for p in range(2):
        assert view.enraged_counts[p] >= 0, f"seat {p}: enraged count {view.enraged_counts[p]}"
    assert view.opp_discarded >= 0, f"opponent discarded {view.opp_discarded}"
    n_feats = int(tab[L.TB_N_FEATS])
    feats = view.feat_done
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
    view = StateView(st)
    gods = (view.god_code(0), view.god_code(1))
    favor = view.favor_code
    kinds, under, done = view.struct_kinds, view.struct_under, view.struct_done
    under_n = view.zone_counts("under")
    assert view.discount_used in (0, 1), f"discount flag {view.discount_used}"
    if not rule(L.RU_GODS):
        assert gods == (0, 0) and favor == 0, f"gods {gods}, Favor {favor} without gods"
        assert (kinds == -1).all() and not under.any() and not done.any(), "structures w/o gods"
        assert under_n[0] == 0 and under_n[1] == 0, "cards under no structure"
        return
    assert sorted(gods) == [V.DEV_ANUBIS, V.DEV_HORUS], f"seat gods {gods}, want one each"
    assert favor in gods, f"Favor {favor} is neither god"
    n_structs = int(tab[L.TB_N_STRUCTS])
    for p in range(2):
        assert under[p].sum() == under_n[p], (
            f"seat {p}: structures hold {under[p]} cards, its pile {under_n[p]}"
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
