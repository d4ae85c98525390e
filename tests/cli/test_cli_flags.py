"""``compare`` and ``sweep`` say when the bot changed, not the card.

A result whose sign contradicts the change (a nerf that helps its holders, a buff that
hurts them) and a change that moved the card's play count by more than a third both get a
``FLAG`` line naming what happened and pointing to ``--panel``. The wrong-sign case is
Oasis Merchant's Offering 3 -> 2 under ``economic`` (a pure nerf: the Offering value is
the "Amount of cards and/or coins gained when discarded", ``heir-to-the-dunes.txt``,
line 122), whose holders win more; the play-count case is a card priced out of reach.
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


def test_compare_flags_a_play_count_the_change_moved() -> None:
    spoils = "Ker of the Spoils"
    out = ok(invoke("compare", "--mix", "aegean", "--games", "600", "--seed", "2",
                    "--change", f"{spoils}.cost=9")).output  # fmt: skip
    line = next(ln for ln in out.splitlines() if "moved its play count" in ln)
    assert line.startswith(f"FLAG {spoils}: the change moved its play count by -")
    assert "--panel" in line
    # A change whose answer is about the card earns no flag.
    calm = ok(invoke("compare", "--mix", "aegean", "--games", "600", "--seed", "2",
                     "--change", f"{spoils}.strength=+1")).output  # fmt: skip
    assert "FLAG" not in calm
    # Under --panel each bot's flags are named by the bot.
    args = ["--mix", "aegean", "--games", "600", "--seed", "2", "--change", f"{spoils}.cost=9"]
    panel = ok(invoke("compare", *args, "--panel", "greedy,random")).output
    assert f"greedy: FLAG {spoils}: the change moved its play count" in panel
    assert f"random: FLAG {spoils}: the change moved its play count" in panel


def test_sweep_flags_wrong_sign_and_play_count_cells(tmp_path: Path) -> None:
    out = tmp_path / "sw"
    shown = ok(invoke("sweep", *ECONOMIC, "--card", MERCHANT, "--card", "Sunset Marauder",
                      "--field", "offering", "--delta", "-1", "--correction", "none",
                      "--out", str(out))).output  # fmt: skip
    t = pd.read_parquet(out / "sweep.parquet").set_index("card")
    assert (t.expected_sign == -1).all()
    assert bool(t.loc[MERCHANT, "wrong_sign"]) and not bool(t.loc[MERCHANT, "plays_moved"])
    assert bool(t.loc["Sunset Marauder", "plays_moved"])  # offered less, so played less
    flags = [ln for ln in shown.splitlines() if ln.startswith("FLAG")]
    assert any(ln.startswith(f"FLAG {MERCHANT} offering -1: the sign contradicts") for ln in flags)
    assert any("Sunset Marauder offering -1: the change moved its play count" in ln
               for ln in flags)  # fmt: skip
    assert all("--panel" in ln for ln in flags)
    assert f'--change "{MERCHANT}.offering=-1" --panel' in shown
