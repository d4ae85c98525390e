#!/usr/bin/env python
"""A value of the position fitted offline, in luck terms taken turn by turn (docs/luck.md).

    python benchmarks/probe_luck_learned.py [--train 8000] [--games 3000] [--replays 3] [--hands]
                                            [--trees 0]

Greedy self-play, dunes+aegean. First, ``--train`` games (seed 2) give the positions after
every turn and each game's outcome ``Y`` (the first player's margin: +1 won, -1 lost, 0
shared); a linear value of the position (VP, coins, hand size, reward tiles won, whose turn
is next, each city's strength and unit-slot margins beside its tiles left; with
``--hands`` also which kinds each hand holds) is fitted to ``Y`` by least squares, one
set of weights for each pair of turns, and its out-of-sample share of ``Var(Y)`` printed
(fitted on half the positions, scored on the other half). Then ``--games`` games (seed 1)
count, after each of their first 12 turns, the fitted value of the position minus its
mean over ``--replays`` replays of the same turn with the deck(s) shuffled again and the
bots' dice as they were: each term has mean zero given the turn's start, whatever the
weights, because they were fitted on other games. The terms, summed over turns 0-3 and
4-11, are the regressors of the cross-fitted estimator of ``sim.analysis.luck``; it
prints the variance ratio of the first player's share of decisive games.

``--trees N`` values the positions by gradient-boosted trees instead (N rounds over
``probe_luck_network.py``'s ``--rich`` encoding and the turn, one model for every turn,
fitted to ``Y`` on the ``--train`` games; a finished game's position is valued by its
outcome): the best learned value those probes found. It needs LightGBM (the
``research`` extra). ``--at wealth`` values the position after each turn's Wealth step
instead (replays of the Wealth step alone, whose draws are most of a turn's, and trees
fitted on such positions): nearer the draw itself, as a value read at each draw in the
kernel would be. ``--replay-bot`` plays the turn's replays with another bot, and values
that bot's play of the turn with the deck as it came against them (still mean zero: a
search game's turns replayed by greedy). ``--bot`` plays both seats with another bot
there (the positions it learns from, the games and, unless ``--replay-bot``, the replays:
a replay of a search turn searches).

Python turn by turn; figures only, nothing is asserted.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from probe_luck_network import encoder, fit_trees, positions, turn_parts  # noqa: E402
from probe_luck_profile import first_margin, shuffle_decks  # noqa: E402

from sim.analysis import luck as LK  # noqa: E402
from sim.base import layout as L  # noqa: E402
from sim.data.spec import RunSpec  # noqa: E402
from sim.kernel import game as G  # noqa: E402
from sim.kernel import turn as T  # noqa: E402
from sim.kernel.tab import card_kind  # noqa: E402
from sim.run.scenario import Scenario  # noqa: E402
from sim.run.view import StateView  # noqa: E402

TURN_PAIRS = 6  # weights for turns 0-1, 2-3, ..., 10 and later
TERM_TURNS = 12
EARLY_TURNS = 4


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--train", type=int, default=8000, help="games the value is fitted on")
    ap.add_argument("--games", type=int, default=3000, help="games the terms are counted in")
    ap.add_argument("--replays", type=int, default=3, help="replays of each turn (default 3)")
    ap.add_argument("--hands", action="store_true", help="add which kinds each hand holds")
    ap.add_argument("--trees", type=int, default=0, help="boosted trees' rounds (0: linear)")
    ap.add_argument("--bot", default="greedy", help="the bot of both seats (--trees only)")
    ap.add_argument("--replay-bot", default="", help="replay turns with this bot (--trees only)")
    where = "value after each turn or after its Wealth step (--trees only)"
    ap.add_argument("--at", choices=("turn", "wealth"), default="turn", help=where)
    ap.add_argument("--mix", default="dunes+aegean")
    args = ap.parse_args(argv)
    if args.trees:
        return tree_terms(args)
    base = Scenario.from_spec(RunSpec(games=2, mix=args.mix, seed=1))
    tab, fp, ask = base.tab, base.fp, base.ask
    out = np.zeros(L.O_COLS, np.int64)
    rng = np.random.default_rng(3)
    n_kinds = int(tab[L.TB_N_KINDS])
    kinds: dict[int, int] = {}

    def features(st: np.ndarray, first: int) -> np.ndarray:
        s = st.copy()
        G.finish(s, tab, out)
        a, b = first, 1 - first
        vp = out[L.O_SCORE + a] - out[L.O_SCORE + b]
        f = [1.0, first_margin(out, first) if s[L.GAME_OVER] else 0.0, vp,
             st[L.COINS + a] - st[L.COINS + b], st[L.HAND_N + a] - st[L.HAND_N + b],
             st[L.REW_N + a] - st[L.REW_N + b], float(st[L.ACTIVE] == a),
             st[L.VP_SUPPLY]]  # fmt: skip
        tiles = 0
        for c in range(L.N_CITIES):
            n = st[L.STACK_N + c]
            tiles += n
            mine, theirs = (L.SIDE_TOT + (2 * c + q) * L.TOT_COLS for q in (a, b))
            m = st[mine + L.TOT_STRENGTH] - st[theirs + L.TOT_STRENGTH]
            w = st[mine + L.TOT_WEIGHT] - st[theirs + L.TOT_WEIGHT]
            crowd = st[mine + L.TOT_WEIGHT] + st[theirs + L.TOT_WEIGHT]
            f += [m * (n > 0), np.sign(m) * n, w * (n > 0), crowd * np.sign(m) * (n > 0)]
        f += [tiles, vp * tiles]
        if args.hands:
            held = np.zeros(n_kinds)
            for q, sign in ((a, 1.0), (b, -1.0)):
                for i in range(st[L.HAND_N + q]):
                    card = int(st[L.HAND + q * L.MAX_CARDS + i])
                    if card not in kinds:
                        kinds[card] = card_kind(tab, card)
                    held[kinds[card]] += sign
            f += list(held)
        return np.array(f, float)

    t0 = time.perf_counter()
    xs: list[list[np.ndarray]] = [[] for _ in range(TURN_PAIRS)]
    ys: list[list[float]] = [[] for _ in range(TURN_PAIRS)]
    for g in range(args.train):
        sc = base.copy()
        sc.setup(2, g)
        st, first, t, seen = sc.st, int(sc.st[L.FIRST]), 0, []
        while not st[L.GAME_OVER]:
            T.play_turn(st, tab, fp, ask)
            seen.append((min(t // 2, TURN_PAIRS - 1), features(st, first)))
            t += 1
        G.finish(st, tab, out)
        for pair, f in seen:
            xs[pair].append(f)
            ys[pair].append(first_margin(out, first))
    weights = []
    hands = ", with the hands' kinds" if args.hands else ""
    print(f"{args.mix}, greedy self-play; value fitted on {args.train} games "
          f"({time.perf_counter() - t0:.0f} s){hands}")  # fmt: skip
    print()
    print("| turns | positions | out-of-sample share of Var(Y) |")
    print("|---|---:|---:|")
    for pair in range(TURN_PAIRS):
        x, y = np.array(xs[pair]), np.array(ys[pair])
        h = len(y) // 2
        w_half = np.linalg.lstsq(x[:h], y[:h], rcond=None)[0]
        r2 = 1 - np.var(y[h:] - x[h:] @ w_half) / np.var(y[h:])
        weights.append(np.linalg.lstsq(x, y, rcond=None)[0])
        turns = f"{2 * pair}-{2 * pair + 1}" if pair < TURN_PAIRS - 1 else f"{2 * pair}+"
        print(f"| {turns} | {len(y):,} | {r2:.3f} |")

    before, after = turn_parts("turn", base)

    def replayed(start: np.ndarray, shuffled: bool) -> np.ndarray:
        """The turn from ``start`` played again, the deck(s) as they were or shuffled again."""
        r = start.copy()
        if shuffled:
            shuffle_decks(r, rng)
        before(r)
        return r

    def value_of(st: np.ndarray, first: int, t: int) -> float:
        """The linear value of the position, with the weights of turn ``t``'s pair."""
        return float(features(st, first) @ weights[min(t // 2, TURN_PAIRS - 1)])

    t0 = time.perf_counter()
    rows = count_terms(args, base, before, after, replayed, value_of)
    print_share(args, rows, t0)
    return 0


def count_terms(
    args: argparse.Namespace,
    base: Scenario,
    before: Callable[[np.ndarray], None],
    after: Callable[[np.ndarray], None],
    replayed: Callable[[np.ndarray, bool], np.ndarray],
    value_of: Callable[[np.ndarray, int, int], float | np.ndarray],
    batch: Callable[[np.ndarray], np.ndarray] | None = None,
    replay_own: bool = False,
) -> list[list]:
    """``args.games`` games of ``base`` (seed 1), each turn cut in two (``before``, then
    ``after``); after the first part of each of the first ``TERM_TURNS`` turns, the value
    of the position reached minus its mean over ``args.replays`` replays of that part from
    the turn's start with the deck(s) shuffled again (``replayed(start, True)``; with
    ``replay_own``, the position valued is ``replayed(start, False)``, not the game's own).
    ``value_of(st, first, turn)`` is a value, or inputs that ``batch`` values all at once
    at the end. Returns a row per game: game, winner, first player, terms of turns before
    ``EARLY_TURNS`` and after."""
    out = np.zeros(L.O_COLS, np.int64)
    rows, pending = [], []
    for g in range(args.games):
        sc = base.copy()
        sc.setup(1, g)
        st, first, t = sc.st, int(sc.st[L.FIRST]), 0
        row = [g, 0, first, 0.0, 0.0]
        while not st[L.GAME_OVER]:
            start = st.copy()
            before(st)
            if t < TERM_TURNS:
                col = 3 if t < EARLY_TURNS else 4
                reached = [(replayed(start, False) if replay_own else st, 1.0)]
                for _ in range(args.replays):
                    reached.append((replayed(start, True), -1.0 / args.replays))
                for s, weight in reached:
                    v = value_of(s, first, t)
                    if isinstance(v, np.ndarray):
                        pending.append((g, col, weight, v))
                    else:
                        row[col] += weight * v
            after(st)
            t += 1
        G.finish(st, base.tab, out)
        row[1] = out[L.O_WINNER]
        rows.append(row)
    if pending and batch is not None:
        values = batch(np.array([v for *_, v in pending]))
        for (g, col, weight, _), v in zip(pending, values, strict=True):
            rows[g][col] += weight * v
    return rows


def print_share(args: argparse.Namespace, rows: list[list], t0: float) -> None:
    """The first player's share of decisive games, plain and adjusted by the terms of
    ``rows`` (game, winner, first player, early terms, later terms)."""
    a = np.array(rows, float)
    ids, winner, first = a[:, 0].astype(int), a[:, 1].astype(int), a[:, 2].astype(int)
    share = LK.first_of_decisive(winner, first, a[:, 3:], ids)
    print()
    print(f"{args.games} games ({time.perf_counter() - t0:.0f} s), {args.replays} replays a "
          f"turn: first player's share of decisive games {share.rate:.4f}, luck-adjusted "
          f"{share.rate_adj:.4f}, variance ratio {share.variance_ratio:.3f}")  # fmt: skip


def tree_terms(args: argparse.Namespace) -> int:
    """``--trees``: the same terms, valued by boosted trees fitted on the training games."""
    t0 = time.perf_counter()
    x, _, label, turn, _ = positions(args.mix, args.train, 0, True, args.bot, args.at)
    model = fit_trees(np.hstack([x, turn[:, None]]), label, args.trees)
    secs = time.perf_counter() - t0
    print(f"{args.mix}, {args.bot} self-play; boosted trees ({args.trees} rounds) fitted on "
          f"{args.train} games, {len(label):,} positions after each "
          f"{'turn' if args.at == 'turn' else 'Wealth step'} "
          f"({secs:.0f} s)")  # fmt: skip
    base = Scenario.from_spec(RunSpec(games=2, mix=args.mix, seed=1, p0=args.bot, p1=args.bot))
    tab = base.tab
    encode = encoder(tab, rich=True)
    before, after = turn_parts(args.at, base)
    replay_bot = args.replay_bot or args.bot
    rbase = Scenario.from_spec(RunSpec(games=2, mix=args.mix, seed=1, p0=replay_bot, p1=replay_bot))
    rbase.setup(1, 0)
    replay, _ = turn_parts(args.at, rbase)
    bots = StateView(rbase.st)
    rng = np.random.default_rng(3)

    def replayed(start: np.ndarray, shuffled: bool) -> np.ndarray:
        """The turn from ``start`` played again by the replay bot, the deck as it came or
        shuffled again: with that bot in both seats and its weights."""
        r = start.copy()
        seats = StateView(r)
        seats.bot_ids = bots.bot_ids.copy()
        seats.param_rows = bots.param_rows.copy()
        if shuffled:
            shuffle_decks(r, rng)
        replay(r)
        return r

    out = np.zeros(L.O_COLS, np.int64)

    def value_of(s: np.ndarray, first: int, t: int) -> float | np.ndarray:
        """A finished game's outcome, else the inputs the trees value."""
        if s[L.GAME_OVER]:
            G.finish(s.copy(), tab, out)
            return first_margin(out, first)
        return np.append(encode(s, first), t)

    t0 = time.perf_counter()
    rows = count_terms(args, base, before, after, replayed, value_of, model, args.replay_bot != "")
    print_share(args, rows, t0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
