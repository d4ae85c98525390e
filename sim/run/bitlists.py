"""The kernel's bit masks as Arrow ``list<int16>`` columns, read in one compiled pass.

The kernel reports a game's played kinds, held cards and feats as bits
(``sim.base.layout``: ``MASK_WORDS`` words of 32 bits per seat, one word for
feats). A row's list holds the *values* of its set bits: the bit index itself,
or the kind of the card a bit stands for, each value once, in ascending order.

Reading them with numpy (unpack every bit to a byte, ``nonzero``, ``bincount``)
took most of a table's conversion time, on the thread that also starts the
kernel; this loop visits only the set bits and allocates nothing but
its result. It also skips the mask words no value can come from (a mix's ~50
kinds fill 2 of a seat's 8 words), and when values rise with the bit (kinds,
and card ids numbered kind by kind) it drops repeats without a sort: the two
made the four list columns several times cheaper.
"""

from __future__ import annotations

import numba
import numpy as np
import pyarrow as pa

from sim.compiler.extension import interrupts_deferred

WORD_BITS = 32
"""Bits the kernel uses in each int64 mask word (higher bits are not read)."""


# fmt: off
_DEBRUIJN = np.array([
    0, 1, 28, 2, 29, 14, 24, 3, 30, 22, 20, 15, 25, 17, 4, 8,
    31, 27, 13, 23, 21, 19, 16, 7, 26, 12, 18, 6, 11, 5, 10, 9,
], np.int64)
# fmt: on
"""Index of a 32-bit word's lowest set bit from ``(low * 0x077CB531) >> 27`` (de Bruijn)."""


@numba.njit(cache=True, nogil=True)
def _read_bits(words, first, n_words, value_of, debruijn):
    # Two passes: count the set bits (an upper bound on the values' size), then walk each
    # word's set bits lowest first and keep each value once, in order; only set bits and
    # only the words that can hold a value are visited.
    n = words.shape[0]
    used = np.int64(0)  # not the literal 0: numba would compile _read_values for it too
    # Values never decrease with the bit: each row comes out sorted. Not the literal True,
    # which numba would compile _read_values for too, before the bool it settles on.
    ordered = np.bool_(True)
    last = -1
    for b in range(n_words * WORD_BITS):
        v = value_of[b]
        if v >= 0:
            used = b // WORD_BITS + 1
            ordered = ordered and v >= last
            last = v
    total = 0
    for i in range(n):
        for w in range(first, first + used):
            x = words[i, w] & 0xFFFFFFFF
            # Bits set in a 32-bit word (SWAR popcount): no branch per bit.
            x = x - ((x >> 1) & 0x55555555)
            x = (x & 0x33333333) + ((x >> 2) & 0x33333333)
            total += (((x + (x >> 4)) & 0x0F0F0F0F) * 0x01010101 & 0xFFFFFFFF) >> 24
    values = np.empty(total, np.int16)
    offsets = np.empty(n + 1, np.int32)
    offsets[0] = 0
    k = _read_values(words, first, used, value_of, debruijn, ordered, offsets, values)
    return offsets, values[:k]


@numba.njit(cache=True, nogil=True)
def _read_values(words, first, used, value_of, debruijn, ordered, offsets, values):
    # Ordered values arrive sorted, so a repeat is the value just kept (several cards of a
    # kind); any other map needs a seen flag per value and insertion into the row's values.
    # A function of its own, not the rest of _read_bits: written inline there the walk
    # was no faster in alternated timings.
    n_values = 1
    if not ordered:
        for v in value_of:
            n_values = max(n_values, v + 1)
    seen = np.zeros(n_values, np.bool_)
    k = 0
    for i in range(words.shape[0]):
        row = k
        last = -1
        for w in range(first, first + used):
            x = words[i, w] & 0xFFFFFFFF
            base = (w - first) * WORD_BITS
            while x:
                low = x & -x
                x ^= low
                v = value_of[base + debruijn[((low * 0x077CB531) & 0xFFFFFFFF) >> 27]]
                if ordered:
                    if v > last:
                        values[k] = v
                        k += 1
                        last = v
                elif v >= 0 and not seen[v]:
                    seen[v] = True
                    # Insertion into the row's sorted values (a row holds a few dozen).
                    j = k
                    while j > row and values[j - 1] > v:
                        values[j] = values[j - 1]
                        j -= 1
                    values[j] = v
                    k += 1
        if not ordered:
            for j in range(row, k):
                seen[values[j]] = False
        offsets[i + 1] = k
    return k


def bit_values(words: np.ndarray, first: int, n_words: int, value_of: np.ndarray) -> pa.ListArray:
    """list<int16>: for each row, ``value_of[b]`` of every set bit ``b`` of its words
    ``first .. first+n_words-1``, each value once, ascending; ``value_of[b] < 0`` drops bit ``b``.

    ``value_of`` covers ``n_words * 32`` bits.
    """
    if len(value_of) != n_words * WORD_BITS:
        raise ValueError(f"value_of has {len(value_of)} entries for {n_words} words of bits")
    words = np.ascontiguousarray(words, dtype=np.int64)
    value_of = np.ascontiguousarray(value_of, dtype=np.int64)
    offsets, values = _read_bits(words, first, n_words, value_of, _DEBRUIJN)
    return pa.ListArray.from_arrays(pa.array(offsets), pa.array(values))


def warmup() -> None:
    """Load (or compile) the compiled reader, so the first table is not slowed by it.

    Its compile defers a Ctrl-C to its end, as a kernel's does (``docs/compile.md``): one
    arriving while LLVM calls back into Python would otherwise be dropped there."""
    with interrupts_deferred():
        bit_values(np.ones((1, 1), np.int64), 0, 1, np.arange(WORD_BITS))
