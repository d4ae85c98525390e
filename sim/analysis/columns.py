"""One conversion from a run's Arrow rows to pandas, so a run loads with the same dtypes
however it is loaded (``A.load``, ``A.load(names=True)``, ``A.load_runs``): label columns
stay categoricals, card lists Arrow-backed lists (of names on request), and the columns of a
set not in the mix nullable and null. Which dtypes and why: ``docs/analysis-desk.md``,
"Loading a run"; which columns a set owns: ``sim.base.layout.OUT_COLUMNS``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from sim.base.layout import OUT_COLUMNS

LIST_COLUMNS = tuple(
    f"{c.name}_p{p}" for c in OUT_COLUMNS if c.dtype in ("played", "held") for p in (0, 1)
)
"""List columns holding card kind ids (``id`` in ``_cards.parquet``); runs written
before ``held_p0/p1`` existed simply lack those."""

SET_COLUMNS: dict[str, tuple[str, ...]] = {
    s: tuple(
        name
        for c in OUT_COLUMNS
        if c.only_in == s
        for name in ([f"{c.name}_p0", f"{c.name}_p1"] if c.per_seat else [c.name])
    )
    for s in sorted({c.only_in for c in OUT_COLUMNS} - {""})
}
"""Each set's columns (``OutColumn.only_in``), loaded as nulls where the set is not played."""

RUN_COLUMN = "run"

_NULLABLE = {
    pa.from_numpy_dtype(f"int{b}"): pd.api.types.pandas_dtype(f"Int{b}") for b in (8, 16, 32, 64)
}


def mix_sets(mix: str) -> set[str]:
    """The set names in a mix spec: ``"dunes+aegean:10"`` -> ``{"dunes", "aegean"}``."""
    return {part.split(":")[0].strip().lower() for part in mix.split("+") if part.strip()}


def named_lists(col: pa.ChunkedArray, dictionary: pa.Array) -> pa.ChunkedArray:
    """A list column of kind ids as lists of card names (dictionary-encoded, no copy of
    the ids): ``dictionary`` holds the run's card names by kind id."""
    chunks = []
    for a in col.chunks:
        ids = a.values.cast(pa.int16())
        if len(ids) and int(pc.max(ids).as_py()) >= len(dictionary):
            raise IndexError(f"kind id {pc.max(ids).as_py()} is past the run's {len(dictionary)}")
        values = pa.DictionaryArray.from_arrays(ids, dictionary)
        chunks.append(pa.ListArray.from_arrays(a.offsets, values, mask=a.is_null()))
    return pa.chunked_array(chunks, pa.list_(pa.dictionary(pa.int16(), pa.string())))


def _absent(table: pa.Table, sets: Iterable[str]) -> pa.Table:
    """``table`` with the columns of a set not in ``sets`` replaced by nulls of their type."""
    present = set(sets)
    for s, cols in SET_COLUMNS.items():
        for col in [c for c in cols if s not in present and c in table.column_names]:
            i = table.schema.get_field_index(col)
            table = table.set_column(i, col, pa.nulls(table.num_rows, table.schema.field(i).type))
    return table


def prepare(
    table: pa.Table, sets: Iterable[str], names: Mapping[int, str] | None = None
) -> pa.Table:
    """One run's rows ready for :func:`to_frame`: absent sets nulled, and with ``names``
    (``{kind id: name}``) the card lists holding names."""
    table = _absent(table, sets)
    if names is not None:
        kinds = range(max(names, default=-1) + 1)  # "kind N" for an id the mapping lacks
        dictionary = pa.array([names.get(k, f"kind {k}") for k in kinds], pa.string())
        for col in [c for c in LIST_COLUMNS if c in table.column_names]:
            i = table.schema.get_field_index(col)
            table = table.set_column(i, col, named_lists(table.column(col), dictionary))
    return table


def with_run_label(table: pa.Table, label: str) -> pa.Table:
    """``table`` with a ``run`` column holding ``label`` (dictionary-encoded)."""
    zeros = pa.array(np.zeros(table.num_rows, np.int32))
    return table.append_column(RUN_COLUMN, pa.DictionaryArray.from_arrays(zeros, [label]))


def to_frame(table: pa.Table) -> pd.DataFrame:
    """The rows as pandas with this module's dtypes (see the module docstring)."""
    present = [c for cols in SET_COLUMNS.values() for c in cols if c in table.column_names]
    set_ints = [c for c in present if pa.types.is_integer(table.schema.field(c).type)]
    lists = (pa.ListType, pa.LargeListType)
    df = table.to_pandas(types_mapper=lambda t: pd.ArrowDtype(t) if isinstance(t, lists) else None)
    for c in set_ints:
        df[c] = table.column(c).to_pandas(types_mapper=_NULLABLE.get).array
    return df
