"""`omensim balance`: the first player's VP margin of every candidate, read back from the games.

Each candidate's margin (its mean with a 95% t-interval, and the paired shift from the
shipped value) is recomputed here from the rows a plain run of that candidate writes:
the same seed and game indices, so the same games.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from tamper import cut_job

from sim.analysis import balance as B
from sim.analysis import balance_checks as C
from sim.analysis import balance_question as Q
from sim.analysis import report_folders as F
from sim.data.changes import Changes
from sim.data.spec import RunSpec
from sim.run.engine import Engine
from sim.run.margins import first_player_margins
from sim.run.runner import RunError

SPEC = RunSpec(games=1, mix="aegean", seed=5)
GAMES = 400


def _t_interval(x: np.ndarray) -> tuple[float, float, float]:
    """Mean and 95% t-interval, from scipy (not the project's own quantile)."""
    m, se = float(np.mean(x)), float(np.std(x, ddof=1) / math.sqrt(len(x)))
    h = float(stats.t.ppf(0.975, len(x) - 1)) * se
    return m, m - h, m + h


def _played_margins(q: Q.Question, j: int, tmp: Path) -> np.ndarray:
    """Candidate ``j``'s first-player margins over games 0..GAMES-1, from a plain run's rows."""
    sp, ch = Q.candidate_run(q, SPEC, Changes(), j, tmp)
    rows = Engine(sp, changes=ch).play(0, GAMES).to_pandas()
    return first_player_margins(rows.first_player, rows.score_p0, rows.score_p1)


@pytest.fixture(scope="module")
def raced(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, B.BalanceResult, Q.Question]:
    out = tmp_path_factory.mktemp("balance") / "race"
    # A pilot at the ceiling: every candidate plays the same GAMES games, none dropped early.
    q = Q.rule_question(SPEC, ["start_coins"], [(2, 4, 8)])
    result = B.race(q, SPEC, pilot=GAMES, ceiling=GAMES, out=out, progress=False)
    return out, result, q


def test_each_candidates_margin_is_its_games_margin(raced, tmp_path: Path) -> None:
    _, result, q = raced
    t = result.table
    assert (t.games == GAMES).all()
    played = {j: _played_margins(q, j, tmp_path) for j in range(len(q.candidates))}
    shipped = int(t.index[t.shipped][0])
    for j, m in played.items():
        row = t.iloc[j]
        mean, lo, hi = _t_interval(m)
        assert row.margin == pytest.approx(mean, abs=1e-12)
        assert (row.margin_lo, row.margin_hi) == pytest.approx((lo, hi), rel=2e-3)
        assert row.margin_sd == pytest.approx(float(np.std(m, ddof=1)))
        d, dlo, dhi = _t_interval(m - played[shipped])
        if j == shipped:
            assert row.margin_shift == 0
        else:
            assert row.margin_shift == pytest.approx(d, abs=1e-12)
            assert (row.margin_shift_lo, row.margin_shift_hi) == pytest.approx((dlo, dhi), rel=2e-3)
    # The start coins move the first player's margin: a candidate's own games are needed.
    assert len({round(float(x), 6) for x in t.margin}) == len(t)


def test_the_summary_and_the_rows_say_the_margin(raced) -> None:
    out, result, _ = raced
    text = B.format_result(result)
    head = "First player's VP margin (95% t-interval), and its paired shift from shipped:"
    block = text.split(head, 1)[1].splitlines()
    for row in result.table.itertuples():
        line = next(x for x in block if x.startswith(f"  {row.label} "))
        assert f"{row.margin:+.2f} ({row.margin_lo:+.2f} to {row.margin_hi:+.2f}) VP" in line
    saved = pd.read_csv(out / B.TABLE)
    assert {"margin", "margin_lo", "margin_hi", "margin_shift"} <= set(saved.columns)
    rows = pd.read_parquet(out / B.ROWS)
    for j, g in rows.groupby("candidate"):
        assert g.sort_values("game_id").margin.mean() == pytest.approx(saved.margin[j])


def test_the_balance_report_gives_the_margin_and_its_distribution(raced) -> None:
    out, result, _ = raced
    text, tables = F.balance_parts(out)
    chosen = result.chosen_row
    assert f"First player's VP margin under {chosen.label}: {chosen.margin:+.2f}" in text
    cands = tables["Candidates"]
    assert all(c != "-" for c in cands["1st VP margin (95% CI)"])
    dist = tables[f"{F.MARGIN_TITLE} per candidate"]
    assert len(dist) == len(result.table)
    assert list(dist.iloc[:, 0]) == list(cands.candidate)


def test_a_cut_race_whose_rows_file_was_edited_is_refused_by_resume(raced, tmp_path) -> None:
    import shutil

    import pyarrow.parquet as pq

    out, _, _ = raced
    old = tmp_path / "old"
    shutil.copytree(out, old)
    cut_job(old, B.RESULT)
    f = sorted((old / B.ROWS).iterdir())[0]
    pq.write_table(pq.read_table(f).drop_columns(["margin"]), f)
    with pytest.raises(RunError, match="edited or damaged"):
        B.resume_balance(old, progress=False)


def test_the_panel_gives_the_margin_under_each_bot() -> None:
    q = Q.variant_question(SPEC, "emissary")
    result = B.race(q, SPEC, pilot=300, ceiling=300, progress=False)
    panel = C.panel_check(result, ["greedy", "random"], 300)
    assert panel.margin.notna().all()
    assert (panel.margin_lo <= panel.margin).all() and (panel.margin <= panel.margin_hi).all()
    result.panel = panel
    assert B.format_result(result).count("first VP margin") == 2


def _margins_of(spec: RunSpec, changes: Changes, games: int) -> np.ndarray:
    rows = Engine(spec, changes=changes).play(0, games).to_pandas()
    return first_player_margins(rows.first_player, rows.score_p0, rows.score_p1)


def test_each_set_step_gives_the_margin_and_its_verified_shift() -> None:
    n = 300
    res = C.balance_set(
        SPEC, max_edits=1, measure_games=n, span=1, threshold=0.001, first_bound=0.4,
        pilot=200, ceiling=400, progress=False,
    )  # fmt: skip
    assert len(res.steps) == 2 and res.steps[1]["edit"]
    t = res.table()
    before = _margins_of(SPEC, res.base, n)
    mean, lo, hi = _t_interval(before)
    assert t.first_margin[0] == pytest.approx(mean, abs=1e-12)
    assert (t.first_margin_lo[0], t.first_margin_hi[0]) == pytest.approx((lo, hi), rel=2e-3)
    assert t.first_margin[1] == pytest.approx(float(np.mean(_margins_of(SPEC, res.changes, n))))
    fresh = RunSpec(games=1, mix="aegean", seed=SPEC.seed + C.VERIFY_SEED_OFFSET)
    d = _margins_of(fresh, res.changes, n) - _margins_of(fresh, res.base, n)
    mean, lo, hi = _t_interval(d)
    assert t.verified_margin_shift[1] == pytest.approx(mean, abs=1e-12)
    assert (t.verified_margin_shift_lo[1], t.verified_margin_shift_hi[1]) == pytest.approx(
        (lo, hi), rel=2e-3
    )
    assert "first VP margin shift" in C.format_set_step(res.steps[1])
