"""``omensim balance --panel`` and ``--set``: a choice re-checked per bot, a set made fair.

:func:`panel_check` plays a race's chosen value and the shipped one again
under each bot of a panel, in self-play, on a new seed. :func:`balance_set`
is the greedy "fix the worst card, re-measure" loop over a whole mix, each
step verified on a fresh run with a new seed before it is reported.
"""

from __future__ import annotations

import dataclasses
import math
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from sim.analysis import race as R
from sim.analysis.balance import (
    DEFAULT_CEILING,
    DEFAULT_PILOT,
    DEFAULT_TOLERANCE,
    BalanceResult,
    CandidatePlayer,
    race,
)
from sim.analysis.balance_question import Question, card_question, measure
from sim.analysis.compare import play_outcomes
from sim.data.changes import CardChange, Changes
from sim.data.spec import RunSpec
from sim.run import progress as P
from sim.run.compiled import run_pool
from sim.run.runner import DEFAULT_CHUNK_SIZE
from sim.run.session import numba_threads, resolve_threads
from strategies.registry import resolve

SET_TABLE = "balance_set.csv"


def panel_check(
    result: BalanceResult,
    bots: Sequence[str],
    games: int,
    *,
    threads: int | None = None,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    progress: bool | None = None,
    base: Changes | None = None,
) -> pd.DataFrame:
    """The chosen value and the shipped one re-played under each bot in self-play.

    New seeds (the race's seed + 1), ``games`` each; one row per bot: the
    chosen value's rate with its 95% interval, the paired shift from the
    shipped value, and ``holds``: whether the target +/- tolerance overlaps the
    chosen value's interval (the conclusion "this value balances it" is not
    refuted under that bot).

    Raises:
        SpecError: an unknown bot.
    """
    for bot in bots:
        resolve(bot)
    q = result.question
    base = base or Changes()
    show = P.wanted(progress)
    shipped = q.candidates.index(q.shipped) if q.shipped in q.candidates else result.chosen
    rows = []
    with tempfile.TemporaryDirectory() as tmp, numba_threads(resolve_threads(threads)):
        for bot in bots:
            spec = dataclasses.replace(result.spec, p0=bot, p1=bot, seed=result.spec.seed + 1)
            player = CandidatePlayer(q, spec, base, Path(tmp), chunk_size, show)
            with P.Bar(2 * games, show, desc=f"panel {bot}") as bar:
                chosen = player.play(result.chosen, 0, games, bar)
                ship = chosen if shipped == result.chosen else player.play(shipped, 0, games, bar)
            e = R.estimate(*chosen)
            d, se = R.paired_diff(*ship, *chosen)
            lo_band, hi_band = result.target - result.tolerance, result.target + result.tolerance
            rows.append(
                {
                    "bot": bot,
                    "games": games,
                    "rate": e.rate,
                    "lo": e.lo,
                    "hi": e.hi,
                    "shift": d,
                    "shift_lo": d - R.Z95 * se,
                    "shift_hi": d + R.Z95 * se,
                    "holds": bool(e.lo <= hi_band and e.hi >= lo_band),
                }
            )
    return pd.DataFrame(rows)


@dataclass
class SetStep:
    """One point of the set trade-off: the edits so far and the worst card left."""

    edits: list[str]
    worst_card: str
    worst_rate: float
    worst_lo: float
    worst_hi: float
    first_player: float
    verified_worst: float = math.nan
    """The worst card's deviation on a fresh run (new seed) of the same edits."""
    verified_first: float = math.nan
    games: int = 0


@dataclass
class SetResult:
    """``balance --set``: the greedy sequence of edits and its trade-off."""

    spec: RunSpec
    threshold: float
    first_bound: float
    steps: list[SetStep] = field(default_factory=list)
    games: int = 0

    def table(self) -> pd.DataFrame:
        """One row per step (edits made vs the worst remaining deviation)."""
        return pd.DataFrame(
            [
                {
                    "edits": len(s.edits),
                    "changes": "; ".join(s.edits),
                    "worst_card": s.worst_card,
                    "worst_rate": s.worst_rate,
                    "worst_lo": s.worst_lo,
                    "worst_hi": s.worst_hi,
                    "worst_deviation": abs(s.worst_rate - 0.5),
                    "first_player_decisive": s.first_player,
                    "verified_worst_deviation": s.verified_worst,
                    "verified_first_player_decisive": s.verified_first,
                }
                for s in self.steps
            ]
        )


def card_rates(
    spec: RunSpec,
    changes: Changes,
    games: int,
    *,
    threads: int | None = None,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    progress: bool | None = None,
) -> tuple[pd.DataFrame, float]:
    """Every card's holders' win rate (with its 95% interval) and the first player's
    decisive share, over ``games`` games of ``spec`` with ``changes``."""
    from sim.run.engine import Engine  # deferred: loads the batch kernel

    show = P.wanted(progress)
    with numba_threads(resolve_threads(threads)):
        with P.kernel_ready(show):
            eng = Engine(spec, changes=changes)
            eng.warmup()
        with P.Bar(games, show, desc="measure every card") as bar:
            o = play_outcomes(eng, games, chunk_size, bar)
    units = run_pool(spec, changes).units
    recs = []
    for k, u in enumerate(units):
        qk = Question("card", ("cost",), ((0,),), (0,), u["name"], k)
        e = R.estimate(*measure(qk, o))
        recs.append({"card": u["name"], "kind": k, "rate": e.rate, "lo": e.lo, "hi": e.hi})
    fp = R.estimate(*measure(Question("rule", ("x",), ((0,),), (0,)), o))
    return pd.DataFrame(recs), fp.rate


def balance_set(
    spec: RunSpec,
    *,
    threshold: float = 0.02,
    first_bound: float = 0.02,
    field_name: str = "cost",
    max_edits: int = 3,
    measure_games: int = 20_000,
    span: int = 2,
    tolerance: float = DEFAULT_TOLERANCE,
    pilot: int = DEFAULT_PILOT,
    ceiling: int = DEFAULT_CEILING,
    threads: int | None = None,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    progress: bool | None = None,
    echo: Callable[[str], None] | None = None,
    base: Changes | None = None,
) -> SetResult:
    """Greedy: fix the worst card (race its ``field_name`` toward 50%), re-measure, repeat.

    Starts from ``base`` (default: the shipped cards). Stops when every card's
    holders' rate is within ``threshold`` of 50% and the first player's decisive
    share within ``first_bound``, or after ``max_edits``. Each step (the edits so
    far) is verified on a fresh run with a new seed before it is reported.
    """
    res = SetResult(spec, threshold, first_bound)
    changes = base or Changes()
    edits: list[str] = []
    tried: set[str] = set()
    kw = dict(threads=threads, chunk_size=chunk_size, progress=progress)
    for step in range(max_edits + 1):
        rates, fp = card_rates(spec, changes, measure_games, **kw)  # type: ignore[arg-type]
        res.games += measure_games
        rates["dev"] = (rates.rate - 0.5).abs()
        worst = rates.sort_values("dev", ascending=False).iloc[0]
        fresh = dataclasses.replace(spec, seed=spec.seed + 1000 + step)
        vrates, vfp = card_rates(fresh, changes, measure_games, **kw)  # type: ignore[arg-type]
        res.games += measure_games
        res.steps.append(
            SetStep(
                list(edits), worst.card, worst.rate, worst.lo, worst.hi, fp,
                float((vrates.rate - 0.5).abs().max()), vfp, res.games,
            )
        )  # fmt: skip
        if echo is not None:
            echo(format_set_step(res.steps[-1]))
        done = worst.dev <= threshold and abs(fp - 0.5) <= first_bound
        if done or step == max_edits:
            break
        candidates = rates[~rates.card.isin(tried)].sort_values("dev", ascending=False)
        if candidates.empty:
            break
        card = candidates.iloc[0].card
        tried.add(card)
        q = card_question(spec, card, [field_name], span=span, base=changes)
        r = race(q, spec, base=changes, tolerance=tolerance, pilot=pilot, ceiling=ceiling, **kw)  # type: ignore[arg-type]
        res.games += r.games
        value = q.candidates[r.chosen][0]
        if q.candidates[r.chosen] == q.shipped:
            continue  # the race kept the card as it is: nothing to edit
        edit = CardChange(card, field_name, value)
        changes = Changes((*changes.edits, edit), changes.card_files)
        edits.append(edit.label())
    return res


def format_set_step(s: SetStep) -> str:
    """One trade-off point as a line."""
    return (
        f"  {len(s.edits)} edit(s) [{'; '.join(s.edits) or 'none'}]: worst card {s.worst_card} "
        f"{s.worst_rate:.2%} (95% CI {s.worst_lo:.2%} to {s.worst_hi:.2%}), "
        f"{abs(s.worst_rate - 0.5) * 100:.2f} points off; first player {s.first_player:.2%} of "
        f"decisive games; verified on a new seed: worst {s.verified_worst * 100:.2f} points off, "
        f"first player {s.verified_first:.2%}"
    )
