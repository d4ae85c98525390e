"""Two fits of the learned value played against each other (``sim.run.value_match``): how
the retrain chooses between its candidates and how a retrain is played against the
shipped weights."""

from __future__ import annotations

import numpy as np
import pytest

from sim.run.value_match import value_match
from strategies.value_model import shipped_value


def test_a_value_against_itself_scores_one_half_on_duplicate_deals() -> None:
    """Each deal is played twice with the seats swapped, so the same weights in both seats
    win the same games from either seat: the score is exactly 1/2, and every game is
    counted once."""
    got = value_match("aegean", shipped_value(), shipped_value(), 40, 3)
    assert got.games == 40
    assert got.a == got.b
    assert got.score == 0.5


def test_the_shipped_value_beats_a_value_that_reads_nothing() -> None:
    """A value with every weight zero rates every position alike, so its bot takes
    whichever option comes first; the shipped weights win most of the games against it,
    from both seats."""
    shipped = shipped_value()
    blank = np.zeros_like(shipped)
    forward = value_match("dunes", shipped, blank, 60, 4)
    backward = value_match("dunes", blank, shipped, 60, 4)
    assert forward.score > 0.6
    assert (forward.a, forward.b) == (backward.b, backward.a)


def test_a_match_needs_a_deal_for_each_seat() -> None:
    """One game cannot be seat-balanced."""
    with pytest.raises(ValueError, match="at least 2 games"):
        value_match("aegean", shipped_value(), shipped_value(), 1, 3)
