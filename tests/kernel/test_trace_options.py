"""What each bot weighed, in the trace: the options of every decision with their values.

Every heuristic profile (greedy, economic, aggressive, defensive) values each legal option
with the greedy scorer under its own weights and takes the best; a look-ahead seat's
planned decisions list the options it played out, each with its mean rollout outcome.
"""

from __future__ import annotations

import numpy as np
import pytest

from sim.base import events as E
from sim.base import layout as L
from sim.kernel import decisions as D
from sim.kernel import turn as T
from sim.run.scenario import Scenario
from sim.run.view import with_trace
from strategies.greedy import P_LA_WIDTH


def traced_game(mix: str, bots: tuple[str, str], seed: int, game: int, turn_cap: int = 0):
    kw = {"turn_cap": turn_cap} if turn_cap else {}
    sc = Scenario(mix, bots=bots, **kw)
    sc.st = with_trace(sc.st, 50_000)
    sc.setup(seed, game)
    while not sc.over:
        T.play_turn(sc.st, sc.tab, sc.fp, sc.ask)
    return sc


def decisions(ev: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each choice event with the option events just before it."""
    out, options = [], []
    for row in ev:
        k = int(row[E.F_KIND])
        if k == E.EV_OPTION:
            options.append(row)
        elif k == E.EV_CHOICE:
            out.append((row, np.array(options).reshape(-1, E.EV_W)))
            options = []
    assert not options, "options recorded without the choice that ends them"
    return out


@pytest.mark.parametrize("profile", ["economic", "aggressive", "defensive"])
def test_every_heuristic_profile_records_each_option_with_its_value(profile: str) -> None:
    sc = traced_game("aegean", (profile, "greedy"), 4, 2)
    seen = {0: 0, 1: 0}
    for choice, options in decisions(sc.trace_events()):
        p = int(choice[E.F_SEAT])
        seen[p] += 1
        assert choice[E.F_X1] == E.VALUED_BY_SCORER
        # Every legal option is valued, once, by index, for this decision.
        assert len(options) == choice[E.F_AMOUNT] > 1
        assert (options[:, E.F_SEAT] == p).all() and (options[:, E.F_X0] == choice[E.F_X0]).all()
        assert sorted(options[:, E.F_TARGET].tolist()) == list(range(len(options)))
        # The values are the ones the seat chose by: the one taken is a best one.
        taken = options[options[:, E.F_TARGET] == choice[E.F_TARGET]][0]
        assert taken[E.F_AMOUNT] >= options[:, E.F_AMOUNT].max() - 1
    assert seen[0] > 10 and seen[1] > 10


def test_profiles_value_the_same_options_by_their_own_weights() -> None:
    """The first decision of the same deal under two profiles: the same options, valued
    differently (each profile's own weights reach the trace)."""
    first = {}
    for profile in ("economic", "aggressive"):
        _, options = decisions(traced_game("aegean", (profile, profile), 4, 2).trace_events())[0]
        first[profile] = options
    a, b = first["economic"], first["aggressive"]
    assert (a[:, E.F_X1 :] == b[:, E.F_X1 :]).all()
    assert (a[:, E.F_AMOUNT] != b[:, E.F_AMOUNT]).any()


def test_a_lookahead_seat_records_the_options_it_played_out() -> None:
    sc = traced_game("aegean", ("lookahead", "greedy"), 3, 1, turn_cap=12)
    width = int(sc.fp[sc.st[L.PROW], P_LA_WIDTH])
    by_rollouts = 0
    for choice, options in decisions(sc.trace_events()):
        p, dec = int(choice[E.F_SEAT]), int(choice[E.F_X0])
        if p == 1:
            assert choice[E.F_X1] == E.VALUED_BY_SCORER
            continue
        if choice[E.F_X1] != E.VALUED_BY_ROLLOUTS:
            # Its unplanned decisions are the greedy scorer's; a Surge is always planned.
            assert dec != D.D_SURGE
            assert len(options) == choice[E.F_AMOUNT]
            continue
        by_rollouts += 1
        # The heuristic's best `width` options, each once, among the legal ones.
        assert 2 <= len(options) <= min(width, int(choice[E.F_AMOUNT]))
        targets = options[:, E.F_TARGET]
        assert len(set(targets.tolist())) == len(targets) and targets.max() < choice[E.F_AMOUNT]
        # The one taken has the best mean outcome (the first listed on a tie).
        taken = options[targets == choice[E.F_TARGET]][0]
        assert taken[E.F_AMOUNT] == options[:, E.F_AMOUNT].max()
    assert by_rollouts > 5
    # Recording the rollouts' values changes nothing in the game.
    plain = Scenario("aegean", bots=("lookahead", "greedy"), turn_cap=12)
    plain.setup(3, 1)
    while not plain.over:
        T.play_turn(plain.st, plain.tab, plain.fp, plain.ask)
    assert plain.result() == sc.result()
