"""A cold compile on two processes (``sim.compiler.ahead``).

Each kernel of the shared list is compiled once, by whichever process takes it first; the
other one loads it. The list is compiled by name, for the argument types the compiler
declares for it: they must be the types a run's calls infer, or the two processes would
compile copies nobody calls.
"""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from fresh import in_fresh_interpreter

import sim.compiler.ahead as ahead
from sim.compiler import PLAIN
from sim.compiler.ahead import CHILD_CODE, kernel_named, work_of
from sim.compiler.linkage import SIGNATURES
from sim.data.spec import RunSpec
from sim.kernel.batch import range_kernel


def undeclared(mix: str) -> list[str]:
    """The kernels of the two-process list of a run of ``mix`` that a cold compile of it in
    one process compiled for other argument types than those declared."""
    import numba

    from sim.run.engine import Engine

    numba.set_num_threads(1)  # one process: every kernel compiled here, as its callers ask
    engine = Engine(RunSpec(games=2, mix=mix))
    engine.warmup(linked=False)
    return [
        name
        for name in work_of(range_kernel(engine.tab), engine.ask)
        if tuple(SIGNATURES[name]) not in kernel_named(name).overloads
    ]


@pytest.mark.skipif(PLAIN, reason="plain numba compiles in one process")
def test_the_list_is_compiled_for_the_types_a_run_infers(tmp_path: Path) -> None:
    assert in_fresh_interpreter("test_ahead", "t.undeclared('reign')", tmp_path) == []


def test_a_kernel_taken_or_done_elsewhere_is_not_taken_again(tmp_path: Path) -> None:
    name = "a.module:kernel"
    with ahead.claiming(tmp_path):
        with ahead.claim(name, wait=False) as mine:
            assert mine
            # The same name from another open file (as another process would): refused.
            with open(tmp_path / name, "w") as f, pytest.raises(BlockingIOError):
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with ahead.claim(name, wait=False) as again:
            assert not again
    with ahead.claim(name, wait=False) as unclaimed:  # outside ``claiming``: compiled here
        assert unclaimed


def test_claims_left_by_a_killed_compile_go_at_the_next_one_and_a_live_ones_stay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)  # read TMPDIR again
    live = ahead.claims_folder()
    code = "import os, signal; from sim.compiler import ahead; ahead.claims_folder(); "
    code += "os.kill(os.getpid(), signal.SIGKILL)"
    killed = subprocess.run([sys.executable, "-c", code], cwd=Path(ahead.__file__).parents[2])
    assert killed.returncode == -signal.SIGKILL
    (left,) = set(tmp_path.iterdir()) - {live}
    assert ahead.claims_folder().exists() and live.exists()
    assert not left.exists()


@pytest.mark.skipif(PLAIN, reason="plain numba compiles in one process")
def test_a_warm_up_is_made_once_by_either_process_before_the_block_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A run's warm-ups (named module:function) join the list both processes walk: whichever
    # is free makes each, once, and the block waits for the child's.
    (tmp_path / "mark_call.py").write_text(
        "import os\n\ndef call():\n    with open(os.environ['MARK'], 'a') as f:\n"
        "        f.write(f'{os.getpid()}\\n')\n"
    )
    monkeypatch.setenv("PYTHONPATH", f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("MARK", str(tmp_path / "calls"))
    from sim.run.engine import Engine

    engine = Engine(RunSpec(games=2, mix="aegean"))
    with ahead.compiling_ahead(then=("mark_call:call",)) as finish:
        finish(engine.ask, range_kernel(engine.tab))
    assert len((tmp_path / "calls").read_text().split()) == 1


@pytest.mark.skipif(PLAIN, reason="plain numba compiles in one process")
def test_every_kernel_the_child_compiles_is_claimed_its_callees_too(tmp_path: Path) -> None:
    # A callee the child compiled unclaimed could be compiled by both processes at once, each
    # unaware of the other (as when the child ran as ``-m``, a second copy of its module).
    claims = tmp_path / "claims"
    claims.mkdir()
    subprocess.run(
        [sys.executable, "-P", "-c", CHILD_CODE, str(claims), "sim.kernel.turn:end_turn"],
        input="",
        text=True,
        env={**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")},  # all compiled here
        check=True,
        timeout=600,
    )
    done = {path.name.removesuffix(".done") for path in claims.glob("*.done")}
    assert "sim.kernel.turn:end_turn" in done
    assert len(done) > 1, "the callees of end_turn were compiled without a claim"
