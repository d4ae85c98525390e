"""A kernel cache that cannot be trusted costs a compile, never a traceback or a wrong value.

A cache written by another numba release, or one whose files were cut short by a killed
process, is compiled again in silence; a cache folder that cannot be written is one clear
line, and the run goes on.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

from fresh import in_fresh_interpreter

ROOT = Path(__file__).resolve().parents[2]


def other_release(cache: Path) -> int:
    """Mark every index file under ``cache`` as written by numba 0.0.0; returns how many."""
    n = 0
    for index in cache.rglob("*.nbi"):
        with open(index, "rb") as f:
            pickle.load(f)
            rest = f.read()
        index.write_bytes(pickle.dumps("0.0.0") + rest)
        n += 1
    return n


def cut_short(cache: Path) -> int:
    """Cut every data file under ``cache`` to half its length; returns how many."""
    n = 0
    for data in cache.rglob("*.nbc"):
        data.write_bytes(data.read_bytes()[: data.stat().st_size // 2])
        n += 1
    return n


def test_a_cache_of_another_release_or_cut_short_is_compiled_again(tmp_path: Path) -> None:
    first = in_fresh_interpreter("test_kernels", "t.tree_value()", tmp_path)
    assert other_release(tmp_path) > 0
    assert in_fresh_interpreter("test_kernels", "t.tree_value()", tmp_path) == first
    assert cut_short(tmp_path) > 0
    assert in_fresh_interpreter("test_kernels", "t.tree_value()", tmp_path) == first
    assert first["value"] == first["want"]


def test_a_cache_folder_that_cannot_be_written_is_one_line(tmp_path: Path) -> None:
    """numba then caches elsewhere (beside the source, the user's cache) or not at all."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(blocker / "cache"), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", "import sim.kernel"], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "NUMBA_CACHE_DIR" in done.stderr and "Traceback" not in done.stderr
