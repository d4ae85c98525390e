"""`compare`, `sweep` and `run --panel` with `--backend dask` write what the local backend
writes.

One 2-process LocalCluster serves the module; the commands reach it with
``--scheduler``. Each test reads the Parquet back and compares it with the
same command on the local backend.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner, Result

from sim.cli import main
from sim.data.spec import RunSpec
from sim.run import io, runner
from sim.run.backends import DaskBackend
from tests import fsspec_local

pytest.importorskip("distributed")


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def on(cluster: DaskBackend) -> list[str]:
    return ["--backend", "dask", "--scheduler", cluster.client.scheduler.address]


def both_ways(args: list[str], tmp_path: Path, cluster: DaskBackend) -> None:
    """Run ``args`` into ``tmp_path/local`` on this process's threads, then into
    ``tmp_path/dask`` on the cluster; both must succeed."""
    local = invoke(*args, "--out", str(tmp_path / "local"))
    assert local.exit_code == 0, local.output
    dask = invoke(*args, "--out", str(tmp_path / "dask"), *on(cluster))
    assert dask.exit_code == 0, dask.output


def assert_same_run(tmp_path: Path, sub: str) -> None:
    """The run in ``dask/sub`` was played on Dask and holds the rows of ``local/sub``."""
    pd.testing.assert_frame_equal(
        io.read_run(tmp_path / "dask" / sub), io.read_run(tmp_path / "local" / sub)
    )
    assert io.read_manifest(tmp_path / "dask" / sub)["backend"] == "dask"


def test_compare_on_dask_writes_the_local_backend_s_runs(
    cluster: DaskBackend, tmp_path: Path
) -> None:
    args = ["compare", "--games", "300", "--seed", "3", "--chunk-size", "70", "-q"]
    args += ["--change", "Ker of the Spoils.cost=+1"]
    both_ways(args, tmp_path, cluster)
    for arm in ("A", "B"):
        assert_same_run(tmp_path, arm)
    pd.testing.assert_frame_equal(
        pd.read_parquet(tmp_path / "dask" / "compare.parquet"),
        pd.read_parquet(tmp_path / "local" / "compare.parquet"),
    )


def test_sweep_on_dask_writes_the_local_backend_s_table(
    cluster: DaskBackend, tmp_path: Path
) -> None:
    args = ["sweep", "--games", "300", "--seed", "4", "--chunk-size", "70", "--card", "0"]
    args += ["--card", "2", "--delta", "+1", "-q"]
    both_ways(args, tmp_path, cluster)
    assert_same_run(tmp_path, "baseline")
    table = pd.read_parquet(tmp_path / "dask" / "sweep.parquet")
    assert len(table) == 2
    pd.testing.assert_frame_equal(table, pd.read_parquet(tmp_path / "local" / "sweep.parquet"))


def test_run_panel_on_dask_plays_every_bot_there(cluster: DaskBackend, tmp_path: Path) -> None:
    args = ["run", "--games", "200", "--seed", "5", "--chunk-size", "70", "-q"]
    args += ["--panel", "greedy,random"]
    both_ways(args, tmp_path, cluster)
    for bot in ("greedy", "random"):
        assert_same_run(tmp_path, bot)


def test_dask_workers_write_parts_to_an_fsspec_url(cluster: DaskBackend, tmp_path: Path) -> None:
    # omtest:// is the local disk through fsspec, registered in every process: the URL
    # code path (no flock, per-part log files, pyarrow given path plus filesystem).
    fsspec_local.register()
    cluster.client.run(fsspec_local.register)
    url = f"{fsspec_local.PROTOCOL}://{tmp_path}/run"
    spec = RunSpec(games=250, seed=9)
    result = runner.run(spec, url, chunk_size=60, progress=False, backend=cluster)
    assert result.backend == "dask" and result.parts == 5
    runner.run(spec, tmp_path / "local", progress=False)
    pd.testing.assert_frame_equal(io.read_run(url), io.read_run(tmp_path / "local"))
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == [
        "_cards.parquet", "_manifest.json", *(io.part_name(i) for i in range(5)),
    ]  # fmt: skip


def test_a_dask_run_that_cannot_finish_is_refused_up_front(
    cluster: DaskBackend, tmp_path: Path
) -> None:
    """The Dask backend is probed as the local one is, its workers counted."""
    out = tmp_path / "huge"
    result = invoke("run", "--games", "4e15", "--out", str(out), "-q", *on(cluster))
    assert result.exit_code != 0
    [line] = result.stderr.strip().splitlines()
    assert "would take about" in line and f"times {cluster.workers} Dask workers" in line
    assert not list(out.glob("part-*")) if out.exists() else True
