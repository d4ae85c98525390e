"""Memory stays flat in the number of games: each chunk's arrays are released once written."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

import numpy as np
import pytest

from sim.data.spec import RunSpec
from sim.run import runner
from sim.run.engine import Engine


def test_chunk_arrays_are_released(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_play_raw = Engine.play_raw
    refs: list[weakref.ref[np.ndarray]] = []
    alive_at_each_chunk: list[int] = []

    def play_raw(self: Engine, start: int, n: int) -> tuple[np.ndarray, np.ndarray]:
        gc.collect()
        alive_at_each_chunk.append(sum(r() is not None for r in refs))
        out, masks = real_play_raw(self, start, n)
        refs.extend([weakref.ref(out), weakref.ref(masks)])
        return out, masks

    monkeypatch.setattr(Engine, "play_raw", play_raw)
    runner.run(RunSpec(games=700, seed=3), tmp_path / "run", chunk_size=100, progress=False)
    assert len(alive_at_each_chunk) == 7
    # While a chunk is played, only the previous one (being written) may still be held.
    assert max(alive_at_each_chunk) <= 2
    gc.collect()
    assert all(r() is None for r in refs)
