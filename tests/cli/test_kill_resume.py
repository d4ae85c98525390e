"""Every long command killed (SIGKILL) part way resumes to the same rows and prints the same
answer as an uninterrupted one (run, sweep, tournament and balance have their own kill
tests beside them; this file holds compare's and the printed answers)."""

from __future__ import annotations

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
