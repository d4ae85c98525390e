#!/usr/bin/env python
"""What luck adjustment buys: variance ratios, games saved, time to an answer.

    python benchmarks/bench_luck.py [--mix dunes+aegean] [--greedy-games N]
                                    [--search-games N] [--bots greedy,search]
                                    [--cost-only]

For each bot (greedy, and search, the strongest), it plays, counting luck
(``RunSpec(luck=True)``, what ``--luck-adjusted`` asks for):

* a self-play run: the first player's share of decisive games;
* the bot against greedy, seats alternating: the bot's outright win rate;
* the Emissary compare (B: ``--variant emissary``), paired: the first-player win rate;
* a card-change compare (``--change``), paired (common random numbers): the holders'
  win rate of the changed card;

and prints, for each, the plain and luck-adjusted estimate, the variance ratio (plain
over adjusted; for the compares, paired over paired and adjusted, i.e. on top of common
random numbers) and the games saved. Then the table of games and seconds on this
machine's cores to settle (a) the first player's share of decisive games, (b) the card
change's holders' effect and (c) the Emissary effect to +/- 0.5 points (95%), plain and
luck-adjusted: games = (1.96 sd / 0.005)^2 from the measured per-game sd, seconds =
games / games/s (both arms for a compare), the plain seconds from a plain run's speed
(no luck counted) and the adjusted ones from the counting run's.

The cost of counting luck is timed in this tree: the self-play games with and without
luck, alternately, best of 3 plays in each of 2 turns (``--cost-only``: only that).
Figures only; nothing is asserted.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_engine import load_average  # noqa: E402

from sim.analysis import luck as LK  # noqa: E402
from sim.analysis.paired import Outcomes, kinds_of, luck_shifts  # noqa: E402
from sim.data.changes import Changes  # noqa: E402
from sim.data.spec import RunSpec  # noqa: E402
from sim.run.compiled import run_pool  # noqa: E402
from sim.run.engine import Engine  # noqa: E402

HALF_WIDTH = 0.005
Z = LK.Z95
SEED = 1
CHANGE = "Moonlight Channeler.cost=3"


@dataclass
class Figure:
    """One estimate, plain and adjusted, with the per-game sd both imply."""

    bot: str
    what: str
    games: int
    plain: float
    adjusted: float
    sd: float
    sd_adj: float
    seconds_per_game: float
    """Seconds per game of the whole measurement, counting luck (both arms for a compare)."""
    cost: float = 1.0
    """Time per game counting luck over the time per game of a plain run (the bot's)."""

    @property
    def ratio(self) -> float:
        return self.sd**2 / self.sd_adj**2 if self.sd_adj > 0 else math.nan

    def games_to_settle(self, adjusted: bool) -> float:
        """Games (per arm) for a 95% half-width of HALF_WIDTH."""
        sd = self.sd_adj if adjusted else self.sd
        return (Z * sd / HALF_WIDTH) ** 2


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def play(spec: RunSpec, changes: Changes | None = None) -> tuple[object, float]:
    """The rows of ``spec``'s games, counting luck, and the seconds they took (after a
    warm-up)."""
    e = Engine(dataclasses.replace(spec, luck=True), changes=changes or Changes())
    e.warmup(linked=True)  # the build every run after a first one plays
    t = time.perf_counter()
    table = e.play(0, spec.games)
    return table, time.perf_counter() - t


def col(table: object, name: str) -> np.ndarray:
    return np.asarray(table.column(name).to_numpy(), np.int64)  # type: ignore[attr-defined]


def self_play(bot: str, mix: str, games: int) -> Figure:
    table, secs = play(RunSpec(games=games, mix=mix, seed=SEED, p0=bot, p1=bot))
    a = LK.frame_first_of_decisive(table)
    return Figure(bot, "first player's share of decisive games", games, a.rate, a.rate_adj,
                  a.se * math.sqrt(games), a.se_adj * math.sqrt(games), secs / games)  # fmt: skip


def versus_greedy(bot: str, mix: str, games: int) -> Figure:
    other = "economic" if bot == "greedy" else "greedy"
    spec = RunSpec(games=games, mix=mix, seed=SEED, p0=bot, p1=other)
    table, secs = play(spec)
    y = (col(table, "winner") == 0).astype(float)
    a = LK.adjusted_mean(y, LK.luck_matrix(table), col(table, "game_id"))
    return Figure(bot, f"{bot} vs {other}: {bot}'s win rate (seat 0, first alternating)", games,
                  a.rate, a.rate_adj, a.se * math.sqrt(games), a.se_adj * math.sqrt(games),
                  secs / games)  # fmt: skip


def paired(bot: str, mix: str, games: int, what: str, spec_b: RunSpec | None,
           changes: Changes | None) -> Figure:  # fmt: skip
    spec = RunSpec(games=games, mix=mix, seed=SEED, p0=bot, p1=bot)
    ta, sa = play(spec)
    tb, sb = play(spec_b or spec, changes)
    a, b = Outcomes.from_frame(ta), Outcomes.from_frame(tb)
    kinds = kinds_of(run_pool(spec, Changes()).units)
    card = changes.edits[0].card if changes else None
    frame = luck_shifts(a, b, {card: kinds[card]} if card else {})
    row = frame.iloc[1 if card else 0]
    return Figure(bot, what, games, float(row["diff"]), float(row.diff_adj),
                  float(row.se) * math.sqrt(games), float(row.se_adj) * math.sqrt(games),
                  (sa + sb) / games)  # fmt: skip


def luck_cost(bot: str, mix: str, games: int) -> tuple[float, float]:
    """Seconds for the same self-play games counting luck and plain: the best of 3 plays
    in each of 2 turns per kind, the kinds taking turns, so a busy moment of a shared
    host does not land on one side only."""
    engines = {
        luck: Engine(RunSpec(games=games, mix=mix, seed=7, p0=bot, p1=bot, luck=luck))
        for luck in (True, False)
    }
    best = dict.fromkeys(engines, math.inf)
    for e in engines.values():
        e.warmup(linked=True)
    for luck in (True, False, True, False):
        for _ in range(3):
            t = time.perf_counter()
            engines[luck].play(0, games)
            best[luck] = min(best[luck], time.perf_counter() - t)
    return best[True], best[False]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mix", default="dunes+aegean")
    ap.add_argument("--greedy-games", type=int, default=40_000)
    ap.add_argument("--search-games", type=int, default=600)
    ap.add_argument("--bots", default="greedy,search")
    ap.add_argument("--cost-only", action="store_true", help="only the cost of counting luck")
    args = ap.parse_args(argv)
    import numba

    cores = numba.get_num_threads()
    start_load = load_average()
    figures: list[Figure] = []
    costs: dict[str, tuple[int, float, float]] = {}
    for bot in args.bots.split(","):
        n = 20_000 if bot == "greedy" else 60
        log(f"{bot}: the cost of counting luck, {n:,} games")
        costs[bot] = (n, *luck_cost(bot, args.mix, n))
    for bot in [] if args.cost_only else args.bots.split(","):
        n = args.greedy_games if bot == "greedy" else args.search_games
        start = len(figures)
        log(f"{bot}: self-play, {n:,} games")
        figures.append(self_play(bot, args.mix, n))
        log(f"{bot}: against another bot, {n:,} games")
        figures.append(versus_greedy(bot, args.mix, n))
        log(f"{bot}: the Emissary compare, 2 x {n:,} games")
        emissary = RunSpec(games=n, mix=args.mix, seed=SEED, p0=bot, p1=bot, variants=("emissary",))
        figures.append(paired(bot, args.mix, n, "Emissary: first-player win rate (paired)",
                              emissary, None))  # fmt: skip
        log(f"{bot}: the card compare, 2 x {n:,} games")
        figures.append(paired(bot, args.mix, n, f"{CHANGE}: holders' win rate (paired, CRN)",
                              None, Changes.parse((CHANGE,), ())))  # fmt: skip
        _, with_luck, without = costs[bot]
        for f in figures[start:]:
            f.cost = with_luck / without

    print(
        f"mix {args.mix}, seed {SEED}, {cores} threads; "
        f"load average {start_load} at the start, {load_average()} at the end"
    )
    if figures:
        print()
        print("| bot | estimate | games | plain | luck-adjusted | variance ratio | games saved |")
        print("|---|---|---:|---:|---:|---:|---:|")
        for f in figures:
            saved = 1 - 1 / f.ratio if f.ratio > 0 else math.nan
            print(f"| {f.bot} | {f.what} | {f.games:,} | {f.plain * 100:+.2f} | "
                  f"{f.adjusted * 100:+.2f} | {f.ratio:.3f} | {saved:+.1%} |")  # fmt: skip
        print()
        print(f"Games and seconds on {cores} cores to settle each to +/- {HALF_WIDTH * 100:.1f} "
              "points (95%):")  # fmt: skip
        print()
        print("| bot | question | plain games | plain s | luck-adjusted games | luck-adjusted s |")
        print("|---|---|---:|---:|---:|---:|")
        wanted = ("first player's share", "holders'", "Emissary")
        for f in figures:
            if not f.what.startswith(wanted) and "holders'" not in f.what:
                continue
            g, ga = f.games_to_settle(False), f.games_to_settle(True)
            spg = f.seconds_per_game
            print(f"| {f.bot} | {f.what} | {g:,.0f} | {g * spg / f.cost:,.1f} | "
                  f"{ga:,.0f} | {ga * spg:,.1f} |")  # fmt: skip
    print()
    print("Cost of counting luck (the same self-play games, counting luck and plain):")
    for bot, (n, with_luck, without) in costs.items():
        print(f"  {bot}: {n:,} games in {with_luck:.2f} s counting luck, {without:.2f} s "
              f"plain: {with_luck / without:.2f}x the time per game")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
