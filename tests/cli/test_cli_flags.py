"""``compare`` and ``sweep`` say when the bot changed, not the card.

A result whose sign contradicts the change (a nerf that helps its holders, a buff that
hurts them) gets a ``FLAG`` line naming what happened and pointing to ``--panel``; a
change that moved the card's play count by more than a third is reported as the change
in play, never flagged (a bot adapting its play to a changed card is what a player
does). The wrong-sign case is Oasis Merchant's Offering 3 -> 2 under ``economic`` (a
pure nerf: the Offering value is the "Amount of cards and/or coins gained when
discarded", ``heir-to-the-dunes.txt``, line 122), whose holders win more; the
play-count case is a card priced out of reach.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from conftest import invoke, ok

MERCHANT = "Oasis Merchant"
ECONOMIC = ("--mix", "dunes+aegean", "--games", "4000", "--seed", "1",
            "--p0", "economic", "--p1", "economic")  # fmt: skip


def test_compare_flags_a_nerf_that_helps_and_writes_it_to_the_summary(tmp_path: Path) -> None:
    out = tmp_path / "cmp"
    result = ok(invoke("compare", *ECONOMIC, "--change", f"{MERCHANT}.offering=-1",
                       "--out", str(out), "--quiet"))  # fmt: skip
    summary = json.loads((out / "compare.json").read_text())
    assert summary["expected_signs"] == {MERCHANT: -1}
    row = next(c for c in summary["cards"] if c["card"] == MERCHANT)
    assert row["lo"] > 0  # the nerf helped its holders, significantly
    flags = summary["flags"]
    assert any("the sign contradicts the change (a nerf that helps" in f for f in flags)
    assert all("--panel" in f for f in flags)
    assert result.output == ""
    shown = ok(invoke("compare", *ECONOMIC, "--change", f"{MERCHANT}.offering=-1")).output
    line = next(ln for ln in shown.splitlines() if ln.startswith(f"FLAG {MERCHANT}: the sign"))
    assert "read it as the bot misplaying the card" in line and "--panel" in line


def test_compare_reports_a_play_count_the_change_moved_without_a_flag(tmp_path: Path) -> None:
    spoils = "Ker of the Spoils"
    args = ["--mix", "aegean", "--games", "600", "--seed", "2", "--change", f"{spoils}.cost=9"]
    out = ok(invoke("compare", *args, "--out", str(tmp_path / "c"))).output
    line = next(ln for ln in out.splitlines() if f"Change in play, {spoils}: played -" in ln)
    assert "FLAG" not in out and "--panel" not in line
    summary = json.loads((tmp_path / "c" / "compare.json").read_text())
    assert summary["flags"] == [] and summary["play_changes"] == [line.strip()]
    # A change whose play count stays put reports no change in play.
    calm = ok(invoke("compare", "--mix", "aegean", "--games", "600", "--seed", "2",
                     "--change", f"{spoils}.strength=+1")).output  # fmt: skip
    assert "FLAG" not in calm and "Change in play" not in calm
    # Under --panel each bot's change in play is named by the bot.
    panel = ok(invoke("compare", *args, "--panel", "greedy,random")).output
    assert f"greedy: Change in play, {spoils}: played -" in panel
    assert f"random: Change in play, {spoils}: played -" in panel
    assert "FLAG" not in panel


def test_sweep_flags_a_wrong_sign_and_only_records_a_moved_play_count(tmp_path: Path) -> None:
    out = tmp_path / "sw"
    shown = ok(invoke("sweep", *ECONOMIC, "--card", MERCHANT, "--card", "Sunset Marauder",
                      "--field", "offering", "--delta", "-1", "--correction", "none",
                      "--out", str(out))).output  # fmt: skip
    t = pd.read_parquet(out / "sweep.parquet").set_index("card")
    assert (t.expected_sign == -1).all()
    assert bool(t.loc[MERCHANT, "wrong_sign"]) and not bool(t.loc[MERCHANT, "plays_moved"])
    assert bool(t.loc["Sunset Marauder", "plays_moved"])  # offered less, so played less
    assert not bool(t.loc["Sunset Marauder", "wrong_sign"])
    flags = [ln for ln in shown.splitlines() if ln.startswith("FLAG")]
    assert len(flags) == 1
    assert flags[0].startswith(f"FLAG {MERCHANT} offering -1: the sign contradicts")
    assert "--panel" in flags[0]
    assert f'--change "{MERCHANT}.offering=-1" --panel' in shown
