"""A run's rows have the columns declared for them, and ``docs/usage.md`` shows that
declaration (``sim.run.engine.ID_COLUMNS`` and ``sim.base.layout.OUT_COLUMNS``)."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
from conftest import invoke, ok
from doc_tables import assert_page_shows

from sim.base import layout as L
from sim.run import engine


def test_a_written_run_has_exactly_the_declared_columns(tmp_path: Path) -> None:
    """Every part of a small run holds :func:`engine.row_column_names`, in that order."""
    out = tmp_path / "run"
    ok(invoke("run", "--games", "20", "--mix", "aegean", "--seed", "3", "--out", str(out), "-q"))
    parts = sorted(out.glob("part-*.parquet"))
    assert parts
    for part in parts:
        assert pq.read_schema(part).names == engine.row_column_names()


def test_every_declared_column_has_a_row_of_the_table() -> None:
    """The table's rows name each column once, so none is missing or shown twice."""
    shown = [name for names, _ in engine.row_columns() for name in names]
    assert sorted(shown) == sorted(engine.row_column_names())
    assert len(shown) == len(set(shown))
    assert all(meaning for _, meaning in engine.row_columns())
    assert len(engine.row_columns()) == len(engine.ID_COLUMNS) + len(L.OUT_COLUMNS)


def test_usage_md_shows_every_declared_column_and_no_other() -> None:
    """``docs/usage.md``'s table of a run's columns is :func:`engine.row_columns_table`,
    row for row, so a column added, renamed or dropped in the code shows there."""
    assert_page_shows("usage.md", [engine.row_columns_table])
