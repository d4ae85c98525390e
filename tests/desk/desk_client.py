"""Shared by the desk's tests: a desk app in a test client, and waiting for an answer."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

TOKEN = "test-token"
ENDED = ("done", "failed", "cancelled", "interrupted")


@contextmanager
def desk(workspace: Path) -> Iterator[Any]:
    """A test client of the desk over ``workspace``, holding its token cookie."""
    pytest.importorskip("starlette", reason="the desk extra is not installed (.[desk])")
    from starlette.testclient import TestClient

    from sim.desk.app import make_app

    with TestClient(make_app(workspace, TOKEN), base_url="http://127.0.0.1") as client:
        assert client.get(f"/history?token={TOKEN}").status_code == 200  # sets the cookie
        yield client


def record(workspace: Path, name: str) -> dict[str, Any]:
    """Answer ``name``'s record as the desk wrote it."""
    return json.loads((workspace / "answers" / f"{name}.json").read_text())


def wait(workspace: Path, name: str, states: tuple[str, ...] = ENDED, limit: float = 600) -> dict:
    """Answer ``name``'s record once its state is one of ``states``."""
    deadline = time.monotonic() + limit
    while True:
        rec = record(workspace, name)
        if rec["status"] in states:
            return rec
        assert time.monotonic() < deadline, f"{name} still {rec['status']}"
        time.sleep(0.2)
