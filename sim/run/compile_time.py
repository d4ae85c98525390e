"""How long this machine took to compile the kernel, recorded beside the kernel cache.

A first run shows an estimate of its compile (``sim.run.progress.compile_note``).
A fixed figure is wrong on any machine but the one it was measured on (and on a
busy host it was overrun), so the estimate is this machine's own measurement:
each cold compile's wall time is stored in the kernel cache directory, per
compile mode (``sim.compiler.mode``), and read back the next time the cache is
cold (after a change of kernel source drops the machine code, which keeps the
record). A cache directory with no record yet (the first compile into it) has
nothing to go by, and the note shows no figure.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

RECORD = "omensim-compile-seconds.json"
"""The file, in the first kernel cache directory, that holds the measured compiles."""


def record_path() -> Path:
    """Where the measured compile times are kept (the first of the kernel's cache dirs)."""
    from sim.compiler.cache import cache_dirs  # deferred: sim.kernel stamps its cache

    return cache_dirs()[0] / RECORD


def _mode() -> str:
    from sim.compiler.mode import HOOKS, MODE  # deferred: sim.kernel stamps its cache

    return MODE + ("+trace" if HOOKS else "")  # the build with the trace hooks is bigger


def measured_compile_s(path: Path | None = None) -> float | None:
    """The last measured cold compile in this process's compile mode, in wall seconds, or
    ``None`` when none was recorded (or the record cannot be read)."""
    path = path if path is not None else record_path()
    try:
        seconds = json.loads(path.read_text()).get(_mode())
    except (OSError, ValueError, AttributeError):
        return None
    if isinstance(seconds, int | float) and math.isfinite(seconds) and seconds > 0:
        return float(seconds)
    return None


def record_compile_s(seconds: float, path: Path | None = None) -> None:
    """Record a cold compile of ``seconds`` (wall) for this process's compile mode.

    A cache directory that cannot be written only loses the estimate.
    """
    path = path if path is not None else record_path()
    try:
        record = json.loads(path.read_text())
        if not isinstance(record, dict):
            record = {}
    except (OSError, ValueError):
        record = {}
    record[_mode()] = round(float(seconds), 1)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(record, sort_keys=True))
        tmp.replace(path)
    except OSError:
        pass
