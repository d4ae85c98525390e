#!/usr/bin/env python
"""Where a game's time goes: the turn loop of ``sim.kernel.game`` with a cycle counter per step.

    python benchmarks/profile_kernel.py [--mix dunes+aegean] [--games 20000] [--p0 greedy]

It plays the same games as the kernel, one thread, calling the kernel's own
step functions in the kernel's order with ``llvm.readcyclecounter`` around
each, and checks that every output row equals ``play_game``'s for the same
game (so the profile is of the real game, not a look-alike). It prints cycles
per game and per turn for each step and how often each runs. It prints figures
only; a busy host inflates every step about evenly, so read the shares.
The look-ahead bot's Surge is not broken down (it is timed as one step).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sim.base import layout as L
from sim.data.spec import RunSpec
from sim.kernel import board as B
from sim.kernel import decisions as D
from sim.kernel.feats import feat_step
from sim.kernel.game import finish, play_game, setup
from sim.kernel.offering import offering_step
from sim.kernel.portent import portent_step
from sim.kernel.surge import (
    MAX_ACTIONS,
    surge_apply,
    surge_begin,
    surge_end,
    surge_options,
    surge_step,
)
from sim.kernel.tab import rule
from sim.kernel.turn import end_turn
from sim.kernel.war import war_step
from sim.kernel.wealth import wealth_step
from sim.run.engine import Engine
from sim.run.view import new_state
from strategies.greedy import cache_cities
from strategies.policy import BOT_LOOKAHEAD, choose

STEPS = [
    "set-up (reset, shuffle, deal)",
    "wealth step (options + choose + take)",
    "surge: begin (structures)",
    "surge: enumerate options",
    "surge: greedy choice (incl. its city cache)",
    "  of which: city cache (strength/slots/cost rescan)",
    "surge: apply (play, abilities, RALLY)",
    "surge: end-of-surge abilities",
    "portent + feat steps (Reign)",
    "war step (war-torn test, winner, keeps)",
    "  of which: war-torn tests only",
    "offering step (options + choose + limits)",
    "end of turn (end conditions)",
    "finish (score into the row)",
]
(
    SETUP,
    WEALTH,
    S_BEGIN,
    S_OPTS,
    S_CHOOSE,
    S_CACHE,
    S_APPLY,
    S_END,
    REIGN,
    WAR,
    WAR_TORN,
    OFFER,
    END,
    FINISH,
) = range(len(STEPS))
N_OPTIONS = len(STEPS)  # extra counter: Surge options enumerated
N_TURNS = N_OPTIONS + 1


@intrinsic
def cycles(typingctx):
    """The CPU's cycle counter (``llvm.readcyclecounter``, RDTSC on x86)."""

    def codegen(context, builder, signature, args):
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.IntType(64), []), "llvm.readcyclecounter"
        )
        return builder.call(fn, [])

    return types.int64(), codegen


@njit
def profiled_games(st, tab, fp, seed, start, n, out, acc, cnt):
    """Play games ``start..start+n-1`` like ``play_game``, adding each step's cycles to ``acc``."""
    for g in range(start, start + n):
        t = cycles()
        setup(st, tab, fp, choose, seed, g)
        acc[SETUP] += cycles() - t
        cnt[SETUP] += 1
        while st[L.GAME_OVER] == 0:
            cnt[N_TURNS] += 1
            t = cycles()
            wealth_step(st, tab, fp, choose)
            acc[WEALTH] += cycles() - t
            cnt[WEALTH] += 1
            p = st[L.ACTIVE]
            if st[L.BOT + p] == BOT_LOOKAHEAD:
                t = cycles()
                surge_step(st, tab, fp, choose)
                acc[S_APPLY] += cycles() - t
            else:
                t = cycles()
                surge_begin(st, tab, fp, choose)
                acc[S_BEGIN] += cycles() - t
                for _ in range(MAX_ACTIONS):
                    t = cycles()
                    k = surge_options(st, tab, fp, choose, p)
                    acc[S_OPTS] += cycles() - t
                    cnt[S_OPTS] += 1
                    cnt[N_OPTIONS] += k
                    t = cycles()
                    cache_cities(st, tab, p)  # pure: choose_greedy redoes it
                    acc[S_CACHE] += cycles() - t
                    t = cycles()
                    i = choose(st, tab, fp, p, D.D_SURGE, k)
                    acc[S_CHOOSE] += cycles() - t
                    t = cycles()
                    passed = surge_apply(st, tab, fp, choose, p, i)
                    acc[S_APPLY] += cycles() - t
                    if passed:
                        break
                t = cycles()
                surge_end(st, tab, fp, choose, p)
                acc[S_END] += cycles() - t
            t = cycles()
            if rule(tab, L.RU_PORTENT):
                portent_step(st, tab, fp, choose)
            if rule(tab, L.RU_FEAT_STEP):
                feat_step(st, tab)
            acc[REIGN] += cycles() - t
            t = cycles()
            for c in range(L.N_CITIES):
                B.is_war_torn(st, tab, c, st[L.ACTIVE])  # pure: war_step redoes it
            acc[WAR_TORN] += cycles() - t
            t = cycles()
            war_step(st, tab, fp, choose)
            acc[WAR] += cycles() - t
            t = cycles()
            offering_step(st, tab, fp, choose)
            acc[OFFER] += cycles() - t
            t = cycles()
            end_turn(st, tab)
            acc[END] += cycles() - t
        t = cycles()
        finish(st, tab, out[g - start])
        acc[FINISH] += cycles() - t


@njit
def plain_games(st, tab, fp, seed, start, n, out, masks):
    """The kernel's own ``play_game`` over the same games, for the check and the total."""
    for g in range(start, start + n):
        play_game(st, tab, fp, choose, seed, g, out[g - start], masks[g - start])


def fresh_state(engine: Engine) -> np.ndarray:
    """A scratch state set up the way ``sim.kernel.batch.play_batch`` sets one up."""
    return new_state(engine.bots)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Cycles per step of the game kernel (prints).")
    parser.add_argument("--mix", default="dunes+aegean", help="card mix (default dunes+aegean)")
    parser.add_argument("--games", type=int, default=20_000, help="games (default 20,000)")
    parser.add_argument("--p0", default="greedy", help="strategy of seat 0 (default greedy)")
    parser.add_argument("--p1", default="greedy", help="strategy of seat 1 (default greedy)")
    args = parser.parse_args(argv)
    engine = Engine(RunSpec(games=args.games, mix=args.mix, seed=1, p0=args.p0, p1=args.p1))
    tab, fp, n = engine.tab, engine.fp, args.games
    seed = np.int64(1)
    out = np.zeros((n, L.O_COLS), np.int64)
    ref = np.zeros((n, L.O_COLS), np.int64)
    masks = np.zeros((n, 2 * L.MASK_WORDS), np.int64)
    acc = np.zeros(len(STEPS), np.int64)
    cnt = np.zeros(len(STEPS) + 2, np.int64)
    print("compiling the profiler ...", file=sys.stderr)
    plain_games(fresh_state(engine), tab, fp, seed, 0, 2, ref, masks)
    profiled_games(fresh_state(engine), tab, fp, seed, 0, 2, out, acc.copy(), cnt.copy())

    t0 = time.perf_counter()
    c0 = cycles_now()
    plain_games(fresh_state(engine), tab, fp, seed, 0, n, ref, masks)
    plain_cycles = cycles_now() - c0
    plain_s = time.perf_counter() - t0
    profiled_games(fresh_state(engine), tab, fp, seed, 0, n, out, acc, cnt)
    if not np.array_equal(out, ref):
        print("Error: the profiled loop's rows differ from play_game's", file=sys.stderr)
        return 1
    turns = cnt[N_TURNS]
    total = acc.sum() - acc[S_CACHE] - acc[WAR_TORN]
    print(
        f"{args.mix}, {args.p0} vs {args.p1}, {n:,} games, {turns / n:.1f} turns/game, "
        f"{cnt[S_OPTS] / turns:.2f} Surge decisions/turn, "
        f"{cnt[N_OPTIONS] / max(cnt[S_OPTS], 1):.1f} options each; rows identical to play_game"
    )
    print(
        f"play_game alone: {plain_s:.2f} s = {n / plain_s:,.0f} games/s, "
        f"{plain_cycles / turns:,.0f} cycles/turn; profiled total {total / turns:,.0f} cycles/turn"
    )
    width = max(len(s) for s in STEPS)
    print(f"{'step':<{width}}  {'cycles/turn':>11}  {'share':>6}")
    for i, name in enumerate(STEPS):
        print(f"{name:<{width}}  {acc[i] / turns:11,.0f}  {acc[i] / total:6.1%}")
    return 0


@njit
def _now():
    return cycles()


def cycles_now() -> int:
    """The cycle counter, read from Python."""
    return int(_now())


if __name__ == "__main__":
    from sim.base.errors import exit_status

    sys.exit(exit_status(main))
