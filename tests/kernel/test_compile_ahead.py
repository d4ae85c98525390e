"""A cold compile on two cores (``sim/run/compile_ahead.py``, ``sim/kernel/claims.py``).

The child compiles part of the tree into numba's on-disk cache while the parent
compiles the rest; the parent then *loads* the child's part instead of
compiling it, and a kernel the child is compiling when the parent reaches it is
waited for, not compiled twice. These tests use tiny kernels of their own in a
fresh interpreter with an empty cache, and read numba's cache hit and miss
counters: the child's kernel must be a cache hit in the parent, and when the
child fails the parent must still compile everything itself (a miss, and the
same answer).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fresh import in_fresh_interpreter

from sim.kernel import claims
from sim.kernel.jit import declared_signature, kernel
from sim.run import compile_ahead as C


@kernel
def child_half(mask, n):
    """Not a real kernel: the part the child compiles."""
    return mask[n] * 3


@kernel
def own_half(mask, n):
    """Not a real kernel: the part the parent compiles while the child works."""
    return mask[n] + 1


@kernel
def tiny_ask(st, tab, fp, p, dec, n):
    """Not a real bot: always the first option."""
    return 0


@kernel
def tiny_top(mask, n):
    """Not a real entry point: calls both halves, as play_range calls the whole tree."""
    return child_half(mask, n) + own_half(mask, n)


def hits_and_misses(child_work: list[str], sent: bool = False) -> dict[str, object]:
    """Run the two-core compile of :func:`tiny_top` here, the child compiling ``child_work``
    (given it on its command line, or, ``sent``, once this process has started it) and
    this process :func:`own_half`, and report numba's cache counters and whether this
    process's ``meanwhile`` warm-up ran before the top was compiled. The warm-up waits
    (up to a minute) for the child to compile :func:`child_half`, so that the child gets
    there first however slowly it starts."""
    import numpy as np

    sig = declared_signature(child_half.py_func)
    warmed: list[bool] = []
    child = f"{__name__}:child_half"

    def warm() -> None:
        deadline = time.monotonic() + 60
        while child in child_work and not claims.is_done(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        warmed.append(not tiny_top.overloads)

    own = [f"{__name__}:own_half"]
    with C.compiling_ahead([] if sent else child_work) as ahead:
        if sent:
            ahead.send(child_work)
        ahead.finish(tiny_ask, tiny_top, own, meanwhile=(warm,))
    return {
        "child_hits": child_half.stats.cache_hits.get(sig, 0),
        "child_misses": child_half.stats.cache_misses.get(sig, 0),
        "value": int(tiny_top(np.arange(4, dtype=np.int64), 2)),
        "warmed": warmed,
    }


def fresh(child_work: list[str], cache: Path, sent: bool = False) -> dict[str, object]:
    """:func:`hits_and_misses` in a fresh interpreter compiling into the empty ``cache``."""
    expr = f"t.hits_and_misses({child_work!r}, {sent!r})"
    return in_fresh_interpreter("test_compile_ahead", expr, cache)


@pytest.mark.parametrize("sent", [False, True])
def test_the_parent_loads_what_the_child_compiled(tmp_path: Path, sent: bool) -> None:
    got = fresh(["test_compile_ahead:child_half"], tmp_path, sent)
    assert got == {"child_hits": 1, "child_misses": 0, "value": 2 * 3 + 2 + 1, "warmed": [True]}


def test_a_failed_child_costs_only_time(tmp_path: Path) -> None:
    """Control: with nothing from the child the parent compiles it (a miss), same value."""
    got = fresh(["test_compile_ahead:no_such_kernel"], tmp_path)
    assert got == {"child_hits": 0, "child_misses": 1, "value": 2 * 3 + 2 + 1, "warmed": [True]}


HOLDER = """
import sys, time
from pathlib import Path
import test_compile_ahead as t
from sim.kernel import claims
with claims.claiming(Path(sys.argv[1])), claims.claim("test_compile_ahead:child_half"):
    print("held", flush=True)
    time.sleep(float(sys.argv[2]))
    t.child_half.compile(t.declared_signature(t.child_half.py_func))
"""


def waits_for_a_claimed_kernel(folder: str, hold_s: float) -> dict[str, object]:
    """Start a process that claims :func:`child_half` and compiles it after ``hold_s``;
    then compile :func:`tiny_top` here, claiming in ``folder``, and report the cache
    counters of ``child_half`` and how long the compile took."""
    here = os.path.dirname(__file__)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, folder, str(hold_s)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([here, os.environ["PYTHONPATH"]])},
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    t0 = time.perf_counter()
    with claims.claiming(Path(folder)):
        tiny_top.compile(declared_signature(tiny_top.py_func))
    seconds = time.perf_counter() - t0
    assert holder.wait() == 0
    sig = declared_signature(child_half.py_func)
    return {
        "hits": child_half.stats.cache_hits.get(sig, 0),
        "misses": child_half.stats.cache_misses.get(sig, 0),
        "waited": seconds >= hold_s,
    }


def test_a_kernel_the_other_process_is_compiling_is_waited_for_and_loaded(
    tmp_path: Path,
) -> None:
    """Without the claim both processes compiled the kernel (a miss here too)."""
    got = in_fresh_interpreter(
        "test_compile_ahead",
        f"t.waits_for_a_claimed_kernel({str(tmp_path / 'claims')!r}, 1.0)",
        tmp_path / "cache",
    )
    assert got == {"hits": 1, "misses": 0, "waited": True}


def test_a_kernel_taken_or_done_elsewhere_is_not_taken_again(tmp_path: Path) -> None:
    name = "test_compile_ahead:own_half"
    with claims.claiming(tmp_path):
        with claims.claim_if_free(name) as mine:
            assert mine
            # The same name from another open file (as another process would): refused.
            with open(tmp_path / name, "w") as f, pytest.raises(BlockingIOError):
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            claims.mark_done(name)
        with claims.claim_if_free(name) as again:
            assert not again
        assert claims.is_done(name)
    assert not claims.is_done(name)  # outside ``claiming``: nothing is claimed


def test_without_claiming_a_compile_takes_no_claim(tmp_path: Path) -> None:
    with claims.claim("test_compile_ahead:own_half"):
        pass
    with claims.claim_if_free("test_compile_ahead:own_half") as mine:
        assert mine
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("name", C.WORK + C.REIGN_STEPS + tuple(C.SETUP_OF.values()))
def test_every_named_part_is_a_kernel_compiled_on_its_own(name: str) -> None:
    """A renamed kernel would make the two-core compile silently one-core, and one copied
    into its callers (``into_caller``) would be compiled on its own for nothing."""
    assert C.kernel_named(name).targetoptions["inline"] == "never"


@pytest.mark.parametrize("top", list(C.SETUP_OF))
def test_the_work_holds_the_set_up_its_entry_point_calls(top: str) -> None:
    """A run that builds decks compiles the draft's set-up, and a run that does not never
    compiles it; a run without A Reign of War's steps never compiles them; the top and the
    dispatcher come last."""
    work = C.work_of(C.kernel_named(top), tiny_ask)
    assert [n for n in work if n in C.SETUP_OF.values()] == [C.SETUP_OF[top]]
    assert work[-2:] == (top, C.name_of(tiny_ask))
    assert [n for n in work if n in C.WORK] == list(C.WORK)
    reign = () if top.endswith("_without_reign_steps") else C.REIGN_STEPS
    assert tuple(n for n in work if n in C.REIGN_STEPS) == reign
    assert len(work) == len(C.WORK) + 3 + len(reign)


def test_a_cold_engine_starts_the_child_before_it_compiles_the_run(monkeypatch) -> None:
    """The child's start-up overlaps the compile of the bots' figures (``compile_run``), and
    the engine finishes the compile with it before its first game."""
    import numba

    from sim.data.spec import RunSpec
    from sim.run import engine as E

    order: list[str] = []

    class Ahead:
        def finish(self, ask: object, top: object, meanwhile: object = ()) -> None:
            order.append("finished")

    @contextlib.contextmanager
    def ahead() -> Iterator[Ahead]:
        order.append("child started")
        yield Ahead()
        order.append("child waited for")

    def compile_run(*args: object) -> object:
        order.append("run compiled")
        return real_compile_run(*args)

    real_compile_run = E.compile_run
    monkeypatch.setattr(E, "kernel_needs_compile", lambda *a: True)
    monkeypatch.setattr(E, "compiling_ahead", ahead)
    monkeypatch.setattr(E, "compile_run", compile_run)
    threads = numba.get_num_threads()
    numba.set_num_threads(2)
    try:
        E.Engine.ready(RunSpec(games=2, mix="aegean"))
    finally:
        numba.set_num_threads(threads)
    assert order == ["child started", "run compiled", "finished", "child waited for"]
