"""`compare` and `sweep` --until-ci and --plan: stop when the headlines are narrow, size first."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import invoke, ok, one_error_line

from sim.analysis import sizing
from sim.analysis.compare import compare, plan_compare
from sim.analysis.paired import Outcomes
from sim.analysis.sweep import sweep
from sim.data.changes import Changes
from sim.data.spec import RunSpec, SpecError
from sim.run import jobs
from sim.run.engine import MAX_STEP

KER = "Ker of the Battlefield"
SPEC = RunSpec(games=40_000, mix="aegean", seed=8)
EDIT = Changes.parse([f"{KER}.cost=4"])


def _widths(a: Outcomes, b: Outcomes, n: int) -> dict[str, float]:
    idx = np.arange(n)
    kinds = {KER: 11}
    return sizing.half_widths(sizing.headline_terms(a.take(idx), b.take(idx), kinds, kinds))


def test_compare_until_ci_stops_at_the_first_narrow_step() -> None:
    width = 0.015
    result = compare(SPEC, EDIT, progress=False, until_ci=width)
    fp = result.comparison.first_player
    n = fp.games
    assert MAX_STEP < n < SPEC.games and n % MAX_STEP == 0
    # Every headline is narrow now, and was not one kernel call earlier.
    assert (fp.hi - fp.lo) / 2 <= width
    card = result.comparison.cards.set_index("card").loc[KER]
    assert (card.hi - card.lo) / 2 <= width
    from sim.run.engine import Engine

    arms = [sizing.engine_arm(Engine(SPEC, changes=ch)) for ch in (Changes(), EDIT)]
    got = sizing.play_until(arms, SPEC.games, width, {KER: 11}, {KER: 11})
    assert got.games == n
    a, b = got.a, got.b
    assert max(_widths(a, b, n).values()) <= width
    assert max(_widths(a, b, n - MAX_STEP).values()) > width


def test_compare_until_ci_hits_the_ceiling_and_leaves_its_arms_as_runs(tmp_path: Path) -> None:
    """After the stop the kept steps are the parts of the run folders A and B: the folder
    loads and reports as a plain compare of the games played does."""
    from sim.api import load

    result = compare(RunSpec(games=500, seed=8), EDIT, progress=False, until_ci=0.001)
    assert result.comparison.first_player.games == 500 and result.out is None
    spec = RunSpec(games=20_000, mix="aegean", seed=8)
    kept = compare(spec, EDIT, progress=False, until_ci=0.02, out=tmp_path / "c")
    played = compare(spec, EDIT, progress=False, until_ci=0.02)
    assert kept.played == played.played < spec.games
    pd.testing.assert_frame_equal(kept.table(), played.table())
    compare(dataclasses.replace(spec, games=kept.played), EDIT, progress=False, out=tmp_path / "p")
    for arm in ("A", "B"):
        pd.testing.assert_frame_equal(load(tmp_path / "c" / arm), load(tmp_path / "p" / arm))
    doc = jobs.verify(tmp_path / "c", "compare")
    assert doc["plan"]["until_ci"] == 0.02 and not (tmp_path / "c" / jobs.STEPS).exists()
    reports = [
        ok(invoke("report", str(tmp_path / d), "--out", str(tmp_path / f"r{d}"))).output
        for d in ("c", "p")
    ]
    assert reports[0].replace("rc", "rp") == reports[1]
    page = (tmp_path / "rc" / "report.html").read_text()
    assert "VP margin: distribution" in page
    replays = [ok(invoke("replay", str(tmp_path / d / "B"), "--game", "3")).output for d in "cp"]
    assert replays[0].replace(str(tmp_path / "c"), str(tmp_path / "p")) == replays[1]
    with pytest.raises(SpecError, match="not with --backend"):
        compare(spec, EDIT, progress=False, until_ci=0.02, backend=object())


def test_plan_scales_the_pilot_by_one_over_root_n() -> None:
    plan = plan_compare(SPEC, SPEC, Changes(), EDIT, 0.005, progress=False)
    assert plan.pilot == sizing.PLAN_PILOT and plan.runs == 2
    assert set(plan.widths) == {"first player", f"{KER}: holders"}
    worst = max(plan.widths.values())
    assert plan.games == math.ceil(plan.pilot * (worst / 0.005) ** 2)
    assert plan.total == 2 * plan.games and plan.seconds > 0
    assert sizing.needed(0.01, 1000, 0.005) == 4000
    assert sizing.needed(0.001, 1000, 0.005) == 1000  # never fewer than the pilot


def test_sweep_until_ci_sizes_each_cell(tmp_path: Path) -> None:
    spec = RunSpec(games=30_000, mix="aegean", seed=8)
    result = sweep(spec, "cost", (1,), cards=[KER, "3"], progress=False, until_ci=0.02)
    t = result.table.set_index("card")
    assert ((t.hi - t.lo) / 2 <= 0.02).all() or (t.games == spec.games).any()
    assert (t.games < spec.games).any()
    assert (t.games % MAX_STEP == 0).all()
    # Each cell stops where a pair of plain arms, looking after every kernel call, stops.
    from sim.run.engine import Engine

    edit = Changes.parse([f"{KER}.cost=+1"])
    arms = [sizing.engine_arm(Engine(spec, changes=ch)) for ch in (Changes(), edit)]
    got = sizing.play_until(arms, spec.games, 0.02, {KER: 11}, {KER: 11}, first=False)
    assert t.loc[KER, "games"] == got.games
    # Into a folder: the same table; the cells' steps are gone, the baseline's kept.
    kept = sweep(spec, "cost", (1,), [KER, "3"], progress=False, until_ci=0.02, out=tmp_path / "s")
    pd.testing.assert_frame_equal(kept.table, result.table)
    assert [p.name for p in (tmp_path / "s" / "steps").iterdir()] == ["baseline"]
    jobs.verify(tmp_path / "s", "sweep")
    # --force replaces it, steps and all.
    again = sweep(spec, "cost", (1,), [KER], progress=False, until_ci=0.03, out=tmp_path / "s",
                  force=True)  # fmt: skip
    assert jobs.verify(tmp_path / "s", "sweep")["plan"]["until_ci"] == 0.03
    assert len(again.table) == 1


def test_cli_until_ci_and_plan() -> None:
    r = ok(invoke("compare", "--games", "30000", "--until-ci", "0.04", "--change", f"{KER}.cost=4"))
    assert "--until-ci 0.04: every headline interval reached +/- 4.00 points" in r.output
    r = ok(invoke("compare", "--plan", "0.01", "--games", "600", "--change", f"{KER}.cost=4"))
    assert "a pilot of 600 games" in r.output and "on this machine" in r.output
    assert "Paired shifts" not in r.output  # the plan plays nothing more
    r = ok(
        invoke(
            "compare", "--games", "9000", "--plan", "0.04", "--until-ci", "0.04",
            "--change", f"{KER}.cost=4",
        )
    )  # fmt: skip
    assert r.output.index("plan: a pilot") < r.output.index("Paired shifts")  # plan, then run
    r = ok(invoke("sweep", "--games", "5000", "--until-ci", "0.05", "--card", "11"))
    assert "Ker of the Battlefield" in r.output
    r = ok(invoke("sweep", "--games", "400", "--plan", "0.02", "--card", "11", "--delta", "1"))
    assert "2 runs" in r.output


@pytest.mark.parametrize("command", ["compare", "sweep"])
@pytest.mark.parametrize("option", ["--until-ci", "--plan"])
def test_cli_bad_widths(command: str, option: str) -> None:
    args = ("--change", f"{KER}.cost=4") if command == "compare" else ()
    assert "half-width" in one_error_line(invoke(command, option, "0.7", *args))


def test_cli_until_ci_refuses_panel(tmp_path: Path) -> None:
    line = one_error_line(
        invoke("compare", "--plan", "0.01", "--change", f"{KER}.cost=4", "--panel", "greedy,random")
    )
    assert "not with --panel" in line
    for command in ("compare", "sweep"):  # its looks fall after every kernel call
        args = ["--until-ci", "0.01", "--chunk-size", "100", "--change", f"{KER}.cost=4"]
        line = one_error_line(invoke(command, *args[: 4 if command == "sweep" else 6]))
        assert "drop --chunk-size" in line
        b_side = args[4:] if command == "compare" else []
        line = one_error_line(invoke(command, *args[:2], "--backend", "dask", *b_side))
        assert "drop --backend dask" in line
