"""Kernel calls queued ahead (issue 15): the same rows, and nothing left playing.

``Engine.play_groups`` keeps the next kernel call queued on the kernel threads
while it converts the last one's rows (``sim.kernel.batch.start_batch``). These
tests pin what that must not change: the rows of every game, and that a run
stopped early leaves no kernel work running into arrays nobody reads.
"""

from __future__ import annotations

import threading

import numba
import numpy as np
import pytest

from sim.data.spec import RunSpec
from sim.kernel.batch import Batch, kernel_pool, play_batch, start_batch
from sim.run.engine import IN_FLIGHT, Engine


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(RunSpec(games=3000, mix="dunes+aegean", seed=11))


@pytest.mark.parametrize(("start", "n", "blocks"), [(0, 1, 4), (7, 97, 3), (500, 640, 16)])
def test_a_queued_call_plays_the_rows_of_a_blocking_one(
    engine: Engine, start: int, n: int, blocks: int
) -> None:
    args = (engine.tab, engine.fp, engine.bots, engine.spec.seed, start, n, blocks, engine.ask)
    queued = start_batch(*args)
    out, masks = play_batch(*args)
    q_out, q_masks = queued.result()
    np.testing.assert_array_equal(q_out, out)
    np.testing.assert_array_equal(q_masks, masks)


def test_a_cancelled_call_stops_and_the_one_before_is_whole(engine: Engine) -> None:
    args = (engine.tab, engine.fp, engine.bots, engine.spec.seed)
    first = start_batch(*args, 0, 800, 8, engine.ask)
    second = start_batch(*args, 800, 800, 8, engine.ask)
    second.cancel()
    assert all(f.done() for f in second.futures)
    out, _ = first.result()
    np.testing.assert_array_equal(out, engine.play_raw(0, 800)[0])


def test_a_tick_that_stops_the_run_drops_the_call_queued_after(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The call queued behind the first is cancelled when the tick stops the run.

    Every kernel thread is held by a waiting task queued between the two calls,
    so the second call is still waiting when the tick stops the run: without the
    cancel it would play on into arrays nobody reads.
    """
    started: list[Batch] = []
    real = engine.start_raw
    release = threading.Event()
    pool = kernel_pool(numba.get_num_threads())

    def recording(start: int, n: int) -> Batch:
        if started:  # the second call: hold every kernel thread first
            for _ in range(numba.get_num_threads()):
                pool.submit(release.wait, 60)
        batch = real(start, n)
        started.append(batch)
        return batch

    monkeypatch.setattr(engine, "start_raw", recording)
    try:
        table = engine.play(0, 3000, tick=lambda rows: True)
        assert len(started) == IN_FLIGHT  # the next call was queued before the first ended
        assert all(f.cancelled() for f in started[1].futures)
    finally:
        release.set()
    assert table.equals(engine.play(0, table.num_rows))
