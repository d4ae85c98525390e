"""The Dask backend plays the same rows as the local one (a 2-process LocalCluster).

One cluster serves the whole module: starting one costs seconds, and each
worker builds and canary-checks an engine per job anyway.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from sim.cli import main
from sim.data.changes import Changes
from sim.data.spec import RunSpec
from sim.run import io, ledger, runner
from sim.run.backends import CanaryMismatch, ChunkJob, DaskBackend, chunks_of, make_backend

pytest.importorskip("distributed")


def test_rows_match_the_local_backend_for_any_chunk_size(
    cluster: DaskBackend, tmp_path: Path
) -> None:
    spec = RunSpec(games=300, seed=11)
    runner.run(spec, tmp_path / "local", chunk_size=128, progress=False)
    result = runner.run(spec, tmp_path / "dask", chunk_size=37, progress=False, backend=cluster)
    assert cluster.workers == 2
    # The nanny does not pass NUMBA_NUM_THREADS on by itself (dask/distributed#9075).
    assert set(cluster.client.run(os.getenv, "NUMBA_NUM_THREADS").values()) == {"1"}
    assert result.backend == "dask" and result.games == 300 and result.parts == 9
    local, dask = io.read_run(tmp_path / "local"), io.read_run(tmp_path / "dask")
    pd.testing.assert_frame_equal(local, dask)
    manifest = io.read_manifest(tmp_path / "dask")
    assert manifest["complete"] and manifest["backend"] == "dask" and manifest["workers"] == 2
    assert [p["first_game"] for p in manifest["parts"]] == list(range(0, 300, 37))
    # The log is folded into the manifest at the end.
    assert not (tmp_path / "dask" / ledger.LOG_NAME).exists()


def test_until_ci_stops_at_the_same_game_on_both_backends(
    cluster: DaskBackend, tmp_path: Path
) -> None:
    spec = RunSpec(games=3000, seed=4)
    a = runner.run(spec, tmp_path / "a", chunk_size=50, progress=False, until_ci=0.08)
    b = runner.run(
        spec, tmp_path / "b", chunk_size=50, progress=False, until_ci=0.08, backend=cluster
    )
    assert a.stopped == b.stopped == "until_ci"
    assert a.games == b.games < 3000
    # Chunks that finished past the stop point are not left in the directory, and the
    # part holding the stop game was cut back to it.
    assert len(io.list_parts(tmp_path / "b")) == -(-b.games // 50)
    pd.testing.assert_frame_equal(io.read_run(tmp_path / "a"), io.read_run(tmp_path / "b"))


def test_compare_in_memory_matches_the_local_backend(cluster: DaskBackend) -> None:
    from sim.analysis.compare import compare

    spec = RunSpec(games=200, seed=2)
    changes = Changes.parse(["Talos, Bronze Guardian of Crete.cost=+1"])
    local = compare(spec, changes, chunk_size=64)
    dask = compare(spec, changes, chunk_size=30, backend=cluster)
    pd.testing.assert_frame_equal(local.table(), dask.table())


def test_a_worker_whose_canary_differs_is_refused(cluster: DaskBackend) -> None:
    # A client canary no worker can reproduce stands in for a worker with other code or cards.
    job = ChunkJob(
        spec=RunSpec(games=40, seed=99),
        changes=None,
        key="canary-test",
        canary="0" * 64,
        identity={"version": "client"},
    )
    with pytest.raises(CanaryMismatch, match="plays different games than the client"):
        list(cluster.map_chunks(job, chunks_of(40, 20), None))


def test_backend_options_are_checked(tmp_path: Path) -> None:
    with pytest.raises(runner.RunError, match="need --backend dask"):
        make_backend("local", scheduler="tcp://127.0.0.1:1")
    result = CliRunner().invoke(
        main, ["run", "--games", "10", "--out", str(tmp_path / "r"), "--workers", "2"]
    )
    assert result.exit_code == 1
    assert result.stderr.strip() == "Error: --scheduler and --workers need --backend dask"
    assert not (tmp_path / "r").exists()


def test_cli_run_on_a_local_cluster(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The rows of a local run, and nothing left in the temporary folder: the cluster's
    scratch space (dask keeps its lock files there) is the backend's own, removed."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    out = tmp_path / "run"
    args = ["run", "--games", "120", "--chunk-size", "50", "--seed", "5", "--out", str(out)]
    result = CliRunner().invoke(main, [*args, "--backend", "dask", "--workers", "2", "-q"])
    assert result.exit_code == 0, result.output
    assert list(scratch.iterdir()) == []
    runner.run(RunSpec(games=120, seed=5), tmp_path / "local", progress=False)
    pd.testing.assert_frame_equal(io.read_run(out), io.read_run(tmp_path / "local"))


@pytest.mark.parametrize("command", ["run", "tournament"])
def test_an_unreachable_scheduler_is_one_error_line(tmp_path: Path, command: str) -> None:
    out = tmp_path / "out"
    args = [command, "--out", str(out), "--backend", "dask", "--scheduler", "tcp://127.0.0.1:9"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: cannot reach the Dask scheduler tcp://127.0.0.1:9")
    assert len(result.stderr.splitlines()) == 1
    assert not out.exists()
