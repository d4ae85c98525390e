"""`omensim tournament --resume DIR`: finish a killed tournament, keeping its finished pairings."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner, Result
from conftest import kill_when
from tamper import cut_job, resign_job

from sim.analysis import tournament
from sim.cli import main
from sim.run import jobs, runner

ROOT = Path(__file__).resolve().parents[2]
# Three pairings (random-random, random-greedy, greedy-greedy) of 4,000 games each.
ARGS = ["tournament", "--mix", "aegean", "--bots", "random,greedy", "--games", "4000"]
ARGS += ["--seed", "2", "-q"]


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def logged(out: Path) -> int:
    try:
        return len((out / jobs.LOG_NAME).read_text().splitlines())
    except FileNotFoundError:
        return 0


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("whole") / "t"
    r = invoke(*ARGS, "--out", str(out))
    assert r.exit_code == 0, r.output
    assert logged(out) == 3
    return out


def test_a_killed_tournament_resumes_to_the_same_tables(
    tmp_path: Path, uninterrupted: Path
) -> None:
    out = tmp_path / "t"
    kill_when([*ARGS, "--out", str(out)], lambda: logged(out) >= 1, "tournament")
    assert 1 <= logged(out) < 3 and not (out / tournament.PAIRS_FILE).exists()

    r = invoke("tournament", "--resume", str(out), "-q")
    assert r.exit_code == 0, r.output
    assert logged(out) == 3
    # The same printed answer (the tables the command prints, read back from each folder).
    assert tournament.format_tournament(tournament.read_tournament(out)) == (
        tournament.format_tournament(tournament.read_tournament(uninterrupted))
    )
    for name in (tournament.PAIRS_FILE, tournament.RATINGS_FILE):
        pd.testing.assert_frame_equal(
            pd.read_parquet(out / name), pd.read_parquet(uninterrupted / name)
        )
    r = invoke("tournament", "--resume", str(out))
    assert r.exit_code == 1 and "already complete" in r.output


def test_resume_refuses_a_key_mismatch_in_one_line(tmp_path: Path, uninterrupted: Path) -> None:
    out = tmp_path / "t"
    out.mkdir()
    plan = json.loads((uninterrupted / jobs.JOB_NAME).read_text())
    plan["complete"] = False
    (out / jobs.JOB_NAME).write_text(json.dumps(plan))
    resign_job(out, lambda d: d["key"].update(card_hash="0" * 64, digest="0" * 64))
    r = invoke("tournament", "--resume", str(out))
    assert r.exit_code == 1, r.output
    assert r.output.startswith("Error: cannot resume") and "card table changed" in r.output
    assert len(r.output.strip().splitlines()) == 1
    assert sorted(p.name for p in out.iterdir()) == [jobs.JOB_NAME]


def test_each_half_run_is_timed_once_and_a_resume_times_only_those_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With every request timed (the threshold lowered), each half-run's engine is probed
    once, up front, and played as timed; a resume probes only the pairings its log lacks
    and ends with the same tables."""
    probed: list[tuple[str, str]] = []
    probe = runner.probed_rate

    def counted(engine, *args, **kwargs):  # type: ignore[no-untyped-def]
        probed.append((engine.spec.p0, engine.spec.p1))
        return probe(engine, *args, **kwargs)

    monkeypatch.setattr(runner, "PROBE_FROM", 1)
    monkeypatch.setattr(runner, "probed_rate", counted)
    whole, out = tmp_path / "whole", tmp_path / "t"
    r = invoke("tournament", "--bots", "random,greedy", "--games", "8", "-q", "--out", str(whole))
    assert r.exit_code == 0, r.output
    assert probed == [("random", "random"), ("random", "greedy"), ("greedy", "random"),
                      ("greedy", "greedy")]  # fmt: skip
    shutil.copytree(whole, out)
    log = out / jobs.LOG_NAME
    log.write_text(log.read_text().splitlines(keepends=True)[0])
    cut_job(out, tournament.PAIRS_FILE, tournament.RATINGS_FILE, tournament.TABLE_FILE)
    probed.clear()
    r = invoke("tournament", "--resume", str(out), "-q")
    assert r.exit_code == 0, r.output
    assert probed == [("random", "greedy"), ("greedy", "random"), ("greedy", "greedy")]
    for name in (tournament.PAIRS_FILE, tournament.RATINGS_FILE):
        pd.testing.assert_frame_equal(pd.read_parquet(out / name), pd.read_parquet(whole / name))
