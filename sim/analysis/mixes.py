"""Rank mixes of sets by the first player's edge and by seat balance (``omensim mixes``).

Every mix is played in self-play by one bot on the same deal seed; a partial mix
(``SET:N``) is the mean over ``subsets`` card subsets. A ranking is a job
(:mod:`sim.run.jobs`): a log line per subset played, ``mixes.csv`` last. What each column
means and why: ``docs/analysis-desk.md``, "Ranking mixes".
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from sim.data.cards import SETS_DIR, load_set, parse_mix
from sim.data.spec import RunSpec, SpecError
from sim.run import io, jobs, ledger
from sim.run.margins import MarginMoments
from sim.run.runner import MAX_RUN_DAYS, RunError
from sim.run.seats import SeatCounts
from sim.run.stats import newcombe_interval, signed_text, t_interval, wilson_interval

SETS = ("aegean", "dunes", "reign")
KIND = "mixes"
TABLE = "mixes.csv"
PARTIAL_UNITS = 10
"""Units of the added set in a default partial mix: the Heir to the Dunes rulebook
recommends "no more than 10 units from other games"."""


def default_mixes() -> list[str]:
    """Every single set, every two-set mix with either base, and each base with
    :data:`PARTIAL_UNITS` units of another set."""
    pairs = [f"{a}+{b}" for a in SETS for b in SETS if a != b]
    partial = [f"{a}+{b}:{PARTIAL_UNITS}" for a in SETS for b in SETS if a != b]
    return [*SETS, *pairs, *partial]


def is_partial(mix: str) -> bool:
    """Whether ``mix`` draws some of its units at random (a ``SET:N`` part)."""
    return ":" in mix


def check_subsets(mix: str) -> None:
    """Refuse a partial mix whose every ``SET:N`` keeps all of that set's units
    (``aegean:22``): its subsets would all be the same cards, the same games, and their
    interval would collapse to nothing though it looks like a measurement.

    Raises:
        SpecError: such a mix, naming what to write instead.
    """
    parts = parse_mix(mix)
    limited = [p for p in parts if p.limit is not None]
    whole = []
    for p in limited:
        total = sum(u["copies"] for u in load_set(SETS_DIR / f"{p.name}.toml").units)
        if p.limit != total:
            return
        whole.append(f"{p} keeps all {total} units of {p.name}")
    if whole:
        plain = "+".join(p.name for p in parts)
        raise SpecError(
            f"mix {mix!r} has no card subsets to draw: {'; '.join(whole)}, so every subset "
            f"would be the same cards; write {plain!r}, or keep fewer units"
        )


def subset_seeds(subset_seed: int, subsets: int) -> list[int]:
    """The ``subsets`` card-subset seeds drawn from ``subset_seed``."""
    rng = np.random.default_rng([subset_seed, 0x5B5E7])
    return [int(s) for s in rng.integers(0, 2**63 - 1, size=subsets)]


@dataclass(frozen=True)
class Counts:
    """Decisive games, first-player wins and seat-0 wins of one played mix or subset, and
    the moments of the first player's VP margin over all its games."""

    decisive: int
    first_wins: int
    seat0_wins: int
    margin: MarginMoments = field(default_factory=MarginMoments)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Counts:
        """Counts back from :func:`dataclasses.asdict` (a log line's)."""
        return cls(d["decisive"], d["first_wins"], d["seat0_wins"], MarginMoments(**d["margin"]))


def count_games(spec: RunSpec) -> Counts:
    """Play ``spec``'s games in memory and count them (no Parquet written)."""
    from sim.run.engine import Engine  # deferred: loads numba

    table = Engine(spec).play(0, spec.games)
    seats, margin = SeatCounts.from_frame(table), MarginMoments.from_frame(table)
    seat0_wins = int(np.count_nonzero(table.column("winner").to_numpy() == 0))
    return Counts(seats.decisive, seats.first_wins, seat0_wins, margin)


def _row(mix: str, counts: list[Counts], seeds: list[int | None]) -> dict[str, object]:
    """One mix's figures from its subsets' counts (one entry for a full mix)."""
    dec = sum(c.decisive for c in counts)
    row: dict[str, object] = {"mix": mix, "subsets": len(counts), "decisive": dec}
    for key, attr in (("first", "first_wins"), ("seat0", "seat0_wins")):
        k = sum(getattr(c, attr) for c in counts)
        row[attr] = k
        if len(counts) == 1:
            lo, hi = wilson_interval(k, dec)
            row |= {key: k / dec if dec else math.nan, f"{key}_lo": lo, f"{key}_hi": hi}
            continue
        played = [c for c in counts if c.decisive]
        rates = np.array([getattr(c, attr) / c.decisive for c in played])
        n = np.array([c.decisive for c in played])
        row |= _mean_interval(key, rates)
        between = float(rates.var(ddof=1))
        deal = float(np.mean(rates * (1 - rates) / n))
        subset = max(between - deal, 0.0)
        row |= {f"{key}_subset_sd": math.sqrt(subset), f"{key}_deal_sd": math.sqrt(deal)}
        row[f"{key}_subset_share"] = subset / (subset + deal) if subset + deal > 0 else 0.0
    if len(counts) == 1:  # the first player's VP margin: a t-interval on the games
        f = counts[0].margin.figures()
        row |= {"margin": f["mean"], "margin_lo": f["lo"], "margin_hi": f["hi"]}
    else:  # on the subset means
        row |= _mean_interval("margin", np.array([c.margin.mean for c in counts if c.margin.games]))
    row["subset_seeds"] = ",".join(str(s) for s in seeds if s is not None)
    return row


def _mean_interval(key: str, values: np.ndarray) -> dict[str, float]:
    """``key``, ``key_lo``, ``key_hi``: the mean of ``values`` and its 95% t-interval."""
    mean = float(values.mean())
    lo, hi = t_interval(mean, float(values.std(ddof=1)), len(values))
    return {key: mean, f"{key}_lo": lo, f"{key}_hi": hi}


def rank_mixes(
    mixes: Sequence[str],
    games: int,
    seed: int = 0,
    bot: str = "greedy",
    subsets: int = 8,
    subset_seed: int = 0,
    each: Callable[[str], None] | None = None,
    out: Path | str | None = None,
    force: bool = False,
) -> pd.DataFrame:
    """Play and rank ``mixes`` into ``out`` (or a temporary folder): one row per mix, sorted
    by the first player's share of decisive games, highest first.

    A full mix plays ``games`` games; a partial mix ``games // subsets`` on each of
    ``subsets`` subsets (so every mix costs the same). ``each(mix)`` is called
    before each mix is played (a progress hook); ``force`` replaces an earlier ranking.

    Returns:
        The ranking (``attrs["plan"]``: the options it was played with): the first player's
        and seat 0's share of decisive games and the first player's VP margin, each with its
        95% interval, ``rank_first`` (1 = the largest first-player edge) and ``rank_balance``
        (1 = seat 0's share nearest 50%); every column: ``docs/analysis-desk.md``.

    Raises:
        SpecError: more subsets than games, or a partial mix that keeps every unit of the
            sets it limits (:func:`check_subsets`). RunError: more subsets than the time limit
            allows (:func:`check_subsets_time`), or a bad output folder.
    """
    if subsets < 2:
        raise SpecError(f"--subsets must be at least 2, got {subsets}")
    for mix in mixes:
        check_subsets(mix)
    if subsets > games and any(is_partial(m) for m in mixes):
        raise SpecError(
            f"--subsets {subsets:,} is more than --games {games:,}: a partial mix splits "
            "its games over its subsets"
        )
    check_subsets_time(mixes, subsets, seed, bot)
    plan = {
        "mixes": list(mixes), "games": games, "seed": seed, "bot": bot,
        "subsets": subsets, "subset_seed": subset_seed,
    }  # fmt: skip
    with (
        jobs.folder(out, KIND) as where,
        jobs.Job.start(where, KIND, plan, force=force, ours=(TABLE,)) as job,
    ):
        return _play(job, each)


def resume_mixes(out: Path | str, each: Callable[[str], None] | None = None) -> pd.DataFrame:
    """Finish the ranking in ``out``: its logged subsets are read back, the rest played.

    Raises:
        RunError: no ranking in ``out``, a finished one, one whose plan or log was edited,
            or one whose run key differs from the current code's.
    """
    with jobs.Job.resume(out, KIND) as job:
        return _play(job, each)


def read_mixes(out: Path | str) -> pd.DataFrame:
    """A finished ranking's table, its every file checked against the job's checksums.

    Raises:
        RunError: no ranking in ``out``. JobReadError: a file edited since, or unfinished.
    """
    jobs.read_finished(out, KIND)
    return pd.read_csv(Path(out) / TABLE)


def _play(job: jobs.Job, each: Callable[[str], None] | None) -> pd.DataFrame:
    """Play (or read back from the log) every subset of every mix of ``job``'s plan."""
    from sim.run.engine import Engine  # deferred: loads numba

    p = job.plan
    games, seed, bot, subsets = p["games"], p["seed"], p["bot"], p["subsets"]
    first = Engine(RunSpec(games=2, mix=p["mixes"][0], seed=seed, p0=bot, p1=bot))
    job.keyed(ledger.run_key(first.spec, first.metadata))
    done = {(e["mix"], e["subset"]): Counts.from_dict(e["counts"]) for e in job.logged().values()}
    rows = []
    for i, mix in enumerate(p["mixes"]):
        if each is not None:
            each(mix)
        seeds = [*subset_seeds(p["subset_seed"], subsets)] if is_partial(mix) else [None]
        n = max(games // subsets, 1) if is_partial(mix) else games
        counts = []
        for j, s in enumerate(seeds):
            c = done.get((i, j))
            if c is None:
                c = count_games(RunSpec(games=n, mix=mix, seed=seed, p0=bot, p1=bot, subset_seed=s))
                job.append({"mix": i, "subset": j, "counts": dataclasses.asdict(c)})
            counts.append(c)
        rows.append(_row(mix, counts, seeds))
    table = pd.DataFrame(rows).sort_values("first", ascending=False, kind="stable")
    table = table.reset_index(drop=True)
    table["rank_first"] = np.arange(1, len(table) + 1)
    table["rank_balance"] = (table["seat0"] - 0.5).abs().rank(method="min").astype(np.int64)
    with io.atomic_path(job.out / TABLE) as tmp:
        table.to_csv(tmp, index=False)
    job.finish()
    table.attrs["plan"] = dict(p)
    return table


def check_subsets_time(mixes: Sequence[str], subsets: int, seed: int, bot: str) -> None:
    """Refuse ``subsets`` if setting them up alone would take longer than
    :data:`sim.run.runner.MAX_RUN_DAYS`: every subset of a partial mix is its own card
    pool and engine, whatever ``--games`` is, so a few are timed here.

    Raises:
        RunError: the projected set-up time, in one line.
    """
    from sim.run.engine import Engine  # deferred: loads numba

    partial = [m for m in mixes if is_partial(m)]
    if not partial:
        return
    times = []
    for s in subset_seeds(seed, 3):  # the fastest of three: the host's load is not the cost
        t0 = time.perf_counter()
        Engine(RunSpec(games=2, mix=partial[0], seed=seed, p0=bot, p1=bot, subset_seed=s))
        times.append(time.perf_counter() - t0)
    each = min(times)
    days = each * subsets * len(partial) / 86_400
    if days > MAX_RUN_DAYS:
        raise RunError(
            f"--subsets {subsets:,} would take about {days:,.0f} days to set up here "
            f"({each * 1000:,.0f} ms a subset, {len(partial)} partial mixes); the limit is "
            f"{MAX_RUN_DAYS} days: draw fewer subsets"
        )


def format_mixes(table: pd.DataFrame) -> str:
    """The ranking as aligned text, one line per mix."""
    width = max(len("mix"), *(len(m) for m in table["mix"]))
    lines = [
        f"{'rank':>4}  {'mix'.ljust(width)}  {'first of decisive (95% CI)':<28}"
        f"{'seat 0 of decisive (95% CI)':<29}{'first VP margin (95% CI)':<25}{'bal':>3}"
        "  spread: subset / deal"
    ]
    for _, r in table.iterrows():
        first = f"{r['first']:.2%} ({r['first_lo']:.2%}-{r['first_hi']:.2%})"
        seat = f"{r['seat0']:.2%} ({r['seat0_lo']:.2%}-{r['seat0_hi']:.2%})"
        margin = signed_text(r["margin"], r["margin_lo"], r["margin_hi"])
        spread = ""
        if r["subsets"] > 1:
            spread = (
                f"sd {r['first_subset_sd']:.2%} / {r['first_deal_sd']:.2%} "
                f"({r['first_subset_share']:.0%} subset)"
            )
        lines.append(
            f"{int(r['rank_first']):>4}  {str(r['mix']).ljust(width)}  {first:<28}{seat:<29}"
            f"{margin:<25}{int(r['rank_balance']):>3}  {spread}".rstrip()
        )
    return "\n".join(lines + base_lines(table))


def base_lines(table: pd.DataFrame) -> list[str]:
    """For every two sets played with either as the base: how far the base moves the
    first player's share of decisive games (independent runs: Newcombe's 95% interval)."""
    rows = table.set_index("mix")
    out = []
    for mix in rows.index:
        parts = mix.split("+")
        other = "+".join(reversed(parts))
        if len(parts) != 2 or is_partial(mix) or other not in rows.index or mix > other:
            continue
        a, b = rows.loc[mix], rows.loc[other]
        lo, hi = newcombe_interval(a["first_wins"], a["decisive"], b["first_wins"], b["decisive"])
        out.append(
            f"base {parts[0]} rather than {parts[1]}: first of decisive "
            f"{(a['first'] - b['first']) * 100:+.2f} pp (95% CI {lo * 100:+.2f} to "
            f"{hi * 100:+.2f}; {mix} {a['first']:.2%}, {other} {b['first']:.2%})"
        )
    return ([""] if out else []) + out
