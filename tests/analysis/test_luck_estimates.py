"""Luck-adjusted estimates (sim.analysis.luck): unbiased, with honest intervals.

The known answers: with the same bot in both seats and the seats alternating who goes
first (the default), seat 0 and seat 1 are exchangeable, so seat 0's share of the
decisive games is exactly 1/2 and seat 0's outright wins minus seat 1's average exactly
0. Many disjoint game ranges of one seed are independent runs; the adjusted 95%
intervals must cover those values in at least 94% of them, and the same check must
reject an estimator with a planted bias.
"""

from __future__ import annotations

import numpy as np
import pytest

from sim.analysis import luck as LK
from sim.analysis.paired import Outcomes, luck_shifts
from sim.data.changes import Changes
from sim.data.spec import RunSpec
from sim.run.engine import Engine

# --- the estimator on planted data -----------------------------------------------------


def _planted(n: int, seed: int, effect: float = 0.4) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Outcomes whose luck is known: y = 0.3 + effect * (seat-0 luck - seat-1 luck) + noise."""
    rng = np.random.default_rng(seed)
    luck = rng.normal(size=(n, len(LK.LUCK_COLUMNS)))
    y = 0.3 + effect * (luck[:, 0] - luck[:, L_HALF]) + rng.normal(scale=0.3, size=n)
    return y, luck, np.arange(n)


L_HALF = len(LK.LUCK_COLUMNS) // 2


def test_luck_that_explains_the_outcome_is_removed_and_the_mean_stays() -> None:
    y, luck, ids = _planted(4000, 1)
    a = LK.adjusted_mean(y, luck, ids)
    assert a.variance_ratio > 3  # (0.32 + 0.09) / 0.09 in theory
    assert abs(a.rate_adj - 0.3) < 4 * a.se_adj
    assert abs(a.rate - a.rate_adj) < 4 * a.se


def test_each_games_correction_is_fitted_without_that_game() -> None:
    """Cross-fitting: changing the outcomes of fold 0 leaves fold 0's corrections alone."""
    y, luck, ids = _planted(2000, 2)
    x, fold = LK.features(luck, ids), LK.folds(ids)
    pred = LK.cross_fit(y, x, fold)
    y2 = y.copy()
    y2[fold == 0] += np.random.default_rng(3).normal(size=int((fold == 0).sum()))
    pred2 = LK.cross_fit(y2, x, fold)
    assert np.array_equal(pred[fold == 0], pred2[fold == 0])
    assert not np.array_equal(pred[fold == 1], pred2[fold == 1])


def test_folds_keep_a_duplicate_deal_together() -> None:
    f = LK.folds(np.arange(12))
    assert np.array_equal(f[0::2], f[1::2])
    assert set(f) == {0, 1}


def test_a_small_run_is_adjusted_with_the_core_features_only() -> None:
    """Which regressors depend on the fold sizes alone: all of them for a large run, the
    core three per seat for a run too small for all, the same both ways for a compare."""
    ids = np.arange(4000)
    luck = np.zeros((4000, len(LK.LUCK_COLUMNS)))
    assert LK.regressors([luck], ids).shape[1] == 2 * len(LK.LUCK_COLUMNS)
    small = LK.regressors([luck[:300]], ids[:300]).shape[1]
    assert small == 2 * 2 * len(LK.CORE_FEATURES)
    assert LK.regressors([luck[:300], luck[:300]], ids[:300]).shape[1] == 2 * small


def test_too_few_games_to_fit_leave_the_estimate_plain() -> None:
    y, luck, ids = _planted(60, 4)
    a = LK.adjusted_mean(y, luck, ids)
    assert a.rate_adj == a.rate and a.se_adj == a.se


# --- coverage over repeated runs of real games -------------------------------------------


def _games(n: int, seed: int, mix: str = "aegean") -> dict[str, np.ndarray]:
    spec = RunSpec(games=n, mix=mix, seed=seed, luck=True)
    t = Engine(spec).play(0, n)
    cols = ("game_id", "winner", "first_player")
    out = {c: t.column(c).to_numpy().astype(np.int64) for c in cols}
    out["luck"] = LK.luck_matrix(t)
    return out


def _intervals(g: dict[str, np.ndarray], runs: int) -> list[tuple[LK.Adjusted, LK.Adjusted]]:
    """Per run (a disjoint block of games): (seat 0 minus seat 1 wins, seat 0 of decisive)."""
    per = len(g["game_id"]) // runs
    out = []
    for r in range(runs):
        s = slice(r * per, (r + 1) * per)
        w, luck, ids = g["winner"][s], g["luck"][s], g["game_id"][s]
        diff = LK.adjusted_mean((w == 0).astype(float) - (w == 1), luck, ids)
        decisive = (w >= 0).astype(float)
        share = LK.adjusted_ratio((w == 0) * decisive, decisive, luck, ids)
        out.append((diff, share))
    return out


def _coverage(estimates: list[LK.Adjusted], truth: float, bias: float = 0.0) -> float:
    """Share of the adjusted intervals (shifted by ``bias`` standard errors) covering ``truth``."""
    hits = [abs(a.rate_adj + bias * a.se_adj - truth) <= a.z * a.se_adj for a in estimates]
    return float(np.mean(hits))


def _check_coverage(runs: int, per_run: int, seed: int) -> None:
    pairs = _intervals(_games(runs * per_run, seed), runs)
    diffs, shares = [p[0] for p in pairs], [p[1] for p in pairs]
    assert all(d.se_adj != d.se for d in diffs), "the runs must be large enough to adjust"
    assert _coverage(diffs, 0.0) >= 0.94
    assert _coverage(shares, 0.5) >= 0.94
    # The control: the same check rejects an estimator biased by one standard error.
    assert _coverage(diffs, 0.0, bias=1.0) < 0.94
    assert _coverage(shares, 0.5, bias=1.0) < 0.94


def test_adjusted_intervals_cover_the_known_seat_balance_lean() -> None:
    """200 runs of 250 games (the lean version of the slow test below)."""
    _check_coverage(200, 250, seed=21)


@pytest.mark.slow
def test_adjusted_intervals_cover_the_known_seat_balance() -> None:
    """400 runs of 1,000 games."""
    _check_coverage(400, 1000, seed=22)


# --- planted known answers: plain and adjusted agree -----------------------------------


def test_a_deliberately_strong_card_moves_plain_and_adjusted_alike() -> None:
    """Strength +10 on one card: both estimates see its holders win more, and agree
    within noise (the adjustment removes luck, never the effect)."""
    spec = RunSpec(games=6000, mix="aegean", seed=8, luck=True)
    card = "Alcimedon the Charioteer"
    a = Outcomes.from_frame(Engine(spec).play(0, spec.games))
    changed = Changes.parse((f"{card}.strength=+10",), ())
    b = Outcomes.from_frame(Engine(spec, changes=changed).play(0, spec.games))
    from sim.run.compiled import run_pool

    kind = [u["name"] for u in run_pool(spec, Changes()).units].index(card)
    row = luck_shifts(a, b, {card: kind}).iloc[1]
    assert row["diff"] > 4 * row.se and row.diff_adj > 4 * row.se_adj
    assert abs(row.diff_adj - row["diff"]) < 3 * row.se


def test_a_first_player_edge_set_by_a_rule_reads_the_same_adjusted() -> None:
    """Player 1 always first: the first player's share of decisive games, plain and
    adjusted, agree within noise."""
    spec = RunSpec(games=6000, mix="aegean", seed=9, first="p1", luck=True)
    t = Engine(spec).play(0, spec.games)
    a = LK.frame_first_of_decisive(t)
    assert a.se_adj != a.se
    assert abs(a.rate_adj - a.rate) < 3 * a.se
    assert a.rate > 0.5 + 4 * a.se  # the known first-player edge of Aegean under greedy
