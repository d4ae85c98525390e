"""A cold compile on two cores (``sim/run/compile_ahead.py``).

The child compiles part of the tree into numba's on-disk cache while the parent
compiles the rest; the parent then *loads* the child's part instead of
compiling it. These tests use tiny kernels of their own in a fresh interpreter
with an empty cache, and read numba's cache hit and miss counters: the child's
kernel must be a cache hit in the parent, and when the child fails the parent
must still compile everything itself (a miss, and the same answer).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fresh import in_fresh_interpreter

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


def hits_and_misses(child_part: list[str]) -> dict[str, object]:
    """Run the two-core compile of :func:`tiny_top` here and report numba's cache counters,
    and whether the parent's own part was compiled when its ``meanwhile`` warm-up ran."""
    import numpy as np

    sig = declared_signature(child_half.py_func)
    warmed: list[bool] = []

    def warm() -> None:
        warmed.append(bool(own_half.overloads) and not tiny_top.overloads)

    C.compile_on_two_cores(
        tiny_ask, tiny_top, child_part, [f"{__name__}:own_half"], meanwhile=(warm,)
    )
    return {
        "child_hits": child_half.stats.cache_hits.get(sig, 0),
        "child_misses": child_half.stats.cache_misses.get(sig, 0),
        "value": int(tiny_top(np.arange(4, dtype=np.int64), 2)),
        "warmed": warmed,
    }


def fresh(child_part: list[str], cache: Path) -> dict[str, object]:
    """:func:`hits_and_misses` in a fresh interpreter compiling into the empty ``cache``."""
    return in_fresh_interpreter("test_compile_ahead", f"t.hits_and_misses({child_part!r})", cache)


def test_the_parent_loads_what_the_child_compiled(tmp_path: Path) -> None:
    got = fresh(["test_compile_ahead:child_half"], tmp_path)
    assert got == {"child_hits": 1, "child_misses": 0, "value": 2 * 3 + 2 + 1, "warmed": [True]}


def test_a_failed_child_costs_only_time(tmp_path: Path) -> None:
    """Control: with nothing from the child the parent compiles it (a miss), same value."""
    got = fresh(["test_compile_ahead:no_such_kernel"], tmp_path)
    assert got == {"child_hits": 0, "child_misses": 1, "value": 2 * 3 + 2 + 1, "warmed": [True]}


@pytest.mark.parametrize("name", C.CHILD_PART + C.OWN_PART + tuple(C.SETUP_OF.values()))
def test_every_named_part_is_a_kernel_compiled_on_its_own(name: str) -> None:
    """A renamed kernel would make the two-core compile silently one-core, and one copied
    into its callers (``into_caller``) would be compiled on its own for nothing."""
    assert C.kernel_named(name).targetoptions["inline"] == "never"


@pytest.mark.parametrize("top", list(C.SETUP_OF))
def test_the_parent_compiles_the_set_up_its_entry_point_calls(top: str) -> None:
    """A run that builds decks compiles the draft's set-up beside the child, and a run
    that does not never compiles it."""
    own = C.own_part(C.kernel_named(top))
    assert C.SETUP_OF[top] in own
    assert [n for n in own if n in C.SETUP_OF.values()] == [C.SETUP_OF[top]]
    assert len(own) == len(C.OWN_PART)
