#!/usr/bin/env python
"""Where a game's outcome variance sits: the share already settled at each turn's start.

    python benchmarks/probe_luck_profile.py [--games 600] [--rollouts 8] [--turns 10]
                                            [--dice greedy:400,search:150] [--split greedy:400]

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
bot's sampled worlds) drawn afresh: what a value of the whole deck order, fixed at the
deal, could remove at most (a variance ratio of ``1 / (1 - share)``). It is not a ceiling
for luck terms taken draw by draw in the game's order, which the next table measures.

With ``--split BOT:GAMES,...`` (self-play of each bot): where each turn's share comes
from, in the order the game plays it. From each of the first ``--turns`` turn starts the
turn is played again ``SPLIT_REPLAYS`` times in each of three ways: the deck(s) shuffled
again with the bots' dice as they are, the dice drawn again with the deck as it is, and
both; each position reached is valued by ``--rollouts`` play-outs of the same bot (fresh
deck order and dice, noise subtracted). The spread within each group is that turn's
variance given the other source: summed over turns, the draws' and the dice's parts of
``Var(Y)`` as a luck term at each chance event *in game order* (AIVAT's martingale) would
meet them. This differs from the previous table, which fixes the whole deck order before
any die: a draw that comes after a die carries the luck of which trajectory the die chose.

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
    ap.add_argument("--split", default="", help="BOT:GAMES,... of the in-order split ('' none)")
    ap.add_argument("--held-games", type=int, default=40_000, help="0: skip the held-card bound")
    args = ap.parse_args(argv)
    spec = RunSpec(games=2, mix=args.mix, seed=1)
    base = Scenario.from_spec(spec)
    tab, fp, ask = base.tab, base.fp, base.ask
    out = np.zeros(L.O_COLS, np.int64)
    rng = np.random.default_rng(7)

    if args.games:
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
                    ys = [play_out(base, st, first, out, rng) for _ in range(args.rollouts)]
                    means[g, t], within[g, t] = np.mean(ys), np.var(ys, ddof=1)
                T.play_turn(st, tab, fp, ask)
                t += 1
            G.finish(st, tab, out)
            y[g] = first_margin(out, first)
            means[g, t:], within[g, t:] = y[g], 0.0  # settled: the game is over
        secs = time.perf_counter() - t0
        print(f"{args.mix}, greedy self-play, {args.games} games, {args.rollouts} play-outs a "
              f"position, {secs:.0f} s; Var(Y) {y.var(ddof=1):.3f}")  # fmt: skip
        print()
        print("| turn start | share of Var(Y) settled |")
        print("|---:|---:|")
        for t in range(args.turns):
            between = means[:, t].var(ddof=1) - within[:, t].mean() / args.rollouts
            print(f"| {t} | {between / y.var(ddof=1):.3f} |")
    if args.dice:
        print()
        print("| bot | deals x dice | share of Var(Y) the deal and deck order fix | "
              "ceiling of a value of the deck order at the deal |")  # fmt: skip
        print("|---|---:|---:|---:|")
    for item in filter(None, args.dice.split(",")):
        bot, games = item.split(":")
        share = dice_share(args.mix, bot, int(games), rng)
        print(f"| {bot} | {int(games)} x {DICE_REPLAYS} | {share:.3f} | {1 / (1 - share):.2f}x |")
    for item in filter(None, args.split.split(",")):
        bot, games = item.split(":")
        sc = Scenario.from_spec(RunSpec(games=2, mix=args.mix, seed=1, p0=bot, p1=bot))
        print()
        print(in_order_split(sc, bot, int(games), args.turns, args.rollouts, rng))
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
SPLIT_REPLAYS = 3


def first_margin(out: np.ndarray, first: int) -> float:
    """The first player's margin in a finished game's row ``out``: +1 won, -1 lost, 0 shared."""
    w = out[L.O_WINNER]
    return 0.0 if w not in (0, 1) else (1.0 if w == first else -1.0)


def shuffle_decks(st: np.ndarray, rng: np.random.Generator) -> None:
    """Shuffle the deck(s) of ``st`` again in place, from ``rng``."""
    for d in range(2 if st[L.OWN_DECKS] else 1):
        n, at = int(st[L.DECK_N + d]), L.DECK + d * L.MAX_CARDS
        st[at : at + n] = rng.permutation(st[at : at + n])


def reseed_dice(st: np.ndarray, rng: np.random.Generator) -> None:
    """Draw the bots' own streams (``RNG_SEAT``) of ``st`` afresh, from ``rng``."""
    for p in range(2):
        st[L.RNG + L.RNG_SEAT + p] = rng.integers(-(2**62), 2**62)


def play_out(
    sc: Scenario, st: np.ndarray, first: int, out: np.ndarray, rng: np.random.Generator
) -> float:
    """The first player's margin of one play-out of a copy of ``st`` to the end, by
    ``sc``'s bots, with the deck(s) shuffled again and every random stream drawn afresh."""
    s = st.copy()
    shuffle_decks(s, rng)
    s[L.RNG : L.RNG + L.N_STREAMS] = rng.integers(-(2**62), 2**62, L.N_STREAMS)
    while not s[L.GAME_OVER]:
        T.play_turn(s, sc.tab, sc.fp, sc.ask)
    G.finish(s, sc.tab, out)
    return first_margin(out, first)


def in_order_split(
    base: Scenario, bot: str, games: int, turns: int, rollouts: int, rng: np.random.Generator
) -> str:
    """The draws' and the dice's shares of ``Var(Y)``, turn by turn in game order (a table)."""
    tab, fp, ask = base.tab, base.fp, base.ask
    out = np.zeros(L.O_COLS, np.int64)

    def finish_margin(s: np.ndarray, first: int) -> float:
        G.finish(s, tab, out)
        return first_margin(out, first)

    def value(st: np.ndarray, first: int) -> tuple[float, float]:
        ys = [play_out(base, st, first, out, rng) for _ in range(rollouts)]
        return float(np.mean(ys)), float(np.var(ys, ddof=1)) / rollouts

    ways = ("draws", "dice", "both")
    spread = np.zeros((games, turns, 3))
    y = np.zeros(games)
    t0 = time.perf_counter()
    for g in range(games):
        sc = base.copy()
        sc.setup(1, g)
        st, first, t = sc.st, int(sc.st[L.FIRST]), 0
        while not st[L.GAME_OVER]:
            if t < turns:
                for w in range(3):
                    vals, noise = [], []
                    for _ in range(SPLIT_REPLAYS):
                        s = st.copy()
                        if w != 1:
                            shuffle_decks(s, rng)
                        if w != 0:
                            reseed_dice(s, rng)
                        T.play_turn(s, tab, fp, ask)
                        over = bool(s[L.GAME_OVER])
                        v, e = (finish_margin(s, first), 0.0) if over else value(s, first)
                        vals.append(v)
                        noise.append(e)
                    spread[g, t, w] = np.var(vals, ddof=1) - np.mean(noise)
            T.play_turn(st, tab, fp, ask)
            t += 1
        y[g] = finish_margin(st, first)
    vy = y.var(ddof=1)
    lines = [
        f"in game order, {bot} self-play, {games} games, {SPLIT_REPLAYS} replays a turn and "
        f"way, {rollouts} play-outs a position, {time.perf_counter() - t0:.0f} s; "
        f"Var(Y) {vy:.3f}",
        "",
        "| turns | " + " | ".join(f"{w} (share of Var(Y))" for w in ways) + " |",
        "|---|" + "---:|" * 3,
    ]
    for lo, hi in ((0, 1), (1, min(4, turns)), (min(4, turns), turns), (0, turns)):
        if hi <= lo:
            continue
        cells = []
        for w in range(3):
            part = spread[:, lo:hi, w].sum(1)
            se = part.std(ddof=1) / np.sqrt(games)
            cells.append(f"{part.mean() / vy:.3f} +/- {se / vy:.3f}")
        lines.append(f"| {lo}-{hi - 1} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


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
            reseed_dice(sc.st, rng)
            while not sc.st[L.GAME_OVER]:
                T.play_turn(sc.st, sc.tab, sc.fp, sc.ask)
            G.finish(sc.st, sc.tab, out)
            m[g, r] = first_margin(out, first)
    between = m.mean(1).var(ddof=1) - m.var(1, ddof=1).mean() / DICE_REPLAYS
    return float(between / m.var(ddof=1))


if __name__ == "__main__":
    sys.exit(main())
