"""The compile mode switch (``sim/compiler/mode.py``): plain numba or the extension, apart."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from fresh import in_fresh_interpreter

from sim.compiler import kernel
from sim.compiler.cache import plain_root
from sim.compiler.mode import EXTENSION_RELEASES, PLAIN_ENV, plain_wanted, release


@kernel
def bump(st, i):
    """A kernel of the smallest kind, for the cache tests below."""
    st[i] += 1
    return st[i]


def bump_in_this_process() -> dict[str, object]:
    """Call ``bump`` once; this process's mode and ``bump``'s cache hits and misses."""
    from sim.compiler import MODE

    st = np.zeros(3, np.int64)
    bump(st, 1)
    return {
        "mode": MODE,
        "hits": sum(bump.stats.cache_hits.values()),
        "misses": sum(bump.stats.cache_misses.values()),
    }


def test_the_switch_reads_zero_one_or_nothing() -> None:
    tested = ".".join(map(str, EXTENSION_RELEASES[-1])) + ".1"
    assert plain_wanted({}, tested) is False
    assert plain_wanted({PLAIN_ENV: "0"}, tested) is False
    assert plain_wanted({PLAIN_ENV: "1"}, tested) is True
    with pytest.raises(ValueError, match=PLAIN_ENV):
        plain_wanted({PLAIN_ENV: "yes"}, tested)


def test_a_numba_release_the_extension_is_not_tested_on_gets_plain_mode() -> None:
    assert plain_wanted({PLAIN_ENV: "0"}, "0.99.0") is True
    assert plain_wanted({}, "0.57.1") is True
    assert release("0.69.0rc1") == (0, 69)
    assert release("0.68.1") == (0, 68)


def _files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*.nb[ic]")}


def test_the_two_modes_cache_their_machine_code_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[set[str]] = []
    for asked in ("1", "0", "1", "0"):
        monkeypatch.setenv(PLAIN_ENV, asked)
        got = in_fresh_interpreter("test_compile_mode", "t.bump_in_this_process()", tmp_path)
        assert got["mode"] == ("plain" if asked == "1" else "extension")
        # Each mode compiles once, then loads its own machine code, never the other's.
        assert (got["hits"], got["misses"]) == ((1, 0) if len(seen) >= 2 else (0, 1))
        seen.append({f for f in _files(tmp_path) if ".bump-" in f})
    plain_only, both = seen[0], seen[-1]
    # omensim-plain-numba/, or omensim-plain-numba-traced/ with the trace hooks (conftest)
    plain_dir = plain_root().name + "/"
    assert plain_only and all(f.startswith(plain_dir) for f in plain_only)
    assert both - plain_only  # the extension's files
    assert not any(f.startswith(plain_dir) for f in both - plain_only)
