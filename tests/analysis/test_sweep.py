"""`omensim sweep`: one field shifted on each card, the same games each time."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from conftest import invoke

from sim.analysis.sweep import SWEEP_COLUMNS, parse_deltas, select_kinds, sweep
from sim.data.cards import load_pool
from sim.data.spec import RunSpec, SpecError

SPOILS = "Ker of the Spoils"  # cost 2
EUDORUS = "Eudorus, Swift Runner"  # kind 0, cost 2


def test_parse_deltas() -> None:
    assert parse_deltas("-1,+1") == (-1, 1)
    assert parse_deltas(" 2 ") == (2,)
    assert parse_deltas("1-3,-1") == (1, 2, 3, -1)
    for bad, text in [("0", "changes nothing"), ("1,x", "not a whole number"), ("1,1", "twice")]:
        with pytest.raises(SpecError, match=text):
            parse_deltas(bad)


def test_select_kinds() -> None:
    units = load_pool("aegean").units
    assert select_kinds(units) == list(range(len(units)))
    assert select_kinds(units, [SPOILS.upper(), "0", EUDORUS]) == [14, 0]
    with pytest.raises(SpecError, match="--card 'Nobody'"):
        select_kinds(units, ["Nobody"])
    with pytest.raises(SpecError, match="--card '99'"):
        select_kinds(units, ["99"])


def test_sweep_function_skips_out_of_range_values() -> None:
    result = sweep(RunSpec(games=300, seed=1), "cost", (-3, 1), cards=[SPOILS], progress=False)
    assert result.skipped == [
        {"card": SPOILS, "delta": -3, "reason": "cost would be -1, outside 0..99"}
    ]
    assert list(result.table.columns) == SWEEP_COLUMNS
    row = result.table.iloc[0]
    assert (row.card, row.base_value, row.delta, row.new_value) == (SPOILS, 2, 1, 3)
    assert row.lo <= row["diff"] <= row.hi


def test_sweep_end_to_end_writes_the_table_and_heat_map(tmp_path: Path) -> None:
    out = tmp_path / "sweep"
    r = invoke(
        "sweep", "--mix", "aegean", "--games", "500", "--field", "cost",
        "--delta", "-1,+1,-5", "--card", SPOILS, "--card", "0", "--out", str(out),
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    table = pd.read_parquet(out / "sweep.parquet")
    assert len(table) == 4
    assert set(table.card) == {SPOILS, EUDORUS}
    assert sorted(table.delta.unique()) == [-1, 1]
    assert (table.games == 500).all()
    assert table["diff"].notna().all()
    assert len(pd.read_csv(out / "sweep.csv")) == 4
    skipped = pd.read_csv(out / "skipped.csv")
    assert sorted(skipped.card) == sorted([SPOILS, EUDORUS]) and set(skipped.delta) == {-5}
    png = (out / "sweep.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 1000
    assert f"skipped {SPOILS} cost -5" in r.output
    assert "shift (pts)" in r.output


@pytest.mark.parametrize(
    ("args", "text"),
    [
        (["--field", "colour"], "--field 'colour': valid fields: cost"),
        (["--delta", "0"], "a delta of 0 changes nothing"),
        (["--delta", "one"], "'one' is not a whole number"),
        (["--card", "Nobody"], "--card 'Nobody'"),
        (["--mix", "nope"], "unknown set 'nope'"),
        (["--games", "-5"], "--games"),
    ],
)
def test_sweep_errors_are_one_line(args: list[str], text: str) -> None:
    r = invoke("sweep", "--games", "10", *args)
    assert r.exit_code == 2, r.output
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error:"), r.stderr
    assert text in lines[0]


def test_sweep_out_must_be_a_directory(tmp_path: Path) -> None:
    f = tmp_path / "file"
    f.write_text("x")
    r = invoke("sweep", "--games", "10", "--card", "0", "--out", str(f))
    assert r.exit_code == 2
    assert r.stderr.count("\n") == 1 and "is a file" in r.stderr, r.stderr
