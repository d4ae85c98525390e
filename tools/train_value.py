"""Fit the learned value of a position from self-play, from nothing, seeded.

    python tools/train_value.py --out DIR --seed 1 --games 6000 --search-games 600 \
        [--value-games 6000] [--vsearch-games 1500]

plays, in each mix of ``--mixes``, ``--games`` greedy self-play games and
``--search-games`` search self-play games (run seed ``--seed``), records every
turn's start from both seats' view with who won (``sim.run.value_data``), fits a
network with one hidden layer (scikit-learn's ``MLPClassifier``, the ``train``
extra: ``pip install -e '.[train]'``) on all but the last tenth of each run's
games, prints its Brier score and log loss on that tenth, and writes
``DIR/value.toml``: the weights (the inputs' scaling folded into the first layer,
so the kernel reads raw features) and their provenance. Copy it to
``configs/values/value.toml`` to ship it. Every random choice follows ``--seed``.

It fits ``--candidates`` networks on the same positions from different starting
weights and keeps the one that plays best: fits that score alike on held-out games play
several points apart, so the held-out score cannot choose. Each pair of candidates plays
``--select-games`` seat-balanced duplicate deals a mix as the ``value`` bot
(``sim.run.value_match``, deals of their own); the candidate with the highest mean
score (a win 1, a shared victory 1/2) over every mix and opponent is written.

``--value-games N`` and ``--vsearch-games N`` add a second round: ``N`` self-play games a
mix of ``value`` or ``vsearch`` (or both) reading the first fit's value (run seed
``--seed`` + 1, other deals), and the value is fitted again on every game of both rounds:
the stronger bots' games teach the next value."""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import platform
import shlex
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sim.run.stats import brier_log_loss  # noqa: E402
from sim.run.value_data import Positions, record_positions  # noqa: E402
from sim.run.value_match import value_match  # noqa: E402
from strategies.value_features import HIDDEN  # noqa: E402
from strategies.value_model import predict, write_value  # noqa: E402

MIXES = ("aegean", "dunes", "reign", "dunes+aegean")
HELD_OUT = 0.1  # the share of each run's games (its last ones) kept out of the fit
# The candidates' matches are played on run seed --seed + SELECT_SEED_OFFSET: deals that
# neither the fit's games nor bench_value's held-out games and --versus matches use.
SELECT_SEED_OFFSET = 1_000_000


def collect(
    mixes: list[str],
    bots: tuple[tuple[str, int], ...],
    seed: int,
    weights: np.ndarray | None = None,
) -> list[tuple[str, Positions]]:
    """Each (mix, bot) run's positions: ``n`` self-play games of each (bot, n) of ``bots``,
    reading value ``weights`` if given (else the shipped one)."""
    runs = []
    for mix in mixes:
        for bot, n in bots:
            if n <= 0:
                continue
            t = time.perf_counter()
            pos = record_positions(mix, bot, bot, n, seed, weights=weights)
            print(
                f"  {mix:<14} {bot:<7} {n:>6,} games  {len(pos.won):>8,} positions"
                f"  {time.perf_counter() - t:6.1f} s",
                flush=True,
            )
            runs.append((f"{mix}/{bot}", pos))
    return runs


def split(runs: list[tuple[str, Positions]]) -> tuple[np.ndarray, ...]:
    """(x_fit, y_fit, x_test, y_test): the last ``HELD_OUT`` of each run's games held out."""
    fit_x, fit_y, test_x, test_y = [], [], [], []
    for _, pos in runs:
        cut = np.quantile(pos.game, 1 - HELD_OUT)
        test = pos.game >= cut
        fit_x.append(pos.x[~test])
        fit_y.append(pos.won[~test])
        test_x.append(pos.x[test])
        test_y.append(pos.won[test])
    return tuple(np.concatenate(a) for a in (fit_x, fit_y, test_x, test_y))


def fit(x: np.ndarray, y: np.ndarray, seed: int, max_iter: int) -> tuple[np.ndarray, object]:
    """The weight row (``strategies.value_features`` layout) of a network fitted to (x, y),
    with the standardisation of x folded into the first layer; and the fitted model."""
    from sklearn.neural_network import MLPClassifier
    from sklearn.preprocessing import StandardScaler

    scaler = StandardScaler().fit(x)
    scale = np.where(scaler.scale_ > 0, scaler.scale_, 1.0)
    model = MLPClassifier(
        hidden_layer_sizes=(HIDDEN,),
        activation="tanh",
        alpha=1e-4,
        batch_size=512,
        learning_rate_init=1e-3,
        max_iter=max_iter,
        early_stopping=True,
        n_iter_no_change=4,
        random_state=seed,
    )
    model.fit((x - scaler.mean_) / scale, y)
    w1, w2 = model.coefs_  # (F, H), (H, 1)
    b1, b2 = model.intercepts_
    w1_raw = w1 / scale[:, None]
    b1_raw = b1 - (scaler.mean_ / scale) @ w1
    params = np.concatenate([w1_raw.T.ravel(), b1_raw, w2[:, 0], b2])
    return params, model


def candidate_seed(seed: int, k: int) -> int:
    """The starting-weights seed of candidate ``k``: ``seed`` itself for the first, so one
    candidate fits as the command always did, then seeds drawn from (``seed``, ``k``)."""
    if k == 0:
        return seed
    return int(np.random.SeedSequence([seed, k]).generate_state(1)[0] % 2**31)


def select(
    candidates: list[np.ndarray], mixes: list[str], games: int, seed: int
) -> tuple[int, np.ndarray]:
    """The index of the candidate that plays best and every candidate's mean score: each
    pair plays ``games`` games a mix (run ``seed``), each game scored 1, 1/2 or 0."""
    k = len(candidates)
    score = np.zeros((k, k))
    for i, j in itertools.combinations(range(k), 2):
        got = [value_match(mix, candidates[i], candidates[j], games, seed) for mix in mixes]
        score[i, j] = float(np.mean([g.score for g in got]))
        score[j, i] = 1.0 - score[i, j]
    mean = score.sum(axis=1) / max(k - 1, 1)
    return int(np.argmax(mean)), mean


def fit_runs(
    runs: list[tuple[str, Positions]],
    mixes: list[str],
    seed: int,
    args: argparse.Namespace,
) -> tuple[np.ndarray, object, np.ndarray, np.ndarray, np.ndarray, dict[str, object]]:
    """:func:`fit` ``--candidates`` times on ``runs`` but each run's held-out games and
    :func:`select` one: its weights and model, the fitted outcomes, the held-out positions
    and outcomes, and what the choice records in the provenance."""
    x, y, xt, yt = split(runs)
    print(f"fitting on {len(y):,} positions, testing on {len(yt):,}", flush=True)
    fits = []
    for k in range(args.candidates):
        t = time.perf_counter()
        params, model = fit(x, y, candidate_seed(seed, k), args.max_iter)
        brier, _ = brier_log_loss(predict(params, xt), yt)
        print(
            f"  candidate {k}: {model.n_iter_} epochs, held out Brier {brier:.4f}"
            f"  {time.perf_counter() - t:5.1f} s",
            flush=True,
        )
        fits.append((params, model))
    best, mean = 0, np.ones(1)
    if len(fits) > 1:
        t = time.perf_counter()
        print(f"  round robin, {args.select_games:,} games a mix a pair", flush=True)
        best, mean = select(
            [p for p, _ in fits], mixes, args.select_games, seed + SELECT_SEED_OFFSET
        )
        scores = "  ".join(f"{k}: {m:.3f}" for k, m in enumerate(mean))
        print(f"  mean scores  {scores}  ({time.perf_counter() - t:.0f} s)", flush=True)
        print(f"  kept candidate {best}", flush=True)
    chosen = {"candidate": best, "candidate_score": round(float(mean[best]), 4)}
    return fits[best][0], fits[best][1], y, xt, yt, chosen


def _commit() -> str:
    try:
        out = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        )
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def bad_option(args: argparse.Namespace, mixes: list[str]) -> str | None:
    """What is wrong with the command's options, or None; checked before any game is played,
    since a fit runs for half an hour and writes only at its end (so ``--out`` is made here,
    and a folder that cannot be written is refused now)."""
    from sim.base.errors import Error
    from sim.data.cards import load_pool

    counts = ("games", "search_games", "value_games", "vsearch_games")
    for name in counts:
        n = getattr(args, name)
        if n < 0 or n == 1:
            # each run's last tenth of games is held out, so a run of one game fits nothing
            return f"--{name.replace('_', '-')} must be 0 or at least 2, not {n}"
    if args.games + args.search_games == 0:
        return "--games and --search-games are both 0: the first round plays no games"
    if not 0 <= args.seed < 2**63 - SELECT_SEED_OFFSET:
        # the second round plays --seed + 1, the candidates' matches --seed + SELECT_SEED_OFFSET
        return f"--seed must be between 0 and {2**63 - 1 - SELECT_SEED_OFFSET}, got {args.seed}"
    if args.max_iter < 1:
        return "--max-iter must be at least 1"
    if args.candidates < 1:
        return "--candidates must be at least 1"
    if args.candidates > 1 and args.select_games < 2:
        return "--select-games must be at least 2 to choose a candidate"
    if not mixes:
        return "--mixes names no mix"
    for mix in mixes:
        try:
            load_pool(mix, args.seed)
        except Error as e:
            return f"--mixes: {e}"
    if importlib.util.find_spec("sklearn") is None:
        return "scikit-learn is missing; pip install -e '.[train]'"
    try:
        args.out.mkdir(parents=True, exist_ok=True)
        probe = args.out / ".train_value_probe"
        probe.write_text("")
        probe.unlink()
    except OSError as e:
        return f"--out {args.out}: cannot write there ({e.strerror or e})"
    return None


def main(argv: list[str] | None = None) -> int:
    """Collect, fit, check on the held-out games, write ``OUT/value.toml``."""
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--out", type=Path, required=True, help="folder to write value.toml into")
    ap.add_argument("--seed", type=int, default=1, help="run seed of the games and of the fit")
    ap.add_argument("--games", type=int, default=6000, help="greedy self-play games per mix")
    ap.add_argument("--search-games", type=int, default=600, help="search self-play games per mix")
    ap.add_argument(
        "--value-games",
        type=int,
        default=0,
        help="value self-play games per mix for a second round, reading the first fit",
    )
    ap.add_argument(
        "--vsearch-games",
        type=int,
        default=0,
        help="vsearch self-play games per mix for a second round, reading the first fit",
    )
    ap.add_argument("--mixes", default=",".join(MIXES), help="comma-separated mixes")
    ap.add_argument("--max-iter", type=int, default=40, help="training epochs at most")
    ap.add_argument(
        "--candidates",
        type=int,
        default=10,
        help="networks fitted from different starting weights; the one that plays best is kept",
    )
    ap.add_argument(
        "--select-games",
        type=int,
        default=1000,
        help="games a mix each pair of candidates plays to choose between them",
    )
    args = ap.parse_args(argv)
    mixes = [m.strip() for m in args.mixes.split(",") if m.strip()]
    bad = bad_option(args, mixes)
    if bad:
        print(f"Error: {bad}", file=sys.stderr)
        return 2
    import sklearn

    t0 = time.perf_counter()
    print(f"collecting positions (seed {args.seed})", flush=True)
    runs = collect(mixes, (("greedy", args.games), ("search", args.search_games)), args.seed)
    params, model, y, xt, yt, chosen = fit_runs(runs, mixes, args.seed, args)
    second = (("value", args.value_games), ("vsearch", args.vsearch_games))
    if any(n > 0 for _, n in second):
        brier, loss = brier_log_loss(predict(params, xt), yt)
        print(f"first round, held out: Brier {brier:.4f}, log loss {loss:.4f}", flush=True)
        bots = " and ".join(b for b, n in second if n > 0)
        print(f"second round: {bots} reading the first fit (seed {args.seed + 1})", flush=True)
        runs += collect(mixes, second, args.seed + 1, params)
        params, model, y, xt, yt, chosen = fit_runs(runs, mixes, args.seed, args)
    brier, loss = brier_log_loss(predict(params, xt), yt)
    base = float(np.mean(y))
    brier0, loss0 = brier_log_loss(np.full(len(yt), base), yt)
    print(f"held out: Brier {brier:.4f} (constant {brier0:.4f}), log loss {loss:.4f} ({loss0:.4f})")
    provenance = {
        "command": "python tools/train_value.py "
        + shlex.join(argv if argv is not None else sys.argv[1:]),
        "seed": args.seed,
        "games_per_mix": args.games,
        "search_games_per_mix": args.search_games,
        "value_games_per_mix": args.value_games,
        "vsearch_games_per_mix": args.vsearch_games,
        "mixes": ",".join(mixes),
        "positions": len(y),
        "epochs": int(model.n_iter_),
        "candidates": args.candidates,
        "select_games_per_mix": args.select_games,
        **chosen,
        "held_out_brier": round(brier, 5),
        "held_out_log_loss": round(loss, 5),
        "commit": _commit(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scikit_learn": sklearn.__version__,
        "seconds": round(time.perf_counter() - t0, 1),
    }
    write_value(args.out / "value.toml", params, provenance)
    print(f"wrote {args.out / 'value.toml'} in {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    from sim.base.errors import exit_status

    sys.exit(exit_status(main))
