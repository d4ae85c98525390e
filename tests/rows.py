"""Row invariants every game row of a run satisfies (a helper for the tests, not a test file)."""

from __future__ import annotations

import pandas as pd

from sim.analysis.frames import SCORE_WEIGHTS


def check_rows(df: pd.DataFrame) -> None:
    """Assert the score identity, non-negative counts and a winner consistent with the scores."""
    assert len(df) > 0
    assert df["game_id"].is_unique
    assert df["winner"].isin([-1, 0, 1]).all()
    assert df["first_player"].isin([0, 1]).all()
    assert (df["turns"] >= 1).all()
    for p in range(2):
        score = df[f"score_p{p}"].astype("int64")
        parts = sum(w * df[f"{c}_p{p}"].astype("int64") for c, w in SCORE_WEIGHTS.items())
        assert (score == parts).all(), "score is not the sum of its components"
        assert (score >= 0).all(), "a negative score: a column wrapped"
    s0, s1 = df["score_p0"], df["score_p1"]
    assert (df.loc[s0 > s1, "winner"] == 0).all()
    assert (df.loc[s1 > s0, "winner"] == 1).all()
