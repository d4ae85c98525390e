"""``sim.run.bitlists``: the kernel's bit masks read as list columns, against a plain reading.

Property tests (hypothesis): for any mask words and any bit-to-value map (increasing
as for played kinds and sorted card ids, or in any order, with dropped bits), each
row's list is the values of its set bits, each once, ascending.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as hst

from sim.run import bitlists
from sim.run import engine as engine_module

WORDS = 3


def reference(words: np.ndarray, first: int, n_words: int, value_of: np.ndarray) -> list[list[int]]:
    """Each row's values, one bit at a time in Python."""
    rows = []
    for row in words:
        got = set()
        for w in range(n_words):
            for b in range(bitlists.WORD_BITS):
                v = int(value_of[w * bitlists.WORD_BITS + b])
                if int(row[first + w]) >> b & 1 and v >= 0:
                    got.add(v)
        rows.append(sorted(got))
    return rows


word = hst.integers(0, 2**32 - 1) | hst.sampled_from([0, 1, 2**31, 2**32 - 1])


@settings(max_examples=200, deadline=None)
@given(
    rows=hst.lists(hst.lists(word, min_size=WORDS + 1, max_size=WORDS + 1), max_size=12),
    first=hst.integers(0, 1),
    values=hst.lists(hst.integers(-1, 40), min_size=WORDS * 32, max_size=WORDS * 32),
    ordered=hst.booleans(),
)
def test_bit_values_match_a_plain_reading(rows, first, values, ordered) -> None:
    words = np.array(rows, np.int64).reshape(len(rows), WORDS + 1)
    value_of = np.array(values, np.int64)
    if ordered:
        # Non-decreasing over the kept bits (the held-card map of a mix, card ids by kind).
        keep = value_of >= 0
        value_of[keep] = np.sort(value_of[keep])
    high = words | (np.int64(1) << 40)  # the kernel's unused high half is never read
    got = bitlists.bit_values(high, first, WORDS, value_of).to_pylist()
    assert got == reference(words, first, WORDS, value_of)


def test_played_lists_read_only_the_mixs_kinds() -> None:
    """Bits at or above the mix's kind count are not kinds; the words past them are skipped."""
    masks = np.zeros((3, 32), np.int64)
    masks[0, 0] = 0b1011
    masks[1, 1] = 1 << 4  # kind 36
    masks[2, 1] = 1 << 31  # kind 63: not a kind of a 40-kind mix
    masks[2, 5] = 1  # kind 160
    assert engine_module.played_lists(masks, 0, 40).to_pylist() == [[0, 1, 3], [36], []]
    assert engine_module.played_lists(masks, 0).to_pylist() == [[0, 1, 3], [36], [63, 160]]
