#!/usr/bin/env python
"""How strong and how fast each bot of the panel is.

    python benchmarks/bench_bots.py [--games N] [--lookahead-games N] [--mixes a,b] [--record]

Prints, for every mix:

* ``greedy`` against ``random``: greedy's win rate with its 95% interval
  (target: at least 90% in every set);
* ``lookahead`` against ``greedy``: its win rate and games/s with the shipped
  budget (target: at least 60% while running at least 200 games/s);
* each heuristic profile's self-play games/s beside greedy's, the engine's
  baseline (target: within 20%).

Seats are balanced: each pairing is played twice on the same deals, once
with each bot in seat 0, with ``--duplicate`` deals so each bot also goes
first and second on every deal. The script prints figures and never fails
on them; ``--record`` appends them to ``benchmarks/results.csv``.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_engine import (  # noqa: E402
    Figure,
    git_commit,
    load_average,
    log,
    machine,
    parse_games,
    record,
)

SEED = 1
MIXES = ("aegean", "dunes", "reign", "dunes+aegean")
HEURISTICS = ("greedy", "aggressive", "economic", "defensive")


@dataclass
class Match:
    """Bot ``a`` against bot ``b`` over both seat orders."""

    a: str
    b: str
    games: int
    wins_a: int
    shared: int
    seconds: float

    @property
    def rate(self) -> float:
        return self.wins_a / self.games

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds


def play(mix: str, p0: str, p1: str, games: int) -> tuple[object, float]:
    """Rows of ``games`` duplicate-deal games (compile excluded) and the seconds they took."""
    from sim.data.spec import RunSpec
    from sim.run.engine import Engine

    engine = Engine(RunSpec(games=games, mix=mix, seed=SEED, p0=p0, p1=p1, duplicate=True))
    engine.play(0, 2)  # load the kernel before timing
    t0 = time.perf_counter()
    df = engine.play(0, games).to_pandas()
    return df, time.perf_counter() - t0


def match(mix: str, a: str, b: str, games: int) -> Match:
    """``a`` against ``b``: half the games with ``a`` in seat 0, half in seat 1."""
    half = games // 4 * 2
    wins = shared = 0
    seconds = 0.0
    for seat in (0, 1):
        p0, p1 = (a, b) if seat == 0 else (b, a)
        df, s = play(mix, p0, p1, half)
        wins += int((df.winner == seat).sum())
        shared += int((df.winner == -1).sum())
        seconds += s
    return Match(a, b, 2 * half, wins, shared, seconds)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Strength and speed of the bot panel.")
    parser.add_argument("--games", type=parse_games, default=20_000, metavar="N",
                        help="games per heuristic pairing (default 20,000)")  # fmt: skip
    parser.add_argument("--lookahead-games", type=parse_games, default=2_000, metavar="N",
                        help="games of lookahead against greedy (default 2,000)")  # fmt: skip
    parser.add_argument("--mixes", default=",".join(MIXES),
                        help=f"comma-separated mixes (default {','.join(MIXES)})")  # fmt: skip
    parser.add_argument("--record", action="store_true",
                        help="append the figures to benchmarks/results.csv")  # fmt: skip
    args = parser.parse_args(argv)

    import numba

    from sim.analysis.stats import wilson_interval

    threads = int(numba.config.NUMBA_NUM_THREADS)
    load = load_average()
    figures: dict[str, list[Figure]] = {}
    lines: list[str] = []
    for mix in args.mixes.split(","):
        figs = figures.setdefault(mix, [])
        log(f"{mix}: greedy vs random, {args.games:,} games ...")
        m = match(mix, "greedy", "random", args.games)
        lo, hi = wilson_interval(m.wins_a, m.games)
        lines.append(
            f"{mix:<14} greedy beats random   {m.rate:6.1%} (95% CI {lo:.1%}-{hi:.1%}), "
            f"{m.games:,} games"
        )
        log(f"{mix}: lookahead vs greedy, {args.lookahead_games:,} games ...")
        la = match(mix, "lookahead", "greedy", args.lookahead_games)
        lo, hi = wilson_interval(la.wins_a, la.games)
        lines.append(
            f"{mix:<14} lookahead beats greedy {la.rate:6.1%} (95% CI {lo:.1%}-{hi:.1%}), "
            f"{la.games:,} games at {la.games_per_s:,.0f} games/s"
        )
        figs.append(Figure("bots_lookahead_vs_greedy", "lookahead vs greedy", threads,
                           la.games, la.seconds))  # fmt: skip
        base = None
        for name in HEURISTICS:
            log(f"{mix}: {name} self-play, {args.games:,} games ...")
            _, s = play(mix, name, name, args.games // 2 * 2)
            rate = args.games / s
            base = base or rate
            lines.append(
                f"{mix:<14} {name:<10} self-play {rate:9,.0f} games/s ({rate / base:.2f}x greedy)"
            )
            figs.append(Figure(f"bots_selfplay_{name}", f"{name} self-play", threads,
                               args.games, s))  # fmt: skip

    commit = git_commit()
    print()
    print(f"omensim bot panel; seed {SEED}; commit {commit}; {machine(threads)}")
    print(f"load average at start {load}, at end {load_average()}")
    print("\n".join(lines))
    if args.record:
        for mix, figs in figures.items():
            record(figs, mix, commit, machine(threads))
        print("appended the figures to benchmarks/results.csv")
    return 0


if __name__ == "__main__":
    sys.exit(main())
