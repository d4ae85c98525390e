"""runs that cannot be mixed, outputs never clobbered, reads verified.

Each case the issue lists is a named test: a second writer, a deleted,
copied, foreign, empty, damaged or stray part, a manifest that is a JSON
list, a full disk between part and manifest, and sweep/compare/tournament/
report checking their output folder before playing.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from conftest import invoke, one_error_line
from tamper import resign

from sim import analysis as A
from sim.data.spec import RunSpec
from sim.run import io, runner
from sim.run.lock import LOCK_NAME, FolderLockedError, holder_pid, locked

ROOT = Path(__file__).resolve().parents[2]
GAMES, CHUNK = 40, 10  # four parts


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    """Two finished runs of four parts each, seeds 1 and 2 (copy before changing them)."""
    root = tmp_path_factory.mktemp("runs")
    out = {}
    for seed in (1, 2):
        out[seed] = root / f"s{seed}"
        runner.run(RunSpec(games=GAMES, seed=seed), out[seed], chunk_size=CHUNK, progress=False)
    return out


@pytest.fixture
def run_copy(runs: dict[int, Path], tmp_path: Path) -> Path:
    dst = tmp_path / "run"
    shutil.copytree(runs[1], dst)
    return dst


def refused_everywhere(run: Path, tmp_path: Path, fragment: str) -> None:
    """read_run, load_runs, report and replay all refuse ``run`` naming ``fragment``."""
    with pytest.raises(io.RunReadError, match=fragment):
        io.read_run(run)
    with pytest.raises(A.RunLoadError, match=fragment):
        A.load_runs([run])
    assert fragment in one_error_line(invoke("report", str(run), "--out", str(tmp_path / "rep")))
    assert not (tmp_path / "rep").exists()
    assert fragment in one_error_line(invoke("replay", str(run), "--game", "3"))


# --- a second writer ---------------------------------------------------------------------


def test_second_writer_is_refused_with_the_holders_pid(tmp_path: Path) -> None:
    """Two runs into one --out in the same second both 'succeeded' and mixed their seeds."""
    out = tmp_path / "busy"
    out.mkdir()
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time; from sim.run.lock import locked\n"
         f"with locked({str(out)!r}):\n    print('held', flush=True); time.sleep(120)"],
        cwd=ROOT, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        assert holder_pid(out) == holder.pid
        line = one_error_line(invoke("run", "--games", "8", "--out", str(out), "--force"))
        assert f"process {holder.pid}" in line
        with pytest.raises(FolderLockedError, match=str(holder.pid)), locked(out):
            pass
    finally:
        holder.kill()
        holder.wait()
    assert holder_pid(out) is None  # the kernel drops the lock with its holder


def test_the_lock_is_held_for_the_whole_run_and_removed_after(tmp_path: Path) -> None:
    out = tmp_path / "r"
    seen: list[int | None] = []
    original = io.PartWriter.close  # a local run writes its parts group by group

    def spy(*args, **kwargs):
        seen.append(os.getpid() if (out / LOCK_NAME).exists() else None)
        return original(*args, **kwargs)

    mp = pytest.MonkeyPatch()
    mp.setattr(io.PartWriter, "close", spy)
    try:
        runner.run(RunSpec(games=20), out, chunk_size=10, progress=False)
    finally:
        mp.undo()
    assert seen == [os.getpid(), os.getpid()]
    assert not (out / LOCK_NAME).exists()


# --- parts that do not agree with the manifest ---------------------------------------------


def test_deleted_part_is_named(run_copy: Path, tmp_path: Path) -> None:
    """report counted "1,500 games" of 2,000 when a part was deleted."""
    (run_copy / "part-00002.parquet").unlink()
    refused_everywhere(run_copy, tmp_path, "part-00002.parquet is listed in _manifest.json")


def test_copied_part_is_named(run_copy: Path, tmp_path: Path) -> None:
    """A copied part gave duplicate game_ids."""
    shutil.copy(run_copy / "part-00001.parquet", run_copy / "part-00004.parquet")
    refused_everywhere(run_copy, tmp_path, "part 'part-00004.parquet' is not listed")


def test_part_from_another_seed_is_named(
    run_copy: Path, runs: dict[int, Path], tmp_path: Path
) -> None:
    """A part from another seed was mixed in silently."""
    shutil.copy(runs[2] / "part-00001.parquet", run_copy / "part-00001.parquet")
    refused_everywhere(run_copy, tmp_path, "belongs to another run")


@pytest.mark.parametrize("damage", ["empty", "truncated", "garbage"])
def test_damaged_part_is_one_error_line(run_copy: Path, tmp_path: Path, damage: str) -> None:
    """report gave an ArrowInvalid traceback on a 0-byte or damaged part."""
    part = run_copy / "part-00003.parquet"
    data = part.read_bytes()
    part.write_bytes(
        {"empty": b"", "truncated": data[: len(data) // 2], "garbage": b"x" * 99}[damage]
    )
    refused_everywhere(run_copy, tmp_path, "part-00003.parquet is damaged")


def test_stray_file_is_named(run_copy: Path, tmp_path: Path) -> None:
    (run_copy / "notes.txt").write_text("my notes\n")
    refused_everywhere(run_copy, tmp_path, "file 'notes.txt' is not listed")


@pytest.mark.parametrize("text", ["[1, 2]", '"complete"', "{not json", b"\xff\xfe"])
def test_manifest_that_is_not_an_object_is_one_error_line(
    run_copy: Path, tmp_path: Path, text: str | bytes
) -> None:
    """A manifest that is a JSON list gave an AttributeError traceback."""
    path = run_copy / io.MANIFEST_NAME
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    refused_everywhere(run_copy, tmp_path, "_manifest.json is damaged")


def test_manifest_games_disagreeing_with_parts_is_named(run_copy: Path, tmp_path: Path) -> None:
    path = run_copy / io.MANIFEST_NAME
    doc = json.loads(path.read_text())
    doc["parts"] = doc["parts"][:-1]  # the last part is on disk but no longer listed
    path.write_text(json.dumps(doc))
    resign(run_copy)
    refused_everywhere(run_copy, tmp_path, "is not listed")
    (run_copy / "part-00003.parquet").unlink()
    refused_everywhere(run_copy, tmp_path, f"the parts hold {GAMES - CHUNK} games")


def test_verified_run_reads_back_whole(runs: dict[int, Path]) -> None:
    df = A.load(runs[1])
    assert list(df["game_id"]) == list(range(GAMES))
    manifest = io.verify_run(runs[1])
    keys = {io.read_metadata(runs[1] / p["file"])[io.RUN_KEY] for p in manifest["parts"]}
    assert keys == {manifest["metadata"][io.RUN_KEY]}
    assert manifest["metadata"][io.RUN_KEY].startswith("s1-")


# --- incomplete runs and a full disk -------------------------------------------------------


def _fail_on_call(n: int, real):
    calls = {"n": 0}

    def fake(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == n:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(*args, **kwargs)

    return fake


@pytest.mark.parametrize(
    "owner, target",
    [(io, "write_manifest"), (io.PartWriter, "write"), (io.PartWriter, "close")],
)
def test_disk_full_leaves_nothing_claiming_complete(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, owner: object, target: str
) -> None:
    """A disk full between part and manifest, or inside a part: the manifest never claims
    what is not there, and no temporary file is left behind."""
    out = tmp_path / "full"
    # write_manifest call 1 is "incomplete, 0 games"; parts go to the _parts.jsonl log
    # (sim.run.ledger), so call 2 is the final "complete" manifest after the last part.
    # A local run writes each part group by group (io.PartWriter): call 2 of write or
    # close is in the second part.
    monkeypatch.setattr(owner, target, _fail_on_call(2,
                                                      getattr(owner, target)))  # fmt: skip
    with pytest.raises(OSError, match="No space"):
        runner.run(RunSpec(games=GAMES), out, chunk_size=CHUNK, progress=False)
    monkeypatch.undo()
    assert not [p.name for p in out.iterdir() if p.name.endswith(".tmp")]
    manifest = io.read_manifest(out)
    assert manifest["complete"] is False
    for part in manifest["parts"]:
        assert (out / part["file"]).is_file()  # every listed part exists
    with pytest.raises(io.IncompleteRunError, match="allow_incomplete=True"):
        A.load(out)
    df = A.load(out, allow_incomplete=True)
    # Every verified part on disk: the manifest's and those the writer logged after it.
    assert len(df) == df.attrs["games_found"] >= manifest["games"]
    assert manifest["games"] == sum(p["games"] for p in manifest["parts"])
    assert "incomplete" in one_error_line(invoke("report", str(out), "--out", str(tmp_path / "r")))


# --- output folders are checked before anything is played ----------------------------------


def test_sweep_refuses_a_run_folder_before_playing(runs: dict[int, Path], tmp_path: Path) -> None:
    """sweep --out wrote into a run folder (which then no longer read)."""
    out = tmp_path / "run"
    shutil.copytree(runs[1], out)
    before = sorted(p.name for p in out.iterdir())
    args = ["sweep", "--games", "8", "--card", "0", "--delta", "+1", "--out", str(out)]
    assert "--force" in one_error_line(invoke(*args))
    assert "did not write" in one_error_line(invoke(*args, "--force"))
    assert sorted(p.name for p in out.iterdir()) == before
    io.verify_run(out)


def test_sweep_overwrites_an_earlier_sweep_only_with_force(tmp_path: Path) -> None:
    out = tmp_path / "sweep"
    args = ["sweep", "--games", "8", "--card", "0", "--delta", "+1", "--out", str(out), "-q"]
    assert invoke(*args).exit_code == 0
    first = (out / "sweep.parquet").read_bytes()
    assert "use --force to replace the sweep" in one_error_line(invoke(*args))
    assert (out / "sweep.parquet").read_bytes() == first
    assert invoke(*args, "--force").exit_code == 0
    # Besides the table files, the state `sweep --resume` needs (sim/run/jobs.py).
    assert sorted(p.name for p in out.iterdir()) == [
        "_job.json", "_job.jsonl", "baseline", "sweep.csv", "sweep.parquet", "sweep.png",
    ]  # fmt: skip
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_sweep_failure_while_writing_its_files_leaves_a_resumable_sweep(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sim.analysis import sweep as sweep_mod

    out = tmp_path / "sweep"
    args = ["sweep", "--games", "8", "--card", "0", "--delta", "+1", "--out", str(out), "-q"]
    assert invoke(*args).exit_code == 0
    first = pd.read_parquet(out / "sweep.parquet")

    def full_disk(result, path):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(sweep_mod, "heatmap", full_disk)
    assert "No space left" in one_error_line(invoke(*args, "--force"))
    # The table, written last, is absent: the folder does not look like a finished sweep.
    assert not (out / "sweep.parquet").exists()
    assert not [p for p in out.iterdir() if p.name.endswith((".tmp", ".tmp.png"))]
    monkeypatch.undo()
    assert invoke("sweep", "--resume", str(out), "-q").exit_code == 0
    pd.testing.assert_frame_equal(pd.read_parquet(out / "sweep.parquet"), first)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


@pytest.mark.parametrize(
    "command",
    [
        ["compare", "--games", "8", "--change", "Eudorus, Swift Runner.cost=+1"],
        ["tournament", "--bots", "random,greedy", "--games", "8"],
        ["sweep", "--games", "8", "--card", "0"],
    ],
)
def test_commands_check_their_out_folder_before_playing(tmp_path: Path, command) -> None:
    out = tmp_path / "taken"
    out.mkdir()
    (out / "mine.txt").write_text("keep me\n")
    line = one_error_line(invoke(*command, "--out", str(out)))
    assert "already exists and is not empty" in line and "--force" in line
    line = one_error_line(invoke(*command, "--out", str(out), "--force"))
    assert "'mine.txt'" in line
    assert [p.name for p in out.iterdir()] == ["mine.txt"]


def test_tournament_replaces_an_earlier_one_only_with_force(tmp_path: Path) -> None:
    out = tmp_path / "t"
    args = ["tournament", "--bots", "random,greedy", "--games", "8", "--out", str(out), "-q"]
    assert invoke(*args).exit_code == 0
    assert "use --force to replace the tournament" in one_error_line(invoke(*args))
    assert invoke(*args, "--force").exit_code == 0
    pd.read_parquet(out / "tournament.parquet")


def test_report_refuses_an_earlier_report_without_force(
    runs: dict[int, Path], tmp_path: Path
) -> None:
    out = tmp_path / "rep"
    assert invoke("report", str(runs[1]), "--out", str(out)).exit_code == 0
    line = one_error_line(invoke("report", str(runs[1]), "--out", str(out)))
    assert "use --force to replace the report" in line
    assert invoke("report", str(runs[1]), "--out", str(out), "--force").exit_code == 0


def test_one_output_folder_check_serves_every_command() -> None:
    """The three copies (runner, compare, tournament) became io.check_output_dir, which
    every job's folder goes through (sim/run/jobs.py)."""
    for path in ("sim/run/runner.py", "sim/run/jobs.py", "sim/analysis/compare.py",
                 "sim/analysis/tournament.py", "sim/analysis/sweep.py",
                 "sim/analysis/report.py"):  # fmt: skip
        text = (ROOT / path).read_text()
        assert ("io.check_output_dir(" in text) == ("/run/" in path or "report" in path), path
        assert "already exists and is not empty" not in text, path
