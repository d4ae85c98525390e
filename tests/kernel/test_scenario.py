"""The Scenario stepper itself: one compile path, copies, the turn's steps, the state view."""

from __future__ import annotations

import numpy as np
import pytest
from invariants import card_locations

from sim.data.spec import RunSpec
from sim.run.compiled import compile_run
from sim.run.engine import Engine
from sim.run.scenario import TURN_STEPS, Scenario
from sim.run.view import ZONES, StateView

MIXES = ["aegean", "dunes", "reign"]


def turn_and_stepped_twin(sc: Scenario) -> None:
    """Play one kernel turn on ``sc`` and the same turn step by step on a copy; they must agree."""
    twin = sc.copy()
    sc.turn()
    for step in twin.turn_steps():
        getattr(twin, step.name)()
    twin.end_turn()
    np.testing.assert_array_equal(twin.st, sc.st)


@pytest.mark.parametrize("mix", MIXES)
def test_turn_steps_are_the_kernels_turn(mix: str) -> None:
    """Stepping ``turn_steps()`` then ``end_turn`` leaves exactly the state the kernel's own
    turn leaves, turn after turn (so the replay, which steps them, shows the run's game)."""
    sc = Scenario.from_game(mix, 3, 1)
    turns = 0
    while not sc.over and turns < 12:
        turn_and_stepped_twin(sc)
        turns += 1
    assert turns >= 4


def test_end_after_war_skips_the_offering_in_the_stepper_too() -> None:
    """The ``after_war`` reading of ``two_stacks_empty_check`` (sim/data/interpretations.py;
    reign-of-war.en.md, line 134: "The game ends when two cities' reward stacks are
    empty", which does not say at which step; heir-to-the-dunes.txt, line 221 checks at
    the end of the Offering Step, the default reading) ends the game right after the War
    step that empties a second stack, with no Offering step. The stepper asks the
    kernel whether a step applies, so it plays the same turn as the kernel."""
    ended_at_war = 0
    # Reign: the fitted greedy ends its Dunes games by building every structure.
    for game in range(6):
        sc = Scenario("reign", rules={"RU_END_AFTER_WAR": 1})
        sc.setup(7, game)
        while not sc.over:
            turn_and_stepped_twin(sc)
        ended_at_war += sc.result()["end_reason"] == "two_cities_empty"
    assert ended_at_war >= 2


def test_turn_steps_follow_the_rules() -> None:
    """Portent and Feat steps belong to A Reign of War only (its rule parameters)."""
    names = {mix: [s.name for s in Scenario(mix).turn_steps()] for mix in MIXES}
    assert names["aegean"] == names["dunes"] == ["wealth", "surge", "war", "offering"]
    assert names["reign"] == [s.name for s in TURN_STEPS]


def test_copy_is_independent() -> None:
    sc = Scenario.from_game("aegean", 5, 0)
    twin = sc.copy()
    assert twin.pool is sc.pool and twin.tab is sc.tab
    before = sc.st.copy()
    twin.play_out()
    np.testing.assert_array_equal(sc.st, before)
    assert twin.over and not sc.over
    assert sc.copy().play_out() == twin.result()


def test_from_spec_is_the_engines_run() -> None:
    """Scenario.from_spec and the Engine compile a run through the same compile_run."""
    spec = RunSpec(games=4, mix="dunes+aegean:10", seed=9, variants=("emissary",))
    run = compile_run(spec)
    sc = Scenario.from_spec(spec)
    engine = Engine(run)
    np.testing.assert_array_equal(sc.tab, engine.tab)
    np.testing.assert_array_equal(sc.fp, engine.fp)
    assert sc.pool.card_hash() == engine.pool.card_hash()


def test_scenario_rules_set_a_kernel_parameter() -> None:
    assert Scenario("aegean", rules={"RU_HAND_LIMIT": 2}).rule("RU_HAND_LIMIT") == 2
    assert Scenario("aegean").rule("RU_HAND_LIMIT") == 5


def test_state_view_reads_every_card_once() -> None:
    """The view's zones hold every physical card exactly once, in a dealt game."""
    sc = Scenario.from_game("reign", 2, 3)
    ids = [c for cards in StateView(sc.st).card_zones().values() for c in cards]
    assert sorted(ids) == list(range(len(sc.tables.card_kind)))
    assert set(card_locations(sc.st)) >= {"deck.0", "hand.1", "box", "city.2.1"}
    assert sc.hand(0) == [sc.card_name(c) for c in sc.zone_ids("hand", 0)]


def test_every_zone_has_a_capacity() -> None:
    for z in ZONES:
        assert z.stride >= 1 and z.instances >= 1, z
        assert z.count not in {y.count for y in ZONES if y is not z}, z
