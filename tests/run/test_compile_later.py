"""A kernel compiled where no run waits for it (``sim/run/compile_later.py``).

A run plays its linked build once the cache holds it and otherwise has a detached child
compile it (``Engine.warmup``), started as the run's process exits; one child per kernel
at a time, none when ``OMENSIM_COMPILE_LATER=0``. The end-to-end test compiles a tiny
kernel of this file in a fresh interpreter with an empty cache.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fresh import in_fresh_interpreter

from sim.data.spec import RunSpec
from sim.kernel.jit import PLAIN, kernel
from sim.run import compile_later as C
from sim.run import engine as E
from sim.run.lock import LOCK_NAME, holder_pid


@kernel
def tiny(mask, n):
    """Not a real entry point: what the child compiles."""
    return mask[n] * 7


def cache() -> Path:
    """This interpreter's numba cache directory."""
    return Path(os.environ["NUMBA_CACHE_DIR"])


def compiled_later() -> dict[str, object]:
    """Ask for :func:`tiny` to be compiled later, start the child as an exiting process
    would, and report whether it was asked for, whether a child ran before the start,
    whether a second start was refused while the child held the lock, whether the child
    waited (half a second) while this process lived on, then, this process's end
    simulated, the child's exit status and whether the cache then holds the kernel (run in
    a fresh interpreter with an empty cache)."""
    os.environ[C.ENV] = "1"
    name = f"{__name__}:tiny"
    asked = C.compile_later(name)
    before = list(C.CHILDREN)
    (child,) = C.start_pending()
    # The child takes the lock as it starts: until then a second start is not refused.
    while child.poll() is None and holder_pid(C.lock_folder(name)) is None:
        time.sleep(0.01)
    again = C.compile_later(name) if child.poll() is None else False
    time.sleep(0.5)
    waited = child.poll() is None and not list(cache().rglob(f"{__name__}.tiny-*.nbi"))
    os.close(C.WAITED_ON.pop())  # as this process's exit would: the child goes on
    code = child.wait(timeout=300)
    return {
        "asked": asked,
        "before": before,
        "again": again,
        "waited": waited,
        "code": code,
        "cached": bool(list(cache().rglob(f"{__name__}.tiny-*.nbi"))),
        "lock_left": (C.lock_folder(name) / LOCK_NAME).exists(),
        "pending": C.PENDING,
    }


def test_a_child_compiles_the_kernel_into_the_cache_and_releases_its_lock(
    tmp_path: Path,
) -> None:
    got = in_fresh_interpreter("test_compile_later", "t.compiled_later()", tmp_path)
    assert got == {
        "asked": True,
        "before": [],
        "again": False,
        "waited": True,
        "code": 0,
        "cached": True,
        "lock_left": False,
        "pending": [],
    }


def test_no_child_when_switched_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(C.ENV, "0")
    assert C.compile_later(f"{__name__}:tiny") is False


HOLD = """
import sys, time
from sim.run.lock import locked
with locked(sys.argv[1]):
    print("held", flush=True)
    time.sleep(600)
"""


def test_a_live_lock_holds_and_a_dead_one_is_taken_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A child's lock (``sim.run.lock``) refuses a second compile while its process lives;
    once it is killed, however it died, the kernel is asked for again."""
    name = f"{__name__}:tiny"
    folder = tmp_path / "lock"
    folder.mkdir()
    monkeypatch.setenv(C.ENV, "1")
    monkeypatch.setattr(C, "lock_folder", lambda n: folder)
    monkeypatch.setattr(C, "PENDING", [])
    monkeypatch.setattr(C.atexit, "register", lambda fn: None)  # nothing starts at exit
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(folder)], stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        assert holder_pid(folder) == holder.pid
        assert C.compile_later(name) is False
    finally:
        holder.kill()
        holder.wait()
    assert holder_pid(folder) is None
    assert C.compile_later(name) is True
    assert [name] == C.PENDING


GREEDY_ENTRY = "strategies.greedy_batch:play_range_shared_deck_greedy_seats"
SEARCH_TWIN = "strategies.policy:choose.linked"


@pytest.mark.skipif(PLAIN, reason="plain numba has no linked builds")
@pytest.mark.parametrize("cached", [True, False])
@pytest.mark.parametrize(
    ("p0", "new", "top_name", "ask_name"),
    [
        ("greedy", GREEDY_ENTRY, GREEDY_ENTRY, "strategies.heuristic:choose_greedy_seats"),
        (
            "search",
            SEARCH_TWIN,
            "sim.kernel.batch:play_range_shared_deck_without_reign_steps",
            SEARCH_TWIN,
        ),
    ],
)
def test_a_run_plays_its_linked_build_once_cached_else_compiles_it_later(
    monkeypatch: pytest.MonkeyPatch, cached: bool, p0: str, new: str, top_name: str, ask_name: str
) -> None:
    """``new``: the one kernel of the build a first run has not compiled already."""
    later: list[str] = []
    monkeypatch.setattr(E, "compile_later", lambda name: later.append(name) or True)
    monkeypatch.setattr(E, "linked_cached", lambda k: cached or E.name_of(k) != new)
    # A cold first run compiles the kernel's own tree whatever is cached (the two-core
    # compile's child); this test is about the runs after it.
    monkeypatch.setattr(E, "two_core_compile_due", lambda *a: False)
    engine = E.Engine.ready(RunSpec(games=10, mix="dunes+aegean", p0=p0))
    if cached:
        assert (E.name_of(engine.top), E.name_of(engine.ask)) == (top_name, ask_name)
        assert later == []
    else:
        assert engine.top is None
        assert E.name_of(engine.ask) != SEARCH_TWIN
        assert later == [new]


@pytest.mark.skipif(PLAIN, reason="plain numba has no linked builds")
def test_a_benchmark_links_now_and_leaves_nothing_behind(monkeypatch: pytest.MonkeyPatch) -> None:
    later: list[str] = []
    monkeypatch.setattr(E, "compile_later", lambda name: later.append(name) or True)
    monkeypatch.setattr(E, "linked_cached", lambda k: False)
    engine = E.Engine(RunSpec(games=10, mix="dunes+aegean"))
    engine.warmup(linked=True)
    assert E.name_of(engine.top) == GREEDY_ENTRY
    assert later == []


@pytest.mark.skipif(PLAIN, reason="plain numba has no linked builds")
@pytest.mark.parametrize("p0", ["greedy", "search"])
def test_a_benchmark_of_the_first_run_tree_plays_it_whatever_is_cached(
    monkeypatch: pytest.MonkeyPatch, p0: str
) -> None:
    later: list[str] = []
    monkeypatch.setattr(E, "compile_later", lambda name: later.append(name) or True)
    monkeypatch.setattr(E, "linked_cached", lambda k: True)
    engine = E.Engine(RunSpec(games=10, mix="dunes+aegean", p0=p0))
    engine.warmup(linked=False)
    assert engine.top is None
    assert engine.ask is engine.compiled.ask
    assert later == []


def test_a_run_of_other_bots_has_no_linked_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    later: list[str] = []
    monkeypatch.setattr(E, "compile_later", lambda name: later.append(name) or True)
    engine = E.Engine.ready(RunSpec(games=10, mix="dunes+aegean", p0="random"))
    assert engine.top is None
    assert later == []
    engine.warmup(linked=True)
    assert engine.top is None
