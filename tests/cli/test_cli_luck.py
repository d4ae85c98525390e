"""``--luck-adjusted/--plain`` on run, compare and sweep: the adjusted figure is printed
beside the plain one only when asked, and a run without luck columns says so in one line."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest
from conftest import invoke, ok

from sim.base import layout as L

GAMES = ("--mix", "aegean", "--games", "600", "--seed", "3")
ADJUSTED = "luck-adjusted"


@pytest.mark.parametrize("command", ["run", "compare", "sweep"])
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
