#!/usr/bin/env python
"""How well the learned value of a position is calibrated, and how strong a retrain plays.

    python benchmarks/bench_value.py [--mixes a,b] [--games N] [--search-games N]
                                     [--seed S] [--weights FILE] [--versus FILE]
                                     [--versus-games N]

Plays ``--games`` greedy and ``--search-games`` search self-play games per mix at a
seed the shipped value was not fitted on (``--seed``), records every turn's start
from both seats' view with who won (``sim.run.value_data``), and prints, per mix
and over all, the Brier score and log loss of

* the learned value (``configs/values/value.toml``, or ``--weights FILE``) and
* the heuristic's ``rollout_value`` (VP margin, material; what the search scores its
  play-outs by) turned into a probability by a logistic fit (statsmodels) on the
  first half of the games,

both on the second half, against a constant guess (the share of wins), and a
reliability table over all mixes: positions by the value's predicted probability in
tenths, with the mean prediction and the share that won, for both.

``--versus FILE`` also plays the ``value`` bot with the shipped weights against the
same bot with the weights of FILE (a retrain), ``--versus-games`` seat-balanced
duplicate deals per mix, with the win rate's 95% interval: a retrain from scratch
should play as strong (about 50%). The script prints figures and never fails on them.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench_engine import count_int  # noqa: E402  (a sibling script)

from sim.run.stats import brier_log_loss  # noqa: E402
from sim.run.value_data import Positions, record_positions  # noqa: E402
from strategies.value_model import predict  # noqa: E402

MIXES = ("aegean", "dunes", "reign", "dunes+aegean")
HELD_OUT_SEED = 20_261_206  # not the seed the shipped value was fitted on
VERSUS_SEED = 7  # the deals --versus plays; the retrain picks its fit on others


def platt(fit_v: np.ndarray, fit_y: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``v`` turned into probabilities by a logistic regression of ``fit_y`` on ``fit_v``."""
    import statsmodels.api as sm

    model = sm.Logit(fit_y.astype(float), sm.add_constant(fit_v)).fit(disp=0)
    return model.predict(sm.add_constant(v))


def halves(pos: Positions) -> np.ndarray:
    """True for the positions of the second half of the games (the test half)."""
    return pos.game >= np.median(np.unique(pos.game))


def reliability(p: np.ndarray, r: np.ndarray, y: np.ndarray) -> list[str]:
    """The reliability table's lines: by tenths of the value's ``p``, and of ``r``."""
    lines = [
        f"{'predicted':>10} {'value: n':>10} {'mean p':>7} {'won':>7}   "
        f"{'rollout: n':>10} {'mean p':>7} {'won':>7}"
    ]
    edges = np.linspace(0, 1, 11)
    for lo, hi in itertools.pairwise(edges):
        cells = []
        for q in (p, r):
            m = (q >= lo) & ((q < hi) if hi < 1 else (q <= hi))
            n = int(m.sum())
            cells.append(
                f"{n:>10,} {q[m].mean():>7.3f} {y[m].mean():>7.3f}"
                if n
                else f"{0:>10} {'':>7} {'':>7}"
            )
        lines.append(f"{f'{lo:.1f}-{hi:.1f}':>10} {cells[0]}   {cells[1]}")
    return lines


def versus(path: Path, mixes: list[str], games: int) -> list[str]:
    """The value bot, shipped weights against ``path``'s, per mix: its lines."""
    from sim.run.stats import wilson_interval
    from sim.run.value_match import value_match
    from strategies.value_model import load_value, shipped_value

    other = load_value(path)
    lines = [f"value (shipped) against value ({path.name}), seat-balanced duplicate deals"]
    for mix in mixes:
        got = value_match(mix, shipped_value(), other, games, VERSUS_SEED)
        lo, hi = wilson_interval(got.a, got.games)
        lines.append(f"{mix:<14} {got.games:>6,} {got.a / got.games:>7.1%} ({lo:.1%}-{hi:.1%})")
        print(lines[-1], flush=True)
    return lines


def main(argv: list[str] | None = None) -> int:
    """Record the held-out games, score both values, print the tables."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mixes", default=",".join(MIXES), help="comma-separated mixes")
    ap.add_argument("--games", type=count_int, default=2000, help="greedy self-play games per mix")
    ap.add_argument(
        "--search-games", type=count_int, default=400, help="search self-play games per mix"
    )
    ap.add_argument("--seed", type=int, default=HELD_OUT_SEED, help="run seed of the games")
    ap.add_argument("--weights", type=Path, help="a value file other than the shipped one")
    ap.add_argument("--versus", type=Path, help="a value file to play the shipped one against")
    ap.add_argument(
        "--versus-games", type=count_int, default=1000, help="games per mix for --versus"
    )
    args = ap.parse_args(argv)
    from sim.base.errors import Error
    from sim.data.cards import normal_mix
    from strategies.value_model import load_value, shipped_value

    mixes = [normal_mix(m) for m in args.mixes.split(",") if m.strip()]  # before any game
    if not mixes:
        raise Error("--mixes names no mix")
    params = load_value(args.weights) if args.weights else shipped_value()
    t0 = time.perf_counter()
    header = (
        f"{'mix':<14} {'bots':<7} {'positions':>9} {'Brier V':>8} {'Brier r':>8} "
        f"{'Brier c':>8} {'logloss V':>9} {'logloss r':>9} {'logloss c':>9}"
    )
    lines = [header]
    all_p, all_r, all_y = [], [], []
    for mix in mixes:
        for bot, n in (("greedy", args.games), ("search", args.search_games)):
            if n <= 0:
                continue
            pos = record_positions(mix, bot, bot, n, args.seed)
            test = halves(pos)
            y = pos.won[test].astype(float)
            p = predict(params, pos.x[test])
            r = platt(pos.rollout[~test], pos.won[~test], pos.rollout[test])
            c = np.full(len(y), pos.won[~test].mean())
            (bv, lv), (br, lr), (bc, lc) = (brier_log_loss(q, y) for q in (p, r, c))
            lines.append(
                f"{mix:<14} {bot:<7} {len(y):>9,} {bv:>8.4f} {br:>8.4f} {bc:>8.4f} "
                f"{lv:>9.4f} {lr:>9.4f} {lc:>9.4f}"
            )
            print(lines[-1], flush=True)
            all_p.append(p)
            all_r.append(r)
            all_y.append(y)
    p, r, y = (np.concatenate(a) for a in (all_p, all_r, all_y))
    (bv, lv), (br, lr) = brier_log_loss(p, y), brier_log_loss(r, y)
    lines.append(
        f"{'all':<14} {'':<7} {len(y):>9,} {bv:>8.4f} {br:>8.4f} {'':>8} {lv:>9.4f} {lr:>9.4f}"
    )
    lines += ["", "reliability, all mixes (test halves)", *reliability(p, r, y)]
    if args.versus:
        lines += ["", *versus(args.versus, mixes, args.versus_games)]
    print(
        f"\nheld-out seed {args.seed}; V = learned value, r = rollout_value by a logistic fit on "
        f"the first half of the games, c = constant; {time.perf_counter() - t0:.0f} s"
    )
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    from sim.base.errors import exit_status

    sys.exit(exit_status(main))
