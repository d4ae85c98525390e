"""Property tests on random games: invariants after every step, scores, batch == replay."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs
from invariants import check_invariants, check_totals

from sim.base import layout as L
from sim.base import vocab as V
from sim.base.tables import flatten
from sim.data.cards import load_pool, with_run_rules
from sim.kernel import decisions as D
from sim.kernel import surge as S
from sim.kernel import turn as T
from sim.kernel.batch import RunArgs, play_batch
from sim.kernel.board import cost_modifier
from sim.kernel.surge import (
    MAX_ACTIONS,
    complete_structures,
    play_unit,
    surge_end,
    surge_options,
    surge_step,
    use_reward,
)
from sim.run.scenario import Scenario
from sim.run.view import StateView
from strategies.policy import choose_heuristic, dispatcher, heuristic_dispatcher
from strategies.registry import STRATEGIES, strategy_arrays

# Every shipped bot: random, the heuristic profiles and the look-ahead bot.
BOTS = tuple(sorted(STRATEGIES))
FIRST_MODES = {"p0": L.FIRST_P0, "p1": L.FIRST_P1, "alternate": L.FIRST_ALTERNATE}
FIRST_MODES["random"] = L.FIRST_RANDOM
# The base set first: Dunes-based mixes have gods, Favor and structures; an
# Aegean-based mix keeps the Aegean rules and adds the Dunes units and tiles.
MIXES = ("aegean", "dunes", "dunes+aegean", "aegean+dunes")
# A Reign of War as the base: Portent and Feat steps, enraged units, feats, its tie-break.
REIGN_MIXES = ("reign", "reign+aegean")
STEP_MIXES = MIXES + REIGN_MIXES

seeds = hs.integers(0, 2**63 - 1)
games = hs.integers(0, 10**9)
bots = hs.tuples(hs.sampled_from(BOTS), hs.sampled_from(BOTS))
firsts = hs.sampled_from(sorted(FIRST_MODES))
# Mostly the default cap; small caps make the "turn_cap" ending common too.
turn_caps = hs.sampled_from([200, 200, 200, 3, 12])
# The seats and rules of a drawn game, in the order the game tests draw them.
SEATS = {"bot_pair": bots, "emissary": hs.booleans(), "first": firsts, "turn_cap": turn_caps}

# OMENSIM_EXAMPLES=2000 pytest tests/kernel/test_properties.py: a long bug hunt with the same tests.
EXAMPLES = int(os.environ.get("OMENSIM_EXAMPLES", "50"))
SETTINGS = settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
# Per-mix tests run once per mix: fewer examples each keeps the suite quick.
MIX_SETTINGS = settings(SETTINGS, max_examples=max(EXAMPLES // 2, 1))


def _favored(st: np.ndarray, p: int) -> int:
    view = StateView(st)
    return int(view.favor_code != 0 and view.favor_code == view.god_code(p))


def _tiebreak_figure(res: dict[str, int], st: np.ndarray, name: str, p: int) -> int:
    if name == "favored":  # Dunes, Ties: "the player whose god is Favored is the winner"
        return _favored(st, p)
    key = {
        "unused_rewards": "rewards_unused",
        "vp_tokens": "vp_tokens",
        "treasured_in_hand": "treasured",
        "used_rewards": "rewards_used",
    }[name]
    return res[f"{key}_p{p}"]


def expected_winner(res: dict[str, int], tiebreaks: list[str], st: np.ndarray) -> int:
    """The winner the rulebook names from scores, then the tie-breaks in order (-1: shared)."""
    a, b = res["score_p0"], res["score_p1"]
    if a != b:
        return 0 if a > b else 1
    for name in tiebreaks:
        a, b = _tiebreak_figure(res, st, name, 0), _tiebreak_figure(res, st, name, 1)
        if a != b:
            return 0 if a > b else 1
    return -1


def possible_end_reasons(sc: Scenario) -> set[str]:
    """The endings a game of this mix can have: its sets' end conditions and the turn cap.

    "All structures built" needs structures, which only a Dunes base deals;
    "feats completed" needs the Feat step (Reign in the mix).
    """
    ends = set(sc.pool.rules["end_conditions"]) | {"turn_cap"}
    if not sc.rule("RU_STRUCTS"):
        ends.discard("all_structures_built")
    if not sc.rule("RU_FEAT_STEP"):
        ends.discard("feats_completed")
    return ends


def turn_steps(sc: Scenario) -> tuple:
    """The steps of a turn in order, as ``play_turn`` runs them (Reign adds Portent, Feat)."""
    return (*(getattr(sc, step.name) for step in sc.turn_steps()), sc.end_turn)


def end_conditions_met(sc: Scenario, ender: int) -> list[str]:
    """The mix's end conditions that hold at the end of seat ``ender``'s turn.

    Aegean: every city empty; Dunes: "2 or more cities have no remaining reward
    tiles or ... the active player has built all of their structures"; Reign:
    "when ... the opponent has 5 face-down feat cards" (read as either player).
    """
    ends = sc.pool.rules["end_conditions"]
    empty = sum(int(sc.stack_counts[c] == 0) for c in range(L.N_CITIES))
    met = []
    if "all_cities_empty" in ends and empty == L.N_CITIES:
        met.append("all_cities_empty")
    if "two_cities_empty" in ends and empty >= 2:
        met.append("two_cities_empty")
    n = sc.rule("RU_STRUCTS")
    built = sum(done for _, _, done in sc.structures(ender))
    if "all_structures_built" in ends and n > 0 and built >= n:
        met.append("all_structures_built")
    to_end = sc.rule("RU_FEATS_TO_END")
    if "feats_completed" in ends and any(len(sc.feats(p)) >= to_end for p in range(2)):
        met.append("feats_completed")
    return met


def check_result(sc: Scenario, res: dict[str, int], turn_cap: int) -> None:
    """Scores equal their breakdown, the breakdown matches the board, the winner is right."""
    st = sc.st
    for p in range(2):
        unused, used = res[f"rewards_unused_p{p}"], res[f"rewards_used_p{p}"]
        vp, tre = res[f"vp_tokens_p{p}"], res[f"treasured_p{p}"]
        svp = res[f"structures_vp_p{p}"]
        # Reign, Scoring: "2 VP for each face-down (completed) feat card" (sc.out: just scored)
        feats = int(sc.out[L.O_FEATS + p])
        assert feats == len(sc.feats(p)), (feats, sc.feats(p))
        mask = sum(1 << sc.feat_index(name) for name in sc.feats(p))
        assert sc.out[L.O_FEAT_MASK + p] == mask
        assert sc.out[L.O_ENRAGED + p] == sc.enraged_counts[p]
        score = 2 * unused + used + 2 * vp + tre + svp + 2 * feats
        assert res[f"score_p{p}"] == score, (res, feats)
        assert unused + used == sc.reward_counts[p]
        assert used == sum(sc.rewards(p)[r][1] for r in range(len(sc.rewards(p))))
        assert vp == sc.vp_tokens(p)
        treasured = sum(
            1
            for name in sc.hand(p)
            if "TREASURED" in sc.pool.units[sc.pool.kind_index(name)]["keywords"]
        )
        assert tre == treasured
        # Dunes, scoring D: "Gain VP as indicated on each of a player's completed structures."
        vps = {s["name"]: s["vp"] for s in sc.pool.structures}
        built = [name for name, _, done in sc.structures(p) if done]
        assert res[f"structures_built_p{p}"] == len(built), res
        assert svp == sum(vps[name] for name in built), res
    tiebreaks = sc.pool.rules["tiebreaks"]
    assert res["winner"] == expected_winner(res, tiebreaks, st), (res, tiebreaks)
    if sc.pool.sets[0].name == "reign":
        # Reign: "On a tie, the player with more face-down (used) reward cards wins."
        assert tiebreaks == ["used_rewards"], tiebreaks
        figures = [(res[f"score_p{p}"], res[f"rewards_used_p{p}"]) for p in range(2)]
        want = -1 if figures[0] == figures[1] else int(figures[1] > figures[0])
        assert res["winner"] == want, (res, figures)
    assert res["end_reason"] in possible_end_reasons(sc), res
    met = end_conditions_met(sc, 1 - sc.active)  # end_turn has handed the turn over
    if res["end_reason"] == "turn_cap":
        assert res["turns"] == turn_cap
        assert not met, f"the game ended at the turn cap, but {met} held"
    else:
        assert res["turns"] <= turn_cap
        assert res["end_reason"] in met, (res, met)
    assert res["turns"] == sc.turns_done


@MIX_SETTINGS
@given(seed=seeds, game=games, **SEATS)
@pytest.mark.parametrize("mix", STEP_MIXES)
def test_invariants_hold_after_every_step(mix, seed, game, bot_pair, emissary, first, turn_cap):
    # Checks heir-to-the-dunes.txt, line 73.
    sc = Scenario.from_game(
        mix, seed, game, bots=bot_pair, emissary=emissary, first=first, turn_cap=turn_cap
    )
    check_invariants(sc)
    assert sc.active == sc.first
    if sc.rule("RU_GODS"):  # Dunes, Set Up: "the second player's god will always begin Favored"
        assert sc.favor_code == sc.god_code(1 - sc.first)
    steps = turn_steps(sc)
    turns = 0
    while not sc.over:
        assert turns < turn_cap, "the game ran past its turn cap"
        active = sc.active
        for step in steps:
            step()
            check_invariants(sc)
        turns += 1
        assert sc.turns_done == turns
        # The game ends exactly when an end condition holds at the end of a turn (or the cap).
        assert sc.over == bool(end_conditions_met(sc, active) or turns == turn_cap)
        assert sc.over or sc.active == 1 - active
    assert sc.error == 0
    check_result(sc, sc.result(), turn_cap)


@MIX_SETTINGS
@given(seed=seeds, game=games, **SEATS)
@pytest.mark.parametrize("mix", STEP_MIXES)
def test_running_totals_equal_a_rescan_after_every_turn(
    mix, seed, game, bot_pair, emissary, first, turn_cap
):
    """The per-side totals the kernel keeps (``layout.TOT_*``) as units are played, moved,
    destroyed, returned, exalted, entombed, enraged and flipped back equal a rescan of the
    slots after every turn. The turns run straight in the kernel (``play_turn``), never
    through ``Scenario``, whose methods resync the totals for positions written in Python."""
    sc = Scenario.from_game(
        mix, seed, game, bots=bot_pair, emissary=emissary, first=first, turn_cap=turn_cap
    )
    check_totals(sc.st, sc.tab)
    units = 0
    while not sc.over:
        T.play_turn(sc.st, sc.tab, sc.fp, sc.ask)
        check_totals(sc.st, sc.tab)
        units += int(sc.zone_counts("city").sum())
    assert sc.error == 0
    assert units > 0 or sc.turns_done < 4, "no unit ever reached a city: nothing was checked"


@MIX_SETTINGS
@given(seed=seeds, game=games, **SEATS)
@pytest.mark.parametrize("mix", STEP_MIXES)
def test_turn_by_turn_equals_step_by_step(mix, seed, game, bot_pair, emissary, first, turn_cap):
    """``play_turn`` is exactly the steps (Reign: six) and ``end_turn`` in order."""
    kw = dict(bots=bot_pair, emissary=emissary, first=first, turn_cap=turn_cap)
    a = Scenario.from_game(mix, seed, game, **kw)
    b = Scenario.from_game(mix, seed, game, **kw)
    while not a.over:
        a.turn()
        for step in turn_steps(b):
            step()
        np.testing.assert_array_equal(a.st, b.st)
    assert b.over


@MIX_SETTINGS
@given(
    seed=seeds,
    start=hs.integers(0, 10**9),
    n=hs.integers(1, 12),
    n_blocks=hs.integers(1, 4),
    **SEATS,
    data=hs.data(),
)
@pytest.mark.parametrize("mix", STEP_MIXES)
def test_batch_equals_replay(
    mix, seed, start, n, n_blocks, bot_pair, emissary, first, turn_cap, data
):
    """Game ``i`` of a batch (blocks reuse one state) equals replaying it alone."""
    pool = load_pool(mix)
    tab = flatten(with_run_rules(pool.tables, turn_cap, emissary, FIRST_MODES[first]))
    ids, fp = strategy_arrays(*bot_pair, tab)
    out, masks = play_batch(RunArgs(tab, fp, ids, dispatcher(ids), seed), start, n, n_blocks)
    for i in sorted(set(data.draw(hs.lists(hs.integers(0, n - 1), min_size=1, max_size=3)))):
        sc = Scenario.from_game(
            mix,
            seed,
            start + i,
            bots=bot_pair,
            emissary=emissary,
            first=first,
            turn_cap=turn_cap,
        )
        res = sc.play_out()
        row = out[i]
        assert row[L.O_WINNER] == res["winner"]
        assert row[L.O_TURNS] == res["turns"]
        assert V.END_REASONS[row[L.O_END_REASON]] == res["end_reason"]
        assert row[L.O_FIRST] == sc.first
        assert row[L.O_ERROR] == 0
        assert row[L.O_FAVOR] == sc.favor_code
        for p in range(2):
            assert row[L.O_SCORE + p] == res[f"score_p{p}"]
            assert row[L.O_REW_UNUSED + p] == res[f"rewards_unused_p{p}"]
            assert row[L.O_REW_USED + p] == res[f"rewards_used_p{p}"]
            assert row[L.O_VP_TOKENS + p] == res[f"vp_tokens_p{p}"]
            assert row[L.O_TREASURED + p] == res[f"treasured_p{p}"]
            assert row[L.O_PLAYED_N + p] == sc.played_counts[p]
            assert row[L.O_STRUCT_N + p] == res[f"structures_built_p{p}"]
            assert row[L.O_STRUCT_VP + p] == res[f"structures_vp_p{p}"]
            assert row[L.O_GOD + p] == sc.god_code(p)
            assert row[L.O_FEATS + p] == sc.out[L.O_FEATS + p]
            assert row[L.O_FEAT_MASK + p] == sc.out[L.O_FEAT_MASK + p]
            assert row[L.O_ENRAGED + p] == sc.enraged_counts[p]
        np.testing.assert_array_equal(masks[i], sc.kind_masks)
        check_result(sc, res, turn_cap)


# --- A Reign of War: the reward area and enraged units, step by step ----------------

REIGN_VARIANTS = ("none", "learning", "extra-wealth")


def variant_scenario(
    mix: str, variant: str, seed: int, game: int, *, bots, first: str, turn_cap: int
) -> Scenario:
    """Game ``game`` of run ``seed`` with a Reign variant: the learning pool or extra wealth."""
    rules = {"RU_EXTRA_WEALTH": 1} if variant == "extra-wealth" else None
    sc = Scenario(mix, bots=bots, first=first, turn_cap=turn_cap, rules=rules)
    if variant == "learning":  # the learning game's units only (Engine: --variant learning)
        sc.pool = load_pool(mix, learning=True)
        sc.tables = with_run_rules(sc.pool.tables, turn_cap, False, FIRST_MODES[first])
        sc.tab = flatten(sc.tables)
        _, sc.fp = strategy_arrays(*bots, sc.tab)
    sc.setup(seed, game)
    return sc


def reward_area(st: np.ndarray, p: int) -> tuple[list[int], list[int]]:
    """Seat ``p``'s won reward tiles (tile ids, in order won) and their used flags."""
    view = StateView(st)
    n = int(view.reward_counts[p])
    return view.reward_slots[p, :n].tolist(), view.reward_used_flags[p, :n].tolist()


def check_reward_areas(
    before: np.ndarray, after: np.ndarray, step: str, limit: int, seen: Counter
) -> None:
    """Nothing leaves a reward area; a used flag goes 0 -> 1 only in its owner's Surge.

    Reign: "during the Surge step the active player may use 1 reward card ...
    laying it face down in front of them"; "No player can make another reveal or
    discard a reward card." Tiles are won only in the War step (by either seat).
    """
    active = StateView(before).active
    for p in range(2):
        won0, used0 = reward_area(before, p)
        won1, used1 = reward_area(after, p)
        assert won1[: len(won0)] == won0, f"{step}: seat {p}'s rewards {won0} -> {won1}"
        if len(won1) > len(won0):
            assert step == "war", f"seat {p} won tiles {won1[len(won0) :]} in the {step} step"
            assert not any(used1[len(won0) :]), f"seat {p} won a tile already used: {used1}"
            seen["won"] += len(won1) - len(won0)
        flips = [r for r, (a, b) in enumerate(zip(used0, used1, strict=False)) if a != b]
        for r in flips:
            assert (used0[r], used1[r]) == (0, 1), f"{step}: seat {p} tile {r} {used0} -> {used1}"
        if flips:
            assert step == "surge" and p == active, f"seat {p}'s tiles {flips} used in {step}"
            assert len(flips) <= limit, f"seat {p} used {len(flips)} tiles in one Surge"
            seen["used"] += len(flips)
            seen[f"used by active seat {p}"] += 1


def play_checking_rewards(
    sc: Scenario, seen: Counter, after_step: Callable[[], None] = lambda: None
) -> None:
    """Play ``sc`` to its end step by step, checking both reward areas after every step
    (then ``after_step``)."""
    per_surge = sc.rule("RU_REWARDS_PER_SURGE")
    while not sc.over:
        for step in turn_steps(sc):
            before = sc.st.copy()
            step()
            check_reward_areas(before, sc.st, step.__name__, per_surge, seen)
            after_step()


@MIX_SETTINGS
@given(seed=seeds, game=games, bot_pair=bots, first=firsts, turn_cap=turn_caps)
@pytest.mark.parametrize("mix", STEP_MIXES)
def test_reward_cards_leave_only_by_owners_play(mix, seed, game, bot_pair, first, turn_cap):
    sc = Scenario.from_game(mix, seed, game, bots=bot_pair, first=first, turn_cap=turn_cap)
    play_checking_rewards(sc, Counter())
    check_result(sc, sc.result(), turn_cap)


def check_enraged_capacity(sc: Scenario, seen: Counter) -> None:
    """Every side, counting an enraged unit (a Beast) as 2, is within capacity."""
    cap = sc.rule("RU_CAPACITY")
    for c in range(L.N_CITIES):
        for p in range(2):
            rage = sc.enraged(c, p)
            if not any(rage):
                continue
            kinds = [sc.pool.units[sc.pool.kind_index(n)] for n in sc.city(c, p)]
            w = 0
            for u, r in zip(kinds, rage, strict=True):
                assert not r or u["type"] in ("soldier", "oracle"), (u["name"], u["type"])
                w += 2 if r or u["type"] == "beast" or "COLOSSAL" in u["keywords"] else 1
            assert w <= cap, f"city {c} seat {p}: {sc.city(c, p)} enraged {rage}: {w} > {cap}"
            seen["enraged sides"] += 1
            seen["full with enraged"] += w == cap


@MIX_SETTINGS
@given(seed=seeds, game=games, bot_pair=bots, first=firsts, variant=hs.sampled_from(REIGN_VARIANTS))
@pytest.mark.parametrize("mix", REIGN_MIXES)
def test_enraged_units_never_break_capacity(mix, seed, game, bot_pair, first, variant):
    sc = variant_scenario(mix, variant, seed, game, bots=bot_pair, first=first, turn_cap=200)
    seen: Counter = Counter()
    while not sc.over:
        for step in turn_steps(sc):
            step()
            check_enraged_capacity(sc, seen)
            check_invariants(sc)
    assert sc.error == 0
    check_result(sc, sc.result(), 200)


def test_reign_checks_see_every_case():
    """The Reign properties above meet enraged units, full sides and used rewards."""
    seen: Counter = Counter()
    for game in range(8):
        for variant in REIGN_VARIANTS:
            kw = dict(bots=("greedy", "random"), first="alternate", turn_cap=200)
            sc = variant_scenario("reign", variant, 3, game, **kw)
            play_checking_rewards(sc, seen, lambda sc=sc: check_enraged_capacity(sc, seen))
            seen[sc.result()["end_reason"]] += 1
    for case in ("won", "used", "used by active seat 0", "used by active seat 1"):
        assert seen[case] >= 5, seen
    for case in ("enraged sides", "full with enraged"):
        assert seen[case] >= 5, seen


@pytest.mark.parametrize("mix", STEP_MIXES)
def test_every_end_reason_occurs(mix):
    """The properties above see every ending of each mix (guards against vacuous checks)."""
    pool = load_pool(mix)
    reasons = set()
    for cap, bot_pair in ((3, ("greedy", "greedy")), (200, ("greedy", "greedy"))):
        tab = flatten(with_run_rules(pool.tables, cap, False, L.FIRST_ALTERNATE))
        ids, fp = strategy_arrays(*bot_pair, tab)
        out, _ = play_batch(RunArgs(tab, fp, ids, dispatcher(ids), 5), 0, 300, 1)
        reasons |= {V.END_REASONS[r] for r in out[:, L.O_END_REASON]}
    tab = flatten(with_run_rules(pool.tables, 200, False, L.FIRST_ALTERNATE))
    ids, fp = strategy_arrays("random", "random", tab)
    out, _ = play_batch(RunArgs(tab, fp, ids, dispatcher(ids), 5), 0, 2000, 1)
    reasons |= {V.END_REASONS[r] for r in out[:, L.O_END_REASON]}
    assert reasons == possible_end_reasons(Scenario(mix)), reasons


# --- random card tables and rule numbers -----------------------------------------

unit_change = hs.fixed_dictionaries(
    {
        "cost": hs.integers(0, 7),
        "offering": hs.integers(0, 4),
        "strength": hs.integers(0, 7),
        "copies": hs.integers(1, 3),
        "colossal": hs.booleans(),
    }
)
rule_changes = hs.fixed_dictionaries(
    {
        "tiles_per_city": hs.integers(1, 4),
        "start_cards": hs.integers(0, 6),
        "start_coins": hs.integers(0, 6),
        "coin_supply": hs.integers(8, 40),
        "vp_tokens": hs.integers(0, 8),
        "wealth_actions": hs.integers(1, 4),
        "city_capacity": hs.integers(2, 5),
        "war_torn_enemy_units": hs.integers(1, 4),
        "war_torn_total_units": hs.integers(2, 6),
        "winner_keeps": hs.integers(0, 2),
        "loser_keeps": hs.integers(0, 3),
        "hand_limit": hs.integers(0, 7),
        "coin_limit": hs.integers(0, 12),
        "rewards_per_surge": hs.integers(0, 2),
        # Heir to the Dunes (no effect without gods / structures in the mix)
        "devoted_discount": hs.integers(0, 3),
        "wealth_reveal": hs.integers(0, 1),
        "wealth_reveal_repeats": hs.integers(0, 2),
        "structures_per_player": hs.integers(0, 3),
    }
)
structure_change = hs.fixed_dictionaries({"build_cost": hs.integers(1, 8), "vp": hs.integers(0, 6)})


@MIX_SETTINGS
@given(
    seed=seeds,
    game=games,
    bot_pair=bots,
    emissary=hs.booleans(),
    rules=rule_changes,
    data=hs.data(),
)
@pytest.mark.parametrize("mix", MIXES)
def test_invariants_hold_with_random_card_tables(mix, seed, game, bot_pair, emissary, rules, data):
    """Conservation, capacity and structures do not depend on the shipped card values."""
    import copy

    from sim.data.cards import compile_tables
    from sim.kernel import game as G

    sc = Scenario(mix, bots=bot_pair, emissary=emissary, first="random", turn_cap=60)
    pool = copy.deepcopy(sc.pool)
    units = data.draw(hs.lists(unit_change, min_size=len(pool.units), max_size=len(pool.units)))
    for u, ch in zip(pool.units, units, strict=True):
        for key in ("cost", "offering", "strength", "copies"):
            u[key] = ch[key]
        kws = set(u["keywords"]) - {"COLOSSAL"}
        u["keywords"] = sorted(kws | ({"COLOSSAL"} if ch["colossal"] else set()))
    n = len(pool.structures)
    for sd, ch in zip(
        pool.structures, data.draw(hs.lists(structure_change, min_size=n, max_size=n)), strict=True
    ):
        sd.update(ch)
    pool.rules.update(rules)
    tables = compile_tables(pool.units, pool.rewards, pool.rules, pool.structures)
    sc.pool = pool
    sc.tables = with_run_rules(tables, 60, emissary, L.FIRST_RANDOM)
    sc.tab = flatten(sc.tables)
    _, sc.fp = strategy_arrays(*bot_pair, sc.tab)  # bots cache per-table values
    G.setup(sc.st, sc.tab, sc.fp, heuristic_dispatcher(), seed, game)
    check_invariants(sc)
    while not sc.over:
        for step in turn_steps(sc):
            step()
            check_invariants(sc)
    check_result(sc, sc.result(), 60)


# --- the invariant checker itself catches broken states ------------------------


def _corrupt_duplicate_card(v):
    # a hand card also on top of the deck
    v.zone_slots("deck")[v.deck_size() - 1] = v.zone_slots("hand", 0)[0]


def _corrupt_lose_card(v):
    v.zone_counts("hand")[0] -= 1


def _corrupt_coin(v):
    v.coin_counts[1] += 1


def _corrupt_vp(v):
    v.vp_counts[0] += 1


def _corrupt_tile(v):
    v.reward_slots[0, 0] = v.stack_slots[0, 0]  # a tile both won and still on its city
    v.reward_counts[0] = 1


def _corrupt_negative(v):
    v.coin_counts[0] += v.supply + 1  # coins still sum right, but the supply goes below 0
    v.supply = -1


@pytest.mark.parametrize(
    "corrupt",
    [
        _corrupt_duplicate_card,
        _corrupt_lose_card,
        _corrupt_coin,
        _corrupt_vp,
        _corrupt_tile,
        _corrupt_negative,
    ],
)
def test_invariant_checker_catches(corrupt):
    sc = Scenario.from_game("aegean", 1, 2)
    check_invariants(sc)
    corrupt(sc)
    with pytest.raises(AssertionError):
        check_invariants(sc)


def test_invariant_checker_catches_stale_running_totals():
    """A unit written into a city from Python without ``sync_totals`` leaves the side's
    running totals behind the slots: the checker says so, and a resync mends it."""
    sc = Scenario.from_game("aegean", 1, 2)
    n = int(sc.zone_counts("hand")[0])
    sc.push("city", 0, sc.zone_slots("hand", 0)[n - 1])  # the hand's last card joins a side
    sc.zone_counts("hand")[0] = n - 1
    with pytest.raises(AssertionError, match="running totals"):
        check_invariants(sc)
    sc.sync_totals()
    check_invariants(sc)


def test_invariant_checker_catches_over_capacity():
    ok = ["Talos, Bronze Guardian of Crete", "Golden Hound of Crete", "Eudorus, Swift Runner"]
    sc = Scenario.build("aegean", cities={0: {0: ok}}, stacks={0: ["Thunderbolt of Zeus"]})
    check_invariants(sc)  # 5 unit-slots of 5: COLOSSAL counts 2
    over = [*ok[:2], "Bronze Eagle of the Caucasus"]  # three COLOSSAL: 6 unit-slots
    sc = Scenario.build("aegean", cities={0: {0: over}}, stacks={0: ["Thunderbolt of Zeus"]})
    with pytest.raises(AssertionError, match="capacity"):
        check_invariants(sc)


# A Reign of War: seat 0 holds 4 unit-slots in city 0, one Soldier enraged (2 + 1 + 1).
def _reign_position() -> Scenario:
    units = ["Hoplite Recruit", "Phalanx Spearman", "Shield Bearer"]
    return Scenario.build(
        "reign",
        hands={0: ["Slinger of Rhodes"]},
        cities={0: {0: units}, 1: {0: ["War Hound"]}},
        enraged={0: {0: [0]}},
        feats={1: ["Fury of War"]},
        stacks={0: ["Spear of Ares"]},
    )


def _corrupt_enraged_over_capacity(sc):  # a second enraged Soldier: 2 + 2 + 1 + 1 = 6 > 5
    sc.enraged_slots[0, 1] = 1
    sc.push("city", 0, sc.zone_slots("hand", 0)[0])  # the hand's one card joins the side
    sc.zone_counts("hand")[0] = 0


def _corrupt_enraged_beast(sc):  # a Beast cannot be enraged
    sc.enraged_slots[2, 0] = 1


def _corrupt_enraged_empty_slot(sc):
    sc.enraged_slots[0, 4] = 1


def _corrupt_feat_beyond_rows(sc):
    sc.feat_done[0, L.MAX_FEATS - 1] = 1


def _corrupt_feat_flag(sc):
    sc.feat_done[0, 0] = 2


def _corrupt_opp_discarded(sc):
    sc.opp_discarded = -1


@pytest.mark.parametrize(
    ("corrupt", "match"),
    [
        (_corrupt_enraged_over_capacity, "capacity"),
        (_corrupt_enraged_beast, "enraged"),
        (_corrupt_enraged_empty_slot, "empty slot"),
        (_corrupt_feat_beyond_rows, "feat rows"),
        (_corrupt_feat_flag, "feat flags"),
        (_corrupt_opp_discarded, "discarded"),
    ],
)
def test_invariant_checker_catches_reign_errors(corrupt, match):
    sc = _reign_position()
    check_invariants(sc)
    assert sc.enraged(0, 0) == [True, False, False] and sc.feats(1) == ["Fury of War"]
    corrupt(sc)
    with pytest.raises(AssertionError, match=match):
        check_invariants(sc)


# Heir to the Dunes: seat 0 serves Anubis and is building the Pyramid (4 to build).
PYRAMID, SHRINE = "Pyramid of the Jackal", "Shrine of the Embalmers"


def _dunes_position() -> Scenario:
    sc = Scenario.build(
        "dunes",
        hands={0: ["Moonlight Channeler"]},
        under={0: {PYRAMID: 2}, 1: {"Obelisk of the Falcon": 3}},
        stacks={0: ["Ankh of Eternal Life"], 1: [], 2: []},
    )
    sc.struct_done[1, sc.structure_slot(1, "Obelisk of the Falcon")] = 1
    return sc


def _struct(sc: Scenario, p: int, name: str) -> tuple[int, int]:
    return p, sc.structure_slot(p, name)


def _corrupt_under_count(sc):  # a card counted under a structure that is in no pile
    sc.struct_under[_struct(sc, 0, PYRAMID)] += 1


def _corrupt_two_in_progress(sc):  # cards under two incomplete structures at once
    sc.struct_under[_struct(sc, 0, PYRAMID)] -= 1
    sc.struct_under[_struct(sc, 0, SHRINE)] += 1


def _corrupt_completed_short(sc):  # flipped with 2 cards under a build cost of 4
    sc.struct_done[_struct(sc, 0, PYRAMID)] = 1


def _corrupt_under_card_twice(sc):  # a card both under a structure and in hand
    sc.zone_slots("under", 0)[0] = sc.zone_slots("hand", 0)[0]


def _corrupt_favor(sc):
    sc.favor_code = V.DEV_BOTH


def _corrupt_gods(sc):
    sc.god_codes = sc.god_codes[::-1].copy()


def _corrupt_foreign_structure(sc):  # seat 0 holding one of Horus's structures
    sc.struct_kinds[_struct(sc, 0, SHRINE)] = sc.struct_kinds[1, 0]


@pytest.mark.parametrize(
    "corrupt",
    [
        _corrupt_under_count,
        _corrupt_two_in_progress,
        _corrupt_completed_short,
        _corrupt_under_card_twice,
        _corrupt_favor,
        _corrupt_gods,
        _corrupt_foreign_structure,
    ],
)
def test_invariant_checker_catches_structure_and_favor_errors(corrupt):
    sc = _dunes_position()
    check_invariants(sc)
    corrupt(sc)
    with pytest.raises(AssertionError):
        check_invariants(sc)


def test_invariant_checker_wants_no_gods_without_dunes_base():
    sc = Scenario.from_game("aegean+dunes", 1, 2)
    check_invariants(sc)
    assert sc.favor == "none" and sc.god(0) == sc.god(1) == "none"
    sc.favor_code = V.DEV_ANUBIS
    with pytest.raises(AssertionError, match="without gods"):
        check_invariants(sc)


# --- Favor and the devoted-unit discount, play by play (Heir to the Dunes) --------------


def favor_after_play(favor: int, devotion: int) -> int:
    """Dunes, Favor: "Each time a unit is played that is not devoted to the god that is
    currently Favored, flip the Favor card ... always flipped ... after a unit devoted to
    both gods is played." Neutral units (and games without gods) leave it alone."""
    if favor == 0 or devotion == V.DEV_NEUTRAL:
        return favor
    if devotion == V.DEV_BOTH or devotion != favor:
        return V.DEV_BOTH - favor  # the other god
    return favor


def without_abilities(tab: np.ndarray) -> np.ndarray:
    """A copy of ``tab`` in which no unit kind has an ability (so none can touch Favor)."""
    bare = tab.copy()
    for k in range(int(tab[L.TB_N_KINDS])):
        row = int(tab[L.TB_KIND]) + k * L.K_COLS
        bare[row + L.K_ABIL_N] = 0
        bare[row + L.K_STATIC] = 0
    return bare


def _devotion(tab: np.ndarray, card: int) -> int:
    k = int(tab[tab[L.TB_CARD_KIND] + card])
    return int(tab[tab[L.TB_KIND] + k * L.K_COLS + L.K_DEVOTION])


def _printed_cost(tab: np.ndarray, card: int) -> int:
    k = int(tab[tab[L.TB_CARD_KIND] + card])
    return int(tab[tab[L.TB_KIND] + k * L.K_COLS + L.K_COST])


def checked_surge(sc: Scenario, bare_tab: np.ndarray, seen: Counter) -> None:
    """``surge_step`` rebuilt from the kernel's own pieces, checking every play as it goes.

    Each play is first replayed on a copy of the state with no abilities at all:
    there Favor after the play must be exactly the rulebook's flip. In the real
    play only a ``gain_favor`` ability may differ from that, turning it to the
    player's own god. Every Play option's cost carries the devoted-unit discount
    exactly while no unit devoted to the player's god has been played this turn.
    """
    st, tab, fp = sc.st, sc.tab, sc.fp
    p = sc.active
    god = sc.god_code(p)
    hand = sc.zone_slots("hand", p)
    discount = sc.rule("RU_DEVOTED_DISCOUNT") if sc.rule("RU_GODS") else 0
    devoted_played = False
    discounted = 0
    sc.rewards_used_turn = 0
    sc.discount_used = 0
    favor = sc.favor_code
    complete_structures(st, tab, fp, heuristic_dispatcher(), p)
    assert sc.favor_code in (favor, god), "completing a structure gave Favor to the other god"
    for _ in range(MAX_ACTIONS):
        n = int(surge_options(st, tab, fp, heuristic_dispatcher(), p))
        for i in range(1, n):
            row = sc.options[i]
            if row[0] != D.ACT_PLAY:
                continue
            card = int(hand[row[1]])
            devoted = god != 0 and _devotion(tab, card) & god != 0
            cut = discount if devoted and not devoted_played else 0
            full = _printed_cost(tab, card) + int(cost_modifier(st, tab, p, int(row[2])))
            assert row[3] == max(full - cut, 0), (
                f"cost {row[3]} offered, printed+modifier {full}, discount due {cut}"
            )
            # The Surge sums every city's modifiers in one pass (board.cost_modifiers):
            # the per-city cost_modifier above is the reference it must match.
            seen["cost modified"] += full != _printed_cost(tab, card)
        k = int(choose_heuristic(st, tab, fp, p, D.D_SURGE, n))
        act, a, c, cost = (int(x) for x in sc.options[k])
        if act == D.ACT_PASS:
            break
        if act != D.ACT_PLAY:
            favor = sc.favor_code
            if act == D.ACT_REWARD:
                use_reward(st, tab, fp, heuristic_dispatcher(), p, a)
            else:  # A Reign of War: a Beast's ability (no unit enters a city)
                S.unleash_beast(st, tab, fp, heuristic_dispatcher(), p, a, c, cost)
            assert sc.favor_code in (favor, god), f"action {act} gave Favor to the other god"
            continue
        card = int(hand[a])
        dev = _devotion(tab, card)
        favor = sc.favor_code
        want = favor_after_play(favor, dev)
        full = max(_printed_cost(tab, card) + int(cost_modifier(st, tab, p, c)), 0)
        bare = StateView(st.copy())
        play_unit(bare.st, bare_tab, fp, heuristic_dispatcher(), p, a, c, cost)
        assert bare.favor_code == want, f"Favor {favor} -> {bare.favor_code} after devotion {dev}"
        devoted = god != 0 and dev & god != 0
        assert bare.discount_used == int(devoted or devoted_played)
        play_unit(st, tab, fp, heuristic_dispatcher(), p, a, c, cost)
        after = sc.favor_code
        assert after in (want, god), f"Favor {favor} -> {after} after devotion {dev}"
        discounted += cost < full
        devoted_played |= devoted
        relation = (
            "neutral"
            if dev == V.DEV_NEUTRAL
            else "both"
            if dev == V.DEV_BOTH
            else "favored god"
            if dev == favor
            else "other god"
        )
        seen[relation] += 1
        seen["flipped"] += want != favor
    # Dunes: "The first time during a player's turn that they play a unit devoted to their
    # god, the cost of that unit is reduced by 1" -- once a turn at most.
    assert discounted <= 1, f"{discounted} discounted plays in one turn"
    seen["discounted"] += discounted
    surge_end(st, tab, fp, heuristic_dispatcher(), p)


def play_checking_favor(sc: Scenario) -> Counter:
    """Play ``sc`` to its end, checking Favor at every step and every play."""
    seen: Counter = Counter()
    bare_tab = without_abilities(sc.tab)
    while not sc.over:
        p = sc.active
        god = sc.god_code(p)
        favor = sc.favor_code
        sc.wealth()
        assert sc.favor_code == favor, "Favor changed in the Wealth step"
        expected = sc.st.copy()
        surge_step(expected, sc.tab, sc.fp, heuristic_dispatcher())
        checked_surge(sc, bare_tab, seen)
        np.testing.assert_array_equal(sc.st, expected, err_msg="the rebuilt Surge diverged")
        favor = sc.favor_code
        sc.war()
        assert sc.favor_code == favor, "Favor changed in the War step"
        sc.offering()  # a LABOR ability may gain Favor for the active player
        assert sc.favor_code in (favor, god), "the Offering gave Favor to the other god"
        sc.end_turn()
        check_invariants(sc)
    return seen


@MIX_SETTINGS
@given(seed=seeds, game=games, bot_pair=bots, first=firsts, turn_cap=turn_caps)
@pytest.mark.parametrize("mix", ["dunes", "dunes+aegean", "aegean+dunes"])
def test_favor_flips_exactly_as_the_rule_says(mix, seed, game, bot_pair, first, turn_cap):
    sc = Scenario.from_game(mix, seed, game, bots=bot_pair, first=first, turn_cap=turn_cap)
    seen = play_checking_favor(sc)
    if not sc.rule("RU_GODS"):  # Aegean base: no Favor card, no discount
        assert sc.favor_code == 0 and seen["flipped"] == seen["discounted"] == 0


def test_favor_checks_see_every_case():
    """The property above meets every kind of play and the discount (not vacuous)."""
    seen: Counter = Counter()
    for game in range(6):
        for bot_pair in (("random", "greedy"), ("greedy", "greedy")):
            sc = Scenario.from_game("dunes+aegean", 7, game, bots=bot_pair)
            seen += play_checking_favor(sc)
    cases = ("neutral", "both", "favored god", "other god", "flipped", "discounted")
    for case in (*cases, "cost modified"):
        assert seen[case] >= 5, seen
