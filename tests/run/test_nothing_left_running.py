"""Nothing a command starts outlives it: a cold first run's compile leaves no process behind.

A cold compile on two cores starts a child (``sim.compiler.ahead``); the command, the API
call or the interrupted run must not return while it is alive. Every process these tests
start carries a token in its environment, which a child inherits, so a leftover process is
found whatever session or parent it ended up with.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "OMENSIM_TEST_TOKEN"

pytestmark = pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc")


def tagged(token: str) -> list[int]:
    """The processes alive whose environment holds ``TOKEN=token``."""
    mark = f"{TOKEN}={token}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if mark in (entry / "environ").read_bytes().split(b"\0"):
                found.append(int(entry.name))
        except OSError:
            continue  # gone, or not ours
    return found


def cold_env(tmp_path: Path) -> tuple[dict[str, str], str]:
    """An environment with an empty numba cache, two kernel threads and a fresh token."""
    token = uuid.uuid4().hex
    env = {
        **os.environ,
        "NUMBA_CACHE_DIR": str(tmp_path / "cache"),
        "NUMBA_NUM_THREADS": "2",
        "PYTHONPATH": str(ROOT),
        TOKEN: token,
    }
    return env, token


def run_cli(env: dict[str, str], out: Path, *more: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "sim.cli", "run", "--games", "200", "--mix", "dunes+aegean"]
    return subprocess.run(
        [*cmd, "--out", str(out), "-q", *more],
        env=env,
        capture_output=True,
        text=True,
    )


@pytest.mark.parametrize(
    "backend", [(), ("--backend", "dask", "--workers", "1")], ids=["threads", "dask"]
)
def test_a_cold_cli_run_leaves_no_process(tmp_path: Path, backend: tuple[str, ...]) -> None:
    if backend:
        pytest.importorskip("distributed")
    env, token = cold_env(tmp_path)
    done = run_cli(env, tmp_path / "run", *backend)
    assert done.returncode == 0, done.stderr
    assert tagged(token) == []


def test_a_cold_api_run_leaves_no_process(tmp_path: Path) -> None:
    env, token = cold_env(tmp_path)
    code = (
        "import os, sys; from sim import api; "
        f"api.run(games=200, mix='dunes+aegean', out={str(tmp_path / 'run')!r}, progress=False); "
        "sys.path.insert(0, os.environ['TESTS']); import test_nothing_left_running as t; "
        f"print(sorted(set(t.tagged({token!r})) - {{os.getpid()}}))"
    )
    env["TESTS"] = str(Path(__file__).parent)
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_ctrl_c_during_a_cold_compile_leaves_no_process_and_a_cache_that_plays_true(
    tmp_path: Path,
) -> None:
    env, token = cold_env(tmp_path)
    cmd = [sys.executable, "-m", "sim.cli", "run", "--games", "200", "--mix", "dunes+aegean"]
    # Its own process group, as a shell runs a command: Ctrl-C signals the whole group.
    proc = subprocess.Popen(
        [*cmd, "--out", str(tmp_path / "cut"), "-q"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        # A test run in the background inherits SIGINT ignored; a terminal's command does not.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 300
    while len(tagged(token)) < 2 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(2.0)  # well into the compile of both processes
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode != 0
    assert "Traceback" not in err
    assert tagged(token) == []
    # The next run on that cache compiles what is missing and plays the same rows.
    again = run_cli(env, tmp_path / "again")
    assert again.returncode == 0, again.stderr
    from sim import api

    api.run(games=200, mix="dunes+aegean", out=tmp_path / "ref", progress=False)
    got = pd.read_parquet(tmp_path / "again")
    want = pd.read_parquet(tmp_path / "ref")
    pd.testing.assert_frame_equal(got, want)
