"""The search bot: its profile, legal and reproducible games, a live budget, and a lean
strength check that can fail (the full ladder is benchmarks/bench_ladder.py's).

Bad search profiles are refused with one line: tests/strategies/test_strategies.py.
"""

from __future__ import annotations

from pathlib import Path

import numba
import numpy as np
import pandas as pd
import pytest
from invariants import check_invariants
from matches import win_rate

from sim.base import layout as L
from sim.data.spec import RunSpec
from sim.run.engine import Engine
from sim.run.scenario import Scenario
from sim.run.session import numba_threads
from sim.run.stats import wilson_interval
from strategies.greedy import LOOKAHEAD_KNOBS, SEARCH_KNOBS
from strategies.policy import BOT_SEARCH, choose, choose_heuristic, dispatcher
from strategies.profiles import SEARCH_DEFAULTS, load_profile
from strategies.registry import STRATEGIES
from strategies.search import lead_is_clear

SIMS = SEARCH_KNOBS["simulations"]


def test_the_search_profile_is_shipped_with_its_budget() -> None:
    prof = STRATEGIES["search"]
    assert prof.bot == BOT_SEARCH
    assert prof.description
    text = Path(prof.path).read_text()
    assert f"simulations = {int(prof.weights[SIMS])}" in text
    # Its weights are the greedy baseline's; no look-ahead knob is set.
    assert not prof.weights[list(LOOKAHEAD_KNOBS.values())].any()
    assert dispatcher([BOT_SEARCH, 1]) is choose
    assert dispatcher([1, 1]) is choose_heuristic


def test_a_search_profile_left_without_budget_takes_the_default(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text('[strategy]\nname = "s"\nbot = "search"\n')
    assert load_profile(path).weights[SIMS] == SEARCH_DEFAULTS["simulations"]
    path.write_text('[strategy]\nname = "s"\nbot = "search"\n[search]\nsimulations = 7\n')
    assert load_profile(path).weights[SIMS] == 7


@pytest.mark.parametrize("mix", ["aegean", "dunes+aegean", "reign"])
def test_search_plays_legal_games(mix: str) -> None:
    """Every step of a search game keeps the invariants; its play-outs leave the real game
    alone (they run in the second state)."""
    spec = RunSpec(games=2, mix=mix, seed=3, p0="search", p1="greedy")
    sc = Scenario.from_spec(spec, game=1)
    while not sc.over:
        sc.turn()
        check_invariants(sc)
    assert sc.error == 0


def _rows(spec: RunSpec, simulations: int | None = None) -> pd.DataFrame:
    engine = Engine(spec)
    if simulations is not None:
        engine.fp[0, SIMS] = simulations
    return engine.play(0, spec.games).to_pandas()


def test_search_rows_do_not_depend_on_threads_and_batch_equals_replay() -> None:
    """Same seed, same rows, on one thread or all; a game replayed step by step (Scenario)
    ends as the batch played it."""
    spec = RunSpec(games=8, mix="aegean", seed=12, p0="greedy", p1="search")
    with numba_threads(1):
        one = _rows(spec)
    with numba_threads(numba.config.NUMBA_NUM_THREADS):
        many = _rows(spec)
    pd.testing.assert_frame_equal(one, many)
    for game in (2, 5):
        res = Scenario.from_spec(spec, game=game).play_out()
        row = one.iloc[game]
        assert (res["winner"], res["turns"]) == (row.winner, row.turns)
        assert (res["score_p0"], res["score_p1"]) == (row.score_p0, row.score_p1)


def test_search_budget_is_live() -> None:
    """Another budget, other choices: the knob reaches the kernel (1 still plays legally)."""
    spec = RunSpec(games=30, mix="aegean", seed=2, p0="search", p1="greedy")
    assert not _rows(spec, 1).equals(_rows(spec, 12))


@pytest.fixture
def small_search(tmp_path: Path) -> str:
    path = tmp_path / "small.toml"
    path.write_text('[strategy]\nname = "small"\nbot = "search"\n[search]\nsimulations = 4\n')
    return str(path)


def test_search_at_a_small_budget_beats_random_and_greedy(small_search: str) -> None:
    """Lean strength check (the ladder's lowest search rung): at 4 simulations per decision
    the search bot wins clearly against random and, more narrowly, against greedy, the
    interval's low end above the target in both (seat-balanced duplicate deals)."""
    wins, games = win_rate("aegean", small_search, "random", 200)
    assert wilson_interval(wins, games)[0] > 0.9, wins
    wins, games = win_rate("aegean", small_search, "greedy", 400)
    assert wilson_interval(wins, games)[0] > 0.5, wins


def test_a_search_seats_weighed_options_are_in_the_replay() -> None:
    """The replay's trace holds the options the search weighed at each of its decisions (the
    searched few, each with its mean play-out value) and the one it took; the opponent's
    greedy decisions still list every option."""
    from sim.analysis.replay import replay
    from sim.base import events as E
    from sim.kernel import decisions as D
    from strategies.search import SEARCH_WIDTH

    r = replay(RunSpec(games=4, mix="aegean", seed=3, p0="search", p1="greedy"), 1)
    ev = r.trace()
    weighed = {0: [], 1: []}  # per seat: (decision, options recorded, legal options)
    options = []
    for row in ev:
        if row[E.F_KIND] == E.EV_OPTION:
            options.append(row)
        elif row[E.F_KIND] == E.EV_CHOICE:
            seat, n, pick, dec = (int(row[f]) for f in (E.F_SEAT, E.F_AMOUNT, E.F_TARGET, E.F_X0))
            assert pick in {int(o[E.F_TARGET]) for o in options}
            # The search seat's Surge is played out; the greedy seat only ever scores.
            if dec == D.D_SURGE or seat == 1:
                by = E.VALUED_BY_ROLLOUTS if seat == 0 else E.VALUED_BY_SCORER
                assert int(row[E.F_X1]) == by, (seat, dec)
            weighed[seat].append((dec, len(options), n))
            options = []
    search_surges = [(k, n) for dec, k, n in weighed[0] if dec == D.D_SURGE]
    assert search_surges and all(k <= SEARCH_WIDTH for k, _ in search_surges)
    assert any(k < n for k, n in search_surges)  # only the searched few, not every option
    assert all(k == n for dec, k, n in weighed[1] if dec == D.D_SURGE)
    assert "[P0 weighs surge by rollouts (" in r.story()


def _tallied(sums: list[float], dropped: tuple[int, ...] = ()) -> np.ndarray:
    """A state whose search tallies hold ``sums`` (VP) for the listed options, with the
    options ``dropped`` out of the running."""
    st = np.zeros(L.STATE_SIZE, dtype=np.int64)
    for j, v in enumerate(sums):
        st[L.LA_SCRATCH + j] = j
        st[L.LA_SCRATCH + L.LA_MAX_WIDTH + j] = round(1000 * v)
        st[L.LA_SCRATCH + 2 * L.LA_MAX_WIDTH + j] = 1 if j in dropped else 0
    return st


def test_a_search_stops_early_only_on_a_lead_clear_of_its_noise() -> None:
    """Over 4 worlds: a lead of 1 VP in every world, or two options equal in every world,
    ends the decision; the same 15 VP mean lead made by one world's 60 VP does not (its
    standard error is 13 VP), and an option dropped from the running is nobody's
    runner-up."""
    steady = _tallied([4.0, 0.0, -8.0])
    assert lead_is_clear(steady, 3, 4, 4.0, 0.0, 0.0)  # q01: four differences of 1
    tied = _tallied([4.0, 4.0, -8.0])
    assert lead_is_clear(tied, 3, 4, 0.0, 0.0, 0.0)
    lucky = _tallied([60.0, 0.0, -8.0])
    assert not lead_is_clear(lucky, 3, 4, 3600.0, 10000.0, 10000.0)
    # Option 0 is out: the leader is 1 (4 VP), the runner-up 2 (3 VP), a noisy lead.
    out = _tallied([50.0, 4.0, 3.0], dropped=(0,))
    assert not lead_is_clear(out, 3, 4, 0.0, 0.0, 36.0)
    assert lead_is_clear(out, 3, 4, 0.0, 0.0, 0.25)  # a lead of 0.25 VP in every world
