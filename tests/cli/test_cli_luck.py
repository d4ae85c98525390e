"""``--luck-adjusted/--plain`` on run, compare, sweep and balance: the adjusted figure is
printed beside the plain one only when asked, and a run without luck columns says so in
one line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from conftest import invoke, ok, one_error_line

from sim.base import layout as L

GAMES = ("--mix", "aegean", "--games", "600", "--seed", "3")
ADJUSTED = "luck-adjusted"


@pytest.mark.parametrize("command", ["run", "compare", "sweep", "balance"])
def test_help_names_the_option(command: str) -> None:
    text = " ".join(ok(invoke(command, "--help")).output.split())
    assert "--luck-adjusted / --plain" in text
    # (click may wrap the help at the hyphen of "cross-fitted": check unhyphenated words)
    assert "control variate" in text and "writes no luck column" in text


def test_run_prints_the_adjusted_first_player_share_only_when_asked(tmp_path: Path) -> None:
    plain = ok(invoke("run", *GAMES, "--out", str(tmp_path / "a"))).output
    assert ADJUSTED not in plain
    shown = ok(invoke("run", *GAMES, "--out", str(tmp_path / "b"), "--luck-adjusted")).output
    line = next(ln for ln in shown.splitlines() if ADJUSTED in ln)
    assert line.startswith("first of decisive") and "fewer games" in line
    # Rows: the luck columns, one per feature and seat, with values that vary; a plain
    # run writes none.
    rows = pq.read_table(tmp_path / "b").to_pandas()
    luck = [c for c in rows.columns if c.startswith("luck_")]
    assert luck == [f"{name}_p{p}" for name, _ in L.LUCK_NAMES for p in (0, 1)]
    assert all(rows[c].std() > 0 for c in luck)
    assert not any(
        c.startswith("luck_")
        for c in pq.read_schema(next((tmp_path / "a").glob("*.parquet"))).names
    )


def test_a_run_without_luck_columns_is_refused_by_name(tmp_path: Path) -> None:
    """Rows of a plain run: a sim.Error naming the run and the option (one CLI line), not
    a KeyError from deep inside."""
    from sim.analysis import luck
    from sim.base.errors import Error

    out = tmp_path / "r"
    ok(invoke("run", *GAMES, "--out", str(out), "--quiet"))
    with pytest.raises(Error, match=r"has no luck columns.*--luck-adjusted"):
        luck.run_first_of_decisive(out)


def test_compare_adds_a_luck_adjusted_line_per_shift() -> None:
    args = (*GAMES, "--change", "Ker of the Spoils.strength=+1")
    plain = ok(invoke("compare", *args, "--plain")).output
    assert ADJUSTED not in plain
    shown = ok(invoke("compare", *args, "--luck-adjusted")).output.splitlines()
    adjusted = [ln for ln in shown if ln.strip().startswith("luck-adjusted:")]
    assert len(adjusted) == 2  # the first-player rate and the card's holders
    assert all("fewer games than paired alone" in ln for ln in adjusted)


def test_sweep_shows_the_luck_adjusted_shift_columns() -> None:
    args = (*GAMES, "--field", "cost", "--delta", "+1", "--card", "3")
    assert "luck-adj." not in ok(invoke("sweep", *args)).output
    shown = ok(invoke("sweep", *args, "--luck-adjusted")).output
    head = next(ln for ln in shown.splitlines() if ln.lstrip().startswith("kind"))
    assert "luck-adj." in head and "luck 95% CI" in head and "x fewer" in head


BALANCE = ("balance", "--mix", "aegean", "--rule", "start_coins", "--values", "3-5", "--seed", "3")
RACE = ("--pilot", "1400", "--max-games", "1400")  # one look, enough games to fit the luck


def test_balance_adds_the_luck_adjusted_rates_read_back_from_its_rows(tmp_path: Path) -> None:
    from sim.analysis import luck

    plain = ok(invoke(*BALANCE, *RACE, "--out", str(tmp_path / "a"))).output
    assert ADJUSTED.capitalize() not in plain and ADJUSTED not in plain
    out = tmp_path / "b"
    shown = ok(invoke(*BALANCE, *RACE, "--out", str(out), "--luck-adjusted")).output
    lines = shown.splitlines()
    at = lines.index(next(ln for ln in lines if ln.startswith("Luck-adjusted")))
    assert all("fewer games" in ln for ln in lines[at + 1 : at + 4])
    assert sum("shift" in ln for ln in lines[at + 1 : at + 4]) == 2  # not the shipped value
    # The race is the plain race: the same games, the same plain figures.
    table = pd.read_csv(out / "candidates.csv")
    base = pd.read_csv(tmp_path / "a" / "candidates.csv")
    pd.testing.assert_series_equal(table.rate, base.rate)
    assert "rate_adj" not in base.columns
    # Each adjusted rate is the estimator's, recomputed from the rows the race wrote.
    for row in table.itertuples():
        parts = sorted((out / "rows").glob(f"c{row.candidate:02d}-r*.parquet"))
        rows = pd.concat([pd.read_parquet(p) for p in parts], ignore_index=True)
        assert luck.has_luck(list(rows.columns))
        a = luck.adjusted_ratio(
            rows.num.to_numpy(), rows.den.to_numpy(), luck.luck_matrix(rows),
            rows.game_id.to_numpy(),
        )  # fmt: skip
        assert np.isclose(row.rate_adj, a.rate_adj) and np.isclose(row.lo_adj, a.lo_adj)
        assert row.variance_ratio > 0 and np.isfinite(row.rate_adj)
    assert not luck.has_luck(pq.read_schema(next((tmp_path / "a" / "rows").glob("*"))).names)


def test_balance_refuses_luck_with_set() -> None:
    line = one_error_line(invoke("balance", "--set", "--luck-adjusted"))
    assert "--luck-adjusted goes with" in line
