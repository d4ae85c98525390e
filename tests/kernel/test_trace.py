"""The kernel's event trace (``sim.kernel.trace``): each event's cause is right on scenario
positions, the events replayed onto the start give the end, and tracing changes no game."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from sim.analysis.narrator import Teller, tell
from sim.base import events as E
from sim.kernel import turn as T
from sim.run.scenario import Scenario
from sim.run.view import TraceOverflow, with_trace

KER_SPOILS = "Ker of the Spoils"  # end of your Surge: take up to 1 coin from your opponent
KER_FALLEN = "Ker of the Fallen City"  # end of your Surge: your opponent loses up to 2 coins
PITHOS = "Pithos of Pandora"  # opponent discards 1 and loses up to 2 coins
EUDORUS = "Eudorus, Swift Runner"  # RALLY 1: gain 2 coins
LACHESIS, ATROPOS, ANANKE = (
    "Lachesis the Allotter",
    "Atropos the Unturning",
    "Ananke, Mother of Fates",
)
STACKS = {0: ["Lyre of Orpheus"], 1: ["Helm of Hades"], 2: ["Winged Sandals of Hermes"]}


def traced(**kw) -> Scenario:
    """A strict Aegean position that records its events."""
    kw.setdefault("stacks", STACKS)
    kw.setdefault("strict", True)
    sc = Scenario.build("aegean", **kw)
    sc.st = with_trace(sc.st, 2_000)
    return sc


def of_kind(sc: Scenario, kind: int) -> np.ndarray:
    ev = sc.trace_events()
    return ev[ev[:, E.F_KIND] == kind]


def card_id(sc: Scenario, c: int, p: int, name: str) -> int:
    ids = sc.zone_ids("city", 2 * c + p)
    return next(i for i in ids if sc.card_name(i) == name)


def test_a_surge_steal_names_the_stealing_card() -> None:
    """Aegean rulebook, Unit Card Types, Keres: resolved at the end of the Surge Step (Ker of
    the Spoils: take up to 1 coin from your opponent): the steal is the Ker's, not the step's."""
    # Checks edge-of-the-aegean.txt, line 110.
    sc = traced(hands={0: [KER_SPOILS]}, coins=(2, 3))
    sc.script_play(KER_SPOILS, city=2)
    sc.script_pass()
    sc.surge()
    (steal,) = of_kind(sc, E.EV_STEAL)
    assert steal[E.F_SEAT] == 0 and steal[E.F_TARGET] == 1 and steal[E.F_AMOUNT] == 1
    assert steal[E.F_CAUSE] == E.CA_CARD
    assert steal[E.F_CAUSE_ID] == card_id(sc, 2, 0, KER_SPOILS)
    (play,) = of_kind(sc, E.EV_PLAY)
    assert play[E.F_CAUSE] == E.CA_STEP and play[E.F_CAUSE_ID] == T.S_SURGE
    lines = tell(Teller(sc, reign=False), sc.trace_events(), "surge", 0)
    assert lines == [
        "P0 plays Ker of the Spoils into city 3 for 2 coins: 2 -> 0",
        "Ker of the Spoils: P0 takes 1 coin from P1: P1 3 -> 2, P0 0 -> 1",
    ]


def test_an_opponents_coin_loss_names_the_card_and_the_play_cost_the_step() -> None:
    """Ker of the Fallen City at the end of the Surge: the opponent's lost coins are the Ker's;
    the coins the play cost are the Surge step's."""
    sc = traced(hands={0: [KER_FALLEN]}, coins=(4, 5), stacks={0: ["Lyre of Orpheus"]})
    sc.script_play(KER_FALLEN, city=2)
    sc.script_pass()
    sc.surge()
    coins = of_kind(sc, E.EV_COINS)
    pay, loss = coins
    assert pay[E.F_SEAT] == 0 and pay[E.F_AMOUNT] == -4 and pay[E.F_CAUSE] == E.CA_STEP
    assert loss[E.F_SEAT] == 1 and loss[E.F_AMOUNT] == -2 and loss[E.F_X0] == 3
    (play,) = of_kind(sc, E.EV_PLAY)
    assert sc.card_name(int(play[E.F_TARGET])) == KER_FALLEN
    assert loss[E.F_CAUSE] == E.CA_CARD and loss[E.F_CAUSE_ID] == play[E.F_TARGET]
    lines = tell(Teller(sc, reign=False), sc.trace_events(), "surge", 0)
    assert "Ker of the Fallen City: P1 loses 2 coins: 5 -> 3" in lines


def test_a_reward_tiles_effects_name_the_tile() -> None:
    """Pithos of Pandora (your opponent discards 1 card and returns up to 2 coins): both are the
    tile's doing, after the use itself."""
    # Checks edge-of-the-aegean.txt, line 116.
    sc = traced(hands={1: [EUDORUS]}, coins=(0, 5), rewards={0: [(PITHOS, False)]}, stacks={})
    sc.script_use_reward(PITHOS)
    sc.script_pass()
    sc.surge()
    ev = sc.trace_events()
    kinds = [int(k) for k in ev[:, E.F_KIND]]
    assert kinds == [E.EV_USE, E.EV_DISCARD, E.EV_COINS]
    tile = int(ev[0, E.F_TARGET])
    assert sc.tile_name(tile) == PITHOS
    for row in ev[1:]:
        assert row[E.F_CAUSE] == E.CA_TILE and row[E.F_CAUSE_ID] == tile
    lines = tell(Teller(sc, reign=False), ev, "surge", 0)
    assert lines[1:] == [
        f"the reward tile {PITHOS}: P1 discards {EUDORUS}",
        f"the reward tile {PITHOS}: P1 loses 2 coins: 5 -> 3",
    ]


def test_a_rally_cost_is_paid_for_the_rallying_unit() -> None:
    """Aegean, Myrmidons: RALLY N is paid for the unit whose RALLY it is; its coins are that
    unit's doing too."""
    # Checks edge-of-the-aegean.txt, line 104.
    sc = traced(hands={0: [LACHESIS]}, coins=(5, 0), cities={0: {0: [EUDORUS]}})
    sc.script_play(LACHESIS, city=0)
    sc.script("rally", a=0)
    sc.script_pass()
    sc.surge()
    coins = of_kind(sc, E.EV_COINS)
    (play,) = of_kind(sc, E.EV_PLAY)
    assert [int(c[E.F_AMOUNT]) for c in coins] == [-int(play[E.F_AMOUNT]), -1, 2]
    assert coins[0][E.F_CAUSE] == E.CA_STEP
    eudorus = card_id(sc, 0, 0, EUDORUS)
    assert [int(c[E.F_CAUSE_ID]) for c in coins[1:]] == [eudorus, eudorus]
    assert all(c[E.F_CAUSE] == E.CA_CARD for c in coins[1:])


def test_a_war_names_the_victor_and_the_tile_it_takes() -> None:
    """Every rulebook, War Step: the victor takes the top reward tile; the trace says so with
    both sides' strength, caused by the War step."""
    cities = {0: {0: [LACHESIS, ATROPOS, ANANKE], 1: [EUDORUS, "Peisander, Spear of Maimalos"]}}
    sc = traced(cities=cities, strict=False)
    sc.war()
    (conflict,) = of_kind(sc, E.EV_CONFLICT)
    (tile,) = of_kind(sc, E.EV_TILE)
    assert conflict[E.F_SEAT] == 0 and conflict[E.F_TARGET] == 0
    assert conflict[E.F_X0] > conflict[E.F_X1]
    assert tile[E.F_SEAT] == 0 and sc.tile_name(int(tile[E.F_TARGET])) == "Lyre of Orpheus"
    for row in sc.trace_events():
        assert row[E.F_CAUSE] == E.CA_STEP and row[E.F_CAUSE_ID] == T.S_WAR


def test_a_full_trace_buffer_is_an_error_not_a_short_game() -> None:
    sc = Scenario("aegean")
    sc.st = with_trace(sc.st, 3)
    sc.setup(1, 0)
    assert sc.trace_count > 3
    with pytest.raises(TraceOverflow, match="holds 3"):
        sc.trace_events()


def play_traced(sc: Scenario) -> None:
    while not sc.over:
        T.play_turn(sc.st, sc.tab, sc.fp, sc.ask)


def replayed_counts(ev: np.ndarray, sc: Scenario) -> dict[str, list[int]]:
    """Coins, VP tokens, reward tiles won and used, structures and feats of each seat, from the
    events alone, starting from the empty state set-up starts from."""
    out = {k: [0, 0] for k in ("coins", "vp", "tiles", "used", "structures", "feats")}
    for row in ev:
        k, p, n = int(row[E.F_KIND]), int(row[E.F_SEAT]), int(row[E.F_AMOUNT])
        if k == E.EV_COINS:
            out["coins"][p] += n
            assert out["coins"][p] == row[E.F_X0], "a coin event's count disagrees with its sum"
        elif k == E.EV_STEAL:
            out["coins"][p] += n
            out["coins"][int(row[E.F_TARGET])] -= n
        elif k == E.EV_VP:
            out["vp"][p] += n
        elif k == E.EV_TILE:
            out["tiles"][p] += 1
        elif k == E.EV_USE:
            out["used"][p] += 1
        elif k == E.EV_STRUCTURE:
            out["structures"][p] += 1
        elif k == E.EV_FEAT:
            out["feats"][p] += 1
    return out


MIXES = ["aegean", "dunes", "reign", "dunes+aegean"]
BOTS = [("greedy", "greedy"), ("greedy", "random"), ("random", "aggressive")]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    mix=hs.sampled_from(MIXES),
    seed=hs.integers(0, 2**31 - 1),
    game=hs.integers(0, 999),
    bots=hs.sampled_from(BOTS),
)
def test_the_trace_replayed_onto_the_start_gives_the_end(mix, seed, game, bots) -> None:
    """Coins, VP tokens, reward tiles won and used, structures and feats: the sum of the
    trace's events from the empty state is each seat's figure at the end of the game."""
    sc = Scenario(mix, bots=bots)
    sc.st = with_trace(sc.st, 50_000)
    sc.setup(seed, game)
    play_traced(sc)
    got = replayed_counts(sc.trace_events(), sc)
    res = sc.result()
    assert got["coins"] == [sc.coins(0), sc.coins(1)]
    assert got["vp"] == [sc.vp_tokens(0), sc.vp_tokens(1)]
    assert got["tiles"] == [res[f"rewards_unused_p{p}"] + res[f"rewards_used_p{p}"] for p in (0, 1)]
    assert got["used"] == [res["rewards_used_p0"], res["rewards_used_p1"]]
    assert got["structures"] == [res["structures_built_p0"], res["structures_built_p1"]]
    assert got["feats"] == [res["feats_p0"], res["feats_p1"]]
    turns = sc.trace_events()[:, E.F_KIND] == E.EV_TURN
    assert int(turns.sum()) == res["turns"]


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mix=hs.sampled_from(MIXES), seed=hs.integers(0, 2**31 - 1), game=hs.integers(0, 999))
def test_tracing_changes_no_game(mix, seed, game) -> None:
    """The same game traced and not: the same result, and the same state but for the trace."""
    plain = Scenario(mix)
    plain.setup(seed, game)
    play_traced(plain)
    sc = Scenario(mix)
    sc.st = with_trace(sc.st, 50_000)
    sc.setup(seed, game)
    play_traced(sc)
    assert sc.trace_count > 0
    assert sc.result() == plain.result()
    assert sc.coin_counts.tolist() == plain.coin_counts.tolist()
    assert sc.card_zones() == plain.card_zones()


def test_a_lookahead_seats_rollouts_are_not_traced() -> None:
    """The look-ahead bot plays imagined games in a copy of the state: none of their events
    reach the trace, so the trace still sums to the game's coins."""
    sc = Scenario("aegean", bots=("lookahead", "greedy"), turn_cap=12)
    sc.st = with_trace(sc.st, 50_000)
    sc.setup(3, 1)
    play_traced(sc)
    got = replayed_counts(sc.trace_events(), sc)
    assert got["coins"] == [sc.coins(0), sc.coins(1)]
    assert got["vp"] == [sc.vp_tokens(0), sc.vp_tokens(1)]
