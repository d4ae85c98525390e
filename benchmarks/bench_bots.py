#!/usr/bin/env python
"""How strong and how fast each bot of the panel is.

    python benchmarks/bench_bots.py [--games N] [--lookahead-games N] [--mixes a,b] [--record]
    python benchmarks/bench_bots.py --stalls [--games N] [--lookahead-games N] [--mixes a,b]

Prints, for every mix:

* ``greedy`` against ``random``: greedy's win rate with its 95% interval
  (target: at least 90% in every set);
* ``lookahead`` against ``greedy``: its win rate and games/s with the shipped
  budget (target: at least 60% while running at least 200 games/s);
* each heuristic profile's self-play games/s beside greedy's, the engine's
  baseline (target: within 20%).

``--curve`` prints the look-ahead's strength/speed curve instead: the
shipped look-ahead profile at several budgets (rollouts per option, and
which decisions it plans besides the Surge) against ``--against`` (default
``economic``, the strongest heuristic in the tournament ladder), seats
balanced, ``--lookahead-games`` games per point, under ``--variant`` (e.g.
``simple-draft`` with budget letter ``d`` to plan the draft picks).

``--stalls`` prints instead, for every mix (default: each single set and
every two-set mix) and every pairing of the shipped bots, self-play
included: the share of games cut off at the turn cap (target: below 0.5%
everywhere), how Reign games end (feats against cities), the mean game
length and the first seat's win rate. Pairings with ``lookahead`` play
``--lookahead-games`` games, the others ``--games``. It first times a short
sample of each kind of pairing and logs how long the whole table should take
(``--project`` stops there).

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
# Every single set and every two-set mix, each base first (the base sets the rules).
STALL_MIXES = (
    "aegean", "dunes", "reign",
    "aegean+dunes", "aegean+reign", "dunes+aegean", "dunes+reign", "reign+aegean", "reign+dunes",
)  # fmt: skip
HEURISTICS = ("greedy", "aggressive", "economic", "defensive")
SHIPPED = ("random", *HEURISTICS, "lookahead")
STALL_TARGET = 0.005


@dataclass
class Match:
    """Bot ``a`` against bot ``b`` over both seat orders."""

    a: str
    b: str
    games: int
    wins_a: int
    shared: int
    seconds: float
    cpu_seconds: float = 0.0  # CPU time of the process over the same play (all its threads)

    @property
    def rate(self) -> float:
        return self.wins_a / self.games

    def verdict(self, what: str) -> str:
        """``what``, the win rate of ``a`` with its 95% interval, and the games played."""
        from sim.run.stats import wilson_interval

        lo, hi = wilson_interval(self.wins_a, self.games)
        return f"{what} {self.rate:6.1%} (95% CI {lo:.1%}-{hi:.1%}), {self.games:,} games"

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds


def play(
    mix: str,
    p0: str,
    p1: str,
    games: int,
    variants: tuple[str, ...] = (),
    cpu: list[float] | None = None,
) -> tuple[object, float]:
    """Rows of ``games`` duplicate-deal games (compile excluded) and the seconds they took;
    the process's CPU seconds over the same play are appended to ``cpu`` when given."""
    from sim.data.spec import RunSpec
    from sim.run.engine import Engine

    spec = RunSpec(games=games, mix=mix, seed=SEED, p0=p0, p1=p1, duplicate=True,
                   variants=variants)  # fmt: skip
    engine = Engine(spec)
    engine.warmup(linked=True)  # load the build every run after a first one plays
    t0, c0 = time.perf_counter(), time.process_time()
    df = engine.play(0, games).to_pandas()
    if cpu is not None:
        cpu.append(time.process_time() - c0)
    return df, time.perf_counter() - t0


def match(mix: str, a: str, b: str, games: int, variants: tuple[str, ...] = ()) -> Match:
    """``a`` against ``b``: half the games with ``a`` in seat 0, half in seat 1."""
    half = games // 4 * 2
    wins = shared = 0
    seconds = 0.0
    cpu: list[float] = []
    for seat in (0, 1):
        p0, p1 = (a, b) if seat == 0 else (b, a)
        df, s = play(mix, p0, p1, half, variants, cpu)
        wins += int((df.winner == seat).sum())
        shared += int((df.winner == -1).sum())
        seconds += s
    return Match(a, b, 2 * half, wins, shared, seconds, sum(cpu))


@dataclass
class Ending:
    """How the games of one pairing ended."""

    mix: str
    a: str
    b: str
    games: int
    capped: int
    feats: int
    turns: float
    seat0_wins: int
    seconds: float


def ending(mix: str, a: str, b: str, games: int) -> Ending:
    """``a`` in seat 0 against ``b`` in seat 1 on duplicate deals: how the games end.

    Duplicate deals already give each seat the first turn on every deal; the
    turn-cap share does not depend on which seat a bot takes.
    """
    df, s = play(mix, a, b, games)
    return Ending(
        mix, a, b, len(df),
        int((df.end_reason == "turn_cap").sum()),
        int((df.end_reason == "feats_completed").sum()),
        float(df.turns.mean()),
        int((df.winner == 0).sum()),
        s,
    )  # fmt: skip


def pairings(bots: tuple[str, ...], only_with: str | None = None) -> list[tuple[str, str]]:
    """Every pairing of ``bots``, self-play included; only those with ``only_with`` if given."""
    pairs = [(a, b) for i, a in enumerate(bots) for b in bots[i:]]
    return [p for p in pairs if only_with is None or only_with in p]


def projected_seconds(
    mixes: list[str], games: int, la_games: int, bots: tuple[str, ...], only_with: str | None = None
) -> str:
    """How long the stall table will take, from a short timed sample of each kind of pairing.

    Times ``greedy`` self-play and, when it is in ``bots``, ``lookahead``
    against ``greedy`` (a look-ahead self-play pairing costs about twice as
    much) on the first mix, and scales them to every pairing.
    """
    sample = 400
    _, s = play(mixes[0], "greedy", "greedy", sample)
    heur_rate = sample / s
    pairs = pairings(bots, only_with)
    la_pairs = [p for p in pairs if "lookahead" in p]
    total = (len(pairs) - len(la_pairs)) * len(mixes) * games / heur_rate
    text = f"heuristic pairing ~{heur_rate:,.0f} games/s"
    if la_pairs:
        _, s = play(mixes[0], "lookahead", "greedy", sample // 4)
        la_rate = sample // 4 / s
        weight = sum(2 if p == ("lookahead", "lookahead") else 1 for p in la_pairs)
        total += weight * len(mixes) * la_games / la_rate
        text += f", lookahead against greedy ~{la_rate:,.0f} games/s"
    return f"{text} on {mixes[0]}: the table should take ~{total / 60:,.0f} minutes"


def stall_table(
    mixes: list[str], games: int, la_games: int, bots: tuple[str, ...], only_with: str | None = None
) -> list[str]:
    """One line per (mix, pairing): turn-capped share with its interval, feat ends, length.

    ``only_with`` keeps the pairings with that bot (to re-measure one bot's rows).
    """
    from sim.run.stats import wilson_interval

    log(projected_seconds(mixes, games, la_games, bots, only_with))
    lines = [
        f"{'mix':<14} {'seat 0':<10} {'seat 1':<10} {'games':>7} {'turn cap':>9} "
        f"{'95% CI':>15} {'feat ends':>10} {'turns':>6} {'seat 0 wins':>11}"
    ]
    worst = 0.0
    for mix in mixes:
        for a, b in pairings(bots, only_with):
            n = la_games if "lookahead" in (a, b) else games
            log(f"{mix}: {a} vs {b}, {n:,} games ...")
            e = ending(mix, a, b, n // 2 * 2)
            rate = e.capped / e.games
            worst = max(worst, rate)
            lo, hi = wilson_interval(e.capped, e.games)
            flag = "" if rate < STALL_TARGET else "  <-- over 0.5%"
            lines.append(
                f"{mix:<14} {a:<10} {b:<10} {e.games:>7,} {rate:>9.3%} "
                f"{f'({lo:.2%}-{hi:.2%})':>15} {e.feats / e.games:>10.2%} {e.turns:>6.1f} "
                f"{e.seat0_wins / e.games:>11.1%}{flag}"
            )
            log(lines[-1])  # a long table shows its rows as they come
    lines.append(f"worst turn-capped share: {worst:.3%} (target below {STALL_TARGET:.1%})")
    return lines


# Letters after a rollout count in --budgets: the decisions planned besides the Surge.
PLAN_LETTERS = {"w": "wealth", "o": "offer", "r": "war_order", "k": "keep", "d": "draft"}
# (label, width, rollouts, horizon, planned knobs): the budgets of the strength/speed curve.
BUDGETS = (
    ("rollouts 2 + o", 3, 2, 2, "o"),
    ("rollouts 4 + o (shipped)", 3, 4, 2, "o"),
    ("rollouts 8 + o", 3, 8, 2, "o"),
    ("rollouts 4 (Surge only)", 3, 4, 2, ""),
)


def budget_profile(tmp: Path, width: int, rollouts: int, horizon: int, plans: str) -> str:
    """Write a look-ahead profile with these knobs (the shipped weights; each decision in
    ``plans``, as PLAN_LETTERS, planned by rollouts, the others not) and return its path."""
    src = (ROOT / "configs" / "strategies" / "lookahead.toml").read_text()
    head = src.split("[lookahead]")[0]
    path = tmp / f"la-w{width}-r{rollouts}-h{horizon}-{plans or 'surge'}.toml"
    knobs = "".join(f"{k} = {int(c in plans)}\n" for c, k in PLAN_LETTERS.items())
    path.write_text(
        head + f"[lookahead]\nwidth = {width}\nrollouts = {rollouts}\nhorizon = {horizon}\n" + knobs
    )
    return str(path)


def pick_budgets(spec: str) -> list[tuple[str, int, int, int, str]]:
    """The budgets named by ``spec``: rollout counts, each followed by the letters of the
    decisions planned besides the Surge (``w`` Wealth, ``o`` Offering, ``r`` war order,
    ``k`` keeps, ``d`` draft picks: ``2,4,8,4w,4wrk,4od``); a count not in BUDGETS gets
    the shipped width and horizon. Raises ValueError on an unknown letter."""
    rows = []
    for item in (x.strip() for x in spec.split(",") if x.strip()):
        count = item.rstrip("".join(PLAN_LETTERS))
        plans = "".join(c for c in PLAN_LETTERS if c in item[len(count) :])
        if not count.isdigit() or len(set(item[len(count) :]) - set(plans)):
            letters = "".join(PLAN_LETTERS)
            raise ValueError(f"bad budget {item!r}: a rollout count, then letters of {letters}")
        rollouts = int(count)
        known = [b for b in BUDGETS if b[2] == rollouts and b[4] == plans]
        label = f"rollouts {rollouts}" + (f" + {plans}" if plans else "")
        rows.append(known[0] if known else (label, 3, rollouts, 2, plans))
    return rows


def pick_variants(spec: str) -> tuple[str, ...]:
    """The run variants named by ``spec`` (comma-separated); ValueError on an unknown one."""
    from sim.data.spec import VARIANTS

    names = tuple(v.strip() for v in spec.split(",") if v.strip())
    for v in names:
        if v not in VARIANTS:
            raise ValueError(f"unknown variant {v!r}; valid variants: {', '.join(VARIANTS)}")
    return names


def curve_table(
    mixes: list[str],
    games: int,
    against: str,
    budgets: list | None = None,
    variants: tuple[str, ...] = (),
) -> list[str]:
    """The look-ahead at each of ``budgets`` (default BUDGETS) against ``against``, under
    the run ``variants`` (e.g. a draft): win rate and games/s."""
    import tempfile

    from sim.run.stats import wilson_interval

    lines = [
        f"{'mix':<14} {'budget':<22} {'games':>6} {'win rate':>9} {'95% CI':>15} {'games/s':>8}"
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for mix in mixes:
            for label, *knobs in budgets or BUDGETS:
                prof = budget_profile(Path(tmp), *knobs)
                log(f"{mix}: lookahead {label} vs {against}, {games:,} games ...")
                m = match(mix, prof, against, games, variants)
                lo, hi = wilson_interval(m.wins_a, m.games)
                lines.append(
                    f"{mix:<14} {label:<22} {m.games:>6,} {m.rate:>9.1%} "
                    f"{f'({lo:.1%}-{hi:.1%})':>15} {m.games_per_s:>8,.0f}"
                )
                log(lines[-1])
    return lines


def print_table(title: str, commit: str, threads: int, load: str, lines: list[str]) -> None:
    """Print a finished table under the header every table of this script shares:
    what it is, the seed, the commit, the machine, and the host's load before and now."""
    print()
    print(f"omensim {title}; seed {SEED}; commit {commit}; {machine(threads)}")
    print(f"load average at start {load}, at end {load_average()}")
    print("\n".join(lines))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Strength and speed of the bot panel.")
    parser.add_argument("--games", type=parse_games, default=20_000, metavar="N",
                        help="games per heuristic pairing (default 20,000)")  # fmt: skip
    parser.add_argument("--lookahead-games", type=parse_games, default=2_000, metavar="N",
                        help="games of lookahead against greedy (default 2,000)")  # fmt: skip
    parser.add_argument("--mixes", default=None,
                        help=f"comma-separated mixes (default {','.join(MIXES)}; "
                        "with --stalls every set and two-set mix)")  # fmt: skip
    parser.add_argument(
        "--stalls",
        action="store_true",
        help="print the turn-cap, feat-end and length table of every pairing "
        "of the shipped bots instead (default mixes: every set and two-set mix)",
    )
    parser.add_argument(
        "--bots", default=",".join(SHIPPED), help="bots for --stalls (default every shipped bot)"
    )
    parser.add_argument("--only-with", default=None, metavar="BOT",
                        help="with --stalls: only the pairings that include BOT "
                        "(e.g. lookahead, to re-measure its rows at more games)")  # fmt: skip
    parser.add_argument("--project", action="store_true",
                        help="with --stalls: only print how long the table would take")  # fmt: skip
    parser.add_argument("--curve", action="store_true",
                        help="print the look-ahead's strength/speed curve over its budgets "
                        "against --against instead")  # fmt: skip
    parser.add_argument("--budgets", default="2o,4o,8o,4", metavar="R,R,...",
                        help="--curve budgets: rollouts per option, then letters of the "
                        "decisions planned besides the Surge: w Wealth, o Offering, r war "
                        "order, k keeps, d draft picks (e.g. 4wk; default 2o,4o,8o,4: the "
                        "shipped Surge and Offering at 2, 4 and 8 rollouts, and the Surge "
                        "alone)")  # fmt: skip
    parser.add_argument("--variant", default="", metavar="V,V,...",
                        help="--curve: comma-separated run variants every game is played "
                        "with, as omensim run --variant (e.g. simple-draft, draft1; default "
                        "none: the standard set-up)")  # fmt: skip
    parser.add_argument("--against", default="economic",
                        help="opponent for --curve (default economic)")  # fmt: skip
    parser.add_argument("--record", action="store_true",
                        help="append the figures to benchmarks/results.csv")  # fmt: skip
    args = parser.parse_args(argv)

    import numba

    threads = int(numba.config.NUMBA_NUM_THREADS)
    load = load_average()
    if args.curve:
        mixes = (args.mixes or ",".join(MIXES)).split(",")
        try:
            budgets = pick_budgets(args.budgets)
            variants = pick_variants(args.variant)
        except ValueError as e:
            print(f"Error: {e}", file=sys.stderr)
            return 2
        lines = curve_table(mixes, args.lookahead_games, args.against, budgets, variants)
        title = "look-ahead curve" + (f" (variant {','.join(variants)})" if variants else "")
        print_table(title, git_commit(), threads, load, lines)
        return 0
    if args.stalls:
        mixes = (args.mixes or ",".join(STALL_MIXES)).split(",")
        bots = tuple(b.strip() for b in args.bots.split(",") if b.strip())
        if args.only_with is not None and args.only_with not in bots:
            print(f"Error: --only-with {args.only_with!r} is not in --bots", file=sys.stderr)
            return 2
        if args.project:
            print(projected_seconds(mixes, args.games, args.lookahead_games, bots, args.only_with))
            return 0
        lines = stall_table(mixes, args.games, args.lookahead_games, bots, args.only_with)
        print_table("stall table", git_commit(), threads, load, lines)
        return 0
    figures: dict[str, list[Figure]] = {}
    lines: list[str] = []
    for mix in (args.mixes or ",".join(MIXES)).split(","):
        figs = figures.setdefault(mix, [])
        log(f"{mix}: greedy vs random, {args.games:,} games ...")
        m = match(mix, "greedy", "random", args.games)
        lines.append(f"{mix:<14} {m.verdict('greedy beats random  ')}")
        log(f"{mix}: lookahead vs greedy, {args.lookahead_games:,} games ...")
        la = match(mix, "lookahead", "greedy", args.lookahead_games)
        lines.append(
            f"{mix:<14} {la.verdict('lookahead beats greedy')} at {la.games_per_s:,.0f} games/s"
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
    print_table("bot panel", commit, threads, load, lines)
    if args.record:
        for mix, figs in figures.items():
            record(figs, mix, commit, machine(threads))
        print("appended the figures to benchmarks/results.csv")
    return 0


if __name__ == "__main__":
    from sim.base.errors import exit_status

    sys.exit(exit_status(main))
