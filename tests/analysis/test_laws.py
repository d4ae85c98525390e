"""Laws a strictly weaker card must obey (sim.analysis.laws), and the lean CI panel.

A card with less strength or a smaller Offering and nothing else changed cannot help the
players who hold it (strength is what a unit adds to a war, ``edge-of-the-aegean.txt``,
line 91 for the Offering value: "Amount of cards and/or coins gained when discarded"), so a
paired comparison that says it does, significantly, is about the bot's play. The lean panel
is a few Dunes units whose nerf misled the shipped heuristics; the full panel is
``benchmarks/bench_laws.py``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from sim.analysis.laws import (
    LEAN_GAMES,
    STRENGTH_MIN,
    judge,
    law_cells,
    law_summary,
    law_z_penalty,
    lean_cells,
    play_laws,
)
from sim.analysis.signs import (
    FIELD_DIRECTION,
    direction,
    flag_lines,
    play_change_line,
    plays_moved,
)
from sim.data.cards import load_pool
from sim.data.changes import FIELDS, CardChange


def test_every_field_has_a_declared_direction() -> None:
    assert set(FIELD_DIRECTION) == set(FIELDS)
    old = {"X": {"cost": 3, "strength": 2, "offering": 1, "copies": 2}}
    assert direction([CardChange("X", "cost", 1, relative=True)], old) == -1
    assert direction([CardChange("X", "cost", 2)], old) == 1
    assert direction([CardChange("X", "strength", -1, relative=True)], old) == -1
    assert direction([CardChange("X", "offering", 3)], old) == 1
    # Mixed, unknown, no-op or unknown-card edits have no known direction.
    both = [CardChange("X", "strength", 4), CardChange("X", "cost", 5)]
    assert direction(both, old) == 0
    assert direction([CardChange("X", "copies", 3)], old) == 0
    assert direction([CardChange("X", "cost", 3)], old) == 0
    assert direction([CardChange("Y", "cost", 1)], old) == 0
    assert direction([], old) == 0


def test_the_panel_covers_every_unit_with_a_pure_nerf_and_buff() -> None:
    cells = law_cells()
    aegean = [u["name"] for u in load_pool("aegean").units]
    dunes = [u["name"] for u in load_pool("dunes+aegean").units if u["set"] == "dunes"]
    for name in (*aegean, *dunes):
        assert sorted(c.expected for c in cells if c.card == name) == [-1, 1], name
    assert len({c.card for c in cells if c.set_name == "reign"}) == 10
    units = {u["name"]: u for m in ("dunes+aegean", "reign") for u in load_pool(m).units}
    for c in cells:
        assert direction(c.edits, units) == c.expected, c
        for e in c.edits:
            if e.field == "strength":
                assert e.value >= STRENGTH_MIN
            assert abs(e.value - units[c.card][e.field]) <= 2


def test_the_one_field_panel_changes_each_field_alone() -> None:
    both = law_cells(("aegean",))
    apart = law_cells(("aegean",), one_field=True)
    units = {u["name"]: u for u in load_pool("aegean").units}
    assert all(len(c.edits) == 1 for c in apart)
    assert all(direction(c.edits, units) == c.expected for c in apart)
    # Every field a cell of both changes, a cell of its own changes alone, with the same sign.
    split = {(c.card, c.expected, e) for c in both for e in c.edits}
    assert split == {(c.card, c.expected, c.edits[0]) for c in apart}
    eagle = {c.label for c in apart if c.card == "Bronze Eagle of the Caucasus"}
    assert eagle == {"strength 5->3", "strength 5->7", "offering 1->0", "offering 1->2"}


def test_a_one_field_cell_sees_greedys_misplay_of_the_bronze_eagle() -> None:
    """Bronze Eagle of the Caucasus with 2 less strength, its Offering kept: under greedy
    its holders win more, significantly (greedy plays the card half as often then), a wrong
    sign the cell of both fields dilutes below the full panel's Holm bar. So a one-field
    panel can fail where the panel of both fields passes."""
    cells = law_cells(("aegean",), cards=("Bronze Eagle of the Caucasus",), one_field=True)
    nerf = [c for c in cells if c.label == "strength 5->3"]
    t = play_laws("greedy", nerf, LEAN_GAMES)
    assert bool(t.wrong_sign.iloc[0]) and t.lo.iloc[0] > 0, t[["change", "diff", "lo", "hi"]]


def test_judge_counts_only_significant_results_of_the_forbidden_sign() -> None:
    t = pd.DataFrame(
        {
            "bot": ["a"] * 4 + ["b"],
            "card": list("pqrst"),
            "expected": [-1, -1, 1, 1, -1],
            "diff": [0.03, -0.001, -0.04, 0.05, 0.03],
            "lo": [0.02, -0.012, -0.05, 0.04, 0.02],
            "hi": [0.04, 0.01, -0.03, 0.06, 0.04],
            "p_value": [1e-6, 0.8, 1e-7, 1e-9, 0.04],
            "games": 100,
        }
    )
    out = judge(t)
    assert list(out.wrong_sign) == [True, False, True, False, True]
    s = law_summary(out).set_index("bot")
    assert s.loc["a", "wrong_sign"] == 2 and s.loc["a", "significant_right"] == 1
    assert s.loc["b", "wrong_sign"] == 1  # Holm is over each bot's own cells
    assert law_z_penalty(out[out.card == "q"]) == pytest.approx(0.0)
    assert law_z_penalty(out[out.card == "p"]) > 5


def test_only_a_wrong_sign_is_flagged_and_a_play_count_is_a_change_in_play() -> None:
    assert not plays_moved(300, 201) and plays_moved(300, 199) and plays_moved(300, 401)
    assert plays_moved(0, 5) and not plays_moved(0, 0)
    hint = "rerun with --panel a,b"
    lines = flag_lines("Hound", -1, 0.02, True, hint)
    assert len(lines) == 1 and lines[0].startswith("FLAG Hound:")
    assert "a nerf that helps its holders" in lines[0] and "+2.00 points" in lines[0]
    assert hint in lines[0]
    assert flag_lines("Hound", -1, 0.02, False, hint) == []
    assert flag_lines("Hound", 1, 0.02, True, hint) == []
    assert "a buff that hurts them" in flag_lines("Hound", 1, -0.02, True, hint)[0]
    moved = play_change_line("Hound", 1000, 500)
    assert moved is not None and "FLAG" not in moved and "-50% (1,000 -> 500" in moved
    assert play_change_line("Hound", 1000, 900) is None


@pytest.fixture(scope="module")
def lean() -> list:
    return lean_cells()


def test_greedy_obeys_the_laws_on_the_lean_panel(lean) -> None:
    """The default bot of every command: no pure nerf helps, no pure buff hurts."""
    t = play_laws("greedy", lean, LEAN_GAMES)
    assert len(t) == 8
    bad = t[t.wrong_sign]
    assert bad.empty, bad[["card", "change", "diff", "lo", "hi", "p_adjusted"]]


def test_the_lean_panel_catches_a_bot_that_misplays(lean) -> None:
    """The same check fails on ``defensive``: under it, Weigher of Hearts' and Grand
    Vizier of the Two Lands' nerfs help their holders, significantly. So the lean test
    can fail."""
    t = play_laws("defensive", lean, LEAN_GAMES)
    bad = t[t.wrong_sign]
    want = {"Weigher of Hearts", "Grand Vizier of the Two Lands"}
    assert want <= set(bad.card), t[["card", "change", "diff", "p_adjusted"]]
    assert np.all(bad["expected"] == -1)


def test_the_lean_panel_catches_the_shipped_economic(lean) -> None:
    """``economic`` overvalues offering Oasis Merchant: with one less to offer, its holders
    win more often, significantly, at the lean panel's game count; greedy's own check above
    passes on the same cells and games. So the CI known-answer test tells the two apart."""
    t = play_laws("economic", lean, LEAN_GAMES)
    bad = t[t.wrong_sign]
    found = set(zip(bad.card, bad.change, strict=True))
    shown = t[["card", "change", "diff", "p_adjusted"]]
    assert found == {("Oasis Merchant", "offering 3->2")}, shown
    assert np.all(bad["lo"] > 0)
