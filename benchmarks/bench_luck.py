#!/usr/bin/env python
"""How much of a question's variance the learned value could take away as luck.

    python benchmarks/bench_luck.py [--mix dunes+aegean] [--bots value,vsearch]
                                    [--games 2000] [--alts 8] [--seed 1]

A luck-adjusted estimate (a control variate in the manner of AIVAT) subtracts from each
game's outcome the luck a value of the position saw in it: at every chance event, the
value of what happened minus its mean over what could have happened. Each term has mean
0, so the estimate stays unbiased, and it is worth keeping only if it removes much of the
variance. This measures the best such adjustment the shipped value
(``configs/values/value.toml``) allows, a turn at a time rather than a draw at a time:

* before every turn, the turn is played ``--alts`` more times from a copy of the position
  with the deck(s) shuffled again and the random streams seeded afresh (the deck's order is
  unknown to everyone, so every order is as likely), and the value after each is averaged;
  a turn's luck is the value after the turn played minus that mean. A draw-by-draw
  adjustment would see less of a draw than this: the value reads a seat's hand only as
  its size and its TREASURED units, so which card a draw brings shows only once it is
  played, later in the turn;
* the deal's luck is the value of the first position minus its mean over the games;
* the value of a position is the mean of seat 0's value and one minus seat 1's; after the
  last turn it is the outcome itself.

For each bot in both seats it prints the mean of three per-game figures without and with
the luck taken away (the two estimate the same thing, so they differ by noise only), and
the ratio of their variances (how many times fewer games the adjusted estimate would
need), with a 95% bootstrap interval over games:

* the first player's win (the first-player rate);
* the paired difference of the first player's win with and without the Emissary variant
  (the same games, ``compare --b-variant emissary``);
* the same for a card change (``--change``, by default Moonlight Channeler cost 3).

A ratio of 2 or more on the first-player rate would make a luck-adjusted estimate worth
its code (``docs/statistics.md``). Prints figures, asserts nothing.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import sys
import threading

import numba
import numpy as np
import scipy.stats
from numba.core.caching import NullCache

from sim.analysis.streaming import first_win_outcomes
from sim.base import layout as L
from sim.compiler import kernel
from sim.data.changes import Changes
from sim.data.spec import RunSpec
from sim.kernel.batch import scratch_states
from sim.kernel.game import finish, setup
from sim.kernel.rng import seed_streams, shuffle
from sim.kernel.turn import play_turn
from sim.run.compiled import compile_run
from strategies.value import position_value

R_WINNER, R_FIRST, R_DEAL, R_LUCK = 0, 1, 2, 3
"""Columns of a game's result row."""

ALT_SEED = 0x5EED_A17
"""Added to the run seed for the alternative turns' streams, apart from every game's."""


@kernel
def seat0_value(st, tab, fp, out):
    """Seat 0's chance of winning from position ``st``: the outcome once the game is over,
    else the mean of seat 0's value and one minus seat 1's."""
    if st[L.GAME_OVER]:
        finish(st, tab, out)
        w = st[L.WINNER]
        return 1.0 if w == 0 else (0.0 if w == 1 else 0.5)
    return 0.5 * (position_value(st, tab, fp, 0) + 1.0 - position_value(st, tab, fp, 1))


@kernel
def luck_range(st, alt, tab, fp, ask, seed, lo, hi, alts, out, res):
    """Play games ``lo .. hi-1`` of run ``seed``, writing each one's winner, first seat, the
    value of its first position and the sum of its turns' luck (seat 0's) into ``res``."""
    for g in range(lo, hi):
        setup(st, tab, fp, ask, seed, g)
        res[g, R_DEAL] = seat0_value(st, tab, fp, out)
        luck = 0.0
        t = 0
        while st[L.GAME_OVER] == 0:
            mean = 0.0
            for j in range(alts):
                for i in range(st.shape[0]):
                    alt[i] = st[i]
                seed_streams(alt, seed + ALT_SEED, (g * 4096 + t) * 64 + j)
                for d in range(1 + alt[L.OWN_DECKS]):
                    shuffle(alt, L.DECK + d * L.MAX_CARDS, alt[L.DECK_N + d], L.RNG_DECK)
                play_turn(alt, tab, fp, ask)
                mean += seat0_value(alt, tab, fp, out)
            play_turn(st, tab, fp, ask)
            luck += seat0_value(st, tab, fp, out) - mean / alts
            t += 1
        finish(st, tab, out)
        res[g, R_WINNER] = st[L.WINNER]
        res[g, R_FIRST] = st[L.FIRST]
        res[g, R_LUCK] = luck


# Compiled afresh in every process: numba would key a cache of them on this file alone, and
# a change to the kernels they call would not reach them (``sim.compiler.cache``).
seat0_value._cache = luck_range._cache = NullCache()


def play(spec: RunSpec, changes: Changes | None, alts: int) -> np.ndarray:
    """Result rows (``R_*`` columns) of ``spec``'s games, on numba's threads."""
    run = compile_run(spec, changes)
    res = np.zeros((spec.games, 4), np.float64)

    def part(lo: int, hi: int) -> None:
        st, alt = scratch_states(run.bots, 2)
        out = np.zeros(L.O_COLS, np.int64)
        luck_range(st, alt, run.tab, run.fp, run.ask, spec.seed, lo, hi, alts, out, res)

    part(0, 0)  # compiled here, once, not by every thread at once
    cuts = np.linspace(0, spec.games, numba.get_num_threads() + 1).astype(np.int64)
    workers = [threading.Thread(target=part, args=bounds) for bounds in itertools.pairwise(cuts)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return res


def first_won(res: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The first player's win, as the first-player rate counts it (a shared victory is none:
    ``sim.analysis.streaming.first_win_outcomes``), and the luck in its terms."""
    first = res[:, R_FIRST]
    y = first_win_outcomes(np.arange(len(res)), res[:, R_WINNER], first).first_win.astype(float)
    deal = np.where(first == 0, res[:, R_DEAL], 1.0 - res[:, R_DEAL])
    turns = np.where(first == 0, res[:, R_LUCK], -res[:, R_LUCK])
    return y, deal - deal.mean() + turns


def ratio(y: np.ndarray, luck: np.ndarray, rng: np.random.Generator) -> str:
    """``var(y) / var(y - luck)`` with a 95% percentile bootstrap interval over games."""

    def of(y: np.ndarray, luck: np.ndarray, axis: int = -1) -> np.ndarray:
        return y.var(axis=axis) / (y - luck).var(axis=axis)

    boot = scipy.stats.bootstrap(
        (y, luck), of, paired=True, n_resamples=1000, method="percentile", random_state=rng
    )
    ci = boot.confidence_interval
    return f"{of(y, luck):.2f} ({ci.low:.2f} to {ci.high:.2f})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="The variance the learned value takes as luck.")
    parser.add_argument("--mix", default="dunes+aegean", help="card mix (default dunes+aegean)")
    parser.add_argument("--bots", default="value,vsearch", help="bots, each in both seats")
    parser.add_argument("--games", type=int, default=2000, help="games per question and bot")
    parser.add_argument("--alts", type=int, default=8, help="other plays of each turn")
    parser.add_argument("--seed", type=int, default=1, help="run seed")
    parser.add_argument(
        "--change", default="Moonlight Channeler.cost=3", help="the card change's --change"
    )
    args = parser.parse_args(argv)
    if args.games < 2 or args.alts < 1:
        print("Error: --games must be at least 2 and --alts at least 1", file=sys.stderr)
        return 2
    rng = np.random.default_rng(args.seed)
    print(
        "| bot | question (first player's win) | games | mean, plain | mean, luck taken away "
        "| ratio of variances (95% CI) |"
    )
    print("|---|---|---:|---:|---:|---:|")
    for bot in args.bots.split(","):
        base = RunSpec(games=args.games, mix=args.mix, seed=args.seed, p0=bot, p1=bot)
        a = first_won(play(base, None, args.alts))
        emissary = first_won(
            play(dataclasses.replace(base, variants=("emissary",)), None, args.alts)
        )
        changed = first_won(play(base, Changes.parse([args.change]), args.alts))
        rows = [
            ("the first-player rate", a[0], a[1]),
            ("Emissary, paired", a[0] - emissary[0], a[1] - emissary[1]),
            (f"{args.change}, paired", a[0] - changed[0], a[1] - changed[1]),
        ]
        for question, y, luck in rows:
            print(
                f"| {bot} | {question} | {args.games} | {y.mean():+.4f} | {(y - luck).mean():+.4f} "
                f"| {ratio(y, luck, rng)} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    from sim.base.errors import exit_status

    sys.exit(exit_status(main))
