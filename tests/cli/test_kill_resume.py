"""Every long command killed (SIGKILL) part way resumes to the same rows and prints the same
answer as an uninterrupted one (run, sweep, tournament and balance have their own kill
tests beside them; this file holds compare's and the printed answers)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest
from conftest import invoke, kill_when, ok, one_error_line

from sim import analysis as A
from sim.data.cards import CONFIG_DIR, SETS_DIR
from sim.run import io, jobs, ledger, provenance

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


# --- a resume at another commit ------------------------------------------------------------

RUN = ["run", "--games", "6000", "--chunk-size", "100", "--seed", "8", "-q"]


def another_commit(monkeypatch: pytest.MonkeyPatch) -> None:
    """The resume runs at a commit the killed command did not (git state is provenance)."""
    state = {"git_commit": "0" * 40, "git_dirty": False}
    monkeypatch.setattr(provenance, "git_state", lambda *a: state)


def test_a_run_resumed_at_another_commit_reads_back_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its parts were stamped with the git commit, which the resume does not compare: it
    finished and marked the folder complete, and then nothing could read it."""
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    ok(invoke(*RUN, "--out", str(whole)))
    kill_when([*RUN, "--out", str(cut)], lambda: logged(cut / ledger.LOG_NAME) >= 2, "run")
    another_commit(monkeypatch)
    ok(invoke("run", "--resume", str(cut), "-q"))
    pd.testing.assert_frame_equal(A.load(cut), A.load(whole))
    assert io.read_manifest(cut)["provenance"]["git_commit"] == "0" * 40
    ok(invoke("report", str(cut), "--out", str(tmp_path / "rep"), "-q"))
    ok(invoke("replay", str(cut), "--game", "1"))
    assert "already complete" in one_error_line(invoke("run", "--resume", str(cut)))


def test_a_compare_resumed_at_another_commit_reads_back_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cut = tmp_path / "cut"
    kill_when(
        [*COMPARE, "--out", str(cut), "-q"],
        lambda: logged(cut / "B" / io.PARTS_LOG_NAME) >= 2,
        "compare",
    )
    another_commit(monkeypatch)
    ok(invoke("compare", "--resume", str(cut), "-q"))
    for arm in ("A", "B"):
        assert list(A.load(cut / arm)["game_id"]) == list(range(2000))
    jobs.verify(cut, "compare")


def test_a_resume_whose_cards_or_bots_changed_is_refused_before_any_game(tmp_path: Path) -> None:
    """What the games depend on is compared before any is played: the folder is left as it
    was, and once the files are back the same resume finishes it."""
    cards, bot, cut = tmp_path / "my-aegean.toml", tmp_path / "my-greedy.toml", tmp_path / "cut"
    cards.write_text((SETS_DIR / "aegean.toml").read_text())
    bot.write_text((CONFIG_DIR / "strategies" / "greedy.toml").read_text())
    args = [*RUN, "--cards", str(cards), "--p0", str(bot), "--out", str(cut)]
    kill_when(args, lambda: logged(cut / ledger.LOG_NAME) >= 2, "run")
    before = {p.name: p.read_bytes() for p in cut.iterdir()}
    talos = f'name = "{TALOS}"\ntype = "automaton"\ncost = '
    edits = [(cards, talos + "6", talos + "7", "the card table changed")]
    edits += [(bot, "\ncoin = 0.949\n", "\ncoin = 1.5\n", "the bots' parameters")]
    for path, was, now, what in edits:
        text = path.read_text()
        assert was in text
        path.write_text(text.replace(was, now))
        line = one_error_line(invoke("run", "--resume", str(cut)))
        assert line.startswith(f"Error: cannot resume {cut}: {what}")
        assert {p.name: p.read_bytes() for p in cut.iterdir()} == before
        path.write_text(text)
    ok(invoke("run", "--resume", str(cut), "-q"))
    assert list(A.load(cut)["game_id"]) == list(range(6000))


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
