"""Helpers shared by the test files: the command line and scenario positions.

Test files import them by name (``from conftest import invoke, ok``); pytest
puts this folder on ``sys.path`` before it collects them.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from click.testing import CliRunner, Result
from hypothesis import settings

from sim.compiler import mode

# The trace hooks compiled in (sim.kernel.trace), before any test compiles a kernel: the
# replay and trace tests need them, and the games are the same with or without them
# (tests/kernel/test_trace_hooks.py plays the build without them).
# sim.compiler.mode read the variable when this file imported it: read it again (nothing has
# imported sim.kernel.trace, which mirrors it, yet).
os.environ.setdefault(mode.HOOKS_ENV, "1")
mode.HOOKS = mode.hooks_wanted(os.environ)

if TYPE_CHECKING:  # the scenario module loads the kernel; tests of the CLI alone need not
    from sim.run.backends import DaskBackend
    from sim.run.scenario import Scenario

ROOT = Path(__file__).resolve().parent.parent

# No hypothesis deadline anywhere: an example's wall time on a shared 2-core host says
# nothing about the code, and a timed assertion in a test is a flake, not a check.
settings.register_profile("omensim", deadline=None)
settings.load_profile("omensim")

# --- the command line ------------------------------------------------------------------


def kill_when(cli_args: Sequence[str], ready: Callable[[], bool], what: str) -> None:
    """Start ``python -m sim.cli CLI_ARGS`` and SIGKILL it as soon as ``ready()`` holds
    (the interrupted command of a resume test)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "sim.cli", *cli_args], env=env)
    deadline = time.monotonic() + 600
    try:
        while not ready():
            assert proc.poll() is None, f"the {what} ended before it could be killed"
            assert time.monotonic() < deadline, f"the {what} reached no kill point in time"
            time.sleep(0.01)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()


@pytest.fixture(scope="module")
def cluster() -> Iterator[DaskBackend]:
    """A 2-process Dask LocalCluster, one per test module (starting one costs seconds)."""
    from sim.run.backends import DaskBackend

    backend = DaskBackend(workers=2, threads=1)
    try:
        yield backend
    finally:
        backend.close()


@pytest.fixture
def probed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The bots (``p0``) whose engines have their speed probed, in order, with every
    request timed (the threshold lowered to one game)."""
    from sim.run import runner

    seen: list[str] = []
    probe = runner.probed_rate

    def counted(engine, *args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(engine.spec.p0)
        return probe(engine, *args, **kwargs)

    monkeypatch.setattr(runner, "PROBE_FROM", 1)
    monkeypatch.setattr(runner, "probed_rate", counted)
    return seen


def invoke(*args: str) -> Result:
    """Run ``omensim ARGS`` in-process and return click's result."""
    from sim.cli import main

    return CliRunner().invoke(main, list(args))


def ok(result: Result) -> Result:
    """Assert a command succeeded, showing its output and traceback if it did not."""
    if result.exit_code != 0:
        tb = "".join(traceback.format_exception(*result.exc_info)) if result.exc_info else ""
        pytest.fail(f"exit {result.exit_code}\n{result.output}\n{tb}")
    return result


def assert_one_error_line(result: Result) -> None:
    """The CLI's promise for user errors: one ``Error:`` line on stderr, no traceback."""
    assert result.exit_code != 0
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("Error: "), result.stderr
    assert "Traceback" not in result.output


def assert_usage_error_wrote_nothing(result: Result, out: Path) -> None:
    """A usage error (exit 2, one ``Error:`` line) refused before anything reached ``out``."""
    assert_one_error_line(result)
    assert result.exit_code == 2
    assert not out.exists()


def one_error_line(result: Result) -> str:
    """:func:`assert_one_error_line`, returning the line for the test to read."""
    assert_one_error_line(result)
    return result.stderr.splitlines()[0]


# --- scenario positions -----------------------------------------------------------------


def done(sc: Scenario) -> None:
    """Every scripted choice was used (none waited for a decision that never came)."""
    assert sc.script_left() == 0


def unit(sc: Scenario, name: str) -> dict[str, Any]:
    """The card data of the unit kind ``name`` in the scenario's pool."""
    return sc.pool.units[sc.pool.kind_index(name)]


def emissary_outcome(plain: Scenario) -> tuple[list[list[str]], list[str], int]:
    """Hands, each seat's first card as its Emissary, and who goes first with them.

    The Emissary of War variant of the Aegean and Dunes rulebooks: the greater
    cost + offering + strength goes first, then the greater strength; a full tie
    goes to the oldest player, who is P1 in the tests that use this.
    """
    hands = [plain.hand(0), plain.hand(1)]
    picks = [hands[0][0], hands[1][0]]
    values = []
    for name in picks:
        u = unit(plain, name)
        values.append((u["cost"] + u["offering"] + u["strength"], u["strength"]))
    first = 1 if values[0] == values[1] else (0 if values[0] > values[1] else 1)
    return hands, picks, first
