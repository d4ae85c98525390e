"""``sim.run.gods``: a run's god counts read off the dictionary codes are those of the names."""

from __future__ import annotations

from itertools import pairwise

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.run.gods import GODS, GodCounts, column_codes

NAMES = [*GODS, "osiris", "", None]

rows = st.lists(
    st.tuples(
        st.sampled_from([-1, 0, 1]),
        st.sampled_from([0, 1]),
        st.sampled_from(NAMES),
        st.sampled_from(NAMES),
    ),
    max_size=60,
)


def chunked(values: list[str | None], cuts: list[int], dictionary: bool) -> pa.ChunkedArray:
    """``values`` in chunks cut at ``cuts``, each a dictionary array of its own names (in
    an order of its own) or a plain string array."""
    bounds = [0, *sorted(c % (len(values) + 1) for c in cuts), len(values)]
    chunks = []
    for lo, hi in pairwise(bounds):
        part = pa.array(values[lo:hi], pa.string())
        chunks.append(part.dictionary_encode() if dictionary else part)
    return pa.chunked_array(chunks, chunks[0].type)


@settings(max_examples=200, deadline=None)
@given(rows, st.lists(st.integers(0, 100), max_size=3), st.booleans())
def test_counts_from_codes_equal_counts_from_names(games, cuts, dictionary) -> None:
    """Whatever the chunks, their dictionaries, nulls and names that are no god, the table
    path (codes) counts as the names do (``from_arrays``, decoded one row at a time)."""
    winner = [g[0] for g in games]
    first = [g[1] for g in games]
    g0 = [g[2] for g in games]
    g1 = [g[3] for g in games]
    table = pa.table(
        {
            "winner": pa.array(winner, pa.int8()),
            "first_player": pa.array(first, pa.int8()),
            "god_p0": chunked(g0, cuts, dictionary),
            "god_p1": chunked(g1, cuts, dictionary),
        }
    )
    by_names = GodCounts.from_arrays(winner, first, [str(g) for g in g0], [str(g) for g in g1])
    assert GodCounts.from_frame(table) == by_names
    assert GodCounts.from_frame(table.to_pandas()) == by_names
    expected = [GODS.index(g) if g in GODS else -1 for g in g0]
    assert column_codes(table.column("god_p0")).tolist() == expected
