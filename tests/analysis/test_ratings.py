"""Bradley-Terry ratings (sim/analysis/ratings.py) recover known strengths from win counts."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from sim.analysis.ratings import (
    ELO_BASE,
    ELO_SCALE,
    fit_ratings,
    format_ratings,
    ratings_column_names,
)

# Known strengths on the Elo scale: a 400-point gap is 10-to-1 odds.
TRUE = {"weak": 1200.0, "fair": 1450.0, "good": 1550.0, "best": 1800.0}


def p_win(a: float, b: float) -> float:
    return 1.0 / (1.0 + 10.0 ** ((b - a) / 400.0))


def synthetic(games: int, rng: np.random.Generator | None) -> pd.DataFrame:
    """Every pair of TRUE played ``games`` times; exact expected counts if ``rng`` is None."""
    rows = []
    bots = list(TRUE)
    for i, a in enumerate(bots):
        rows.append({"bot_a": a, "bot_b": a, "wins_a": games // 2, "wins_b": games // 2})
        for b in bots[i + 1 :]:
            p = p_win(TRUE[a], TRUE[b])
            wins = rng.binomial(games, p) if rng is not None else round(games * p)
            rows.append({"bot_a": a, "bot_b": b, "wins_a": wins, "wins_b": games - wins})
    return pd.DataFrame(rows)


def centred(values: dict[str, float]) -> dict[str, float]:
    mean = sum(values.values()) / len(values)
    return {k: v - mean + ELO_BASE for k, v in values.items()}


def test_exact_counts_give_back_the_true_ratings() -> None:
    r = fit_ratings(synthetic(1_000_000, None)).set_index("bot")
    for bot, elo in centred(TRUE).items():
        assert r.at[bot, "elo"] == pytest.approx(elo, abs=1.0)
    assert r.elo.mean() == pytest.approx(ELO_BASE)
    assert r.index.tolist() == ["best", "good", "fair", "weak"], "strongest first"


def test_the_ratings_have_the_declared_columns() -> None:
    """:func:`fit_ratings` returns exactly :data:`RATINGS_COLUMNS`, in its order."""
    r = fit_ratings(synthetic(1_000, None))
    assert list(r.columns) == ratings_column_names()


def test_intervals_cover_the_truth_at_about_95_percent() -> None:
    """Over 200 sampled tournaments each bot's 95% interval covers its true rating ~95%."""
    rng = np.random.default_rng(13)
    truth = centred(TRUE)
    hits = total = 0
    for _ in range(200):
        r = fit_ratings(synthetic(400, rng))
        for row in r.itertuples(index=False):
            hits += row.lo <= truth[row.bot] <= row.hi
            total += 1
    assert 0.91 <= hits / total <= 0.99, f"coverage {hits / total:.3f}"


def test_interval_width_shrinks_with_games() -> None:
    rng = np.random.default_rng(1)
    small = fit_ratings(synthetic(400, rng))
    big = fit_ratings(synthetic(40_000, rng))
    assert (big.hi - big.lo).max() < (small.hi - small.lo).min() / 5


def test_self_play_rows_do_not_move_the_ratings() -> None:
    pairs = synthetic(10_000, None)
    lopsided = pairs.copy()
    lopsided.loc[lopsided.bot_a == lopsided.bot_b, ["wins_a", "wins_b"]] = [9_000, 1_000]
    pd.testing.assert_frame_equal(fit_ratings(pairs), fit_ratings(lopsided))


def test_a_pairing_without_losses_stays_finite() -> None:
    pairs = pd.DataFrame(
        [
            {"bot_a": "a", "bot_b": "b", "wins_a": 100, "wins_b": 0},
            {"bot_a": "b", "bot_b": "c", "wins_a": 60, "wins_b": 40},
            {"bot_a": "a", "bot_b": "c", "wins_a": 95, "wins_b": 5},
        ]
    )
    r = fit_ratings(pairs)
    assert np.isfinite(r[["elo", "lo", "hi"]].to_numpy()).all()
    assert r.bot.tolist() == ["a", "b", "c"]
    assert (r.corrected == 1).all()


def test_elo_scale_matches_the_odds() -> None:
    pairs = pd.DataFrame([{"bot_a": "x", "bot_b": "y", "wins_a": 10_000, "wins_b": 1_000}])
    r = fit_ratings(pairs).set_index("bot")
    assert r.at["x", "elo"] - r.at["y", "elo"] == pytest.approx(400.0, abs=0.01)
    assert math.isclose(ELO_SCALE, 400.0 / math.log(10.0))


@pytest.mark.parametrize(
    ("pairs", "bots", "needle"),
    [
        (pd.DataFrame([{"bot_a": "x", "bot_b": "y", "wins_a": 1, "wins_b": 1}]), ["x"], "two"),
        (pd.DataFrame([{"bot_a": "x", "bot_b": "z", "wins_a": 1, "wins_b": 1}]), ["x", "y"], "z"),
        (pd.DataFrame([{"bot_a": "x", "bot_b": "y", "wins_a": 0, "wins_b": 0}]), None, "decisive"),
    ],
)
def test_bad_input_is_refused(pairs: pd.DataFrame, bots: list[str] | None, needle: str) -> None:
    with pytest.raises(ValueError, match=needle):
        fit_ratings(pairs, bots)


def test_table_lists_every_bot_in_order() -> None:
    text = format_ratings(fit_ratings(synthetic(10_000, None)))
    rows = [
        line
        for line in text.splitlines()
        if line.startswith("| ") and "rank" not in line and "---" not in line
    ]
    assert [line.split("|")[2].strip() for line in rows] == ["best", "good", "fair", "weak"]
