"""The report's tables read from Parquet batches equal the pandas helpers' from the loaded
rows, and the independent oracle's (``report_oracle``)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest
from report_oracle import compute

from sim import analysis as A
from sim.analysis import streaming
from sim.data.spec import RunSpec
from sim.run import runner

TABLES = (
    "fpa", "paired", "diffs", "shifts", "cards", "card_table", "stats", "outcomes", "seats",
    "margins", "lengths", "length_quantiles", "ends", "components",
)  # fmt: skip


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    root = tmp_path_factory.mktemp("runs")
    specs = [
        RunSpec(games=301, seed=1),
        RunSpec(games=240, seed=2, duplicate=True),
        RunSpec(games=200, seed=3, mix="reign", p1="random"),
        RunSpec(games=250, seed=1, p1="random"),  # same seed as the first: a paired shift
    ]
    out = []
    for i, spec in enumerate(specs):
        out.append(root / f"r{i}")
        # An odd chunk size splits duplicate deals across parts and batches.
        runner.run(spec, out[-1], chunk_size=77, progress=False)
    return out


@pytest.mark.parametrize("batch_rows", [7, 1 << 16])
def test_streaming_tables_equal_the_pandas_ones(runs: list[Path], batch_rows: int) -> None:
    expected = compute(A.load_runs(runs), min_games=50)
    got = streaming.report_tables(runs, min_games=50, batch_rows=batch_rows)
    for name in TABLES:
        a, b = getattr(expected, name), getattr(got, name)
        pd.testing.assert_frame_equal(
            b.reset_index(drop=True), a.reset_index(drop=True), check_dtype=False, obj=name
        )
    assert len(got.paired) == 1 and got.paired["dropped_games"].iloc[0] == 0


def test_played_kinds_counts_a_kind_once_per_game() -> None:
    lists = pa.array([[3, 1, 3], [], None, [2]], pa.list_(pa.int16()))
    rows, kinds = streaming.played_kinds(lists)
    assert rows.tolist() == [0, 0, 3] and kinds.tolist() == [1, 3, 2]
