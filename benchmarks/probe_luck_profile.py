#!/usr/bin/env python
"""Where a game's outcome variance sits: the share already settled at each turn's start.

    python benchmarks/probe_luck_profile.py [--games 600] [--rollouts 8] [--turns 10]
                                            [--dice greedy:400,search:150]

Greedy self-play, dunes+aegean, seed 1. For each game and each of its first ``--turns``
turn starts (turn 0 is the position right after the deal), ``--rollouts`` play-outs from
a copy of the position with the deck(s) shuffled again and fresh dice estimate
``E[Y | position]``, ``Y`` the first player's margin (+1 won, -1 lost, 0 shared). The
share of ``Var(Y)`` that ``Var(E[Y | start of turn t])`` makes up (the between-position
variance of the play-out means less their noise, ``within / rollouts``) is the part of
the outcome's variance the chance events before turn ``t`` decided; what each turn adds
is the variance its own chance events carry. With deterministic bots and an exact value,
a luck term at every chance event removes everything; a term for the deal alone removes
at most the turn-0 share. The copies never touch the game's own state or streams.

Then, for each ``BOT:GAMES`` of ``--dice``, the share of ``Var(Y)`` the seed's deal and
deck order fix by themselves: each deal is played 4 times in self-play with the same
shuffles and only the bots' own dice (``RNG_SEAT``: greedy's tie-breaks, the search
bot's sampled worlds) drawn afresh. The rest of the variance is the bots' dice, which no
luck term over draws can remove: a perfect value of the draws removes at most this share
(a variance ratio of ``1 / (1 - share)``).

Last, with ``--held-games N``: how much of greedy's first-player term (N games) a linear
value of *which cards* each seat got could explain at most: the cross-fitted share of its
variance explained by which kinds each seat ever held (and that times the parity sign).
Holding is decided in part by the bots, so this is not a valid control variate; it is an
upper bound on what a value of card identities drawn could remove.

Slow (a Python loop over turns); figures only, nothing is asserted.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sim.base import layout as L  # noqa: E402
from sim.data.spec import RunSpec  # noqa: E402
from sim.kernel import game as G  # noqa: E402
from sim.kernel import turn as T  # noqa: E402
from sim.run.scenario import Scenario  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=600)
    ap.add_argument("--rollouts", type=int, default=8, help="play-outs per position (default 8)")
    ap.add_argument("--turns", type=int, default=10, help="turn starts measured (default 10)")
    ap.add_argument("--mix", default="dunes+aegean")
    ap.add_argument("--dice", default="greedy:400,search:150", help="BOT:GAMES,... ('' none)")
    ap.add_argument("--held-games", type=int, default=40_000, help="0: skip the held-card bound")
    args = ap.parse_args(argv)
    spec = RunSpec(games=2, mix=args.mix, seed=1)
    base = Scenario.from_spec(spec)
    tab, fp, ask = base.tab, base.fp, base.ask
    out = np.zeros(L.O_COLS, np.int64)
    rng = np.random.default_rng(7)

    def margin(first: int) -> float:
        w = out[L.O_WINNER]
        return 0.0 if w not in (0, 1) else (1.0 if w == first else -1.0)

    def play_out(st: np.ndarray, first: int) -> float:
        s = st.copy()
        for d in range(2 if s[L.OWN_DECKS] else 1):
            n, at = int(s[L.DECK_N + d]), L.DECK + d * L.MAX_CARDS
            s[at : at + n] = rng.permutation(s[at : at + n])
        s[L.RNG : L.RNG + L.N_STREAMS] = rng.integers(-(2**62), 2**62, L.N_STREAMS)
        while not s[L.GAME_OVER]:
            T.play_turn(s, tab, fp, ask)
        G.finish(s, tab, out)
        return margin(first)

    y = np.zeros(args.games)
    means = np.zeros((args.games, args.turns))
    within = np.zeros((args.games, args.turns))
    t0 = time.perf_counter()
    for g in range(args.games):
        sc = base.copy()
        sc.setup(spec.seed, g)
        st, first, t = sc.st, int(sc.st[L.FIRST]), 0
        while not st[L.GAME_OVER]:
            if t < args.turns:
                ys = [play_out(st, first) for _ in range(args.rollouts)]
                means[g, t], within[g, t] = np.mean(ys), np.var(ys, ddof=1)
            T.play_turn(st, tab, fp, ask)
            t += 1
        G.finish(st, tab, out)
        y[g] = margin(first)
        means[g, t:], within[g, t:] = y[g], 0.0  # settled: the game is over
    print(f"{args.mix}, greedy self-play, {args.games} games, {args.rollouts} play-outs a "
          f"position, {time.perf_counter() - t0:.0f} s; Var(Y) {y.var(ddof=1):.3f}")  # fmt: skip
    print()
    print("| turn start | share of Var(Y) settled |")
    print("|---:|---:|")
    for t in range(args.turns):
        between = means[:, t].var(ddof=1) - within[:, t].mean() / args.rollouts
        print(f"| {t} | {between / y.var(ddof=1):.3f} |")
    if args.dice:
        print()
        print("| bot | deals x dice | share of Var(Y) the deal and deck order fix | "
              "ceiling of a luck term over draws |")  # fmt: skip
        print("|---|---:|---:|---:|")
    for item in filter(None, args.dice.split(",")):
        bot, games = item.split(":")
        share = dice_share(args.mix, bot, int(games), rng)
        print(f"| {bot} | {int(games)} x {DICE_REPLAYS} | {share:.3f} | {1 / (1 - share):.2f}x |")
    if args.held_games:
        print()
        print(held_bound(args.mix, args.held_games))
    return 0


def held_bound(mix: str, games: int) -> str:
    """The cross-fitted share of greedy's first-player term that the kinds each seat held
    explain, beside the kernel's luck features' (a line)."""
    from sim.analysis import luck as LK
    from sim.analysis.paired import Outcomes
    from sim.run.engine import Engine

    e = Engine(RunSpec(games=games, mix=mix, seed=1, luck=True))
    table = e.play(0, games)
    o = Outcomes.from_frame(table)
    w, gid = np.asarray(o.winner), np.asarray(o.game_id)
    dec = (w >= 0).astype(float)
    y = (w == np.asarray(o.first)) * dec
    term = (y - y.sum() / dec.sum() * dec) / dec.mean()
    sign = np.where(gid % 2 == 0, 1.0, -1.0)[:, None]
    held = np.hstack([o.held0, o.held1]).astype(float)
    shares = []
    for x in (LK.features(LK.luck_matrix(table), gid), np.hstack([held, held * sign])):
        pred = LK.cross_fit(term, x, LK.folds(gid))
        shares.append(1 - np.var(term - pred) / np.var(term))
    return (
        f"greedy, {games:,} games: the kernel's luck features explain {shares[0]:.1%} of the "
        f"first player's term (cross-fitted); the kinds each seat held ({o.held0.shape[1]} "
        f"kinds), at most {shares[1]:.1%} (ratio {1 / (1 - shares[1]):.2f}x)"
    )


DICE_REPLAYS = 4


def dice_share(mix: str, bot: str, games: int, rng: np.random.Generator) -> float:
    """The share of the first player's margin's variance that the deal and deck order of
    seed 1's games fix when only the bots' dice are drawn again (``DICE_REPLAYS`` a deal)."""
    sc = Scenario.from_spec(RunSpec(games=2, mix=mix, seed=1, p0=bot, p1=bot))
    out = np.zeros(L.O_COLS, np.int64)
    m = np.zeros((games, DICE_REPLAYS))
    for g in range(games):
        for r in range(DICE_REPLAYS):
            sc.setup(1, g)
            first = int(sc.st[L.FIRST])
            for p in range(2):
                sc.st[L.RNG + L.RNG_SEAT + p] = rng.integers(-(2**62), 2**62)
            while not sc.st[L.GAME_OVER]:
                T.play_turn(sc.st, sc.tab, sc.fp, sc.ask)
            G.finish(sc.st, sc.tab, out)
            w = out[L.O_WINNER]
            m[g, r] = 0.0 if w not in (0, 1) else (1.0 if w == first else -1.0)
    between = m.mean(1).var(ddof=1) - m.var(1, ddof=1).mean() / DICE_REPLAYS
    return float(between / m.var(ddof=1))


if __name__ == "__main__":
    sys.exit(main())
