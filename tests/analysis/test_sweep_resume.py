"""`omensim sweep --resume DIR`: finish a killed sweep, skipping its finished cells."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner, Result
from conftest import kill_when

from sim.analysis import sweep as sweep_mod
from sim.cli import main
from sim.run import io, jobs

ROOT = Path(__file__).resolve().parents[2]
GAMES, CHUNK = 4000, 100
# Two cards, two deltas: four cells plus the baseline, each a run of 40 parts.
ARGS = ["--games", str(GAMES), "--chunk-size", str(CHUNK), "--seed", "5", "--card", "0"]
ARGS += ["--card", "1", "--delta", "+1,+2", "-q"]


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def lines(path: Path) -> int:
    try:
        return len(path.read_text().splitlines())
    except FileNotFoundError:
        return 0


def cut_cell(out: Path) -> Path | None:
    """A cell whose run has logged at least two parts and is not finished, if any."""
    for cell in sorted((out / sweep_mod.CELLS).glob("*")):
        if lines(cell / io.PARTS_LOG_NAME) >= 2:
            return cell
    return None


def kill_part_way(out: Path) -> None:
    """SIGKILL `omensim sweep` once one cell is logged and the next one's run is half written."""
    kill_when(
        ["sweep", *ARGS, "--out", str(out)],
        lambda: lines(out / jobs.LOG_NAME) >= 1 and cut_cell(out) is not None,
        "sweep",
    )


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> pd.DataFrame:
    out = tmp_path_factory.mktemp("whole") / "sweep"
    r = invoke("sweep", *ARGS, "--out", str(out))
    assert r.exit_code == 0, r.output
    # A finished sweep keeps its baseline run and the cell log, not the cells' runs.
    assert io.is_complete(out / sweep_mod.BASELINE)
    assert not (out / sweep_mod.CELLS).exists()
    assert lines(out / jobs.LOG_NAME) == 4
    return pd.read_parquet(out / "sweep.parquet")


def test_a_killed_sweep_resumes_to_the_same_table(
    tmp_path: Path, uninterrupted: pd.DataFrame
) -> None:
    out = tmp_path / "sweep"
    kill_part_way(out)
    assert not (out / "sweep.parquet").exists()
    logged = lines(out / jobs.LOG_NAME)
    assert 1 <= logged < 4
    cut = cut_cell(out)
    assert cut is not None and not io.is_complete(cut)

    r = invoke("sweep", "--resume", str(out), "-q")
    assert r.exit_code == 0, r.output
    pd.testing.assert_frame_equal(pd.read_parquet(out / "sweep.parquet"), uninterrupted)
    assert lines(out / jobs.LOG_NAME) == 4
    assert not (out / sweep_mod.CELLS).exists()
    # A finished sweep is not resumed again.
    r = invoke("sweep", "--resume", str(out))
    assert r.exit_code == 1 and "already complete" in r.output


def test_resume_refuses_a_key_mismatch_in_one_line(tmp_path: Path) -> None:
    out = tmp_path / "sweep"
    out.mkdir()
    plan = {
        "spec": {"games": 10, "seed": 5},
        "field": "cost",
        "deltas": [1],
        "cards": ["0"],
        "base": {"change": [], "cards": []},
        "chunk_size": 10,
        "correction": "holm",
    }
    key = {"version": "0.0.0-elsewhere", "digest": "x"}
    with jobs.Job.start(out, sweep_mod.KIND, plan, key=key):
        pass  # the plan a sweep of other code wrote, signed
    r = invoke("sweep", "--resume", str(out))
    assert r.exit_code == 1
    assert r.output.startswith("Error: cannot resume") and "version changed" in r.output
    assert len(r.output.strip().splitlines()) == 1
    assert sorted(p.name for p in out.iterdir()) == [jobs.JOB_NAME]  # nothing played


@pytest.mark.parametrize(
    ("args", "text"),
    [
        (["--resume", "{tmp}"], "holds no sweep"),
        (["--resume", "{tmp}", "--out", "{tmp}/x"], "drop --out"),
    ],
)
def test_resume_errors_are_one_line(tmp_path: Path, args: list[str], text: str) -> None:
    r = invoke("sweep", *[a.format(tmp=tmp_path) for a in args])
    assert r.exit_code != 0 and text in r.output
    assert len(r.output.strip().splitlines()) == 1
