"""The event trace's hooks, compiled in or out once per process (``sim.kernel.trace``).

A normal run's kernels have no hook code; a replay's process turns the hooks on before
its first kernel compiles. The test suite compiles them in (``tests/conftest.py``), so
the build without them is played here in a child process.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys

import pytest

from sim.compiler import mode
from sim.data.spec import RunSpec
from sim.kernel import trace as T
from sim.run.engine import Engine

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def child(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a new Python process without the test suite's trace switch."""
    environ = {k: v for k, v in os.environ.items() if k != mode.HOOKS_ENV}
    environ.update(env)
    environ["PYTHONPATH"] = ROOT + os.pathsep + environ.get("PYTHONPATH", "")
    return subprocess.run(
        [sys.executable, "-c", code], env=environ, capture_output=True, text=True, timeout=900
    )


@pytest.mark.parametrize(("value", "on"), [("", False), ("0", False), ("1", True), (" 1 ", True)])
def test_the_variable_asks_for_the_hooks(value: str, on: bool) -> None:
    assert mode.hooks_wanted({mode.HOOKS_ENV: value}) is on
    assert mode.hooks_wanted({}) is False


def test_a_bad_value_is_refused() -> None:
    with pytest.raises(ValueError, match="OMENSIM_TRACE_HOOKS must be 0 or 1"):
        mode.hooks_wanted({mode.HOOKS_ENV: "yes"})


def test_the_test_suite_has_the_hooks() -> None:
    assert T.HOOKS and T.use_hooks()


@pytest.mark.skipif(mode.PLAIN, reason="plain mode turns the hooks on at start-up only")
def test_hooks_are_off_by_default_and_a_replay_turns_them_on_before_any_compile() -> None:
    code = (
        "from sim.kernel import trace as T\n"
        "assert not T.HOOKS\n"
        "assert T.use_hooks() and T.HOOKS\n"
        "import os; assert os.environ['OMENSIM_TRACE_HOOKS'] == '1'\n"
        "print('ok')\n"
    )
    got = child(code)
    assert got.returncode == 0, got.stderr
    assert got.stdout.strip() == "ok"


def test_a_process_that_compiled_without_the_hooks_refuses_a_trace() -> None:
    code = (
        "import numpy as np\n"
        "from sim.kernel import trace as T\n"
        "from sim.run.view import new_state, with_trace\n"
        "from strategies import greedy\n"
        "from sim.run.compiled import compile_run\n"
        "from sim.data.spec import RunSpec\n"
        "run = compile_run(RunSpec(games=1, mix='aegean'))\n"
        "greedy.prepare(run.tab, np.zeros((2, greedy.FP_WIDTH)))\n"  # any kernel compiled
        "assert T.any_kernel_compiled() and not T.use_hooks()\n"
        "try:\n"
        "    with_trace(new_state(), 10)\n"
        "except T.TraceUnavailable as e:\n"
        "    print('refused:', e)\n"
    )
    got = child(code)
    assert got.returncode == 0, got.stderr
    assert got.stdout.startswith("refused: the event trace needs kernels compiled with its hooks")


def rows_digest(games: int) -> str:
    """SHA-256 of the kernel rows of ``games`` dunes+aegean greedy games (seed 1)."""
    rows = Engine(RunSpec(games=games, mix="dunes+aegean", seed=1)).play(0, games)
    return hashlib.sha256(repr(rows.to_pylist()).encode()).hexdigest()


def test_the_kernel_without_the_hooks_plays_the_same_games() -> None:
    """The build every run uses (no hooks) against the suite's (hooks in): same rows. It
    costs one compile of that build, and it is the only test that plays it."""
    code = (
        "import sys; sys.path.insert(0, sys.argv[1])\n"
        "from test_trace_hooks import rows_digest\n"
        "from sim.kernel import trace as T\n"
        "assert not T.HOOKS\n"
        "print(rows_digest(300))\n"
    )
    here = os.path.dirname(os.path.abspath(__file__))
    environ = {k: v for k, v in os.environ.items() if k != mode.HOOKS_ENV}
    environ["PYTHONPATH"] = ROOT + os.pathsep + here + os.pathsep + environ.get("PYTHONPATH", "")
    got = subprocess.run(
        [sys.executable, "-c", code, here], env=environ, capture_output=True, text=True, timeout=900
    )
    assert got.returncode == 0, got.stderr
    assert got.stdout.strip().splitlines()[-1] == rows_digest(300)


def test_a_replay_after_a_run_without_the_hooks_plays_in_a_traced_process() -> None:
    code = (
        "import numpy as np\n"
        "from sim.analysis.replay import replay\n"
        "from sim.data.spec import RunSpec\n"
        "from sim.kernel import trace as T\n"
        "from sim.run.compiled import compile_run\n"
        "from strategies import greedy\n"
        "run = compile_run(RunSpec(games=1, mix='aegean'))\n"
        "greedy.prepare(run.tab, np.zeros((2, greedy.FP_WIDTH)))\n"  # compiled without hooks
        "assert not T.use_hooks()\n"
        "r = replay(RunSpec(games=5, mix='aegean', seed=7), 3, check=False)\n"
        "print(len(r.trace()) > 0, 'weighs' in r.story())\n"
    )
    got = child(code)
    assert got.returncode == 0, got.stderr
    assert got.stdout.split() == ["True", "True"]
