#!/usr/bin/env python
"""How much variance a better value would remove: turn-level luck probes (docs/luck.md).

    python benchmarks/probe_luck_value.py [--games 400] [--replays 2] [--rollouts 4]

Greedy self-play, dunes+aegean, seed 1, game by game through ``Scenario``: after each
turn, the value of the position minus its mean over ``--replays`` replays of the same
turn from the same start with the deck(s) reshuffled (the same bots, the same other
streams, so each difference has mean zero given the turn's start). Summed per game
(early turns and late turns apart), the sums are the regressors of the cross-fitted
control variate of ``sim.analysis.luck``; it prints the variance ratio of the first
player's share of decisive games and of seat 0's win.

The value: with ``--rollouts 0`` a linear value of the position (VP margin, coins, hand
size, board strength, a win flag; the regression fits the weights); with ``--rollouts R``
the mean outcome (win flag and VP margin) of R greedy play-outs to the end with the deck
reshuffled, the same R shuffles for the turn as played and its replays (common random
numbers). Valid only where the replays' bots are the game's (greedy self-play). Slow
(Python turn by turn): about 1 s a game with R = 4. Figures only; nothing is asserted.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sim.analysis import luck as LK  # noqa: E402
from sim.base import layout as L  # noqa: E402
from sim.data.spec import RunSpec  # noqa: E402
from sim.kernel import game as G  # noqa: E402
from sim.kernel import turn as T  # noqa: E402
from sim.run.scenario import Scenario  # noqa: E402

EARLY_TURNS = 4


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--replays", type=int, default=2, help="replays of each turn (default 2)")
    ap.add_argument("--rollouts", type=int, default=4, help="0: the linear value (default 4)")
    ap.add_argument("--mix", default="dunes+aegean")
    args = ap.parse_args(argv)
    spec = RunSpec(games=2, mix=args.mix, seed=1)
    base = Scenario.from_spec(spec)
    tab, fp, ask = base.tab, base.fp, base.ask
    out = np.zeros(L.O_COLS, np.int64)
    rng = np.random.default_rng(5)

    def shuffle_decks(st: np.ndarray, r: np.random.Generator) -> None:
        for d in range(2 if st[L.OWN_DECKS] else 1):
            n, at = int(st[L.DECK_N + d]), L.DECK + d * L.MAX_CARDS
            st[at : at + n] = r.permutation(st[at : at + n])

    def scored(st: np.ndarray) -> np.ndarray:
        s = st.copy()
        G.finish(s, tab, out)
        w = out[L.O_WINNER]
        win = float(w == 0) - float(w == 1) if s[L.GAME_OVER] else 0.0
        board = sum(
            int(s[L.SIDE_TOT + (2 * c + p) * L.TOT_COLS + L.TOT_STRENGTH]) * (1 - 2 * p)
            for c in range(L.N_CITIES)
            for p in range(2)
        )
        return np.array([win, out[L.O_SCORE] - out[L.O_SCORE + 1], s[L.COINS] - s[L.COINS + 1],
                         s[L.HAND_N] - s[L.HAND_N + 1], board], float)  # fmt: skip

    def value(st: np.ndarray, seeds: np.ndarray) -> np.ndarray:
        if args.rollouts == 0:
            return scored(st)
        v = np.zeros(5)
        for seed in seeds:
            ro = st.copy()
            shuffle_decks(ro, np.random.default_rng(int(seed)))
            while not ro[L.GAME_OVER]:
                T.play_turn(ro, tab, fp, ask)
            v += scored(ro)
        return v / len(seeds)

    rows = []
    t0 = time.perf_counter()
    for g in range(args.games):
        sc = base.copy()
        sc.setup(spec.seed, g)
        u = np.zeros((2, 5))
        t = 0
        while not sc.over:
            start = sc.st.copy()
            T.play_turn(sc.st, tab, fp, ask)
            seeds = rng.integers(0, 2**62, max(args.rollouts, 1))
            alt = np.zeros(5)
            for _ in range(args.replays):
                r = start.copy()
                shuffle_decks(r, rng)
                T.play_turn(r, tab, fp, ask)
                alt += value(r, seeds)
            u[0 if t < EARLY_TURNS else 1] += value(sc.st, seeds) - alt / args.replays
            t += 1
        G.finish(sc.st, tab, out)
        rows.append((g, out[L.O_WINNER], sc.st[L.FIRST], *u.ravel()))
    secs = time.perf_counter() - t0
    a = np.array(rows, float)
    ids, w, first, x = a[:, 0].astype(int), a[:, 1].astype(int), a[:, 2].astype(int), a[:, 3:]
    print(f"{args.mix}, greedy self-play, {args.games} games, {args.replays} replays a turn, "
          f"{args.rollouts} rollouts a value; {secs / args.games:.2f} s a game")  # fmt: skip
    cols = [0, 5] if args.rollouts else list(range(10))
    share = LK.first_of_decisive(w, first, x[:, cols], ids)
    win = LK.adjusted_mean((w == 0).astype(float), x[:, cols], ids)
    print(f"variance ratio: first player's share of decisive games {share.variance_ratio:.3f}, "
          f"seat 0's win {win.variance_ratio:.3f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
