#!/usr/bin/env python
"""Fit a heuristic profile's weights for strength: CMA-ES on common random numbers.

    python tools/tune_weights.py [--profile greedy]
                                      [--panel greedy,economic,aggressive,defensive]
                                      [--mixes aegean,dunes,reign] [--games 200]
                                      [--law-games 1000] [--law-weight 0.01]
                                      [--generations 20] [--seed 7] [--verify 4000]
                                      [--weigh dunes/aggressive=3] [--minutes 30]

The candidate plays the weights ``x`` (the profile's weight row: coin, card,
tile, ...; the look-ahead knobs are not searched) against every bot of
``--panel`` in every mix of ``--mixes``, in both seats, on ``--games``
duplicate deals (each deal played with each seat going first). All candidates
of one generation play the same deals (common random numbers), so their
ranking is not luck of the deal; each generation draws new deals, so the fit
does not learn a few deals by heart. The objective, maximised, is

    mean score share against the panel  -  law_weight * law penalty,

where the score share counts an outright win 1 and a shared victory 1/2 (its
mean over match-ups is weighted by ``--weigh``, so that a match-up the fit must
win clearly, such as ``dunes/aggressive`` for the skill ladder, counts more), and
the law penalty (:func:`sim.analysis.laws.law_z_penalty`) is the sum over a
few known-answer cells (pure nerfs and buffs that misled the shipped bots,
:data:`LAW_CELLS`), played in self-play with the candidate's weights for
``--law-games`` games, of how many standard errors each estimate lies on the
forbidden side of zero. The search is a small CMA-ES (Hansen's
``purecma`` update, in numpy) over weights scaled by their size. ``--minutes``
ends it after the generation that passes that wall time, so a fit on a shared
host keeps to a budget; the mean it reached is what it prints.

Every engine is compiled once; a candidate only rewrites its seat's weight row
(and the values ``strategies.greedy.prepare`` derives from it). At the end the
search's mean (its current best guess) is played against each panel bot on
``--verify`` fresh duplicate deals (a new seed) with a 95% interval paired by
deal, and printed as the ``[weights]`` table to paste into the profile.
``--candidate PROFILE`` skips the search and verifies that profile's weights
(e.g. the fitted ``greedy`` against the hand-set one, ``--profile`` a path).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import dataclass

import numpy as np

from sim.analysis.laws import LEAN_CARDS, law_cells, law_z_penalty
from sim.base.errors import Error
from sim.data.changes import Changes
from sim.data.spec import RunSpec
from strategies.greedy import N_GREEDY_PARAMS, WEIGHTS, prepare
from strategies.registry import resolve

NAMES = sorted(WEIGHTS, key=WEIGHTS.__getitem__)[:N_GREEDY_PARAMS]
LAW_CELLS = {
    ("Priest of the Rising Sun", -1),
    ("Keeper of the Canopic Jars", -1),
    ("Vizier of the Granaries", 1),
    ("Embalmed Architect", 1),
    *((card, sign) for card in LEAN_CARDS for sign in (-1, 1)),
}
"""(unit, +1 buff / -1 nerf): the law cells shipped bots broke in ``benchmarks/bench_laws.py
--games 10000`` (the hand-set ``greedy`` and its first fit), and every cell of the lean panel
CI plays (:data:`sim.analysis.laws.LEAN_CARDS`, nerf and buff)."""
LIMITS = {"patience": (5.0, 60.0)}
"""Bounds a weight is clipped to (default -10..10): patience is a number of turns."""


@dataclass
class Arena:
    """Compiled engines the candidate plays in: against the panel, and the law cells."""

    matches: list  # (engine, candidate seat)
    laws: list  # (mix, baseline engine, [(cell, engine)])

    def set_weights(self, w: np.ndarray) -> None:
        """Give the candidate seat(s) of every engine the weights ``w``."""
        for e, seat in self.matches:
            e.fp[seat, :N_GREEDY_PARAMS] = w
            prepare(e.tab, e.fp)
        for _, base, variants in self.laws:
            for e in (base, *(v for _, v in variants)):
                e.fp[:, :N_GREEDY_PARAMS] = w
                prepare(e.tab, e.fp)


def build_arena(profile: str, panel: list[str], mixes: list[str], laws: bool) -> Arena:
    """Compile one engine per (mix, opponent, seat) and per law cell."""
    from sim.run.engine import Engine

    matches = []
    for mix in mixes:
        for opp in panel:
            for seat in (0, 1):
                p0, p1 = (profile, opp) if seat == 0 else (opp, profile)
                e = Engine(RunSpec(games=2, mix=mix, seed=0, p0=p0, p1=p1, duplicate=True))
                matches.append((e, seat))
    matches[0][0].warmup()
    law = []
    if laws:
        cards = tuple(c for c, _ in LAW_CELLS)
        cells = [c for c in law_cells(cards=cards) if (c.card, c.expected) in LAW_CELLS]
        for mix in dict.fromkeys(c.mix for c in cells):
            spec = RunSpec(games=2, mix=mix, seed=0, p0=profile, p1=profile)
            variants = [(c, Engine(spec, changes=Changes(c.edits))) for c in cells if c.mix == mix]
            law.append((mix, Engine(spec), variants))
    return Arena(matches, law)


def _reseed(engine, seed: int, games: int):
    """The engine playing ``games`` games of ``seed`` (the spec is only read for these)."""
    import dataclasses

    engine.spec = dataclasses.replace(engine.spec, seed=seed, games=games)
    return engine


def scores(engine, seat: int, games: int, seed: int) -> np.ndarray:
    """The candidate's score per game (1 win, 1/2 shared, 0 loss) over ``games`` games."""
    winner = np.asarray(_reseed(engine, seed, games).play(0, games).column("winner"))
    return np.where(winner == seat, 1.0, np.where(winner < 0, 0.5, 0.0))


def opponent(engine, seat: int) -> str:
    """The panel bot facing the candidate seat ``seat`` of ``engine``."""
    return engine.spec.p1 if seat == 0 else engine.spec.p0


def parse_weigh(text: str) -> dict[str, float]:
    """``--weigh`` entries (``MIX=W``, ``BOT=W`` or ``MIX/BOT=W``, comma-separated) as a dict."""
    out = {}
    for part in (p.strip() for p in text.split(",") if p.strip()):
        key, eq, value = part.partition("=")
        try:
            out[key.strip()] = float(value)
        except ValueError:
            raise SystemExit(f"--weigh: {part!r} is not KEY=NUMBER") from None
        if not eq or out[key.strip()] < 0:
            raise SystemExit(f"--weigh: {part!r} is not KEY=NUMBER (a number >= 0)")
    return out


def match_weights(arena: Arena, weigh: dict[str, float]) -> np.ndarray:
    """Each match engine's weight in the objective: the product of the ``weigh`` entries
    naming its mix, its panel bot or both (``mix/bot``); 1 where none does."""
    out = []
    for e, seat in arena.matches:
        mix, opp = e.spec.mix, opponent(e, seat)
        out.append(weigh.get(mix, 1.0) * weigh.get(opp, 1.0) * weigh.get(f"{mix}/{opp}", 1.0))
    w = np.asarray(out)
    if not w.sum() > 0:
        raise SystemExit("--weigh: every match-up has weight 0")
    return w / w.sum()


def evaluate(
    arena: Arena,
    w: np.ndarray,
    games: int,
    law_games: int,
    seed: int,
    weights: np.ndarray | None = None,
) -> tuple:
    """``(score share against the panel, law penalty)`` of weights ``w`` on deals of ``seed``;
    the share is the mean over match-ups, or their mean weighted by ``weights``."""
    from sim.analysis.compare import play_outcomes
    from sim.analysis.paired import card_shifts

    arena.set_weights(w)
    per_match = [scores(e, s, games, seed).mean() for e, s in arena.matches]
    share = float(np.average(per_match, weights=weights))
    penalty = 0.0
    if arena.laws and law_games:
        import pandas as pd

        rows = []
        for _, base, variants in arena.laws:
            a = play_outcomes(_reseed(base, seed, law_games), law_games)
            for cell, e in variants:
                b = play_outcomes(_reseed(e, seed, law_games), law_games)
                s = card_shifts(a, b, {cell.card: cell.kind}).iloc[0]
                rows.append(
                    {"diff": s["diff"], "lo": s["lo"], "hi": s["hi"], "expected": cell.expected}
                )
        penalty = law_z_penalty(pd.DataFrame(rows))
    return share, penalty


class CMA:
    """A small CMA-ES (minimises), after Hansen's ``purecma``: rank-mu and rank-one updates."""

    def __init__(self, x0: np.ndarray, sigma: float, popsize: int | None = None, seed: int = 0):
        n = len(x0)
        self.n, self.mean, self.sigma = n, np.asarray(x0, float), sigma
        self.lam = popsize or 4 + int(3 * math.log(n))
        self.mu = self.lam // 2
        w = math.log(self.mu + 0.5) - np.log(np.arange(1, self.mu + 1))
        self.w = w / w.sum()
        self.mueff = 1.0 / (self.w**2).sum()
        self.cc = (4 + self.mueff / n) / (n + 4 + 2 * self.mueff / n)
        self.cs = (self.mueff + 2) / (n + self.mueff + 5)
        self.c1 = 2 / ((n + 1.3) ** 2 + self.mueff)
        self.cmu = min(
            1 - self.c1, 2 * (self.mueff - 2 + 1 / self.mueff) / ((n + 2) ** 2 + self.mueff)
        )
        self.damps = 2 * self.mueff / self.lam + 0.3 + self.cs
        self.chin = math.sqrt(n) * (1 - 1 / (4 * n) + 1 / (21 * n * n))
        self.pc, self.ps = np.zeros(n), np.zeros(n)
        self.C = np.eye(n)
        self.rng = np.random.default_rng(seed)
        self.gen = 0

    def ask(self) -> np.ndarray:
        """``lam`` candidates, one a row."""
        vals, vecs = np.linalg.eigh(self.C)
        self._B, self._D = vecs, np.sqrt(np.maximum(vals, 1e-20))
        z = self.rng.standard_normal((self.lam, self.n))
        return self.mean + self.sigma * (z * self._D) @ self._B.T

    def tell(self, xs: np.ndarray, f: np.ndarray) -> None:
        """Update from the candidates ``xs`` and their values ``f`` (lower is better)."""
        self.gen += 1
        order = np.argsort(f)[: self.mu]
        old = self.mean
        self.mean = self.w @ xs[order]
        y = (self.mean - old) / self.sigma
        invsqrt = self._B @ np.diag(1 / self._D) @ self._B.T
        self.ps = (1 - self.cs) * self.ps + math.sqrt(self.cs * (2 - self.cs) * self.mueff) * (
            invsqrt @ y
        )
        hsig = np.linalg.norm(self.ps) / math.sqrt(
            1 - (1 - self.cs) ** (2 * self.gen)
        ) / self.chin < 1.4 + 2 / (self.n + 1)
        self.pc = (1 - self.cc) * self.pc + hsig * math.sqrt(
            self.cc * (2 - self.cc) * self.mueff
        ) * y
        ys = (xs[order] - old) / self.sigma
        self.C = (
            (1 - self.c1 - self.cmu) * self.C
            + self.c1 * (np.outer(self.pc, self.pc) + (1 - hsig) * self.cc * (2 - self.cc) * self.C)
            + self.cmu * (ys.T * self.w) @ ys
        )
        self.C = (self.C + self.C.T) / 2
        self.sigma *= math.exp(
            min(1.0, (self.cs / self.damps) * (np.linalg.norm(self.ps) / self.chin - 1))
        )


def to_weights(x: np.ndarray, w0: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """Search coordinates -> weights, clipped to each weight's bounds."""
    w = w0 + scale * x
    for i, name in enumerate(NAMES):
        lo, hi = LIMITS.get(name, (-10.0, 10.0))
        w[i] = min(max(w[i], lo), hi)
    return w


def head_to_head(profile_w: np.ndarray, arena: Arena, games: int, seed: int) -> list[tuple]:
    """Per panel match-up (mix, opponent): score share with a 95% interval paired by deal."""
    arena.set_weights(profile_w)
    out = {}
    for e, seat in arena.matches:
        key = (e.spec.mix, opponent(e, seat))
        out.setdefault(key, []).append(scores(e, seat, games, seed))
    rows = []
    for (mix, opp), parts in out.items():
        per_deal = np.mean([p.reshape(-1, 2).mean(1) for p in parts], axis=0)
        m, se = per_deal.mean(), per_deal.std(ddof=1) / math.sqrt(len(per_deal))
        rows.append((mix, opp, m, m - 1.96 * se, m + 1.96 * se, sum(len(p) for p in parts)))
    return rows


def main(argv: list[str] | None = None) -> int:
    """Run the search and print the fitted ``[weights]`` table and its verification."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--profile", default="greedy", help="the heuristic profile to fit")
    ap.add_argument("--panel", default="greedy,economic,aggressive,defensive")
    ap.add_argument("--mixes", default="aegean,dunes,reign")
    ap.add_argument("--games", type=int, default=200, help="games per match-up and seat")
    ap.add_argument("--law-games", type=int, default=1000, help="games per law cell (0: none)")
    ap.add_argument("--law-weight", type=float, default=0.01)
    ap.add_argument("--generations", type=int, default=20)
    ap.add_argument("--sigma", type=float, default=0.3, help="initial step, in weight scales")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument(
        "--weigh",
        default="",
        help="weigh match-ups in the objective: MIX=W, BOT=W or MIX/BOT=W, comma-separated "
        "(e.g. dunes/aggressive=3); unnamed match-ups weigh 1",
    )
    ap.add_argument(
        "--minutes",
        type=float,
        default=0.0,
        help="stop the search after the generation that passes this many minutes (0: no limit)",
    )
    ap.add_argument("--verify", type=int, default=4000, help="fresh games per match-up and seat")
    ap.add_argument(
        "--candidate",
        default="",
        help="no search: verify this profile's weights (a name or .toml path) against the panel",
    )
    args = ap.parse_args(argv)
    for name in ("generations", "law_games", "verify", "minutes"):
        if getattr(args, name) < 0:
            raise Error(f"--{name.replace('_', '-')} must be 0 or more")
    if args.sigma <= 0:
        raise Error("--sigma must be above 0")
    panel = [p.strip() for p in args.panel.split(",") if p.strip()]
    mixes = [m.strip() for m in args.mixes.split(",") if m.strip()]
    weigh = parse_weigh(args.weigh)  # before compiling: a bad entry fails at once
    w0 = resolve(args.profile).weights[:N_GREEDY_PARAMS].copy()
    scale = np.maximum(np.abs(w0), 0.5)
    scale[NAMES.index("patience")] = 10.0
    t0 = time.perf_counter()
    searching = not args.candidate
    arena = build_arena(args.profile, panel, mixes, searching and args.law_games > 0)
    print(
        f"compiled {len(arena.matches)} match engines in {time.perf_counter() - t0:.0f} s",
        flush=True,
    )
    mw = match_weights(arena, weigh)
    es = CMA(np.zeros(len(w0)), args.sigma, seed=args.seed)
    for g in range(args.generations if searching else 0):
        seed = args.seed * 1000 + g
        xs = es.ask()
        xs = np.vstack([xs, es.mean])  # the current mean, scored on the same deals
        res = [
            evaluate(arena, to_weights(x, w0, scale), args.games, args.law_games, seed, mw)
            for x in xs
        ]
        f = np.array([-(s - args.law_weight * p) for s, p in res])
        base = evaluate(arena, w0, args.games, args.law_games, seed, mw) if g % 5 == 0 else None
        es.tell(xs[:-1], f[:-1])
        line = (
            f"gen {g:2d}: best {-f.min():.4f}, mean-of-search {res[-1][0]:.4f} "
            f"(law {res[-1][1]:.1f}), sigma {es.sigma:.3f}, {time.perf_counter() - t0:.0f} s"
        )
        if base is not None:
            line += f"; start weights {base[0]:.4f} (law {base[1]:.1f})"
        print(line, flush=True)
        if args.minutes and time.perf_counter() - t0 > 60 * args.minutes:
            print(f"stopped after generation {g}: past {args.minutes:g} minutes", flush=True)
            break
    if searching:
        w = to_weights(es.mean, w0, scale)
        print("\n[weights]")
        for name, v in zip(NAMES, w, strict=True):
            print(f"{name} = {round(float(v), 3)}")
    else:
        w = resolve(args.candidate).weights[:N_GREEDY_PARAMS].copy()
    if args.verify:
        vseed = args.seed * 1000 + 999
        print(f"\nverification on fresh deals (seed {vseed}), {args.verify:,} games per seat:")
        name = "fitted" if searching else args.candidate
        for label, ww in ((name, w), (args.profile, w0)):
            for mix, opp, m, lo, hi, n in head_to_head(ww, arena, args.verify, vseed):
                print(f"  {label} vs {opp} in {mix}: {m:.2%} ({lo:.2%} to {hi:.2%}), {n:,} games")
    return 0


if __name__ == "__main__":
    from sim.base.errors import exit_status

    sys.exit(exit_status(main))
