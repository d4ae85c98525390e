"""`omensim run --resume DIR`: finish a killed run with only its missing chunks."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from conftest import invoke, kill_when
from tamper import cut_job, resign

from sim.data.spec import RunSpec
from sim.run import io, ledger, runner

ROOT = Path(__file__).resolve().parents[2]
GAMES, CHUNK = 6000, 100


def logged_parts(out: Path) -> int:
    try:
        return len((out / ledger.LOG_NAME).read_text().splitlines())
    except FileNotFoundError:
        return 0


def kill_part_way(out: Path, *extra: str) -> None:
    """Start `omensim run` in a subprocess and SIGKILL it once a few parts are logged."""
    args = ["run", "--games", str(GAMES), "--chunk-size", str(CHUNK), "--seed", "8", "-q"]
    kill_when([*args, "--out", str(out), *extra], lambda: logged_parts(out) >= 3, "run")


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> pd.DataFrame:
    out = tmp_path_factory.mktemp("whole") / "run"
    runner.run(RunSpec(games=GAMES, seed=8), out, chunk_size=CHUNK, progress=False)
    return io.read_run(out)


def test_a_killed_run_resumes_to_the_same_rows(tmp_path: Path, uninterrupted: pd.DataFrame) -> None:
    out = tmp_path / "run"
    kill_part_way(out)
    manifest = io.read_manifest(out)
    assert manifest["complete"] is False
    done = ledger.completed_parts(out, manifest)
    assert 3 <= len(done) < GAMES // CHUNK
    before = {p.name: p.stat().st_mtime_ns for p in io.list_parts(out)}

    result = invoke("run", "--resume", str(out), "-q")
    assert result.exit_code == 0, result.output
    assert io.is_complete(out)
    pd.testing.assert_frame_equal(io.read_run(out), uninterrupted)
    manifest = io.read_manifest(out)
    assert manifest["games"] == GAMES and len(manifest["parts"]) == GAMES // CHUNK
    assert len(manifest["resumed"]) == 1
    # Only the missing chunks were played: the logged parts were not rewritten.
    for entry in done.values():
        assert (out / entry["file"]).stat().st_mtime_ns == before[entry["file"]]
    assert not (out / ledger.LOG_NAME).exists()


def test_resume_refuses_a_run_the_code_no_longer_reproduces(tmp_path: Path) -> None:
    out = tmp_path / "run"
    runner.run(RunSpec(games=200, seed=1), out, chunk_size=100, progress=False)
    manifest = io.read_manifest(out)
    # Pretend the run was interrupted under other kernel code.
    manifest["complete"] = False
    manifest["key"]["kernel"] = "0" * 64
    manifest["key"]["digest"] = "x"
    (out / io.MANIFEST_NAME).write_text(json.dumps(manifest))
    resign(out)
    result = invoke("run", "--resume", str(out))
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: cannot resume {out}: the kernel source")
    assert len(result.stderr.splitlines()) == 1


@pytest.mark.parametrize("case", ["complete", "not_a_run", "with_out"])
def test_resume_refusals(tmp_path: Path, case: str) -> None:
    out = tmp_path / "run"
    if case == "complete":
        runner.run(RunSpec(games=50, seed=1), out, chunk_size=50, progress=False)
        result, message = invoke("run", "--resume", str(out)), "already complete"
    elif case == "not_a_run":
        out.mkdir()
        result, message = invoke("run", "--resume", str(out)), "has no _manifest.json"
    else:
        result = invoke("run", "--resume", str(out), "--out", str(tmp_path / "x"))
        message = "drop --out"
    assert result.exit_code != 0
    assert result.stderr.startswith("Error:") and message in result.stderr


def test_resume_of_an_until_ci_run_keeps_its_stop_point(tmp_path: Path) -> None:
    spec = RunSpec(games=3000, seed=4)
    whole = runner.run(spec, tmp_path / "whole", chunk_size=50, progress=False, until_ci=0.08)
    out = tmp_path / "cut"
    runner.run(spec, out, chunk_size=50, progress=False, until_ci=0.08)
    # Cut the finished run back to its first two parts, as a kill would have left it.
    manifest = io.read_manifest(out)
    for part in manifest["parts"][2:]:
        (out / part["file"]).unlink()
    manifest.update(complete=False, parts=manifest["parts"][:2], spec={**manifest["spec"]})
    manifest["spec"]["games"] = 3000
    (out / io.MANIFEST_NAME).write_text(json.dumps(manifest))
    resign(out)
    resumed = runner.resume(out, progress=False)
    assert resumed.games == whole.games and resumed.stopped == "until_ci"
    pd.testing.assert_frame_equal(io.read_run(out), io.read_run(tmp_path / "whole"))


def test_part_names_sort_in_game_order_past_100000_parts() -> None:
    width = ledger.part_width(250_000)
    names = [io.part_name(i, width) for i in (0, 9, 99_999, 100_000, 249_999)]
    assert names == sorted(names)
    assert io.part_name(3) == "part-00003.parquet"  # small runs keep their names
    assert ledger.part_index(names[3]) == 100_000


def test_the_manifest_is_not_rewritten_per_part(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 60 parts: the parts log takes each one; the manifest is written at the start and the end.
    writes = []
    real = io.write_manifest
    monkeypatch.setattr(io, "write_manifest", lambda *a, **k: writes.append(a) or real(*a, **k))
    runner.run(RunSpec(games=600, seed=2), tmp_path / "run", chunk_size=10, progress=False)
    assert len(io.read_manifest(tmp_path / "run")["parts"]) == 60
    assert len(writes) == 2


def test_an_interrupted_compare_resumes_to_the_same_summary(tmp_path: Path) -> None:
    from sim.analysis.compare import compare
    from sim.data.changes import Changes

    spec = RunSpec(games=300, seed=6)
    changes = Changes.parse(["Talos, Bronze Guardian of Crete.cost=+1"])
    whole = compare(spec, changes, out=tmp_path / "whole", chunk_size=100, progress=False)
    out = tmp_path / "cut"
    compare(spec, changes, out=out, chunk_size=100, progress=False)
    # As if killed while B played its second chunk: B incomplete, no summary yet.
    cut_job(out, "compare.json", "compare.parquet")
    manifest = io.read_manifest(out / "B")
    for part in manifest["parts"][1:]:
        (out / "B" / part["file"]).unlink()
    manifest.update(complete=False, parts=manifest["parts"][:1])
    (out / "B" / io.MANIFEST_NAME).write_text(json.dumps(manifest))
    resign(out / "B")

    result = invoke("compare", "--resume", str(out), "-q")
    assert result.exit_code == 0, result.output
    assert io.is_complete(out / "B")
    assert (
        json.loads((out / "compare.json").read_text())["first_player"]
        == json.loads((tmp_path / "whole" / "compare.json").read_text())["first_player"]
    )
    pd.testing.assert_frame_equal(
        pd.read_parquet(out / "compare.parquet"), whole.comparison.table()
    )
    missing = invoke("compare", "--resume", str(tmp_path / "nothing"))
    assert missing.exit_code == 1 and "holds no comparison" in missing.stderr
