"""Property tests on random games: invariants after every step, scores, batch == replay."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs
from invariants import check_invariants

from sim import vocab as V
from sim.cards import load_pool, with_run_rules
from sim.kernel import layout as L
from sim.kernel.batch import play_batch
from sim.kernel.tables import flatten
from sim.scenario import Scenario
from strategies.registry import strategy_arrays

BOTS = ("random", "greedy")
FIRST_MODES = {"p0": L.FIRST_P0, "p1": L.FIRST_P1, "alternate": L.FIRST_ALTERNATE}
FIRST_MODES["random"] = L.FIRST_RANDOM

seeds = hs.integers(0, 2**63 - 1)
games = hs.integers(0, 10**9)
bots = hs.tuples(hs.sampled_from(BOTS), hs.sampled_from(BOTS))
firsts = hs.sampled_from(sorted(FIRST_MODES))
# Mostly the default cap; small caps make the "turn_cap" ending common too.
turn_caps = hs.sampled_from([200, 200, 200, 3, 12])

# OMENSIM_EXAMPLES=2000 pytest tests/test_properties.py: a long bug hunt with the same tests.
EXAMPLES = int(os.environ.get("OMENSIM_EXAMPLES", "50"))
SETTINGS = settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def _tiebreak_figure(res: dict[str, int], name: str, p: int) -> int:
    key = {
        "unused_rewards": "rewards_unused",
        "vp_tokens": "vp_tokens",
        "treasured_in_hand": "treasured",
        "used_rewards": "rewards_used",
    }[name]
    return res[f"{key}_p{p}"]


def expected_winner(res: dict[str, int], tiebreaks: list[str]) -> int:
    """The winner the rulebook names from scores, then the tie-breaks in order (-1: shared)."""
    a, b = res["score_p0"], res["score_p1"]
    if a != b:
        return 0 if a > b else 1
    for name in tiebreaks:
        a, b = _tiebreak_figure(res, name, 0), _tiebreak_figure(res, name, 1)
        if a != b:
            return 0 if a > b else 1
    return -1


def check_result(sc: Scenario, res: dict[str, int], turn_cap: int) -> None:
    """Scores equal their breakdown, the breakdown matches the board, the winner is right."""
    st = sc.st
    for p in range(2):
        unused, used = res[f"rewards_unused_p{p}"], res[f"rewards_used_p{p}"]
        vp, tre = res[f"vp_tokens_p{p}"], res[f"treasured_p{p}"]
        assert res[f"score_p{p}"] == 2 * unused + used + 2 * vp + tre, res
        assert unused + used == st[L.REW_N + p]
        assert used == sum(sc.rewards(p)[r][1] for r in range(len(sc.rewards(p))))
        assert vp == st[L.VP + p]
        treasured = sum(
            1
            for name in sc.hand(p)
            if "TREASURED" in sc.pool.units[sc.pool.kind_index(name)]["keywords"]
        )
        assert tre == treasured
    assert res["winner"] == expected_winner(res, sc.pool.rules["tiebreaks"]), res
    assert res["end_reason"] in ("all_cities_empty", "turn_cap"), res
    if res["end_reason"] == "all_cities_empty":
        assert all(st[L.STACK_N + c] == 0 for c in range(L.N_CITIES))
        assert res["turns"] <= turn_cap
    else:
        assert res["turns"] == turn_cap
        assert any(st[L.STACK_N + c] > 0 for c in range(L.N_CITIES))
    assert res["turns"] == st[L.TURN]


@SETTINGS
@given(
    seed=seeds,
    game=games,
    bot_pair=bots,
    emissary=hs.booleans(),
    first=firsts,
    turn_cap=turn_caps,
)
def test_invariants_hold_after_every_step(seed, game, bot_pair, emissary, first, turn_cap):
    sc = Scenario.from_game(
        "aegean", seed, game, bots=bot_pair, emissary=emissary, first=first, turn_cap=turn_cap
    )
    check_invariants(sc)
    assert sc.st[L.ACTIVE] == sc.st[L.FIRST]
    steps = (sc.wealth, sc.surge, sc.war, sc.offering, sc.end_turn)
    turns = 0
    while not sc.over:
        assert turns < turn_cap, "the game ran past its turn cap"
        active = sc.active
        for step in steps:
            step()
            check_invariants(sc)
        turns += 1
        assert sc.st[L.TURN] == turns
        assert sc.over or sc.active == 1 - active
    assert sc.st[L.ERROR] == 0
    check_result(sc, sc.result(), turn_cap)


@SETTINGS
@given(
    seed=seeds,
    game=games,
    bot_pair=bots,
    emissary=hs.booleans(),
    first=firsts,
    turn_cap=turn_caps,
)
def test_turn_by_turn_equals_step_by_step(seed, game, bot_pair, emissary, first, turn_cap):
    """``play_turn`` is exactly the four steps and ``end_turn`` in order."""
    kw = dict(bots=bot_pair, emissary=emissary, first=first, turn_cap=turn_cap)
    a = Scenario.from_game("aegean", seed, game, **kw)
    b = Scenario.from_game("aegean", seed, game, **kw)
    while not a.over:
        a.turn()
        for step in (b.wealth, b.surge, b.war, b.offering, b.end_turn):
            step()
        np.testing.assert_array_equal(a.st, b.st)
    assert b.over


@SETTINGS
@given(
    seed=seeds,
    start=hs.integers(0, 10**9),
    n=hs.integers(1, 12),
    n_blocks=hs.integers(1, 4),
    bot_pair=bots,
    emissary=hs.booleans(),
    first=firsts,
    turn_cap=turn_caps,
    data=hs.data(),
)
def test_batch_equals_replay(seed, start, n, n_blocks, bot_pair, emissary, first, turn_cap, data):
    """Game ``i`` of a batch (blocks reuse one state) equals replaying it alone."""
    pool = load_pool("aegean")
    tab = flatten(with_run_rules(pool.tables, turn_cap, emissary, FIRST_MODES[first]))
    ids, fp = strategy_arrays(*bot_pair, tab)
    out, masks = play_batch(tab, fp, ids, seed, start, n, n_blocks)
    for i in sorted(set(data.draw(hs.lists(hs.integers(0, n - 1), min_size=1, max_size=3)))):
        sc = Scenario.from_game(
            "aegean",
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
        assert row[L.O_FIRST] == sc.st[L.FIRST]
        assert row[L.O_ERROR] == 0
        for p in range(2):
            assert row[L.O_SCORE + p] == res[f"score_p{p}"]
            assert row[L.O_REW_UNUSED + p] == res[f"rewards_unused_p{p}"]
            assert row[L.O_REW_USED + p] == res[f"rewards_used_p{p}"]
            assert row[L.O_VP_TOKENS + p] == res[f"vp_tokens_p{p}"]
            assert row[L.O_TREASURED + p] == res[f"treasured_p{p}"]
            assert row[L.O_PLAYED_N + p] == sc.st[L.PLAYED_N + p]
        np.testing.assert_array_equal(masks[i], sc.st[L.PLAYED : L.PLAYED + 2 * L.MASK_WORDS])
        check_result(sc, res, turn_cap)


def test_both_end_reasons_occur():
    """The properties above see both endings (guards against a vacuous turn-cap strategy)."""
    reasons = set()
    for cap in (3, 200):
        sc = Scenario.from_game("aegean", 5, 1, bots=("greedy", "greedy"), turn_cap=cap)
        reasons.add(sc.play_out()["end_reason"])
    assert reasons == {"all_cities_empty", "turn_cap"}


# --- random card tables and rule numbers -----------------------------------------

unit_changes = hs.lists(
    hs.fixed_dictionaries(
        {
            "cost": hs.integers(0, 7),
            "offering": hs.integers(0, 4),
            "strength": hs.integers(0, 7),
            "copies": hs.integers(1, 3),
            "colossal": hs.booleans(),
        }
    ),
    min_size=22,
    max_size=22,
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
    }
)


@SETTINGS
@given(
    seed=seeds,
    game=games,
    bot_pair=bots,
    emissary=hs.booleans(),
    units=unit_changes,
    rules=rule_changes,
)
def test_invariants_hold_with_random_card_tables(seed, game, bot_pair, emissary, units, rules):
    """Conservation and capacity do not depend on the shipped card values."""
    import copy

    from sim.cards import compile_tables
    from sim.kernel import game as G

    sc = Scenario("aegean", bots=bot_pair, emissary=emissary, first="random", turn_cap=60)
    pool = copy.deepcopy(sc.pool)
    for u, ch in zip(pool.units, units, strict=True):
        for key in ("cost", "offering", "strength", "copies"):
            u[key] = ch[key]
        kws = set(u["keywords"]) - {"COLOSSAL"}
        u["keywords"] = sorted(kws | ({"COLOSSAL"} if ch["colossal"] else set()))
    pool.rules.update(rules)
    tables = compile_tables(pool.units, pool.rewards, pool.rules)
    sc.pool = pool
    sc.tables = with_run_rules(tables, 60, emissary, L.FIRST_RANDOM)
    sc.tab = flatten(sc.tables)
    _, sc.fp = strategy_arrays(*bot_pair, sc.tab)  # bots cache per-table values
    G.setup(sc.st, sc.tab, sc.fp, seed, game)
    check_invariants(sc)
    while not sc.over:
        for step in (sc.wealth, sc.surge, sc.war, sc.offering, sc.end_turn):
            step()
            check_invariants(sc)
    check_result(sc, sc.result(), 60)


# --- the invariant checker itself catches broken states ------------------------


def _corrupt_duplicate_card(st):
    st[L.DECK + st[L.DECK_N] - 1] = st[L.HAND]  # a hand card also on top of the deck


def _corrupt_lose_card(st):
    st[L.HAND_N] -= 1


def _corrupt_coin(st):
    st[L.COINS + 1] += 1


def _corrupt_vp(st):
    st[L.VP] += 1


def _corrupt_tile(st):
    st[L.REW] = st[L.STACK]  # a tile both won and still on its city
    st[L.REW_N] = 1


def _corrupt_negative(st):
    st[L.COINS] += st[L.SUPPLY] + 1  # coins still sum right, but the supply goes below 0
    st[L.SUPPLY] = -1


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
    corrupt(sc.st)
    with pytest.raises(AssertionError):
        check_invariants(sc)


def test_invariant_checker_catches_over_capacity():
    ok = ["Talos, Bronze Guardian of Crete", "Golden Hound of Crete", "Eudorus, Swift Runner"]
    sc = Scenario.build("aegean", cities={0: {0: ok}}, stacks={0: ["Thunderbolt of Zeus"]})
    check_invariants(sc)  # 5 unit-slots of 5: COLOSSAL counts 2
    over = [*ok[:2], "Bronze Eagle of the Caucasus"]  # three COLOSSAL: 6 unit-slots
    sc = Scenario.build("aegean", cities={0: {0: over}}, stacks={0: ["Thunderbolt of Zeus"]})
    with pytest.raises(AssertionError, match="capacity"):
        check_invariants(sc)
