"""First run: importing the engine compiles nothing (the kernel compiles on first use)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_COUNT_OVERLOADS = """
import gc
import sim.cli, sim.run.engine, sim.run.runner, sim.run.scenario
from numba.core.registry import CPUDispatcher
ds = [o for o in gc.get_objects() if isinstance(o, CPUDispatcher)]
print(len(ds), sum(len(d.overloads) for d in ds))
"""


def test_importing_the_engine_compiles_nothing(tmp_path: Path) -> None:
    # An empty cache: anything compiled or loaded at import would show as an overload.
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NUMBA_CACHE_DIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", _COUNT_OVERLOADS], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    dispatchers, overloads = map(int, done.stdout.split())
    assert dispatchers > 50  # the kernel modules really were imported
    assert overloads == 0
