"""Heir to the Dunes gods go to the seats independently of seat and turn order.

heir-to-the-dunes.txt, line 54: "Each player takes a god reference card and a set of 3
structure cards, matching their god." The rulebook leaves who serves which god to the
players; the simulator alternates seat 0's god every second deal (``--gods alternate``,
the default) or fixes both (``--gods anubis,horus``). Line 57: "Flip the Favor card to
the side matching the god of the second player."
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from sim.data.spec import RunSpec, SpecError
from sim.run.engine import Engine
from sim.run.gods import GodCounts, god_rows

MIXES = [
    "aegean",
    "dunes",
    "reign",
    "dunes+aegean",
    "aegean+dunes",
    "dunes+reign",
    "reign+dunes",
    "aegean+reign",
    "reign+aegean",
]


def play(games: int, mix: str, seed: int = 3, **spec: object) -> pd.DataFrame:
    """``games`` games of ``mix`` in self-play, as rows."""
    return Engine(RunSpec(games=games, mix=mix, seed=seed, **spec)).play(0, games).to_pandas()


def seat_z(df: pd.DataFrame) -> float:
    """Seat 0's wins minus seat 1's over the decisive games, in standard errors."""
    w0, w1 = int((df.winner == 0).sum()), int((df.winner == 1).sum())
    return (w0 - w1) / math.sqrt(w0 + w1)


def test_gods_alternate_every_second_deal_and_the_favor_shows_the_second_players() -> None:
    df = play(16, "dunes")
    p0 = df.god_p0.astype(str).to_numpy()
    p1 = df.god_p1.astype(str).to_numpy()
    want = np.where((df.deal_id.to_numpy() // 2) % 2 == 0, "anubis", "horus")
    assert (p0 == want).all() and (p1 != p0).all()
    assert set(p1) == {"anubis", "horus"}
    # Seat, god and first player: each of the four pairings once in every four deals.
    pairs = pd.crosstab(df.first_player, df.god_p0.astype(str))
    assert (pairs.to_numpy() == 4).all()


def test_gods_option_fixes_them() -> None:
    for gods in ("anubis,horus", "horus,anubis"):
        df = play(8, "dunes+aegean", gods=gods)
        assert set(df.god_p0.astype(str)) == {gods.split(",")[0]}
        assert set(df.god_p1.astype(str)) == {gods.split(",")[1]}


def test_gods_option_is_refused_where_it_means_nothing() -> None:
    with pytest.raises(SpecError, match="--gods must be one of"):
        RunSpec(gods="anubis,anubis")
    with pytest.raises(SpecError, match="needs a mix whose base set has gods"):
        Engine(RunSpec(games=2, mix="aegean+dunes", gods="anubis,horus"))


# The god effect under `defensive` is about 0.8 points (z near -2.4 at 80,000 games):
# 240,000 games see it well beyond the balance test's 3.5 bound. (Under the refitted greedy
# the two gods win about equally often, so greedy cannot show the confound.)
GOD_GAMES = 240_000


@pytest.mark.parametrize("mix", MIXES)
def test_seats_win_equally_often_with_the_same_bot(mix: str) -> None:
    """Default options, greedy in both seats: no seat wins more than noise allows.

    A Dunes base plays as many games as the next test needs to see the confound fixed
    gods bring; mixes without gods only check that nothing else favours a seat.
    """
    games = GOD_GAMES if mix.startswith("dunes") else 4_000
    assert abs(seat_z(play(games, mix))) < 3.5


def test_fixed_gods_show_the_confound_the_default_removes() -> None:
    """The same count under seat 0 always Anubis, with a bot under which Horus is the
    stronger god: the seats differ (the test can fail); alternating gods removes it."""
    bots = {"p0": "defensive", "p1": "defensive"}
    fixed = play(GOD_GAMES, "dunes", gods="anubis,horus", **bots)
    assert seat_z(fixed) < -3.5
    assert abs(seat_z(play(GOD_GAMES, "dunes", **bots))) < 3.5
    rows = dict(god_rows(GodCounts.from_frame(fixed)))
    assert set(rows) == {"anubis won", "horus won"}
