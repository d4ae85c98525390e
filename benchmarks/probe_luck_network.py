#!/usr/bin/env python
"""How much of a game's outcome a value learned from outcomes explains, turn by turn.

    python benchmarks/probe_luck_network.py [--games 30000] [--hidden 32] [--epochs 4]
                                            [--playouts 0] [--rich] [--trees 0]

Greedy self-play, dunes+aegean, seed 2. After every turn that does not end the game the
position is encoded from the first player's side (both VP scores, coins, VP tokens,
whose turn, turns done, deck size, tiles left in each city and tiles won, and how many
cards of each kind are in each hand and on each side of each city), and labelled with
the game's outcome ``Y`` (the first player's margin: +1 won, -1 lost, 0 shared). A
network of two hidden layers (ReLU, ``--hidden`` units, a tanh output, Adam, weight
decay) and a linear least-squares fit are trained on four games in five and scored on
the fifth, by whole games. With ``--playouts R`` they learn from the mean outcome of R
play-outs of each position instead (the deck shuffled again and fresh dice; a label with
less noise than the game's one outcome), and are still scored against the outcomes of
the test games. It prints each one's out-of-sample share of ``Var(Y)`` by
turn: the most a value of the position can explain is ``Var(E[Y | position])``, which
``probe_luck_profile.py`` measures by play-outs (about 0.55 after turns 4-5).

``--rich`` adds what a player reads off the board at a glance and a sum of kind counts
hides from a tree: each city's strength, unit-slots and unit costs on each side, their
margins, who would win its war now (the kernel's own ``conflict_result``) and that
times its tiles left, the VP margin, and each hand's size, strength, cost, offering and
strongest card; and what the play-outs see beyond the hands and the board: each seat's
god and structures (which, the cards under each, completed), the kinds in the deck and
the discard pile, each seat's won tiles by kind (used or not) and each city's next tile.
``--trees N`` adds gradient-boosted trees (N rounds, LightGBM, the ``research`` extra:
``pip install -e '.[research]'``), which find such interactions without being told them.

numpy only unless ``--trees``; figures, nothing is asserted.
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

from probe_luck_profile import first_margin, play_out  # noqa: E402

from sim.base import layout as L  # noqa: E402
from sim.data.spec import RunSpec  # noqa: E402
from sim.kernel import board as B  # noqa: E402
from sim.kernel import game as G  # noqa: E402
from sim.kernel import turn as T  # noqa: E402
from sim.kernel.tab import card_kind, kind_col, tile_kind  # noqa: E402
from sim.kernel.war import conflict_result  # noqa: E402
from sim.run.scenario import Scenario  # noqa: E402
from sim.run.view import StateView  # noqa: E402

TURN_BANDS = ((0, 1), (2, 3), (4, 5), (6, 7), (8, 9), (10, 99))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=30_000, help="games played (default 30,000)")
    ap.add_argument("--hidden", type=int, default=32, help="units a hidden layer (default 32)")
    ap.add_argument("--epochs", type=int, default=4, help="passes over the data (default 4)")
    ap.add_argument("--rate", type=float, default=3e-4, help="Adam's step (default 3e-4)")
    ap.add_argument("--decay", type=float, default=3e-3, help="weight decay (default 3e-3)")
    ap.add_argument("--playouts", type=int, default=0, help="learn from R play-outs (0: Y)")
    ap.add_argument("--rich", action="store_true", help="add the board's figures (above)")
    ap.add_argument("--trees", type=int, default=0, help="boosted trees' rounds (0: none)")
    ap.add_argument("--mix", default="dunes+aegean")
    args = ap.parse_args(argv)
    if args.trees:
        try:
            import lightgbm  # noqa: F401  (deferred: an optional extra for --trees only)
        except ImportError:
            print("--trees needs lightgbm: pip install -e '.[research]'", file=sys.stderr)
            return 2
    t0 = time.perf_counter()
    x, y, label, turn, game = positions(args.mix, args.games, args.playouts, args.rich)
    learned = f"{args.playouts} play-outs" if args.playouts else "outcomes"
    secs = time.perf_counter() - t0
    print(f"{args.mix}, greedy self-play, {args.games:,} games, {len(y):,} positions, "
          f"{x.shape[1]} inputs, learned from {learned} ({secs:.0f} s)")  # fmt: skip
    x = (x - x.mean(0)) / (x.std(0) + 1e-6)
    x = np.hstack([x, np.eye(16, dtype=np.float32)[np.minimum(turn, 15)]]).astype(np.float32)
    test = game % 5 == 0
    net = fit_network(x[~test], label[~test], args)
    ones = np.ones((len(y), 1), np.float32)
    w = np.linalg.lstsq(np.hstack([x, ones])[~test], label[~test], rcond=None)[0]
    guesses = {"network": net(x[test]), "linear": np.hstack([x, ones])[test] @ w}
    if args.trees:
        guesses["boosted trees"] = fit_trees(x[~test], label[~test], args.trees)(x[test])
    print()
    print("| after turns | test positions | " + " | ".join(guesses) + " |")
    print("|---|---:|" + "---:|" * len(guesses))
    for lo, hi in TURN_BANDS:
        band = (turn[test] >= lo) & (turn[test] <= hi)
        if band.sum() < 2:
            continue
        yb = y[test][band]
        shares = [1 - np.mean((yb - g[band]) ** 2) / np.var(yb) for g in guesses.values()]
        label = f"{lo}-{hi}" if hi < 99 else f"{lo}+"
        print(f"| {label} | {band.sum():,} | " + " | ".join(f"{v:.3f}" for v in shares) + " |")
    return 0


def encoder(tab: np.ndarray, rich: bool = False):
    """The encoding of a position from the first player's side (module docstring), as a
    function ``encode(st, first)`` of the card table ``tab``; ``rich`` adds the board's
    figures (``--rich``)."""
    out = np.zeros(L.O_COLS, np.int64)
    n_kinds = int(tab[L.TB_N_KINDS])
    n_tile_kinds = int(tab[L.TB_N_REWARD_KINDS])
    kinds: dict[int, int] = {}
    printed = np.array(
        [
            [kind_col(tab, k, f) for k in range(n_kinds)]
            for f in (L.K_STRENGTH, L.K_COST, L.K_OFFERING)
        ],
        np.float32,
    )

    def kind(card: int) -> int:
        if card not in kinds:
            kinds[card] = int(card_kind(tab, card))
        return kinds[card]

    def encode(st: np.ndarray, first: int) -> np.ndarray:
        v = StateView(st)
        a, b = first, 1 - first
        scored = st.copy()
        G.finish(scored, tab, out)
        held = np.zeros((2, 1 + L.N_CITIES, n_kinds), np.float32)
        for side, q in enumerate((a, b)):
            for card in v.zone_ids("hand", q):
                held[side, 0, kind(card)] += 1
            for c in range(L.N_CITIES):
                for card in v.side_ids(c, q):
                    held[side, 1 + c, kind(card)] += 1
        head = [out[L.O_SCORE + a], out[L.O_SCORE + b], v.coins(a), v.coins(b),
                v.vp_tokens(a), v.vp_tokens(b), float(v.active == a), v.turns_done,
                v.deck_size(0), *v.stack_counts, *(v.reward_counts[q] for q in (a, b))]  # fmt: skip
        if not rich:
            return np.concatenate([np.array(head, np.float32), held.ravel()])
        head += board_figures(st, tab, a, b)
        head.append(out[L.O_SCORE + a] - out[L.O_SCORE + b])
        for side in range(2):
            hand = held[side, 0]
            strongest = printed[0][hand > 0].max() if hand.any() else 0.0
            head += [hand.sum(), *(printed @ hand), strongest]
        for q in (a, b):
            head += [v.god_code(q), *v.struct_kinds[q], *v.struct_under[q], *v.struct_done[q]]
        return np.concatenate([np.array(head, np.float32), held.ravel(), zones(v, a, b)])

    def zones(v: StateView, a: int, b: int) -> np.ndarray:
        """The deck's and the discard pile's kinds, each seat's won tiles by kind (used or
        not) and each city's next tile, as counts."""
        piles = np.zeros((2, n_kinds), np.float32)
        for i, zone in enumerate(("deck", "discard")):
            for card in v.zone_ids(zone, 0):
                piles[i, kind(card)] += 1
        won = np.zeros((2, 2, n_tile_kinds), np.float32)
        for side, q in enumerate((a, b)):
            for j in range(v.reward_counts[q]):
                won[side, v.reward_used_flags[q, j], tile_kind(tab, v.reward_slots[q, j])] += 1
        top = np.zeros((L.N_CITIES, n_tile_kinds + 1), np.float32)
        for c, n in enumerate(v.stack_counts):
            top[c, tile_kind(tab, v.stack_slots[c, n - 1]) if n else n_tile_kinds] = 1
        return np.concatenate([piles.ravel(), won.ravel(), top.ravel()])

    return encode


def turn_parts(at: str, sc: Scenario) -> tuple[Callable, Callable]:
    """A turn of ``sc``'s bots cut where a position is valued: after the whole turn
    (``at="turn"``) or after its Wealth step, whose draws are most of a turn's
    (``"wealth"``); returns the part before and the part after, each playing a state."""
    tab, fp, ask = sc.tab, sc.fp, sc.ask
    if at == "wealth":
        return (
            lambda st: T.run_step(st, tab, fp, ask, T.S_WEALTH),
            lambda st: T.play_steps(st, tab, fp, ask, T.S_WEALTH + 1),
        )
    return (lambda st: T.play_turn(st, tab, fp, ask)), (lambda st: None)


def positions(
    mix: str,
    games: int,
    playouts: int,
    rich: bool = False,
    bot: str = "greedy",
    at: str = "turn",
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every position after a turn (or its Wealth step: ``turn_parts``) of ``games`` games
    of ``bot`` self-play (seed 2), encoded (with the board's figures if ``rich``), with its
    game's outcome, its label (the outcome, or the mean of ``playouts`` play-outs, from the
    end of a turn only), its turn and its game index."""
    base = Scenario.from_spec(RunSpec(games=2, mix=mix, seed=2, p0=bot, p1=bot))
    tab = base.tab
    out = np.zeros(L.O_COLS, np.int64)
    rng = np.random.default_rng(11)
    encode = encoder(tab, rich)
    before, after = turn_parts(at, base)
    if playouts and at != "turn":
        raise ValueError("play-outs start at the end of a turn")

    xs, ys, labels, turns, ids = [], [], [], [], []
    for g in range(games):
        sc = base.copy()
        sc.setup(2, g)
        st, first, t, seen = sc.st, int(StateView(sc.st).first), 0, []
        while not StateView(st).over:
            before(st)
            valued = not StateView(st).over
            if valued:
                later = None
                if playouts:
                    later = sum(play_out(base, st, first, out, rng) for _ in range(playouts))
                    later /= playouts
                seen.append((t, encode(st, first), later))
            after(st)
            t += 1
        G.finish(st, tab, out)
        outcome = first_margin(out, first)
        for t, f, later in seen:
            xs.append(f)
            ys.append(outcome)
            labels.append(outcome if later is None else later)
            turns.append(t)
            ids.append(g)
    y = np.array(ys, np.float32)
    return np.array(xs), y, np.array(labels, np.float32), np.array(turns), np.array(ids)


def board_figures(st: np.ndarray, tab: np.ndarray, a: int, b: int) -> list[float]:
    """Each city's strength, unit-slots and unit costs on seats ``a`` and ``b``'s sides,
    the margins, who would win its war now (+1 ``a``) and that times its tiles left."""
    figures: list[float] = []
    for c in range(L.N_CITIES):
        s = [B.side_strength(st, tab, c, q) for q in (a, b)]
        w = [B.side_weight(st, tab, c, q) for q in (a, b)]
        cost = [B.side_cost(st, tab, c, q) for q in (a, b)]
        won = conflict_result(tab, *s, *(B.soldiers(st, c, q) for q in (a, b)), *cost)
        tiles = st[L.STACK_N + c]
        figures += [*s, s[0] - s[1], *w, w[0] + w[1], *cost, won, won * tiles]
    return figures


def fit_trees(x: np.ndarray, y: np.ndarray, rounds: int):
    """Gradient-boosted trees on (x, y) by squared error; returns their predictor."""
    import lightgbm as lgb  # deferred: an optional extra, needed only with --trees

    params = {"objective": "regression", "learning_rate": 0.05, "num_leaves": 63,
              "min_data_in_leaf": 50, "bagging_fraction": 0.8, "bagging_freq": 1,
              "feature_fraction": 0.5, "verbose": -1, "num_threads": 2, "seed": 0}  # fmt: skip
    model = lgb.train(params, lgb.Dataset(x, y), num_boost_round=rounds)
    return model.predict


def fit_network(x: np.ndarray, y: np.ndarray, args: argparse.Namespace):
    """Train the two-layer network on (x, y) by mean squared error; returns its predictor."""
    rng = np.random.default_rng(0)
    sizes = [(x.shape[1], args.hidden), (args.hidden, args.hidden), (args.hidden, 1)]
    params = []
    for n_in, n_out in sizes:
        params += [(rng.standard_normal((n_in, n_out)) * np.sqrt(2 / n_in)).astype(np.float32),
                   np.zeros(n_out, np.float32)]  # fmt: skip
    moments = [[np.zeros_like(p), np.zeros_like(p)] for p in params]

    def forward(xb: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        w1, b1, w2, b2, w3, b3 = params
        h1 = np.maximum(xb @ w1 + b1, 0)
        h2 = np.maximum(h1 @ w2 + b2, 0)
        return h1, h2, np.tanh((h2 @ w3 + b3)[:, 0])

    step = 0
    for _ in range(args.epochs):
        order = rng.permutation(len(y))
        for i in range(0, len(order), 256):
            batch = order[i : i + 256]
            xb, yb = x[batch], y[batch]
            h1, h2, p = forward(xb)
            d = (2 * (p - yb) / len(batch) * (1 - p * p))[:, None]
            w1, _, w2, _, w3, _ = params
            d2 = (d @ w3.T) * (h2 > 0)
            d1 = (d2 @ w2.T) * (h1 > 0)
            grads = [xb.T @ d1 + args.decay * w1, d1.sum(0), h1.T @ d2 + args.decay * w2,
                     d2.sum(0), h2.T @ d, d.sum(0)]  # fmt: skip
            step += 1
            for p_, g_, (m, v) in zip(params, grads, moments, strict=True):
                m *= 0.9
                m += 0.1 * g_
                v *= 0.999
                v += 0.001 * g_ * g_
                p_ -= args.rate * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)
    return lambda xb: forward(xb)[2]


if __name__ == "__main__":
    sys.exit(main())
