"""``omensim desk`` as a process: its URL and token, and Ctrl-C leaving nothing behind."""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from conftest import invoke, one_error_line
from desk_client import record, wait
from desk_server import desk_process


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def _post(url: str, body: bytes, token: str) -> str:
    req = urllib.request.Request(
        f"{url}?token={token}", data=body, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(req, timeout=60) as r:
        return r.read().decode()


def _ask_a_long_question(d: Any, ws: Path) -> tuple[str, int]:
    """Ask the desk a question that plays for long; its answer's name and the command's pid,
    once the command has started."""
    name = json.loads(_post(d.base + "/api/ask", b'{"kind": "first", "games": "5e6"}', d.token))[
        "name"
    ]
    pid = None
    while pid is None:
        pid = wait(ws, name, ("running",)).get("pid")
    return name, pid


def test_the_desk_serves_with_its_token_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    with desk_process(ws) as d:
        assert d.url.startswith("http://127.0.0.1:") and len(d.token) >= 24
        status, page = _get(d.url)
        assert status == 200 and "Cards of aegean" in page
        status, page = _get(d.base + "/cards")
        assert status == 403 and "needs its access token" in page
        # A question is playing when Ctrl-C comes: the desk ends it with itself.
        name, pid = _ask_a_long_question(d, ws)
        d.proc.send_signal(signal.SIGINT)
        assert d.proc.wait(timeout=60) == 0
    with pytest.raises(ProcessLookupError):
        os.killpg(pid, 0)
    assert record(ws, name)["status"] == "cancelled"
    assert not (ws / "answers" / name).exists()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the kernel's parent-death signal")
def test_a_desk_killed_outright_leaves_no_command_behind(tmp_path: Path) -> None:
    """SIGKILL gives the desk no chance to stop its commands: the command ends with it."""

    ws = tmp_path / "ws"
    with desk_process(ws) as d:
        _, pid = _ask_a_long_question(d, ws)
        d.proc.kill()
        d.proc.wait(timeout=60)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                os.killpg(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.2)
    with pytest.raises(ProcessLookupError):
        os.killpg(pid, 0)


def test_a_port_in_use_is_one_error_line(tmp_path: Path) -> None:
    pytest.importorskip("uvicorn", reason="the desk extra is not installed (.[desk])")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        line = one_error_line(invoke("desk", "--workspace", str(tmp_path), "--port", str(port)))
    assert f"cannot serve on 127.0.0.1:{port}" in line


def test_a_host_this_machine_does_not_have_is_one_error_line(tmp_path: Path) -> None:
    pytest.importorskip("uvicorn", reason="the desk extra is not installed (.[desk])")
    # 203.0.113.1 is TEST-NET-3 (RFC 5737): never an address of this machine.
    line = one_error_line(
        invoke("desk", "--workspace", str(tmp_path), "--host", "203.0.113.1", "--port", "0")
    )
    assert line.startswith("Error: cannot serve on 203.0.113.1:0:")


@pytest.fixture
def taken_port() -> Any:
    """A port listening on every IPv4 address: a desk that got past its checks fails to bind
    it at once instead of serving."""
    with socket.socket() as taken:
        taken.bind(("", 0))
        taken.listen()
        yield str(taken.getsockname()[1])


def test_a_workspace_in_a_command_output_folder_is_one_error_line(
    tmp_path: Path, taken_port: str
) -> None:
    """A finished run (its manifest) or a long command's folder (its job file), or a folder
    inside either, is refused before anything is created: each lists its files, and an
    ``answers/`` or ``changes/`` in it would break every later reading of it."""
    from sim.desk.workspace import NotAWorkspace, Workspace

    run, job = tmp_path / "run", tmp_path / "job"
    for folder, mark in ((run, "_manifest.json"), (job, "_job.json")):
        folder.mkdir()
        (folder / mark).write_text("{}")
    for ws, holder in ((run, run), (job, job), (run / "sub", run), (job / "a" / "b", job)):
        res = invoke("desk", "--workspace", str(ws), "--port", taken_port)
        line = one_error_line(res)
        assert res.exit_code == 2 and line.startswith(f"Error: --workspace: {ws} is")
        assert "output folder of an omensim command" in line and str(holder) in line
        with pytest.raises(NotAWorkspace):
            Workspace(ws)
    assert sorted(p.name for p in tmp_path.rglob("*")) == [
        "_job.json",
        "_manifest.json",
        "job",
        "run",
    ]


def test_a_workspace_that_is_no_local_folder_is_named_as_the_workspace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A URL (once made a local folder named ``nosuchscheme:``), a FIFO, a path under a file
    or where no folder can be made: one line naming --workspace, exit 2, nothing created
    (those found when its folders are made were reported as the server's 'cannot serve on
    127.0.0.1:0')."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "file.txt").write_text("x\n")
    os.mkfifo(tmp_path / "fifo")
    for ws, why in (
        ("nosuchscheme://x/y", "is a URL; the desk keeps its workspace in a local folder"),
        ("memory://desk/ws", "is a URL"),
        ("fifo", "exists and is not a folder"),
        ("file.txt/sub", "cannot make answers/ in it: Not a directory"),
        ("/proc/omensim-desk/ws", "cannot make answers/ in it"),
    ):
        res = invoke("desk", "--workspace", ws, "--port", "0")
        line = one_error_line(res)
        assert res.exit_code == 2 and line.startswith(f"Error: --workspace: {ws}"), line
        assert why in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo", "file.txt"]


@pytest.mark.parametrize("option", ["--workspace", "--host"])
def test_an_empty_workspace_or_host_is_one_error_line(
    tmp_path: Path, taken_port: str, option: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An empty ``--host`` would bind every interface (and print a URL without a host), an
    empty ``--workspace`` would be the current folder: both are refused."""
    monkeypatch.chdir(tmp_path)
    res = invoke("desk", option, "", "--port", taken_port)
    assert res.exit_code == 2
    assert one_error_line(res) == f"Error: Invalid value for '{option}': must not be empty"
    assert list(tmp_path.iterdir()) == []
