"""`omensim run --until-ci`: stop once the first-player interval is narrow enough."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from conftest import invoke

from sim.analysis.stats import wilson_interval
from sim.data.spec import RunSpec
from sim.run import io, runner


def half_width(k: int, n: int) -> float:
    lo, hi = wilson_interval(k, n)
    return (hi - lo) / 2


def test_stops_early_with_a_complete_manifest(tmp_path: Path) -> None:
    # At a rate near 1/2 the half-width is about 0.98/sqrt(n): 0.05 needs ~390 games.
    out = tmp_path / "run"
    result = runner.run(
        RunSpec(games=5000, seed=4), out, chunk_size=100, progress=False, until_ci=0.05
    )
    manifest = io.read_manifest(out)
    assert manifest["complete"] is True
    played = manifest["games"]
    assert 300 <= played < 5000 and played % 100 == 0
    assert result.games == played == result.spec.games
    assert manifest["spec"]["games"] == played
    assert manifest["games_requested"] == 5000 == result.games_requested
    assert manifest["until_ci"] == 0.05
    assert manifest["stopped"] == "until_ci" == result.stopped
    assert len(manifest["parts"]) == played // 100
    df = pd.read_parquet(out)
    assert len(df) == played and df.game_id.tolist() == list(range(played))
    # The criterion is met at the stop and was not met one chunk earlier.
    first_wins = int((df.winner == df.first_player).sum())
    assert manifest["first_player_wins"] == first_wins
    assert half_width(first_wins, played) <= 0.05
    assert manifest["ci_half_width"] == pytest.approx(half_width(first_wins, played), abs=1e-6)
    before = df[df.game_id < played - 100]
    assert half_width(int((before.winner == before.first_player).sum()), len(before)) > 0.05
    # The recorded spec reproduces the dataset.
    assert RunSpec(**{**manifest["spec"], "variants": tuple(manifest["spec"]["variants"])})
    assert "Stopped at" in runner.summary(result)


def test_stops_at_games_when_the_interval_stays_wide(tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = runner.run(
        RunSpec(games=700, seed=4), out, chunk_size=300, progress=False, until_ci=0.001
    )
    manifest = io.read_manifest(out)
    assert manifest["complete"] is True
    assert manifest["games"] == 700 == manifest["spec"]["games"] == manifest["games_requested"]
    assert manifest["stopped"] == "games"
    assert manifest["ci_half_width"] > 0.001
    assert len(pd.read_parquet(out)) == 700
    assert "did not reach --until-ci within 700 games" in runner.summary(result)


def test_without_until_ci_the_manifest_is_unchanged(tmp_path: Path) -> None:
    runner.run(RunSpec(games=50), tmp_path / "r", progress=False)
    manifest = io.read_manifest(tmp_path / "r")
    assert not {"until_ci", "games_requested", "stopped"} & set(manifest)


def test_cli_until_ci(tmp_path: Path) -> None:
    out = tmp_path / "cli"
    r = invoke(
        "run", "--games", "4000", "--until-ci", "0.05", "--chunk-size", "250", "--out", str(out)
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    assert "Stopped at" in r.output
    assert io.read_manifest(out)["stopped"] == "until_ci"


def test_cli_run_with_a_change(tmp_path: Path) -> None:
    out = tmp_path / "changed"
    r = invoke(
        "run", "--games", "100", "-q", "--out", str(out),
        "--change", "Ker of the Spoils.cost=+1",
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    assert "Ker of the Spoils.cost=+1" in io.read_metadata(out)["card_changes"]


@pytest.mark.parametrize("value", ["0", "0.5", "-0.01", "1", "nan"])
def test_cli_rejects_a_bad_until_ci(tmp_path: Path, value: str) -> None:
    r = invoke("run", "--games", "10", "--until-ci", value, "--out", str(tmp_path / "x"))
    assert r.exit_code == 2
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error:"), r.stderr
    assert "--until-ci" in lines[0]
    assert not (tmp_path / "x").exists()


def test_cli_rejects_a_non_number_until_ci() -> None:
    r = invoke("run", "--games", "10", "--until-ci", "tight")
    assert r.exit_code == 2
    assert r.stderr.count("\n") == 1 and "--until-ci" in r.stderr


def test_run_rejects_a_bad_until_ci_from_python(tmp_path: Path) -> None:
    with pytest.raises(runner.RunError, match="--until-ci must be a half-width"):
        runner.run(RunSpec(games=10), tmp_path / "x", until_ci=0.7)
    assert not (tmp_path / "x").exists()
