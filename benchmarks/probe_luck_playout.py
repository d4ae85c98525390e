#!/usr/bin/env python
"""The luck of the deck's order, valued by greedy play-outs at the start of each turn.

    python benchmarks/probe_luck_playout.py [--bot greedy] [--games 1000] [--alts 4]
                                            [--rollouts 2] [--turns 10]

At the start of each of a game's first ``--turns`` turns (the first one right after the
deal) the deck's order is a chance outcome: every deck is shuffled before a card leaves
it, only its top card ever leaves, and no bot reads its order, so given everything before,
the order is uniform over the orders of the deck's cards. The value of an order is the
mean first-player margin (+1 won, -1 lost, 0 shared) of ``--rollouts`` greedy play-outs
from a copy of the position with the deck in that order; the turn's term is the value of
the order as it is minus the mean value of ``--alts`` orders shuffled from a side stream.
The play-outs of every order share their dice (common random numbers), so the term is
nearly free of play-out noise. Each term has mean zero given the turn's start, whatever
the value is (greedy's play-outs also value a search game), so the terms are regressors
of the cross-fitted control variate of ``sim.analysis.luck`` and the estimate stays
unbiased.

The play-outs run on a copy and never touch the game's state or its streams: the probe's
games are the run's games, checked winner by winner against ``Engine`` rows (the outcomes
of the questions are read from those rows). It prints, for the bot in self-play, the
variance ratio (plain over adjusted) of the first player's share of decisive games, of
the Emissary compare and of the card change's holders' win rate (paired, on top of common
random numbers), with the kernel's card-in-position luck alone, the play-out terms alone
and both; the play-outs' cost (their turns at the kernel's greedy speed, timed here, over
the time of the bot's own games in its run) and the net figure, the variance ratio over
that cost: above 1, an answer in less time. Figures only; nothing is asserted.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sim.analysis import luck as LK  # noqa: E402
from sim.analysis.paired import Outcomes, kinds_of  # noqa: E402
from sim.base import layout as L  # noqa: E402
from sim.data.changes import Changes  # noqa: E402
from sim.data.spec import RunSpec  # noqa: E402
from sim.kernel import turn as T  # noqa: E402
from sim.kernel.game import finish  # noqa: E402
from sim.kernel.rng import seed_streams, shuffle  # noqa: E402
from sim.run.compiled import run_pool  # noqa: E402
from sim.run.engine import Engine  # noqa: E402
from sim.run.scenario import Scenario  # noqa: E402
from strategies.heuristic import BOT_GREEDY  # noqa: E402

SEED = 1
CHANGE = "Moonlight Channeler.cost=3"
GROUPS = ((0, 1), (1, 3), (3, 6), (6, 1_000))
"""The turns whose terms are summed into one regressor: the deal's, then 1-2, 3-5, 6 on
(fewer regressors than turns, so a few hundred games fit them)."""
DICE = 1_000_003
"""Offset of the play-outs' dice seeds from their orders' (the two never meet)."""


@njit
def order_values(st, work, tab, fp, ask, out, key, alts, rollouts, values):
    """``values[j]``: the mean first-player margin of ``rollouts`` greedy play-outs from
    ``st`` with the deck(s) as they are (``j = 0``) or shuffled by side stream ``(key, j)``;
    play-out ``r`` of every order throws the dice of stream ``(key + DICE, r)``. Returns
    the turns the play-outs played."""
    turns = 0
    first = st[L.FIRST]
    decks = 2 if st[L.OWN_DECKS] else 1
    for j in range(alts + 1):
        acc = 0.0
        for r in range(rollouts):
            for i in range(L.GAME_SIZE):
                work[i] = st[i]
            if j > 0:
                seed_streams(work, key, j)
                for d in range(decks):
                    shuffle(work, L.DECK + d * L.MAX_CARDS, work[L.DECK_N + d], L.RNG_DECK)
            seed_streams(work, key + DICE, r)
            work[L.BOT] = BOT_GREEDY
            work[L.BOT + 1] = BOT_GREEDY
            work[L.LUCK_OFF] = 1
            work[L.TRACE_CAP] = 0
            work[L.SCRIPT_N] = 0
            work[L.SCRIPT_POS] = 0
            while work[L.GAME_OVER] == 0:
                T.play_turn(work, tab, fp, ask)
            turns += work[L.TURN] - st[L.TURN]
            finish(work, tab, out)
            w = out[L.O_WINNER]
            if w == first:
                acc += 1.0
            elif w == 1 - first:
                acc -= 1.0
        values[j] = acc / rollouts
    return turns


def order_luck(spec: RunSpec, changes: Changes, args: argparse.Namespace) -> tuple:
    """Per game: the play-out terms of its first ``args.turns`` turns and its winner; and
    the turns all the play-outs played."""
    sc = Scenario.from_spec(spec, changes=changes)
    tab, fp, ask = sc.tab, sc.fp, sc.ask
    work = np.zeros_like(sc.st)
    out = np.zeros(L.O_COLS, np.int64)
    values = np.zeros(args.alts + 1)
    terms = np.zeros((spec.games, args.turns))
    winners = np.zeros(spec.games, np.int64)
    playouts = 0
    for g in range(spec.games):
        sc.setup(spec.seed, g)
        st = sc.st
        t = 0
        while not st[L.GAME_OVER]:
            if t < args.turns:
                key = (spec.seed * 1_000_000_007 + g) * 64 + t
                playouts += order_values(
                    st, work, tab, fp, ask, out, key, args.alts, args.rollouts, values
                )
                terms[g, t] = values[0] - values[1:].mean()
            T.play_turn(st, tab, fp, ask)
            t += 1
        finish(st, tab, out)
        winners[g] = out[L.O_WINNER]
    return terms, winners, playouts


def arm(spec: RunSpec, changes: Changes, args: argparse.Namespace) -> dict:
    """One run: its rows (counting the kernel's luck) and the play-out terms of its games."""
    e = Engine(dataclasses.replace(spec, luck=True), changes=changes)
    e.warmup()
    t0 = time.perf_counter()
    table = e.play(0, spec.games)
    game_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    terms, winners, playouts = order_luck(spec, changes, args)
    probe_s = time.perf_counter() - t0
    o = Outcomes.from_frame(table)
    same = np.array_equal(np.asarray(o.winner), winners)
    turns = float(np.mean(table.column("turns").to_numpy()))
    print(f"  {spec.variant_label}{' ' + CHANGE if changes.edits else ''}: {spec.games:,} "
          f"games in {game_s:.1f} s, {turns:.1f} turns a game; the play-outs played "
          f"{playouts / spec.games:,.0f} turns a game ({probe_s:.1f} s, a Python loop over "
          f"turns); winners as the run's: {same}")  # fmt: skip
    grouped = np.stack([terms[:, a:b].sum(1) for a, b in GROUPS], axis=1)
    return {"o": o, "terms": grouped, "kernel": LK.luck_matrix(table), "turns": turns,
            "playout_turns": playouts / spec.games}  # fmt: skip


def delta_term(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """Each game's delta-method term of the ratio ``sum(num) / sum(den)``."""
    rate = num.sum() / den.sum()
    return (num - rate * den) / den.mean()


def ratio_of(term: np.ndarray, x: np.ndarray, game_id: np.ndarray) -> float:
    """Plain variance of a per-game term over its variance with ``x``'s cross-fitted fit out."""
    pred = LK.cross_fit(term, x, LK.folds(game_id))
    return float(np.var(term) / np.var(term - pred))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bot", default="greedy")
    ap.add_argument("--mix", default="dunes+aegean")
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--alts", type=int, default=4, help="other orders per turn (default 4)")
    ap.add_argument("--rollouts", type=int, default=2, help="play-outs per order (default 2)")
    ap.add_argument("--turns", type=int, default=10, help="turns valued (default 10)")
    args = ap.parse_args(argv)
    spec = RunSpec(games=args.games, mix=args.mix, seed=SEED, p0=args.bot, p1=args.bot)
    print(f"{args.mix}, {args.bot} self-play, seed {SEED}, {args.games:,} games a run; "
          f"{args.alts} other orders x {args.rollouts} greedy play-outs at each of the "
          f"first {args.turns} turns; the host was shared")  # fmt: skip
    plain = Changes()
    a = arm(spec, plain, args)
    b_em = arm(dataclasses.replace(spec, variants=("emissary",)), plain, args)
    card = Changes.parse((CHANGE,), ())
    b_card = arm(spec, card, args)
    kind = kinds_of(run_pool(spec, plain).units)[card.edits[0].card]
    gid = np.asarray(a["o"].game_id)

    def x_of(*runs: dict, which: str) -> np.ndarray:
        parts = []
        for r in runs:
            if which in ("kernel", "both"):
                parts.append(LK.features(r["kernel"], gid))
            if which in ("play-outs", "both"):
                parts.append(LK.features(r["terms"], gid))
        return np.hstack(parts)

    def first_term(o: Outcomes) -> np.ndarray:
        w = np.asarray(o.winner)
        dec = (w >= 0).astype(float)
        return delta_term((w == np.asarray(o.first)) * dec, dec)

    def first_win(o: Outcomes) -> np.ndarray:
        return delta_term(np.asarray(o.first_win, float), np.ones(o.games))

    def holders_term(o: Outcomes) -> np.ndarray:
        w = np.asarray(o.winner)
        h0, h1 = o.held0[:, kind], o.held1[:, kind]
        num = (h0 & (w == 0)).astype(float) + (h1 & (w == 1))
        return delta_term(num, h0.astype(float) + h1)

    questions = {
        "first player's share of decisive games": (first_term(a["o"]), (a,)),
        "Emissary: first-player win rate (paired)": (
            first_win(b_em["o"]) - first_win(a["o"]), (a, b_em)),
        f"{CHANGE}: holders' win rate (paired, CRN)": (
            holders_term(b_card["o"]) - holders_term(a["o"]), (a, b_card)),
    }  # fmt: skip
    # The play-outs' cost at the kernel's greedy speed against the time of the bot's own
    # games, both timed here the same way (plain runs, best of 3).
    g = arm_speed(dataclasses.replace(spec, p0="greedy", p1="greedy", games=20_000))
    small = dataclasses.replace(
        spec, games=min(spec.games, 200 if args.bot != "greedy" else 20_000)
    )
    spg = arm_speed(small) * a["turns"]
    extra = a["playout_turns"] * g
    cost = 1 + extra / spg
    print(f"  cost: {a['playout_turns']:,.0f} greedy turns a game at {g * 1e6:.2f} us a turn "
          f"(greedy self-play, this host) = {extra * 1e3:.2f} ms against {spg * 1e3:.2f} ms a "
          f"{args.bot} game: {cost:.2f}x the time per game")  # fmt: skip
    print()
    print("| question | kernel's luck | play-outs | both | net: both / cost |")
    print("|---|---:|---:|---:|---:|")
    for name, (term, runs) in questions.items():
        cells = [ratio_of(term, x_of(*runs, which=w), gid) for w in ("kernel", "play-outs", "both")]
        row = " | ".join(f"{c:.2f}" for c in cells)
        print(f"| {name} | {row} | {cells[2] / cost:.3f} |")
    return 0


def arm_speed(spec: RunSpec) -> float:
    """Seconds per turn of ``spec``'s games in the kernel (best of 3, after a warm-up)."""
    e = Engine(spec)
    e.warmup()
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        table = e.play(0, spec.games)
        best = min(best, time.perf_counter() - t0)
    return best / float(np.sum(table.column("turns").to_numpy()))


if __name__ == "__main__":
    sys.exit(main())
