"""The kernel's luck accumulators (sim.kernel.luck): mean zero by construction,
invisible to the game (no random stream read, every other slot untouched), and counted
only in a run that asks for them."""

from __future__ import annotations

import numpy as np
import pytest

from sim.base import layout as L
from sim.data.spec import RunSpec
from sim.kernel import luck
from sim.run.engine import Engine
from sim.run.scenario import Scenario

LUCK_SLOTS = slice(L.LUCK, L.LUCK + 2 * L.N_LUCK)


@pytest.fixture(scope="module")
def dealt() -> Scenario:
    """Game 0 of seed 1 of a run counting luck, right after set-up: a shuffled deck with
    cards of many kinds."""
    return Scenario.from_spec(RunSpec(games=2, mix="aegean", seed=1, luck=True), game=0)


def test_a_draws_luck_averages_to_zero_over_the_cards_that_could_have_come(dealt) -> None:
    """Whichever card of the deck is on top, the increments sum to zero (up to the fixed
    point's rounding): the expectation the luck subtracts is the deck's true mean."""
    st0 = dealt.st
    n = int(st0[L.DECK_N])
    assert n > 3
    deck = st0[L.DECK : L.DECK + n].copy()
    assert len({int(dealt.tab[L.TB_CARD_ROWS + c * L.K_COLS + L.K_STRENGTH]) for c in deck}) > 1
    total = np.zeros(2 * L.N_LUCK, np.int64)
    moved = False
    for i in range(n):
        st = st0.copy()
        order = np.concatenate([np.delete(deck, i), deck[i : i + 1]])  # card i on top
        st[L.DECK : L.DECK + n] = order
        before = st[LUCK_SLOTS].copy()
        luck.card_taken(st, dealt.tab, 1, 0)
        step = st[LUCK_SLOTS] - before
        moved |= bool(step.any())
        total += step
    assert moved, "a draw from a deck of different cards must move the luck"
    # Rounding to nearest: at most half a unit per draw and feature.
    assert np.all(np.abs(total) <= n), total
    assert not total[: L.N_LUCK].any(), "seat 1 drew: seat 0's luck must not move"


def test_counting_luck_reads_no_random_stream_and_touches_nothing_else(dealt) -> None:
    st = dealt.st.copy()
    before = st.copy()
    luck.card_taken(st, dealt.tab, 0, 0)
    changed = np.flatnonzero(st != before)
    # The luck and the draw's scratch (consecutive regions).
    assert changed.size and np.all(
        (changed >= L.LUCK) & (changed < L.LUCK_TMP + 2 * L.N_CITIES + 2 * L.N_LUCK)
    )
    assert np.array_equal(st[L.RNG : L.RNG + L.N_STREAMS], before[L.RNG : L.RNG + L.N_STREAMS])


def test_a_plain_run_counts_no_luck(dealt) -> None:
    """Set-up turns the counting off unless the run asks (RU_LUCK): a draw then adds nothing."""
    plain = Scenario.from_spec(RunSpec(games=2, mix="aegean", seed=1), game=0)
    assert plain.st[L.LUCK_OFF] == 1 and dealt.st[L.LUCK_OFF] == 0
    st = plain.st.copy()
    luck.card_taken(st, plain.tab, 0, 0)
    assert np.array_equal(st, plain.st)


@pytest.mark.parametrize("mix", ["aegean", "dunes+aegean"])
def test_counting_luck_plays_the_same_games_and_only_adds_columns(mix: str) -> None:
    """The same games with and without luck: a plain run's rows are the luck run's rows
    without the luck_* columns, which a plain run does not write at all."""
    plain = Engine(RunSpec(games=300, mix=mix, seed=4)).play(0, 300).to_pandas()
    counted = Engine(RunSpec(games=300, mix=mix, seed=4, luck=True)).play(0, 300).to_pandas()
    names = [c for c in counted.columns if c.startswith("luck_")]
    assert len(names) == 2 * L.N_LUCK
    assert not any(c.startswith("luck_") for c in plain.columns)
    assert plain.equals(counted.drop(columns=names))


@pytest.fixture(scope="module")
def rows() -> object:
    spec = RunSpec(games=3000, mix="dunes+aegean", seed=11, luck=True)
    return Engine(spec).play(0, spec.games).to_pandas()


def test_every_luck_column_is_written_and_has_mean_zero(rows) -> None:
    """Over 3,000 games each luck column's mean is within 4 standard errors of zero,
    and it varies (the draws do differ)."""
    from sim.analysis.luck import LUCK_COLUMNS

    assert len(LUCK_COLUMNS) == 2 * L.N_LUCK
    for name in LUCK_COLUMNS:
        v = rows[name].to_numpy(np.float64)
        assert v.std() > 0.3, name
        assert abs(v.mean()) < 4 * v.std() / np.sqrt(len(v)), name


def test_the_luck_columns_are_the_only_float_columns_and_come_last() -> None:
    """The engine's int16 range check reads the row up to O_LUCK: nothing after it may be
    an integer column."""
    for c in L.OUT_COLUMNS:
        if c.offset >= L.O_LUCK:
            assert c.dtype == "luck", c.name
        elif c.offset >= 0:
            assert c.dtype != "luck", c.name
