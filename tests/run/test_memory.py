"""Memory stays flat in the number of games: each chunk's arrays are released once written,
the list columns are read without temporaries, and the run command keeps pandas out."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest

from sim.base import layout as L
from sim.data.spec import RunSpec
from sim.kernel.batch import Batch
from sim.run import engine as engine_module
from sim.run import runner
from sim.run.engine import Engine

ROOT = Path(__file__).resolve().parents[2]


def test_chunk_arrays_are_released(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Playing chunk k, the kernel's arrays and rows of chunks before k-1 are gone (arrays
    become Arrow as they are played; chunk k-1's last call may still be converting, and its
    rows being written, when chunk k's first calls are queued)."""
    chunk = 100
    real_start_raw, real_groups = Engine.start_raw, Engine.play_groups
    arrays: list[tuple[int, weakref.ref[np.ndarray]]] = []  # (chunk index, kernel array)
    tables: list[tuple[int, weakref.ref[pa.Table]]] = []  # (chunk index, its rows)
    held_too_long: list[str] = []

    def start_raw(self: Engine, start: int, n: int) -> Batch:
        gc.collect()
        now = start // chunk
        # Chunk k+1's first calls queue while chunk k's last arrays become Arrow.
        held_too_long.extend(f"array {k}" for k, r in arrays if k < now - 1 and r() is not None)
        held_too_long.extend(f"table {k}" for k, r in tables if k < now - 1 and r() is not None)
        batch = real_start_raw(self, start, n)
        arrays.extend([(now, weakref.ref(batch.out)), (now, weakref.ref(batch.masks))])
        return batch

    def play_groups(
        self: Engine, start: int, n: int, tick: Any, then: Any = None
    ) -> Iterator[pa.Table]:
        for table in real_groups(self, start, n, tick, then):
            tables.append((start // chunk, weakref.ref(table)))
            yield table
            del table

    monkeypatch.setattr(Engine, "start_raw", start_raw)
    monkeypatch.setattr(Engine, "play_groups", play_groups)
    runner.run(RunSpec(games=7 * chunk, seed=3), tmp_path / "run", chunk_size=chunk, progress=False)
    assert {k for k, _ in arrays} == {k for k, _ in tables} == set(range(7))
    assert held_too_long == []
    gc.collect()
    assert all(r() is None for _, r in arrays + tables)


def _bits_reference(words: np.ndarray) -> list[list[int]]:
    """Set bits of each row, one Python int at a time: the plain reading of the masks."""
    return [
        [w * 32 + b for w in range(words.shape[1]) for b in range(32) if int(row[w]) >> b & 1]
        for row in words
    ]


def test_list_columns_hold_each_rows_set_bits() -> None:
    """The played/held/feat list columns (read by ``sim.run.bitlists``' compiled loop) hold
    each row's set bits exactly: empty rows, every word, kinds each once and ascending, and
    nothing from the unused high half of an int64 word."""
    rng = np.random.default_rng(5)
    masks = rng.integers(0, 2**32, (23, 4 * L.MASK_WORDS)) & rng.integers(0, 2**32, (23, 1))
    masks[[0, 7, 22]] = 0
    masks[3, 0] = 0xFFFFFFFF  # every bit of a word
    high = masks | (rng.integers(1, 2**31, masks.shape) << 32)  # the kernel never sets these
    card_kind = rng.permutation(np.repeat(np.arange(40), 3))  # 3 copies a kind, any order
    for seat in range(2):
        played = engine_module.played_lists(high, seat).to_pylist()
        words = masks[:, seat * L.MASK_WORDS : (seat + 1) * L.MASK_WORDS]
        assert played == _bits_reference(words)
        held = engine_module.held_lists(high, seat, card_kind).to_pylist()
        words = masks[:, (2 + seat) * L.MASK_WORDS : (3 + seat) * L.MASK_WORDS]
        want = [
            sorted({int(card_kind[c]) for c in row if c < len(card_kind)})
            for row in _bits_reference(words)
        ]
        assert held == want
    assert engine_module.bit_lists(high[:, 0], 5).to_pylist() == [
        [b for b in row if b < 5] for row in _bits_reference(masks[:, :1])
    ]
    assert engine_module.played_lists(masks[:0], 0).to_pylist() == []
    assert engine_module.played_lists(masks, 0).type == pa.list_(pa.int16())


_RUN_WITHOUT_PANDAS = """
import sys
from sim.cli import main
args = ["run", "--games", "40", "--seed", "2", "--out", sys.argv[1], "--quiet"]
main(args, standalone_mode=False)
print("pandas" in sys.modules, "scipy.linalg" in sys.modules)
"""


def test_the_run_command_never_imports_pandas_or_blas(tmp_path: Path) -> None:
    """`omensim run` writes Arrow only; pandas (~45 MB of RSS) stays out of its process,
    though pyarrow's first ``pa.array`` would import it by itself; so does scipy's BLAS
    (~12 MB), which numba would load when it loads the kernel."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", _RUN_WITHOUT_PANDAS, str(tmp_path / "run")],
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-2:] == ["False", "False"]
    assert (tmp_path / "run" / "_manifest.json").exists()
