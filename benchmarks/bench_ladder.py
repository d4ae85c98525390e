#!/usr/bin/env python
"""The skill ladder: each bot against the one below it, and the search bot's curve.

    python benchmarks/bench_ladder.py [--mixes a,b] [--rung-games N] [--games N]
                                      [--top BOT] [--small S] [--curve B1,B2,B3]
                                      [--curve-games N] [--against BOT]
                                      [--speed-games N]
                                      [--sections ladder,versus,reference,curve,speed,ms]

Prints these tables, every match played on seat-balanced duplicate deals (each
pairing twice on the same deals, once with each bot in seat 0, and each deal
played with either seat first), with the win rate's 95% interval:

* ``ladder``: in every mix, each rung against the rung below: ``random`` <
  ``aggressive`` < ``greedy`` < ``value`` < ``--top`` (default ``vsearch``, the
  search over every option scored by the learned value) (target: each rung at least
  55%), ``--rung-games`` games each;
* ``reference``: ``value`` and ``--top`` against the fixed reference, the rollout
  search ``search`` (48) (target for ``--top``: at least 60% with ``--games`` >= 2,000);
* ``versus``: ``--top`` against ``economic`` and against ``lookahead`` in every mix;
* ``curve``: ``--top`` at each budget of ``--curve`` (``B`` or ``B:W``, a budget and the
  options searched) against ``--against`` (default
  ``search``) in the first mix, ``--curve-games`` games per point, each point followed
  by its self-play row (``--speed-games`` games: its speed); ``--small`` is the
  budget of the rollout search's small rung, kept for the old ladder (``search (S)``);
* ``speed``: ``value``'s and ``--top``'s speed in every mix, against ``greedy`` and
  against itself, ``--speed-games`` games each (target for ``--top``: at least 2,000
  games/s on 2 cores in aegean self-play);
* ``ms``: only the ms per decision of every rung (and of ``lookahead``) in
  every mix, no games.

Every row gives the budget (simulations per decision), the games/s of the
pairing (both seats' play, compile excluded), and the upper bot's ms per
Surge decision (mean over a fixed set of mid-game positions, in CPU time of
the deciding thread, so that waiting on a loaded host does not count). ``cpu 2c`` is
twice the games over the CPU seconds the process spent playing them: steadier than
wall-clock games/s on a loaded host (which mostly measure waiting), but a floor, since
it reads below the reference-loop ratio even on a quiet one. The host may be
shared, so the reference loop (``shared/bench/reference_loop.py``) is timed at
the start and the end of the run and each games/s is also printed as a ratio
of it. The script prints figures and never fails on them.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_bots import match  # noqa: E402
from bench_engine import (  # noqa: E402
    REFERENCE_GAMES,
    git_commit,
    load_average,
    log,
    parse_games,
    reference,
)

MIXES = ("aegean", "dunes", "reign", "dunes+aegean")
SMALL = 4  # the small search rung: each rung clears 55% in every mix (docs/bots-search.md)
CURVE = "4,12,24,48"
DECISION_POSITIONS = 24  # mid-game positions each ms-per-decision figure is the mean over


def budget_profile(tmp: Path, simulations: int, bot: str = "search", width: int = 0) -> str:
    """Write the shipped search profile ``bot`` with ``simulations`` play-outs per decision
    (and, if ``width`` is not 0, that many options searched), its other knobs kept; its
    path."""
    from strategies.greedy import SEARCH_KNOBS
    from strategies.registry import STRATEGIES

    prof = STRATEGIES[bot]
    knobs = {k: int(prof.weights[i]) for k, i in SEARCH_KNOBS.items()}
    knobs["simulations"] = simulations
    if width:
        knobs["width"] = width
    name = f"{bot}-{simulations}" + (f"-w{width}" if width else "")
    head = f'[strategy]\nname = "{name}"\nbot = "search"\n[search]\n'
    path = tmp / f"{name}.toml"
    path.write_text(head + "".join(f"{k} = {v}\n" for k, v in knobs.items()))
    return str(path)


def curve_points(spec: str) -> list[tuple[int, int]]:
    """The curve's points, ``budget`` or ``budget:width`` each, comma-separated: (budget,
    width) pairs, width 0 for the profile's own."""
    points = []
    for item in (x.strip() for x in spec.split(",")):
        if item:
            b, _, w = item.partition(":")
            points.append((int(b), int(w) if w else 0))
    return points


def shipped_budget(bot: str = "search") -> int:
    """The shipped search profile ``bot``'s simulations per decision."""
    from strategies.greedy import SEARCH_KNOBS
    from strategies.registry import STRATEGIES

    return int(STRATEGIES[bot].weights[SEARCH_KNOBS["simulations"]])


def decision_positions(mix: str) -> list:
    """The fixed mid-game positions of ``mix`` (greedy self-play up to a Surge) that the
    ms-per-decision figures are the mean over, as scenarios."""
    from sim.run.scenario import Scenario

    positions = []
    for i in range(DECISION_POSITIONS):
        sc = Scenario.from_game(mix, 300 + i, 11 * i, bots=("greedy", "greedy"))
        for _ in range(2 + i % 8):
            if not sc.over:
                sc.turn()
        if not sc.over:
            sc.wealth()
            positions.append(sc)
    return positions


def ms_per_decision(mix: str, bot: str) -> float:
    """``bot``'s mean milliseconds per Surge decision over fixed mid-game positions of ``mix``
    (greedy self-play up to them), compile excluded, in CPU time of one thread."""
    from sim.kernel import decisions as D
    from sim.kernel.surge import surge_options
    from sim.run.view import StateView
    from strategies.policy import choose, choose_heuristic
    from strategies.registry import resolve, strategy_arrays

    positions = decision_positions(mix)
    bot_id = resolve(bot).bot
    total = 0.0
    timed = 0
    for warm in (True, False):  # the first pass compiles whatever the positions reach
        for sc in positions:
            _, fp = strategy_arrays(bot, bot, sc.tab)
            st = sc.st.copy()
            p = sc.active
            StateView(st).bot_ids[p] = bot_id
            n = int(surge_options(st, sc.tab, fp, choose_heuristic, p))
            # CPU time of this thread: on a shared host wall time mostly measures waiting.
            t0 = time.thread_time()
            choose(st, sc.tab, fp, p, D.D_SURGE, n)
            if not warm:
                total += time.thread_time() - t0
                timed += 1
    return 1000.0 * total / max(timed, 1)


def row(mix: str, upper: tuple[str, str], lower: tuple[str, str], games: int, ref: float) -> str:
    """One match, ``upper`` against ``lower`` (each a strategy and its label): its line."""
    from sim.run.stats import wilson_interval

    (bot, label), (other, other_label) = upper, lower
    log(f"{mix}: {label} vs {other_label}, {games:,} games ...")
    m = match(mix, bot, other, games)
    lo, hi = wilson_interval(m.wins_a, m.games)
    ms = ms_per_decision(mix, bot)
    line = (
        f"{mix:<13} {label:<22} {other_label:<22} {m.games:>6,} {m.rate:>7.1%} "
        f"{f'({lo:.1%}-{hi:.1%})':>15} {m.games_per_s:>8,.0f} {m.games_per_s / ref:>9.2e} "
        f"{cpu_rate(m):>8,.0f} {ms:>8.2f}"
    )
    log(line)
    return line


HEADER = (
    f"{'mix':<13} {'bot (budget)':<22} {'against':<22} {'games':>6} {'win':>7} {'95% CI':>15} "
    f"{'games/s':>8} {'/ ref':>9} {'cpu 2c':>8} {'ms/dec':>8}"
)


def cpu_rate(m) -> float:
    """Games/s two cores would play if they were the match's alone, from CPU time: 2 x games
    over the CPU seconds the process spent playing them (a floor: see the module text)."""
    return 2 * m.games / max(m.cpu_seconds, 1e-9)


def main(argv: list[str] | None = None) -> int:
    """Play the tables asked for and print them."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mixes", default=",".join(MIXES), help="comma-separated mixes")
    ap.add_argument("--rung-games", type=parse_games, default=1000, help="games per ladder rung")
    ap.add_argument("--games", type=parse_games, default=2000, help="games per versus match")
    ap.add_argument("--small", type=int, default=SMALL, help="the small search budget's rung")
    ap.add_argument(
        "--curve", default=CURVE, help="the curve's search budgets, each B or B:W (with width W)"
    )
    ap.add_argument("--curve-games", type=parse_games, default=1000, help="games per curve point")
    ap.add_argument("--against", default="search", help="the curve's opponent")
    ap.add_argument("--top", default="vsearch", help="the top rung: a search profile")
    ap.add_argument("--speed-games", type=parse_games, default=400, help="games per speed row")
    ap.add_argument(
        "--sections",
        default="ladder,reference,curve",
        help="which tables: ladder, reference, versus, curve, speed, ms",
    )
    args = ap.parse_args(argv)
    mixes = [m.strip() for m in args.mixes.split(",") if m.strip()]
    sections = {s.strip() for s in args.sections.split(",")}
    known = {"ladder", "reference", "versus", "curve", "speed", "ms"}
    unknown = sections - known
    if unknown:
        print(f"unknown section {sorted(unknown)[0]!r}; valid: {', '.join(sorted(known))}")
        return 2
    try:
        curve = curve_points(args.curve)
    except ValueError:
        msg = f"Error: bad --curve {args.curve!r}: each point is B or B:W, whole numbers"
        print(msg, file=sys.stderr)
        return 2
    shipped = shipped_budget()
    start_load = load_average()
    ref, _ = reference(2, REFERENCE_GAMES, 2)
    log(f"reference loop: {ref:,.0f} games/s on 2 threads")
    out: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        small = (budget_profile(Path(tmp), args.small), f"search ({args.small})")
        search = ("search", f"search ({shipped})")
        top = (args.top, f"{args.top} ({shipped_budget(args.top)})")
        value = ("value", "value")
        if "ladder" in sections:
            rungs = [(n, n) for n in ("random", "aggressive", "greedy")] + [value, top]
            out += ["", "ladder: each rung against the rung below", HEADER]
            for mix in mixes:
                for lower, upper in itertools.pairwise(rungs):
                    out.append(row(mix, upper, lower, args.rung_games, ref))
        if "reference" in sections:
            out += ["", f"against the reference, the rollout search {search[1]}", HEADER]
            for mix in mixes:
                for bot in (value, top):
                    out.append(row(mix, bot, search, args.games, ref))
        if "versus" in sections:
            out += ["", f"{top[1]} against economic and lookahead", HEADER]
            for mix in mixes:
                for other in ("economic", "lookahead"):
                    out.append(row(mix, top, (other, other), args.games, ref))
        if "curve" in sections:
            out += ["", f"strength/speed curve against {args.against}, {mixes[0]}", HEADER]
            for b, w in curve:
                label = f"{args.top} ({b})" if not w else f"{args.top} ({b}, width {w})"
                point = (budget_profile(Path(tmp), b, args.top, w), label)
                against = (args.against, args.against)
                out.append(row(mixes[0], point, against, args.curve_games, ref))
                # The point's own speed, beside its strength: self-play, as the speed target.
                out.append(row(mixes[0], point, point, args.speed_games, ref))
        if "speed" in sections:
            out += ["", "speed: value and the top rung, against greedy and themselves", HEADER]
            for mix in mixes:
                for bot in (value, top):
                    for other in (("greedy", "greedy"), bot):
                        out.append(row(mix, bot, other, args.speed_games, ref))
        if "ms" in sections:
            bots = [(n, n) for n in ("random", "aggressive", "greedy", "lookahead")]
            bots += [small, search, value, top]
            out += ["", "ms per Surge decision (CPU time of the deciding thread)"]
            for mix in mixes:
                for bot, label in bots:
                    out.append(f"{mix:<13} {label:<22} {ms_per_decision(mix, bot):>8.3f}")
                    log(out[-1])
    ref_end, _ = reference(2, REFERENCE_GAMES, 2)
    print(
        f"commit {git_commit()}, load average {start_load} at start, {load_average()} at end; "
        f"reference loop {ref:,.0f} games/s at start, {ref_end:,.0f} at end (2 threads); "
        "'/ ref' is games/s over the start figure"
    )
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    from sim.base.errors import exit_status

    sys.exit(exit_status(main))
