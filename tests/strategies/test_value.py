"""The learned value of a position and the bots that play by it (``value``, ``vsearch``).

What the value may see is checked in tests/strategies/test_bot_information.py; how well
it is calibrated and how strong its bots are are figures for benchmarks/bench_value.py
and benchmarks/bench_ladder.py. Here: the shipped weights load and are evaluated by the
kernel as they were fitted, they tell winners from losers on games they never saw, the
bots play legal, reproducible games, and a lean strength check that can fail.
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
from sim.data.spec import RunSpec, SpecError
from sim.run.engine import Engine
from sim.run.scenario import Scenario
from sim.run.session import numba_threads
from sim.run.stats import brier_log_loss, wilson_interval
from sim.run.value_data import record_positions
from strategies.greedy import FP_VALUE, P_LEAF_VALUE, SEARCH_KNOBS
from strategies.policy import BOT_SEARCH, BOT_VALUE, choose, dispatcher
from strategies.profiles import SEARCH_DEFAULTS
from strategies.registry import STRATEGIES, strategy_arrays
from strategies.search import SEARCH_HORIZON, SEARCH_WIDTH
from strategies.value import position_value
from strategies.value_features import FEATURES, N_FEATURES, N_VALUE_PARAMS, V_W2
from strategies.value_model import (
    SHIPPED_VALUE,
    ValueFileError,
    load_value,
    predict,
    shipped_value,
    write_value,
)


def test_the_shipped_value_loads_and_every_seat_row_carries_it() -> None:
    params = shipped_value()
    assert params.shape == (N_VALUE_PARAMS,) and np.any(params != 0)
    assert N_FEATURES <= L.VALUE_SLOTS  # the scratch the features are written to
    _, fp = strategy_arrays("greedy", "value", np.asarray(Engine(RunSpec(games=1)).tab))
    assert np.array_equal(fp[0, FP_VALUE:], params) and np.array_equal(fp[1, FP_VALUE:], params)
    text = SHIPPED_VALUE.read_text()
    for key in ("command", "seed", "commit", "scikit_learn"):
        assert f"\n{key} = " in text


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        (lambda t: t.replace('"my_score", ', ""), "model.features"),
        (lambda t: t.replace("hidden = 16", "hidden = 8"), "model.hidden"),
        (lambda t: t.replace("params = [", "params = [1.0, "), "model.params"),
        (
            lambda t: t.replace("params = [", "params = [nan, ", 1).replace(",\n]", "\n]"),
            "model.params",
        ),
    ],
)
def test_a_value_file_that_does_not_fit_is_one_line_naming_the_field(tmp_path, edit, field) -> None:
    path = tmp_path / "v.toml"
    path.write_text(edit(SHIPPED_VALUE.read_text()))
    with pytest.raises(ValueFileError) as e:
        load_value(path)
    assert f"field '{field}'" in str(e.value) and "\n" not in str(e.value)
    with pytest.raises(ValueFileError, match="cannot read"):
        load_value(tmp_path / "missing.toml")


def test_the_kernel_values_positions_as_the_fit_does() -> None:
    """``position_value`` (numba, raw features, the row's weights) equals the fit's own
    formula over the recorded features, in every kind of set."""
    params = shipped_value()
    for mix in ("aegean", "dunes", "reign"):
        sc = Scenario.from_game(mix, 4, 1)
        for _ in range(5):
            sc.turn()
        for p in range(2):
            st = sc.st.copy()
            v = float(position_value(st, sc.tab, sc.fp, p))
            x = st[L.VALUE_SCRATCH : L.VALUE_SCRATCH + N_FEATURES].view(np.float64)
            assert 0.0 < v < 1.0
            assert v == pytest.approx(float(predict(params, x[None, :])[0]), rel=1e-9)
    pos = record_positions("aegean", "greedy", "greedy", 3, 8)
    assert pos.x.shape[1] == len(FEATURES) and set(np.unique(pos.seat)) == {0, 1}


def test_the_value_tells_winners_from_losers_on_games_it_never_saw() -> None:
    """On 300 greedy games of a seed the fit never used, the value's Brier score is well
    below a constant guess's (0.25) and below 0.2; untrained weights (all 0) score 0.25."""
    pos = record_positions("aegean", "greedy", "greedy", 300, 987_654)
    brier, _ = brier_log_loss(predict(shipped_value(), pos.x), pos.won)
    assert brier < 0.2, brier
    flat = predict(np.zeros(N_VALUE_PARAMS), pos.x)
    assert brier_log_loss(flat, pos.won)[0] == pytest.approx(0.25)


def test_the_value_and_vsearch_profiles() -> None:
    value, vsearch, search = STRATEGIES["value"], STRATEGIES["vsearch"], STRATEGIES["search"]
    assert value.bot == BOT_VALUE and value.weights[P_LEAF_VALUE] == 1
    assert dispatcher([BOT_VALUE, 1]) is choose
    assert vsearch.bot == BOT_SEARCH and vsearch.weights[SEARCH_KNOBS["value"]] == 1
    assert vsearch.weights[SEARCH_KNOBS["width"]] == L.LA_MAX_WIDTH
    # The reference search keeps its width, horizon and play-out value.
    assert search.weights[SEARCH_KNOBS["width"]] == SEARCH_WIDTH == SEARCH_DEFAULTS["width"]
    assert search.weights[SEARCH_KNOBS["horizon"]] == SEARCH_HORIZON
    assert search.weights[P_LEAF_VALUE] == 0


@pytest.mark.parametrize("bot", ["value", "vsearch"])
@pytest.mark.parametrize("mix", ["aegean", "dunes+aegean", "reign"])
def test_value_bots_play_legal_games(mix: str, bot: str) -> None:
    """Every step keeps the invariants; the play-outs leave the real game alone."""
    spec = RunSpec(games=2, mix=mix, seed=3, p0=bot, p1="greedy")
    sc = Scenario.from_spec(spec, game=1)
    while not sc.over:
        sc.turn()
        check_invariants(sc)
    assert sc.error == 0


def test_value_rows_do_not_depend_on_threads_and_batch_equals_replay() -> None:
    spec = RunSpec(games=8, mix="aegean", seed=12, p0="greedy", p1="value")
    with numba_threads(1):
        one = Engine(spec).play(0, 8).to_pandas()
    with numba_threads(numba.config.NUMBA_NUM_THREADS):
        many = Engine(spec).play(0, 8).to_pandas()
    pd.testing.assert_frame_equal(one, many)
    res = Scenario.from_spec(spec, game=3).play_out()
    assert (res["winner"], res["turns"]) == (one.winner[3], one.turns[3])


def test_the_value_is_live_in_the_value_bots_choices() -> None:
    """Other weights, other games: the value bot reads the row's value weights."""
    spec = RunSpec(games=20, mix="aegean", seed=2, p0="value", p1="greedy")
    a = Engine(spec)
    b = Engine(spec)
    b.fp = b.fp.copy()
    out = FP_VALUE + V_W2  # the output layer, negated: a value of 1 - V, that prefers losing
    b.fp[0, out:] = -b.fp[0, out:]
    assert not a.play(0, 20).to_pandas().equals(b.play(0, 20).to_pandas())


def test_recorded_positions_follow_the_weights_the_bots_are_given() -> None:
    """Self-play positions for a value fit are played with the weights asked for: the
    shipped ones by default, other games under other weights."""
    shipped = record_positions("aegean", "value", "value", 6, 4)
    same = record_positions("aegean", "value", "value", 6, 4, weights=shipped_value())
    assert np.array_equal(shipped.x, same.x) and np.array_equal(shipped.won, same.won)
    losing = shipped_value().copy()
    losing[V_W2:] = -losing[V_W2:]  # a value of 1 - V: it prefers losing
    other = record_positions("aegean", "value", "value", 6, 4, weights=losing)
    assert shipped.x.shape != other.x.shape or not np.array_equal(shipped.x, other.x)


def test_the_value_bot_beats_greedy() -> None:
    """Lean strength check (the ladder's rung above greedy): the interval's low end above
    60% over 400 seat-balanced duplicate deals of aegean."""
    wins, games = win_rate("aegean", "value", "greedy", 400)
    assert wilson_interval(wins, games)[0] > 0.6, wins


def test_write_value_round_trips(tmp_path: Path) -> None:
    params = np.random.default_rng(1).normal(size=N_VALUE_PARAMS)
    write_value(tmp_path / "v.toml", params, {"command": "test", "seed": 1})
    assert np.array_equal(load_value(tmp_path / "v.toml"), params)


def test_a_broken_shipped_value_is_a_spec_error_where_a_seat_reads_it(monkeypatch) -> None:
    import strategies.registry as R

    def broken() -> np.ndarray:
        raise ValueFileError("value.toml: field 'model.params': must be 929 finite numbers")

    monkeypatch.setattr(R, "shipped_value", broken)
    tab = np.asarray(Engine(RunSpec(games=1)).tab)
    for reader in ("value", "vsearch"):
        with pytest.raises(SpecError, match=r"model\.params"):
            R.strategy_arrays("greedy", reader, tab)
    # Seats that never read the value play without it: the games a new value is fitted
    # on (tools/train_value.py) run while the shipped one does not fit the features.
    _, fp = R.strategy_arrays("greedy", "search", tab)
    assert not np.any(fp[:, FP_VALUE:])


def test_feat_progress_counts_a_met_feat_as_one_and_a_completed_one_not_at_all() -> None:
    """A Reign of War's feats: the value reads how near each seat is to the feats it has not
    completed, each a share of its condition at most 1, so a met feat reads 1 and the sum
    lies between the met ones and the open ones; completed feats read 0."""
    from sim.base import vocab as V
    from sim.kernel.feats import feat_met
    from sim.kernel.tab import feat_col
    from strategies.value_features import feat_progress

    seen = 0.0
    for game in range(4):
        sc = Scenario.from_game("reign", 7, game, bots=("greedy", "greedy"))
        n_feats = int(sc.tab[L.TB_N_FEATS])
        assert n_feats > 0
        while not sc.over:
            sc.turn()
            for p in range(2):
                base = L.FEAT_DONE + p * L.MAX_FEATS
                open_ = [f for f in range(n_feats) if sc.st[base + f] == 0]
                # A feat counted within one turn (the opponent's discards) reads 0.
                counted = [
                    f for f in open_ if feat_col(sc.tab, f, L.FT_COND) != V.F_OPP_DISCARDED_GE
                ]
                met = sum(bool(feat_met(sc.st, sc.tab, p, f)) for f in counted)
                got = float(feat_progress(sc.st, sc.tab, p))
                assert met - 1e-9 <= got <= len(open_) + 1e-9, (got, met, len(open_))
                seen = max(seen, got)
    assert seen > 0.5
    # Every feat completed: nothing left to be near.
    done = sc.st.copy()
    done[L.FEAT_DONE : L.FEAT_DONE + 2 * L.MAX_FEATS] = 1
    assert float(feat_progress(done, sc.tab, 0)) == float(feat_progress(done, sc.tab, 1)) == 0.0


def test_vsearch_plays_one_more_turn_only_where_feats_end_the_game() -> None:
    """The learned-value search plays out the opponent's next turn too in A Reign of War,
    where feats are completed over several turns; elsewhere, and for the reference
    search, the profile's horizon stands."""
    from strategies.search import FEATS_TURNS, play_out_turns

    for mix, extra in (("reign", FEATS_TURNS), ("aegean", 0), ("dunes+aegean", 0)):
        tab = np.asarray(Engine(RunSpec(games=1, mix=mix)).tab)
        _, fp = strategy_arrays("vsearch", "search", tab)
        vsearch, search = STRATEGIES["vsearch"], STRATEGIES["search"]
        assert play_out_turns(tab, fp, 0) == vsearch.weights[SEARCH_KNOBS["horizon"]] + extra
        assert play_out_turns(tab, fp, 1) == search.weights[SEARCH_KNOBS["horizon"]]
    assert FEATS_TURNS > 0
