"""Kernel calls queued ahead: the same rows, and nothing left playing.

``Engine.play_groups`` keeps the next kernel call queued on the kernel threads
while it converts the last one's rows (``sim.kernel.batch.start_batch``). These
tests pin what that must not change: the rows of every game, and that a run
stopped early leaves no kernel work running into arrays nobody reads.
"""

from __future__ import annotations

import itertools
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import wait as real_wait

import numba
import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sim.compiler import entry_point
from sim.data.spec import RunSpec
from sim.kernel.batch import (
    Batch,
    cancel_all,
    even_bounds,
    guided_bounds,
    kernel_pool,
    output_arrays,
    play_batch,
    play_range,
    scratch_states,
    start_batch,
    thread_state,
)
from sim.run.engine import IN_FLIGHT, Engine
from sim.run.session import numba_threads
from sim.run.view import StateView


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(RunSpec(games=3000, mix="dunes+aegean", seed=11))


@pytest.mark.parametrize(("start", "n", "blocks"), [(0, 1, 4), (7, 97, 3), (500, 640, 16)])
def test_a_queued_call_plays_the_rows_of_a_blocking_one(
    engine: Engine, start: int, n: int, blocks: int
) -> None:
    queued = start_batch(engine.args, start, n, blocks)
    out, masks = play_batch(engine.args, start, n, blocks)
    q_out, q_masks = queued.result()
    np.testing.assert_array_equal(q_out, out)
    np.testing.assert_array_equal(q_masks, masks)


def test_a_cancelled_call_stops_and_the_one_before_is_whole(engine: Engine) -> None:
    first = start_batch(engine.args, 0, 800, 8)
    second = start_batch(engine.args, 800, 800, 8)
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


def test_the_next_ranges_first_calls_queue_behind_this_ones_last(engine: Engine) -> None:
    """With ``then``, the next range's first calls are queued before this range's last
    result is used, the next ``play_groups`` plays them, and the rows are those of
    ranges played one after the other without it."""
    queued: list[int] = []
    real = engine.start_raw

    def recording(start: int, n: int) -> Batch:
        queued.append(start)
        return real(start, n)

    engine.start_raw = recording  # type: ignore[method-assign]
    try:
        first = list(engine.play_groups(0, 400, lambda rows: False, then=(400, 500)))
        assert engine.ahead[:1] == [400]  # queued, not yet played
        ahead = len(queued)
        second = list(engine.play_groups(400, 500, lambda rows: False))
    finally:
        del engine.start_raw
    assert 400 in queued[:ahead]  # the second range's first call came from the first range
    assert engine.ahead == []
    got = pa.concat_tables(first + second)
    assert got.equals(engine.play(0, 900))


def test_calls_queued_for_a_range_never_played_are_dropped(engine: Engine) -> None:
    """A range that does not finish (here a caller that stops reading) cancels the next
    range's queued calls, and ``drop_ahead`` cancels them after one that did."""
    queued: list[Batch] = []
    real = engine.start_raw

    def recording(start: int, n: int) -> Batch:
        queued.append(real(start, n))
        return queued[-1]

    engine.start_raw = recording  # type: ignore[method-assign]
    try:
        groups = engine.play_groups(0, 200, lambda rows: False, then=(200, 100))
        next(groups)
        assert engine.ahead == [200]
        groups.close()
        assert engine.ahead == []
        assert all(f.done() for b in queued for f in b.futures)
        list(engine.play_groups(0, 200, lambda rows: False, then=(200, 100)))
        assert engine.ahead == [200]
        engine.drop_ahead()
        assert engine.ahead == []
        assert all(f.done() for b in queued for f in b.futures)
    finally:
        del engine.start_raw


def _ctrl_c_in_the_first_wait(release: threading.Event | None = None):  # type: ignore[no-untyped-def]
    """A ``concurrent.futures.wait`` a Ctrl-C cuts short the first time it is called (a
    second Ctrl-C arriving while a stopped run waits for its kernel blocks); later calls
    set ``release`` and wait. Its ``calls`` list the number of futures of each call."""
    calls: list[int] = []

    def wait(fs, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(len(fs))
        if len(calls) == 1:
            raise KeyboardInterrupt
        if release is not None:
            release.set()
        return real_wait(fs, *args, **kwargs)

    wait.calls = calls  # type: ignore[attr-defined]
    return wait


def test_a_ctrl_c_during_the_cancel_does_not_cut_the_wait_short(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every block is dropped before the wait, the wait goes on after a Ctrl-C until the
    running block has ended, and the Ctrl-C is raised only then."""
    release = threading.Event()
    with ThreadPoolExecutor(max_workers=1) as pool:
        running = pool.submit(release.wait, 60)
        queued = pool.submit(lambda: None)
        batch = Batch(np.zeros(0), np.zeros(0), [running, queued])
        wait = _ctrl_c_in_the_first_wait(release)
        monkeypatch.setattr("sim.kernel.batch.wait", wait)
        with pytest.raises(KeyboardInterrupt):
            cancel_all([batch])
        assert running.done() and running.result() is True
        assert queued.cancelled()
        assert wait.calls == [1, 1]


def test_a_second_ctrl_c_while_a_dropped_range_cancels_prints_nothing(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A caller unwound by a first Ctrl-C drops its ``play_groups`` generator, which the
    interpreter then closes: a second Ctrl-C while it cancels its queued calls is not
    printed as an ignored exception with a traceback, and the calls are still ended."""
    queued: list[Batch] = []
    real = engine.start_raw

    def recording(start: int, n: int) -> Batch:
        queued.append(real(start, n))
        return queued[-1]

    ignored: list[object] = []
    engine.start_raw = recording  # type: ignore[method-assign]
    try:
        groups = engine.play_groups(0, 200, lambda rows: False, then=(200, 400))
        next(groups)
        assert engine.ahead == [200]
        monkeypatch.setattr("sim.kernel.batch.wait", _ctrl_c_in_the_first_wait())
        monkeypatch.setattr(sys, "unraisablehook", ignored.append)
        del groups  # its last reference: closed here, as by an unwinding caller
    finally:
        del engine.start_raw
    assert ignored == []
    assert engine.ahead == []
    assert all(f.done() for b in queued for f in b.futures)


def test_calls_queued_for_another_range_are_not_taken_over(engine: Engine) -> None:
    """A next range asked for with other bounds than ``then`` said plays its own calls:
    the queued ones are cancelled, and the rows are still the range's own."""
    list(engine.play_groups(0, 100, lambda rows: False, then=(100, 300)))
    assert engine.ahead[:1] == [100]
    got = pa.concat_tables(list(engine.play_groups(100, 50, lambda rows: False)))
    assert engine.ahead == []
    assert got.num_rows == 50 and got.equals(engine.play(100, 50))


def _fresh_rows(engine: Engine, start: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Games ``start .. start+n-1`` played on a newly zeroed state, in this thread."""
    out, masks = output_arrays(n)
    state = scratch_states(engine.bots, 1)[0]
    args = (engine.tab, engine.fp, engine.ask, engine.spec.seed, start, 0, n, state, out, masks)
    entry_point(play_range, *args)(*args)
    return out, masks


def test_a_thread_state_left_by_another_run_plays_the_rows_of_a_fresh_one(engine: Engine) -> None:
    """Every kernel thread keeps one scratch state for the process (``thread_state``):
    a state left by another run (other cards, other bots, a look-ahead seat's rollouts)
    must give the rows a zeroed one gives."""
    other = Engine(RunSpec(games=50, mix="reign", seed=3, p0="lookahead", p1="random"))
    with numba_threads(1):  # the blocks run on this thread, on its one state
        other.play_raw(0, 4)
        state = thread_state(engine.bots)
        view = StateView(state)
        assert list(view.bot_ids) == list(engine.bots) and list(view.param_rows) == [0, 1]
        view.bot_ids = [7, 7]  # seated afresh for every block
        view.script_n = 7
        out, masks = engine.play_raw(40, 60)
        assert thread_state(engine.bots) is state  # no state made per call
    fresh_out, fresh_masks = _fresh_rows(engine, 40, 60)
    np.testing.assert_array_equal(out, fresh_out)
    np.testing.assert_array_equal(masks, fresh_masks)


@given(n=st.integers(0, 300_000), n_blocks=st.integers(1, 64), threads=st.integers(1, 16))
def test_block_bounds_cover_every_game_once_and_a_blocking_call_ends_on_small_blocks(
    n: int, n_blocks: int, threads: int
) -> None:
    guided = guided_bounds(n, n_blocks, threads)
    for bounds in (guided, even_bounds(n, n_blocks)):
        assert bounds[0][0] == 0 and bounds[-1][1] == n
        assert all(a[1] == b[0] for a, b in itertools.pairwise(bounds))
        assert all(lo < hi for lo, hi in bounds) or n == 0
    sizes = [hi - lo for lo, hi in guided]
    if threads == 1:
        assert guided == [(0, n)]  # one thread: no hand-offs at all
    else:
        assert sizes == sorted(sizes, reverse=True)
        # The wait at the end of a call is set by its last blocks: at most a quarter of
        # an even block each, and never more blocks than ~2*threads per halving of n.
        even = -(-n // max(1, min(n_blocks, n)))
        assert max(sizes[-threads:]) <= max(1, -(-even // 4), -(-n // (2 * threads)))
        assert len(guided) <= 4 * max(1, min(n_blocks, n)) + 2 * threads * 40
