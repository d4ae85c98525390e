"""`omensim run --until-ci`: stop once the first-player interval is narrow enough."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from conftest import invoke

from sim.data.spec import RunSpec
from sim.run import io, runner
from sim.run.engine import MAX_STEP
from sim.run.stats import wilson_interval


def half_width(k: int, n: int) -> float:
    lo, hi = wilson_interval(k, n)
    return (hi - lo) / 2


def first_narrow(df: pd.DataFrame, target: float) -> int:
    """The fewest games (a prefix in game order) whose interval is at most ``target``."""
    wins = (df.winner == df.first_player).cumsum().to_numpy()
    for n in range(1, len(df) + 1):
        if half_width(int(wins[n - 1]), n) <= target:
            return n
    raise AssertionError("the interval never got narrow enough")


@pytest.mark.parametrize("chunk_size", [100, 1 << 16])
def test_stops_early_with_a_complete_manifest(tmp_path: Path, chunk_size: int) -> None:
    """The interval is looked at every kernel call (at most MAX_STEP games), whatever the
    chunk size: even with one 65,536-game chunk the run stops a step after it is narrow."""
    # At a rate near 1/2 the half-width is about 0.98/sqrt(n): 0.05 needs ~390 games.
    out = tmp_path / "run"
    result = runner.run(
        RunSpec(games=5000, seed=4), out, chunk_size=chunk_size, progress=False, until_ci=0.05
    )
    manifest = io.read_manifest(out)
    assert manifest["complete"] is True
    played = manifest["games"]
    assert 300 <= played < 5000
    assert result.games == played == result.spec.games
    assert manifest["spec"]["games"] == played
    assert manifest["games_requested"] == 5000 == result.games_requested
    assert manifest["until_ci"] == 0.05
    assert manifest["stopped"] == "until_ci" == result.stopped
    assert len(manifest["parts"]) == -(-played // chunk_size)
    df = pd.read_parquet(out)
    assert len(df) == played and df.game_id.tolist() == list(range(played))
    first_wins = int((df.winner == df.first_player).sum())
    assert manifest["first_player_wins"] == first_wins
    assert half_width(first_wins, played) <= 0.05
    assert manifest["ci_half_width"] == pytest.approx(half_width(first_wins, played), abs=1e-6)
    # No overshoot beyond one kernel call past the first narrow-enough prefix.
    assert first_narrow(df, 0.05) <= played <= first_narrow(df, 0.05) + MAX_STEP
    # The recorded spec reproduces the dataset.
    assert RunSpec(**{**manifest["spec"], "variants": tuple(manifest["spec"]["variants"])})
    assert "Stopped at" in runner.summary(result)
    # Each part states the games it really holds; the last one the games played in all.
    parts = io.list_parts(out)
    metas = [io.read_metadata(p) for p in parts]
    assert [int(m["part_games"]) for m in metas] == [len(pd.read_parquet(p)) for p in parts]
    assert all(m["games_requested"] == "5000" for m in metas)
    assert metas[-1]["games"] == str(played)
    assert all("games" not in m for m in metas[:-1])


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
