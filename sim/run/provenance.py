"""What a reviewer needs to check a run: the code, the libraries and the bots it used.

Recorded in every run's manifest (``provenance``) and Parquet metadata. The
git commit is read from the checkout the code runs from (``None`` when it is
not a git checkout, e.g. an installed wheel); ``git_dirty`` says whether
tracked files differed from that commit, in which case the commit alone does
not reproduce the run.
"""

from __future__ import annotations

import platform
import subprocess
from pathlib import Path
from typing import Any

import numba
import numpy as np
import pyarrow as pa

import sim
from sim.compiler.mode import MODE

REPO = Path(sim.__file__).resolve().parent.parent


def git_state(repo: Path = REPO) -> dict[str, Any]:
    """``{"git_commit": sha or None, "git_dirty": bool or None}`` of the checkout at ``repo``."""

    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(
                ["git", "-C", str(repo), *args], capture_output=True, text=True, timeout=10
            )
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    if not (repo / ".git").exists():
        return {"git_commit": None, "git_dirty": None}
    commit = git("rev-parse", "HEAD")
    status = git("status", "--porcelain", "--untracked-files=no")
    return {"git_commit": commit, "git_dirty": None if status is None else bool(status)}


def library_versions() -> dict[str, str]:
    """Versions of the code that decides the games' numbers."""
    return {
        "omensim": sim.__version__,
        "python": platform.python_version(),
        "numba": numba.__version__,
        "compile_mode": MODE,
        "numpy": np.__version__,
        "pyarrow": pa.__version__,
    }


def bot_parameters(names: tuple[str, str], fp: np.ndarray) -> dict[str, Any]:
    """Each seat's bot and the parameter vector the kernel actually read (``Engine.fp``)."""
    return {
        f"p{seat}": {"strategy": names[seat], "parameters": [float(x) for x in fp[seat]]}
        for seat in range(2)
    }


def provenance(names: tuple[str, str], fp: np.ndarray) -> dict[str, Any]:
    """Git state, library versions and bot parameter vectors, JSON-ready."""
    return {**git_state(), "versions": library_versions(), "bots": bot_parameters(names, fp)}
