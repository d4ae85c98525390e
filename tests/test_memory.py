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
    chunk = 100
    real_play_raw = Engine.play_raw
    refs: list[tuple[int, weakref.ref[np.ndarray]]] = []  # (chunk index, kernel array)
    held_too_long: list[int] = []

    def play_raw(self: Engine, start: int, n: int) -> tuple[np.ndarray, np.ndarray]:
        gc.collect()
        now = start // chunk
        # Playing chunk k, only chunk k-1 (being written) and k itself may still be held.
        held_too_long.extend(k for k, r in refs if k < now - 1 and r() is not None)
        out, masks = real_play_raw(self, start, n)
        refs.extend([(now, weakref.ref(out)), (now, weakref.ref(masks))])
        return out, masks

    monkeypatch.setattr(Engine, "play_raw", play_raw)
    runner.run(RunSpec(games=7 * chunk, seed=3), tmp_path / "run", chunk_size=chunk, progress=False)
    assert {k for k, _ in refs} == set(range(7))
    assert held_too_long == []
    gc.collect()
    assert all(r() is None for _, r in refs)
