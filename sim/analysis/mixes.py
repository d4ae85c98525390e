"""Rank mixes of sets by the first player's edge and by seat balance (``omensim mixes``).

Every mix is played in self-play by one bot on the same deal seed. For each:

* **first of decisive**: the first player's share of the games someone won outright
  (50% is no first-player advantage);
* **seat 0 of decisive**: seat 0's share of them (50% is seat balance);
* **first VP margin**: the first player's mean score minus the second's, with its
  95% t-interval (on the games of a full mix, on the subset means of a partial one).

A partial mix (``SET:N``, N random units of a set) depends on which units were
drawn, so it is played on ``subsets`` card subsets drawn from ``subset_seed``
(recorded), each on the same deals (``seed``), and its figure is the mean over
subsets with a t-interval on the subset means. The spread of the subset means is
split into what the subset explains and what the deals explain: the deal part is
the mean binomial variance of one subset's estimate, the subset part the rest of
the observed variance (0 when the deals explain it all). Deals are shared between
subsets, so deal noise partly cancels between them and the subset part is if
anything understated.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from sim.analysis.frames import newcombe_interval
from sim.data.spec import RunSpec
from sim.run.margins import MarginMoments
from sim.run.stats import signed_text, t_quantile, wilson_interval

SETS = ("aegean", "dunes", "reign")
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


def count_games(spec: RunSpec) -> Counts:
    """Play ``spec``'s games in memory and count them (no Parquet written)."""
    from sim.run.engine import Engine  # deferred: loads numba

    table = Engine(spec).play(0, spec.games)
    winner = table.column("winner").to_numpy()
    first = table.column("first_player").to_numpy()
    decisive = winner >= 0
    return Counts(
        int(decisive.sum()),
        int((winner == first).sum()),
        int((winner == 0).sum()),
        MarginMoments.from_frame(table),
    )


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
        mean = float(rates.mean())
        between = float(rates.var(ddof=1))
        deal = float(np.mean(rates * (1 - rates) / n))
        half = t_quantile(len(rates) - 1) * math.sqrt(between / len(rates))
        subset = max(between - deal, 0.0)
        row |= {key: mean, f"{key}_lo": mean - half, f"{key}_hi": mean + half}
        row |= {f"{key}_subset_sd": math.sqrt(subset), f"{key}_deal_sd": math.sqrt(deal)}
        row[f"{key}_subset_share"] = subset / (subset + deal) if subset + deal > 0 else 0.0
    row |= _margin(counts)
    row["subset_seeds"] = ",".join(str(s) for s in seeds if s is not None)
    return row


def _margin(counts: list[Counts]) -> dict[str, float]:
    """``margin``, ``margin_lo``, ``margin_hi``: the first player's mean VP margin and its
    95% t-interval, on the games (one entry) or on the subset means (several)."""
    if len(counts) == 1:
        f = counts[0].margin.figures()
        return {"margin": f["mean"], "margin_lo": f["lo"], "margin_hi": f["hi"]}
    means = np.array([c.margin.mean for c in counts if c.margin.games])
    mean = float(means.mean())
    half = t_quantile(len(means) - 1) * float(means.std(ddof=1)) / math.sqrt(len(means))
    return {"margin": mean, "margin_lo": mean - half, "margin_hi": mean + half}


def rank_mixes(
    mixes: Sequence[str],
    games: int,
    seed: int = 0,
    bot: str = "greedy",
    subsets: int = 8,
    subset_seed: int = 0,
    each: Callable[[str], None] | None = None,
) -> pd.DataFrame:
    """Play and rank ``mixes``: one row per mix, sorted by the first player's share of
    decisive games, highest first.

    A full mix plays ``games`` games; a partial mix ``games // subsets`` on each of
    ``subsets`` subsets (so every mix costs the same). ``each(mix)`` is called
    before each mix is played (a progress hook).

    Returns:
        Columns ``mix``, ``subsets``, ``decisive``, ``first_wins``, ``seat0_wins``,
        ``first``/``_lo``/``_hi``,
        ``seat0``/``_lo``/``_hi`` (95%: Wilson for a full mix, a t-interval on the
        subset means for a partial one), ``margin``/``_lo``/``_hi`` (the first
        player's VP margin, 95% t-interval on the games or the subset means), for
        partial mixes ``*_subset_sd``, ``*_deal_sd`` and ``*_subset_share``,
        ``subset_seeds``, ``rank_first`` (1 = the largest first-player edge) and
        ``rank_balance`` (1 = seat 0's share nearest 50%).
    """
    rows = []
    for mix in mixes:
        if each is not None:
            each(mix)
        base = RunSpec(games=games, mix=mix, seed=seed, p0=bot, p1=bot)
        if is_partial(mix):
            seeds: list[int | None] = list(subset_seeds(subset_seed, subsets))
            n = max(games // subsets, 1)
            counts = [count_games(RunSpec(**{**_fields(base), "games": n, "subset_seed": s}))
                      for s in seeds]  # fmt: skip
        else:
            seeds, counts = [None], [count_games(base)]
        rows.append(_row(mix, counts, seeds))
    out = pd.DataFrame(rows).sort_values("first", ascending=False, kind="stable")
    out["rank_first"] = np.arange(1, len(out) + 1)
    balance = (out["seat0"] - 0.5).abs().rank(method="min").astype(np.int64)
    out["rank_balance"] = balance
    return out.reset_index(drop=True)


def _fields(spec: RunSpec) -> dict[str, object]:
    import dataclasses

    return {f.name: getattr(spec, f.name) for f in dataclasses.fields(spec)}


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
