"""Head-to-head matches for the lean strength checks (a helper for the tests, not a test file)."""

from __future__ import annotations

from sim.data.spec import RunSpec
from sim.run.engine import Engine


def win_rate(mix: str, a: str, b: str, games: int) -> tuple[int, int]:
    """``a``'s wins over ``games`` seat-balanced duplicate deals against ``b``, and the games."""
    wins = 0
    for seat in (0, 1):
        p0, p1 = (a, b) if seat == 0 else (b, a)
        spec = RunSpec(games=games // 2, mix=mix, seed=5, p0=p0, p1=p1, duplicate=True)
        wins += int((Engine(spec).play(0, games // 2).to_pandas().winner == seat).sum())
    return wins, games
