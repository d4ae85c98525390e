"""Every long command killed (SIGKILL) part way resumes to the same rows and prints the same
answer as an uninterrupted one (run, sweep, tournament and balance have their own kill
tests beside them; this file holds compare's and the printed answers)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
from conftest import invoke, kill_when, ok, one_error_line

from sim import analysis as A
from sim.run import io, jobs

TALOS = "Talos, Bronze Guardian of Crete"
COMPARE = ["compare", "--games", "2000", "--chunk-size", "100", "--seed", "4"]
COMPARE += ["--change", f"{TALOS}.cost=+1"]


def logged(path: Path) -> int:
    try:
        return len(path.read_text().splitlines())
    except FileNotFoundError:
        return 0


def answer(output: str) -> list[str]:
    """The printed answer: every line but the one naming the folders."""
    return [line for line in output.splitlines() if not line.startswith("Runs in ")]


def test_a_killed_compare_resumes_to_the_same_rows_and_answer(tmp_path: Path) -> None:
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    first = ok(invoke(*COMPARE, "--out", str(whole)))
    kill_when(
        [*COMPARE, "--out", str(cut), "-q"],
        lambda: logged(cut / "B" / io.PARTS_LOG_NAME) >= 2,
        "compare",
    )
    assert not io.is_complete(cut / "B") and not (cut / "compare.json").exists()
    assert not jobs.read_job(cut)["complete"]
    again = ok(invoke("compare", "--resume", str(cut)))
    assert answer(again.output) == answer(first.output)
    for arm in ("A", "B"):
        pd.testing.assert_frame_equal(A.load(cut / arm), A.load(whole / arm))
    pd.testing.assert_frame_equal(
        pd.read_parquet(cut / "compare.parquet"), pd.read_parquet(whole / "compare.parquet")
    )
    jobs.verify(cut, "compare")
    assert "already complete" in one_error_line(invoke("compare", "--resume", str(cut)))
    line = one_error_line(invoke("compare", "--resume", str(cut), "--games", "4000"))
    assert "drop --games (the folder's plan has 2000)" in line


def test_report_refuses_an_edited_compare_or_a_replaced_arm(tmp_path: Path) -> None:
    out = tmp_path / "c"
    ok(invoke(*COMPARE[:2], "400", *COMPARE[3:], "-q", "--out", str(out)))
    ok(invoke("report", str(out), "--out", str(tmp_path / "rep0")))
    summary = out / "compare.json"
    summary.write_text(summary.read_text().replace("0", "1", 1))
    line = one_error_line(invoke("report", str(out), "--out", str(tmp_path / "rep1")))
    assert "compare.json was edited, damaged or replaced" in line


KER = "Ker of the Battlefield"
UNTIL = ["--games", "40000", "--until-ci", "0.015", "--seed", "8"]


def test_a_killed_compare_until_ci_resumes_to_the_same_looks_and_answer(tmp_path: Path) -> None:
    """Its steps are logged as they are played: the resumed comparison reads them back, looks
    where it looked, and stops at the same game."""
    args = ["compare", *UNTIL, "--change", f"{KER}.cost=4"]
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    first = ok(invoke(*args, "--out", str(whole)))
    steps = logged(whole / jobs.LOG_NAME)
    assert steps >= 4  # the kill below falls between two looks
    kill_when([*args, "--out", str(cut), "-q"], lambda: logged(cut / jobs.LOG_NAME) >= 3, "compare")
    assert not (cut / "compare.json").exists()
    assert "drop --until-ci" in one_error_line(
        invoke("compare", "--resume", str(cut), "--until-ci", "0.02")
    )
    again = ok(invoke("compare", "--resume", str(cut)))
    assert answer(again.output) == answer(first.output)
    assert "--until-ci 0.015: every headline interval reached" in again.output
    pd.testing.assert_frame_equal(
        pd.read_parquet(cut / "compare.parquet"), pd.read_parquet(whole / "compare.parquet")
    )
    assert logged(cut / jobs.LOG_NAME) == steps
    for d in (cut, whole):
        jobs.verify(d, "compare")
    for arm in ("A", "B"):  # the steps became the arms' runs: the same parts, byte for byte
        parts = [io.read_manifest(d / arm)["parts"] for d in (cut, whole)]
        assert [p["sha256"] for p in parts[0]] == [p["sha256"] for p in parts[1]]


def test_a_resumed_until_ci_refuses_an_edited_step(tmp_path: Path) -> None:
    args = ["compare", *UNTIL, "--change", f"{KER}.cost=4", "-q"]
    cut = tmp_path / "cut"
    kill_when([*args, "--out", str(cut)], lambda: logged(cut / jobs.LOG_NAME) >= 2, "compare")
    step = sorted((cut / jobs.STEPS / "A").glob("part-*"))[0]
    step.write_bytes(step.read_bytes()[:-8] + b"\0" * 8)
    line = one_error_line(invoke("compare", "--resume", str(cut)))
    assert "edited or damaged" in line and step.name in line


def test_a_killed_sweep_until_ci_resumes_to_the_same_table(tmp_path: Path) -> None:
    args = ["sweep", "--games", "30000", "--until-ci", "0.02", "--seed", "8", "--card", KER]
    args += ["--card", "3", "--delta", "+1"]
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    first = ok(invoke(*args, "--out", str(whole)))
    lines = logged(whole / jobs.LOG_NAME)
    kill_when(
        [*args, "--out", str(cut), "-q"],
        lambda: logged(cut / jobs.LOG_NAME) >= lines // 2,
        "sweep",
    )
    assert not (cut / "sweep.parquet").exists()
    # A kept baseline step edited since is refused, though every cell might be logged.
    edited = tmp_path / "edited"
    shutil.copytree(cut, edited)
    step = sorted((edited / jobs.STEPS / "baseline").glob("part-*"))[-1]
    step.write_bytes(step.read_bytes()[:-8] + b"\0" * 8)
    assert "edited or damaged" in one_error_line(invoke("sweep", "--resume", str(edited)))
    again = ok(invoke("sweep", "--resume", str(cut)))
    table = [line for line in first.output.splitlines() if not line.startswith("Wrote ")]
    assert [line for line in again.output.splitlines() if not line.startswith("Wrote ")] == table
    pd.testing.assert_frame_equal(
        pd.read_parquet(cut / "sweep.parquet"), pd.read_parquet(whole / "sweep.parquet")
    )
    jobs.verify(cut, "sweep")
