"""One expression of a test module, evaluated in a fresh interpreter with its own numba cache.

Cache and compile tests need a process that has loaded nothing yet: the parent
has compiled (or loaded) the kernels already, so what a new process compiles,
loads or links can only be seen in a child.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def in_fresh_interpreter(
    module: str, expr: str, cache: Path, drop_env: tuple[str, ...] = ()
) -> Any:
    """The value of ``expr`` (test module ``module`` imported as ``t``), sent back as JSON,
    from a new interpreter whose numba cache is ``cache``, without the ``drop_env`` variables."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    for name in drop_env:
        env.pop(name, None)
    # Test modules live in one folder per layer (tests/kernel, tests/run, ...).
    layers = sorted(str(d) for d in HERE.iterdir() if d.is_dir() and any(d.glob("test_*.py")))
    path = [str(HERE), *layers, str(HERE.parent), env.get("PYTHONPATH", "")]
    env["PYTHONPATH"] = os.pathsep.join(path)
    code = f"import json, {module} as t; print(json.dumps({expr}))"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])
