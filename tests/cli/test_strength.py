"""``omensim strength``: the printed table and the CSV agree with the rows of each bot's run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from sim import analysis as A
from sim.analysis.card_strength import rank_correlation
from sim.data.spec import RunSpec
from sim.run import runner
from sim.run.session import RunError
from tests.conftest import ROOT, invoke, ok, one_error_line


def test_strength_reads_back_from_the_runs(tmp_path: Path) -> None:
    out = tmp_path / "s"
    args = ["strength", "--mix", "aegean", "--panel", "greedy,random", "-n", "300", "--seed", "2"]
    text = ok(invoke(*args, "--out", str(out), "-q")).output
    assert text == ""
    table = pd.read_csv(out / "strength.csv")
    assert list(dict.fromkeys(table["bot"])) == ["greedy", "random"]
    # Recompute greedy's figures from its rows: holders are player-games holding the card.
    df = A.load(out / "greedy", names=True)
    g = table[table["bot"] == "greedy"].set_index("card")
    for card in g.index[:5]:
        held = [df[f"held_p{s}"].map(lambda cs, c=card: c in cs) for s in (0, 1)]
        played = [df[f"played_p{s}"].map(lambda cs, c=card: c in cs) for s in (0, 1)]
        wins = sum(int((held[s] & (df.winner == s)).sum()) for s in (0, 1))
        assert g.loc[card, "holders"] == int(held[0].sum() + held[1].sum())
        assert g.loc[card, "holder_wins"] == wins
        assert np.isclose(g.loc[card, "played_per_game"], (played[0].sum() + played[1].sum()) / 300)
    assert g["rank"].min() == 1 and g["rate"].is_monotonic_decreasing
    corr = pd.read_csv(out / "rank_correlation.csv", index_col=0)
    assert corr.loc["greedy", "greedy"] == 1
    assert np.isclose(corr.loc["greedy", "random"], rank_correlation(table).loc["greedy", "random"])


def test_strength_prints_a_table_per_bot_and_the_correlation(tmp_path: Path) -> None:
    out = tmp_path / "s"
    text = ok(invoke("strength", "--mix", "dunes", "--panel", "greedy,economic", "-n", "200",
                     "--out", str(out))).output  # fmt: skip
    table = pd.read_csv(out / "strength.csv")
    top = table[(table["bot"] == "greedy") & (table["rank"] == 1)].iloc[0]
    line = next(x for x in text.splitlines() if x.startswith(top["card"]))
    assert f"{top['rate']:.1%} ({top['lo']:.1%}-{top['hi']:.1%})" in line
    assert "rank correlation" in text and "economic" in text
    # Each bot's first-player VP margin, from its run's rows.
    for bot in ("greedy", "economic"):
        df = A.load(out / bot)
        m = np.where(df.first_player == 0, df.score_p0 - df.score_p1, df.score_p1 - df.score_p0)
        half = stats.t.ppf(0.975, len(m) - 1) * m.std(ddof=1) / np.sqrt(len(m))
        want = f"{bot} {m.mean():+.2f} ({m.mean() - half:+.2f} to {m.mean() + half:+.2f}) VP"
        assert want in text, text
    # `omensim report` on the folder: the bots' runs side by side, with the strength table.
    rep = ok(invoke("report", str(out), "--out", str(tmp_path / "rep"), "-q")).output
    page = (tmp_path / "rep" / "report.html").read_text(encoding="utf-8")
    assert rep.startswith("Report: ") and "Card strength" in page
    assert "greedy" in page and "economic" in page


def test_strength_refuses_an_unknown_bot_in_one_line(tmp_path: Path) -> None:
    out = tmp_path / "s"
    line = one_error_line(invoke("strength", "--panel", "greedy,nobody", "--out", str(out)))
    assert "nobody" in line and not out.exists()


def test_a_strength_too_long_to_play_is_refused_before_any_bot_offering_what_it_has(
    tmp_path: Path,
) -> None:
    """Every bot's games are timed up front, and the refusal advises what strength has: it
    has no --until-ci."""
    out = tmp_path / "s"
    line = one_error_line(
        invoke("strength", "--panel", "random,greedy", "--games", "1e15", "--out", str(out))
    )
    assert "2 bots x 1,000,000,000,000,000 games" in line and "fewer bots" in line
    assert "--until-ci" not in line and not out.exists()
    # A run timing itself refuses with the command's advice too.
    with pytest.raises(RunError, match=rf"the limit is {runner.MAX_RUN_DAYS} days: ask less$"):
        runner.run(RunSpec(games=10**15, p0="random", p1="random"), out, fix="ask less")
    assert not out.exists()


def test_a_slow_later_tier_is_refused_before_the_first_plays(tmp_path: Path) -> None:
    """Each tier is timed at its own speed up front. Both tiers' games at the first tier's
    speed would end inside the limit, so timing only the first would let them start; at
    the second tier's speed its games alone would not, so nothing is played, no folder is
    left, and the one line names the slow tier."""
    out = tmp_path / "s"
    result = invoke("strength", "--tiers", "random,value", "--games", "2e10", "--out", str(out))
    line = one_error_line(result)
    assert "2 bots x 20,000,000,000 games" in line and "for value's 20,000,000,000 games" in line
    assert "the limit is" in line and "fewer bots" in line
    assert not out.exists()


def test_each_bot_is_timed_once_and_its_run_plays_the_timed_engine(
    tmp_path: Path, probed: list[str]
) -> None:
    """With every request timed (the threshold lowered), each bot's engine is probed once,
    up front, and its run neither builds nor probes another."""
    out = tmp_path / "s"
    ok(invoke("strength", "--panel", "random,greedy", "-n", "64", "--out", str(out), "-q"))
    assert probed == ["random", "greedy"]
    assert len(A.load(out / "greedy")) == 64


def test_quiet_strength_prints_nothing_though_a_library_warned(tmp_path: Path) -> None:
    """One game per tier: a rate of 0 makes statsmodels divide by zero and warn; -q prints
    nothing at all (a real process: a test's warnings are otherwise pytest's)."""
    argv = ["strength", "--tiers", "random,greedy", "--games", "1", "-q"]
    proc = subprocess.run(
        [sys.executable, "-m", "sim.cli", *argv, "--out", str(tmp_path / "s")],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=600,
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")


def test_tiers_print_each_cards_effect_per_tier_and_flag_a_sign_change(tmp_path: Path) -> None:
    """``--tiers``: the bots play as a panel; tiers.csv holds each card's holders' effect per
    tier, recomputed here from greedy's rows, with Holm over every card and tier, and a
    card is flagged SIGN exactly when it is significantly positive under one tier and
    negative under another."""
    out = tmp_path / "t"
    args = ["strength", "--mix", "aegean", "--tiers", "random,greedy", "-n", "400", "--seed", "3"]
    text = ok(invoke(*args, "--out", str(out))).output
    assert "holders' effect per skill tier" in text
    t = pd.read_csv(out / "tiers.csv")
    assert list(dict.fromkeys(t["bot"])) == ["random", "greedy"]
    df = A.load(out / "greedy", names=True)
    g = t[t["bot"] == "greedy"].set_index("card")
    card = g.index[0]
    held = [df[f"held_p{s}"].map(lambda cs, c=card: c in cs) for s in (0, 1)]
    won = [held[s] & (df.winner == s) for s in (0, 1)]
    other = [~held[s] & (df.winner == s) for s in (0, 1)]
    h = int(held[0].sum() + held[1].sum())
    rate = (won[0].sum() + won[1].sum()) / h - (other[0].sum() + other[1].sum()) / (800 - h)
    assert np.isclose(g.loc[card, "effect"], rate)
    assert (t["p_adjusted"] >= t["p_value"]).all()
    for _, cells in t.groupby("card"):
        sig = cells[cells["significant"]]
        both = (sig["effect"] > 0).any() and (sig["effect"] < 0).any()
        assert (cells["sign_change"] == both).all()
        line = next(x for x in text.splitlines() if x.startswith(cells["card"].iloc[0] + " "))
        assert line.endswith("SIGN") == both


def test_tiers_and_panel_together_are_refused() -> None:
    r = invoke("strength", "--tiers", "greedy,value", "--panel", "greedy,random", "-n", "8")
    assert r.exit_code != 0 and "not both" in r.output
