"""``omensim balance --panel`` and ``--set``: a choice re-checked per bot, a set made fair.

:func:`panel_check` plays a race's chosen value and the shipped one again
under each bot of a panel, in self-play, on a new seed. :func:`balance_set`
is the greedy "fix the worst card with one edit, re-measure" loop over a
whole mix (each edit the best single-field move of the card's ``--field``
list), each step verified on games no race played, paired with the step
before, before it is reported; :func:`set_panel` re-checks the proposed
edits together under each bot.
"""

from __future__ import annotations

import dataclasses
import math
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from sim.analysis import race as R
from sim.analysis.balance import (
    DEFAULT_CEILING,
    DEFAULT_PILOT,
    DEFAULT_TOLERANCE,
    BalanceResult,
    CandidatePlayer,
    race,
    records,
)
from sim.analysis.balance_question import Question, card_moves_question, measure
from sim.analysis.compare import play_outcomes
from sim.analysis.paired import Outcomes
from sim.data.changes import CardChange, Changes
from sim.data.spec import RunSpec
from sim.run import io
from sim.run import progress as P
from sim.run.compiled import run_pool
from sim.run.margins import MarginMoments, MarginShift
from sim.run.runner import DEFAULT_CHUNK_SIZE
from sim.run.session import numba_threads, resolve_threads
from sim.run.stats import (
    distance_diff,
    normal_interval,
    normal_quantile,
    paired_ratio_se,
    signed_text,
)
from strategies.registry import resolve

SET_TABLE = "balance_set.csv"
SET_RESULT = "balance_set.json"
SET_PANEL = "balance_set_panel.csv"
SET_FILES = (SET_TABLE, SET_RESULT, SET_PANEL)


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
    shipped value, the first player's VP margin under the chosen value
    (``margin``, ``margin_lo``, ``margin_hi``: 95% t-interval) and its paired
    shift from the shipped value's (``margin_shift``, ``_lo``, ``_hi``), and
    ``holds``: whether the target +/- tolerance overlaps the chosen value's interval
    (the conclusion "this value balances it" is not refuted under that bot).

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
            e = R.estimate(*chosen[:2])
            d, se = paired_ratio_se(*ship[:2], *chosen[:2])
            m = MarginShift.from_margins(ship[2], chosen[2]).figures()
            lo_band, hi_band = result.target - result.tolerance, result.target + result.tolerance
            rows.append(
                {
                    "bot": bot, "games": games, "rate": e.rate, "lo": e.lo, "hi": e.hi,
                    "shift": d, "shift_lo": (ci := normal_interval(d, se))[0], "shift_hi": ci[1],
                    "margin": m["b_mean"], "margin_lo": m["b_lo"], "margin_hi": m["b_hi"],
                    "margin_shift": m["diff"], "margin_shift_lo": m["lo"],
                    "margin_shift_hi": m["hi"], "holds": bool(e.lo <= hi_band and e.hi >= lo_band),
                }
            )  # fmt: skip
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
    """The worst card's deviation on a fresh run (the verification seed) of the same edits."""
    verified_worst_card: str = ""
    verified_first: float = math.nan
    games: int = 0
    edit: str = ""
    """This step's edit (empty at step 0)."""
    edited_card: str = ""
    verified_rate: float = math.nan
    """The edited card's holders' rate on the verification seed, with its 95% interval."""
    verified_lo: float = math.nan
    verified_hi: float = math.nan
    verified_shift: float = math.nan
    """The edit's paired shift of that rate: this step's verification run minus the previous
    step's, on the same games of the verification seed."""
    verified_shift_lo: float = math.nan
    verified_shift_hi: float = math.nan
    race_games: int = 0
    """Games the race that chose this step's edit played."""
    first_margin: float = math.nan
    """The first player's mean VP margin over the measured games, with its 95% t-interval."""
    first_margin_lo: float = math.nan
    first_margin_hi: float = math.nan
    verified_margin_shift: float = math.nan
    """The edit's paired shift of the first player's VP margin on the verification seed
    (this step's games minus the previous step's), with its 95% t-interval."""
    verified_margin_shift_lo: float = math.nan
    verified_margin_shift_hi: float = math.nan


@dataclass
class SetResult:
    """``balance --set``: the greedy sequence of edits and its trade-off."""

    spec: RunSpec
    threshold: float
    first_bound: float
    steps: list[SetStep] = field(default_factory=list)
    games: int = 0
    fields: tuple[str, ...] = ("cost",)
    base: Changes = field(default_factory=Changes)
    """The edits the loop started from."""
    changes: Changes = field(default_factory=Changes)
    """``base`` and every proposed edit."""
    panel: pd.DataFrame | None = None
    """With ``--panel``: the proposed edits re-checked under each bot (:func:`set_panel`)."""

    def table(self) -> pd.DataFrame:
        """One row per step (edits made vs the worst remaining deviation)."""
        copied = ("edited_card", "verified_rate", "verified_lo", "verified_hi", "verified_shift",
                  "verified_shift_lo", "verified_shift_hi", "race_games", "first_margin",
                  "first_margin_lo", "first_margin_hi", "verified_margin_shift",
                  "verified_margin_shift_lo", "verified_margin_shift_hi", "games")  # fmt: skip
        return pd.DataFrame(
            [
                {
                    "edits": len(s.edits), "changes": "; ".join(s.edits), "edit": s.edit,
                    "worst_card": s.worst_card, "worst_rate": s.worst_rate, "worst_lo": s.worst_lo,
                    "worst_hi": s.worst_hi, "worst_deviation": abs(s.worst_rate - 0.5),
                    "first_player_decisive": s.first_player,
                    "verified_worst_card": s.verified_worst_card,
                    "verified_worst_deviation": s.verified_worst,
                    "verified_first_player_decisive": s.verified_first,
                    **{k: getattr(s, k) for k in copied},
                    "within_bounds": bool(
                        abs(s.worst_rate - 0.5) <= self.threshold
                        and abs(s.first_player - 0.5) <= self.first_bound
                    ),
                }
                for s in self.steps
            ]
        )  # fmt: skip


def write_set(result: SetResult, out: Path | str) -> None:
    """``balance_set.csv`` (the trade-off, one row per step) and, last (its presence says
    the loop finished), ``balance_set.json`` (the settings and the same steps)."""
    import json

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    table = result.table()
    with io.atomic_path(out / SET_TABLE) as tmp:
        table.to_csv(tmp, index=False)
    body = {
        "format": "omensim-balance-set",
        "spec": dataclasses.asdict(result.spec),
        "threshold": result.threshold,
        "first_bound": result.first_bound,
        "fields": list(result.fields),
        "verify_seed": result.spec.seed + VERIFY_SEED_OFFSET,
        "games": result.games,
        "steps": records(table),
        "panel": None if result.panel is None else records(result.panel),
    }
    if result.panel is not None:
        with io.atomic_path(out / SET_PANEL) as tmp:
            result.panel.to_csv(tmp, index=False)
    with io.atomic_path(out / SET_RESULT) as tmp:
        tmp.write_text(json.dumps(body, indent=2) + "\n", encoding="utf-8")


def play_set(
    spec: RunSpec,
    changes: Changes,
    games: int,
    *,
    threads: int | None = None,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    progress: bool | None = None,
) -> tuple[Outcomes, list[str]]:
    """Games ``0 .. games-1`` of ``spec`` with ``changes``: their outcomes and the card names
    (in kind order)."""
    from sim.run.engine import Engine  # deferred: loads the batch kernel

    show = P.wanted(progress)
    with numba_threads(resolve_threads(threads)):
        with P.kernel_ready(show):
            eng = Engine(spec, changes=changes)
            eng.warmup()
        with P.Bar(games, show, desc="measure every card") as bar:
            o = play_outcomes(eng, games, chunk_size, bar)
    return o, [u["name"] for u in run_pool(spec, changes).units]


def _card_terms(o: Outcomes, kind: int) -> tuple[Any, Any]:
    return measure(Question("card", ("cost",), ((0,),), (0,), "", kind), o)


def rates_of(o: Outcomes, names: Sequence[str]) -> tuple[pd.DataFrame, float]:
    """Every card's holders' win rate (with its 95% interval) and the first player's
    decisive share, over the games of ``o``."""
    recs = []
    for k, name in enumerate(names):
        e = R.estimate(*_card_terms(o, k))
        recs.append({"card": name, "kind": k, "rate": e.rate, "lo": e.lo, "hi": e.hi})
    fp = R.estimate(*measure(Question("rule", ("x",), ((0,),), (0,)), o))
    return pd.DataFrame(recs), fp.rate


VERIFY_SEED_OFFSET = 1000
"""The verification runs play seed + this: games no race saw, the same for every step, so
each step's verification is paired with the previous step's."""


def balance_set(
    spec: RunSpec,
    *,
    threshold: float = 0.02,
    first_bound: float = 0.02,
    fields: Sequence[str] = ("cost",),
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
    """Greedy: fix the worst card with one edit, re-measure, repeat.

    Starts from ``base`` (default: the shipped cards). Each step races the
    worst card's single-field moves (:func:`card_moves_question`: each of
    ``fields`` moved alone to its current value +/- ``span``, and the card as
    it is) toward 50% and keeps the chosen move as one edit; a card's field is
    raced once, so a card still the worst after one edit may get a second, on
    another field. Stops when every card's holders' rate is within
    ``threshold`` of 50% and the first player's decisive share within
    ``first_bound``, or after ``max_edits``, or when no card has a field left
    to race.

    Each step (the edits so far) is verified before it is reported, on the
    games of a seed no race played (seed + :data:`VERIFY_SEED_OFFSET`): the
    worst card there, and the edited card's rate and its paired shift from
    the previous step's verification (the same games, one edit apart).
    """
    changes = base or Changes()
    res = SetResult(
        spec, threshold, first_bound, fields=tuple(f.lower() for f in fields), base=changes
    )
    edits: list[str] = []
    raced: set[tuple[str, str]] = set()
    kw = dict(threads=threads, chunk_size=chunk_size, progress=progress)
    fresh = dataclasses.replace(spec, seed=spec.seed + VERIFY_SEED_OFFSET)
    before: Outcomes | None = None
    step_edit: tuple[str, int, int] | None = None  # (label, kind, race games)
    for step in range(max_edits + 1):
        measured, names = play_set(spec, changes, measure_games, **kw)  # type: ignore[arg-type]
        rates, fp = rates_of(measured, names)
        res.games += measure_games
        rates["dev"] = (rates.rate - 0.5).abs()
        worst = rates.sort_values("dev", ascending=False).iloc[0]
        after, names = play_set(fresh, changes, measure_games, **kw)  # type: ignore[arg-type]
        res.games += measure_games
        vrates, vfp = rates_of(after, names)
        vworst = vrates.iloc[int((vrates.rate - 0.5).abs().idxmax())]
        s = SetStep(
            list(edits), worst.card, worst.rate, worst.lo, worst.hi, fp,
            abs(float(vworst.rate) - 0.5), str(vworst.card), vfp, res.games,
        )  # fmt: skip
        m = MarginMoments.from_margins(measured.margin).figures()
        s.first_margin, s.first_margin_lo, s.first_margin_hi = m["mean"], m["lo"], m["hi"]
        if step_edit is not None and before is not None:
            label, kind, race_games = step_edit
            e = R.estimate(*_card_terms(after, kind))
            d, se = paired_ratio_se(*_card_terms(before, kind), *_card_terms(after, kind))
            s.edit, s.edited_card, s.race_games = label, names[kind], race_games
            s.verified_rate, s.verified_lo, s.verified_hi = e.rate, e.lo, e.hi
            s.verified_shift = d
            s.verified_shift_lo, s.verified_shift_hi = normal_interval(d, se)
            ms = MarginShift.from_margins(before.margin, after.margin).figures()
            s.verified_margin_shift = ms["diff"]
            s.verified_margin_shift_lo, s.verified_margin_shift_hi = ms["lo"], ms["hi"]
        res.steps.append(s)
        before = after
        if echo is not None:
            echo(format_set_step(s))
        done = worst.dev <= threshold and abs(fp - 0.5) <= first_bound
        if done or step == max_edits:
            break
        edit = _next_edit(spec, rates, changes, res.fields, raced, span, tolerance, pilot,
                          ceiling, kw)  # fmt: skip
        if edit is None:
            break
        change, kind, race_games = edit
        res.games += race_games
        changes = Changes((*changes.edits, change), changes.card_files)
        edits.append(change.label())
        step_edit = (change.label(), kind, race_games)
    res.changes = changes
    return res


ONE_SIDED_95 = normal_quantile(0.95)


def closer(target: float, before: tuple[Any, Any], after: tuple[Any, Any]) -> bool:
    """Whether ``after``'s rate is shown nearer ``target`` than ``before``'s (paired over the
    same games, one-sided at 95%): an edit that overshoots the target by more than the card
    was off is not closer."""
    gain, se = distance_diff(target, before, after)
    return bool(math.isfinite(gain) and math.isfinite(se) and gain + ONE_SIDED_95 * se < 0)


PANEL_SEED_OFFSET = VERIFY_SEED_OFFSET + 1
"""The ``--set --panel`` re-check plays seed + this: games neither a race nor the
verification played."""


def set_panel(
    result: SetResult,
    bots: Sequence[str],
    games: int,
    *,
    threads: int | None = None,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    progress: bool | None = None,
) -> pd.DataFrame:
    """The proposed edits, all together, against the cards they started from, under each
    bot in self-play on a new seed (``games`` each, the same games for both).

    One row per (bot, edited card): its holders' rate before and after with 95%
    intervals, the paired shift, and ``closer``: whether the card's distance to 50%
    is shown smaller after than before (paired, 95% one-sided: an edit that
    overshoots 50% by more than the card was off is not closer); and per bot the
    worst card after and the first player's decisive share.

    Raises:
        SpecError: an unknown bot.
    """

    for bot in bots:
        resolve(bot)
    edited = [e.card for e in result.changes.edits[len(result.base.edits) :]]
    kw = dict(threads=threads, chunk_size=chunk_size, progress=progress)
    rows = []
    for bot in bots:
        spec = dataclasses.replace(
            result.spec, p0=bot, p1=bot, seed=result.spec.seed + PANEL_SEED_OFFSET
        )
        before, names = play_set(spec, result.base, games, **kw)  # type: ignore[arg-type]
        after, _ = play_set(spec, result.changes, games, **kw)  # type: ignore[arg-type]
        arates, afp = rates_of(after, names)
        worst = arates.iloc[int((arates.rate - 0.5).abs().idxmax())]
        margin = MarginShift.from_margins(before.margin, after.margin).figures()
        kinds = {n: k for k, n in enumerate(names)}
        for card in dict.fromkeys(edited):
            k = kinds[card]
            b, a = R.estimate(*_card_terms(before, k)), R.estimate(*_card_terms(after, k))
            d, se = paired_ratio_se(*_card_terms(before, k), *_card_terms(after, k))
            lo, hi = normal_interval(d, se)
            rows.append(
                {
                    "bot": bot, "card": card, "games": games,
                    "rate_before": b.rate, "lo_before": b.lo, "hi_before": b.hi,
                    "rate_after": a.rate, "lo_after": a.lo, "hi_after": a.hi,
                    "shift": d, "shift_lo": lo, "shift_hi": hi,
                    "closer": closer(0.5, _card_terms(before, k), _card_terms(after, k)),
                    "worst_card_after": str(worst.card),
                    "worst_deviation_after": abs(float(worst.rate) - 0.5),
                    "first_player_after": afp,
                    "first_margin_after": margin["b_mean"],
                    "first_margin_after_lo": margin["b_lo"],
                    "first_margin_after_hi": margin["b_hi"],
                    "first_margin_shift": margin["diff"],
                    "first_margin_shift_lo": margin["lo"],
                    "first_margin_shift_hi": margin["hi"],
                }
            )  # fmt: skip
    return pd.DataFrame(rows)


def format_set_panel(panel: pd.DataFrame) -> list[str]:
    """The ``--set --panel`` re-check as lines."""
    lines = ["Panel: the proposed edits together, under each bot in self-play (new seed):"]
    for bot, g in panel.groupby("bot", sort=False):
        w = g.iloc[0]
        lines.append(
            f"  {bot}: worst card after {w.worst_card_after} "
            f"{w.worst_deviation_after * 100:.2f} points off; first player "
            f"{w.first_player_after:.2%} of decisive games"
        )
        if "first_margin_after" in g.columns:
            after = signed_text(
                w.first_margin_after, w.first_margin_after_lo, w.first_margin_after_hi
            )
            shift = signed_text(
                w.first_margin_shift, w.first_margin_shift_lo, w.first_margin_shift_hi
            )
            lines.append(f"    first VP margin after {after} VP, paired shift {shift} VP")
        for row in g.itertuples():
            lines.append(
                f"    {row.card}: {row.rate_before:.2%} -> {row.rate_after:.2%} (95% CI "
                f"{row.lo_after:.2%} to {row.hi_after:.2%}), paired shift "
                f"{row.shift * 100:+.2f} points ({row.shift_lo * 100:+.2f} to "
                f"{row.shift_hi * 100:+.2f}): "
                f"{'closer to' if row.closer else 'not shown closer to'} 50%"
            )
    n_bots = panel.bot.nunique()
    held = panel.groupby("bot").closer.all()
    lines.append(
        f"Every edit brings its card closer to 50% under {int(held.sum())} of {n_bots} bots."
    )
    return lines


def _next_edit(
    spec: RunSpec,
    rates: pd.DataFrame,
    changes: Changes,
    fields: tuple[str, ...],
    raced: set[tuple[str, str]],
    span: int,
    tolerance: float,
    pilot: int,
    ceiling: int,
    kw: dict[str, Any],
) -> tuple[CardChange, int, int] | None:
    """The next edit: the worst card with a field not raced yet, its fields raced at once
    (single-field moves); ``None`` when no card has one. Races whose choice keeps the card
    as it is mark its fields raced and go on to the next card."""
    spent = 0
    for row in rates.sort_values("dev", ascending=False).itertuples():
        left = [f for f in fields if (row.card, f) not in raced]
        if not left:
            continue
        raced.update((row.card, f) for f in left)
        q = card_moves_question(spec, row.card, left, span=span, base=changes)
        r = race(q, spec, base=changes, tolerance=tolerance, pilot=pilot, ceiling=ceiling, **kw)
        spent += r.games
        chosen = q.candidates[r.chosen]
        moved = [i for i, (v, c) in enumerate(zip(chosen, q.shipped, strict=True)) if v != c]
        if not moved:
            continue  # the race kept the card as it is: try the next card
        i = moved[0]
        return CardChange(q.card or row.card, q.names[i], chosen[i]), int(row.kind), spent
    return None


def format_set_step(s: SetStep) -> str:
    """One trade-off point as a line (and, after an edit, its verified effect)."""
    line = (
        f"  {len(s.edits)} edit(s) [{'; '.join(s.edits) or 'none'}]: worst card {s.worst_card} "
        f"{s.worst_rate:.2%} (95% CI {s.worst_lo:.2%} to {s.worst_hi:.2%}), "
        f"{abs(s.worst_rate - 0.5) * 100:.2f} points off; first player {s.first_player:.2%} of "
        f"decisive games, first VP margin "
        f"{signed_text(s.first_margin, s.first_margin_lo, s.first_margin_hi)} VP; "
        f"verified on a new seed: worst {s.verified_worst_card} "
        f"{s.verified_worst * 100:.2f} points off, first player {s.verified_first:.2%}"
    )
    if s.edit:
        margin = signed_text(
            s.verified_margin_shift, s.verified_margin_shift_lo, s.verified_margin_shift_hi
        )
        line += (
            f"\n      verified edit {s.edit}: {s.edited_card} {s.verified_rate:.2%} (95% CI "
            f"{s.verified_lo:.2%} to {s.verified_hi:.2%}), paired shift "
            f"{s.verified_shift * 100:+.2f} points ({s.verified_shift_lo * 100:+.2f} to "
            f"{s.verified_shift_hi * 100:+.2f}) on the same new games; first VP margin shift "
            f"{margin} VP"
        )
    return line
