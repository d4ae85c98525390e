"""The first player's VP margin in every summary, read back against the games' rows.

``compare`` prints A's and B's mean margin with its t-interval and the paired shift
with its paired t-interval; ``sweep`` gives each cell's paired margin shift (the same
figures a ``compare`` of that one change prints, as both play the same games);
``tournament`` gives each pairing's margin (``--keep-games`` keeps the rows to check)
and the self-play table prints it;
the sweep and tournament reports carry them too.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import invoke, ok

from sim.run.margins import (
    MarginMoments,
    MarginShift,
    first_player_margins,
    margin_distribution,
    margin_row,
)

KER = "Ker of the Battlefield"
GAMES = "300"


def margins(run: Path) -> np.ndarray:
    """Per game of ``run``, in ``game_id`` order, the first player's VP margin."""
    df = pd.read_parquet(run).sort_values("game_id")
    return first_player_margins(df.first_player, df.score_p0, df.score_p1)


@pytest.fixture(scope="module")
def compared(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("margins") / "cmp"
    change = f"{KER}.cost=+1"
    r = ok(
        invoke("compare", "--games", GAMES, "--seed", "4", "--change", change, "--out", str(out))
    )
    return out, r.output


def test_compare_prints_each_arms_margin_and_the_paired_shift(
    compared: tuple[Path, str],
) -> None:
    out, text = compared
    m = MarginShift.from_margins(margins(out / "A"), margins(out / "B"))
    lines = text.splitlines()
    arm_rows = [line.strip() for line in lines if line.strip().startswith("first VP margin")]
    for arm, row in zip((m.a, m.b), arm_rows, strict=True):
        label, value = margin_row(arm)
        assert row == f"{label}    {value}", row
    lo, hi = m.shift.interval()
    assert (
        f"  first player's VP margin: {m.a.mean:+.2f} -> {m.b.mean:+.2f} VP, change "
        f"{m.shift.mean:+.2f} VP (95% paired t-interval {lo:+.2f} to {hi:+.2f})"
    ) in lines
    # Pairing narrows it: the shift's interval is narrower than A's own.
    a_lo, a_hi = m.a.interval()
    assert hi - lo < a_hi - a_lo
    saved = json.loads((out / "compare.json").read_text())["margin"]
    assert saved["diff"] == pytest.approx(m.shift.mean)
    assert (saved["lo"], saved["hi"]) == pytest.approx((lo, hi))


def test_sweep_cell_margin_equals_the_compare_of_that_change(
    compared: tuple[Path, str], tmp_path: Path
) -> None:
    out, _ = compared
    sweep = tmp_path / "sweep"
    text = ok(
        invoke(
            "sweep", "--games", GAMES, "--seed", "4", "--card", KER, "--delta", "+1",
            "--out", str(sweep),
        )
    ).output  # fmt: skip
    cell = pd.read_parquet(sweep / "sweep.parquet").iloc[0]
    m = MarginShift.from_margins(margins(out / "A"), margins(out / "B"))
    lo, hi = m.shift.interval()
    assert cell["margin_diff"] == pytest.approx(m.shift.mean)
    assert (cell["margin_lo"], cell["margin_hi"]) == pytest.approx((lo, hi))
    assert cell["margin_a"] == pytest.approx(m.a.mean)
    assert f"{m.shift.mean:+.2f} ({lo:+.2f} to {hi:+.2f})" in text
    # The sweep's report: the baseline's margin, from the baseline's own rows.
    report = ok(invoke("report", str(sweep), "--out", str(tmp_path / "rep"))).output
    label, value = margin_row(MarginMoments.from_margins(margins(sweep / "baseline")))
    assert f"baseline {label}: {value}" in report


def test_tournament_gives_each_pairings_margin(tmp_path: Path) -> None:
    out = tmp_path / "tour"
    text = ok(
        invoke(
            "tournament", "--bots", "random,greedy", "--games", "200", "--keep-games",
            "--out", str(out),
        )
    ).output  # fmt: skip
    pairs = pd.read_parquet(out / "tournament.parquet").set_index(["bot_a", "bot_b"])
    # random against greedy: two half-runs under games/, one per seat order.
    both = pairs.loc[("random", "greedy")]
    halves = [out / "games" / name for name in ("random-vs-greedy", "greedy-vs-random")]
    m = MarginMoments.from_margins(np.concatenate([margins(h) for h in halves]))
    assert m.games == both["games"] == 200
    lo, hi = m.interval()
    assert both["first_margin"] == pytest.approx(m.mean)
    assert (both["first_margin_lo"], both["first_margin_hi"]) == pytest.approx((lo, hi))
    values, games = np.unique(np.concatenate([margins(h) for h in halves]), return_counts=True)
    spread = margin_distribution(values, games)
    for key in ("p10", "p50", "p90", "ahead", "level", "behind"):
        assert both[f"first_margin_{key}"] == pytest.approx(spread[key]), key
    assert spread["p10"] <= spread["p50"] <= spread["p90"]
    assert spread["ahead"] + spread["level"] + spread["behind"] == pytest.approx(1)
    # The self-play table prints each bot's own figure.
    greedy = pairs.loc[("greedy", "greedy")]
    cell = f"{greedy.first_margin:+.2f} ({greedy.first_margin_lo:+.2f} to "
    row = [line for line in text.splitlines() if line.startswith("| greedy ")][-1]
    assert cell in row, row
    report = ok(invoke("report", str(out), "--out", str(tmp_path / "rep"))).output
    assert row in report
    page = (tmp_path / "rep" / "report.html").read_text()
    assert "The first player's VP margin: distribution in self-play" in html.unescape(page)
