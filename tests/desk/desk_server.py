"""A real ``omensim desk`` process for the server and browser tests."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

URL = re.compile(r"open\s+(http://\S+/\?token=(\S+))")


@dataclass
class Desk:
    """A running desk: its process, its URL with the token, and the pieces of it."""

    proc: subprocess.Popen[str]
    url: str
    token: str
    workspace: Path
    startup_s: float
    """Seconds from starting ``omensim desk`` to the URL it prints."""

    @property
    def base(self) -> str:
        """The URL without the token."""
        return self.url.split("/?", 1)[0]


@contextmanager
def desk_process(workspace: Path, limit: float = 120) -> Iterator[Desk]:
    """``omensim desk --workspace WORKSPACE --port 0`` until the block ends (then Ctrl-C)."""
    pytest.importorskip("uvicorn", reason="the desk extra is not installed (.[desk])")
    env = {**os.environ, "OMENSIM_COMPILE_LATER": "0", "PYTHONUNBUFFERED": "1"}
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "sim.cli", "desk", "--workspace", str(workspace), "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
        start_new_session=True,
    )  # fmt: skip
    deadline = started + limit
    seen = []
    try:
        while True:
            assert proc.stdout is not None
            line = proc.stdout.readline()
            seen.append(line)
            m = URL.search(line)
            if m:
                break
            assert line and time.monotonic() < deadline, f"no URL from the desk: {seen}"
        yield Desk(proc, m[1], m[2], workspace, time.monotonic() - started)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
