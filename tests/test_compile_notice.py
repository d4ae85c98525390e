"""First run: importing compiles nothing, and a cold kernel cache is announced before compiling."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sim.run import compile_notice as cn

ROOT = Path(__file__).resolve().parents[1]

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


def test_cold_cache_is_announced_before_the_compile(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cn, "kernel_cached", lambda: False)
    out = io.StringIO()
    seen_inside = ""
    with cn.compile_notice(out):
        seen_inside = out.getvalue()
    assert seen_inside.startswith("compiling the game kernel (first run only, ~")
    assert out.getvalue().rstrip().endswith(" s")
    assert "compiled in" in out.getvalue()


def test_warm_cache_or_quiet_prints_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    out = io.StringIO()
    monkeypatch.setattr(cn, "kernel_cached", lambda: True)
    with cn.compile_notice(out):
        pass
    monkeypatch.setattr(cn, "kernel_cached", lambda: False)
    with cn.compile_notice(out, enabled=False):
        pass
    assert out.getvalue() == ""


def test_notice_reports_the_time_even_when_the_compile_fails(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(cn, "kernel_cached", lambda: False)
    out = io.StringIO()
    with pytest.raises(RuntimeError), cn.compile_notice(out):
        raise RuntimeError("boom")
    assert "stopped after" in out.getvalue()
