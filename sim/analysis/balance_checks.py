"""``omensim balance --panel`` and ``--set``: a choice re-checked per bot (:func:`panel_check`),
a set made fair an edit at a time (:func:`balance_set`) and its edits re-checked together per
bot (:func:`set_panel`). Why each check and how to read it: ``docs/balance.md``.
"""

from __future__ import annotations

import dataclasses
import math
import tempfile
from collections.abc import Callable, Mapping, Sequence
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
    Rows,
    check_time,
    paired_shift,
    race,
    rate_figures,
    write_answer,
)
from sim.analysis.balance_question import card_moves_question, card_terms, first_terms
from sim.analysis.balance_text import ci_text, shift_text
from sim.analysis.compare import play_outcomes
from sim.analysis.paired import Outcomes, records
from sim.data.changes import CardChange, Changes
from sim.data.spec import RunSpec
from sim.run import progress as P
from sim.run.compiled import run_pool
from sim.run.margins import MarginMoments
from sim.run.runner import DEFAULT_CHUNK_SIZE
from sim.run.session import numba_threads, resolve_threads
from sim.run.stats import distance_diff, normal_quantile, signed_text
from strategies.registry import resolve

SET_TABLE = "balance_set.csv"
SET_RESULT = "balance_set.json"
SET_PANEL = "balance_set_panel.csv"
SET_FILES = (SET_TABLE, SET_RESULT, SET_PANEL)
VERIFY_SEED_OFFSET = 1000
"""The verification runs play seed + this: games no race saw, the same for every step, so
each step's verification is paired with the previous step's."""
PANEL_SEED_OFFSET = VERIFY_SEED_OFFSET + 1
"""The ``--set --panel`` re-check plays seed + this: games neither a race nor the
verification played."""
ONE_SIDED_95 = normal_quantile(0.95)
VERIFIED = ("rate", "lo", "hi", "shift", "shift_lo", "shift_hi")
VERIFIED += ("margin_shift", "margin_shift_lo", "margin_shift_hi")
"""The figures of an edit's verification, each a ``verified_`` column of a set step."""


def _self_play(spec: RunSpec, bots: Sequence[str], offset: int) -> list[RunSpec]:
    """``spec`` under each bot in both seats, on seed + ``offset``; refuses an unknown bot
    (SpecError) before any game is played."""
    for bot in bots:
        resolve(bot)
    return [dataclasses.replace(spec, p0=b, p1=b, seed=spec.seed + offset) for b in bots]


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
    """The chosen value and the shipped one re-played under each bot in self-play on seed + 1,
    ``games`` each: per bot the chosen value's :func:`rate_figures`, its :func:`paired_shift`
    from shipped, and whether target +/- tolerance overlaps its interval (``holds``).
    Refuses an unknown bot (SpecError)."""
    q, show = result.question, P.wanted(progress)
    shipped = q.candidates.index(q.shipped)
    band = (result.target - result.tolerance, result.target + result.tolerance)
    rows = []
    with tempfile.TemporaryDirectory() as tmp, numba_threads(resolve_threads(threads)):
        for spec in _self_play(result.spec, bots, 1):
            player = CandidatePlayer(q, spec, base or Changes(), Path(tmp), chunk_size, show)
            with P.Bar(2 * games, show, desc=f"panel {spec.p0}") as bar:
                chosen = player.play(result.chosen, 0, games, bar)
                ship = chosen if shipped == result.chosen else player.play(shipped, 0, games, bar)
            figures = rate_figures(chosen)
            holds = figures["lo"] <= band[1] and figures["hi"] >= band[0]
            rows.append({"bot": spec.p0, **figures, **paired_shift(ship, chosen), "holds": holds})
    return pd.DataFrame(rows)


@dataclass
class SetResult:
    """``balance --set``: the greedy sequence of edits and its trade-off."""

    spec: RunSpec
    threshold: float
    first_bound: float
    steps: list[dict[str, Any]] = field(default_factory=list)
    """One row per step (the columns of ``balance_set.csv``; see :func:`balance_set`)."""
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
        return pd.DataFrame(self.steps)


def write_set(result: SetResult, out: Path | str) -> None:
    """``balance_set.csv`` (the trade-off, one row per step), ``balance_set_panel.csv`` with
    ``--panel`` and, last, ``balance_set.json`` (the settings and the same steps)."""
    table = result.table()
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
    tables = {SET_TABLE: table}
    if result.panel is not None:
        tables[SET_PANEL] = result.panel
    write_answer(Path(out), tables, SET_RESULT, body)


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
            eng = Engine.ready(spec, changes)
        with P.Bar(games, show, desc="measure every card") as bar:
            o = play_outcomes(eng, games, chunk_size, bar)
    return o, [u["name"] for u in run_pool(spec, changes).units]


def _card_rows(o: Outcomes, kind: int) -> Rows:
    """Card ``kind``'s holders' rate terms and the first player's margin, per game of ``o``."""
    return (*card_terms(o, kind), o.margin)  # type: ignore[return-value]


def rates_of(o: Outcomes, names: Sequence[str]) -> tuple[pd.DataFrame, float]:
    """Every card's holders' win rate (with its 95% interval) and the first player's
    decisive share, over the games of ``o``."""
    recs = []
    for k, name in enumerate(names):
        e = R.estimate(*card_terms(o, k))
        recs.append({"card": name, "kind": k, "rate": e.rate, "lo": e.lo, "hi": e.hi})
    rates = pd.DataFrame(recs)
    rates["dev"] = (rates.rate - 0.5).abs()
    return rates, R.estimate(*first_terms(o)).rate


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
    after: Mapping[str, int] | None = None,
) -> SetResult:
    """Greedy: fix the worst card with one edit (a race of its single-field moves over
    ``fields``, +/- ``span``), re-measure, repeat; each step verified on seed +
    :data:`VERIFY_SEED_OFFSET`. Starts from ``base`` (default: the shipped cards). When it
    stops and what the verification pairs: ``docs/balance.md``, section 3. ``after``: the
    games the caller plays after it under each bot (``--panel``), counted in its
    projected time at that bot's speed.

    Refuses (RunError), before any game, a loop that could not finish in time: every
    step's measurements, each edit's race of at least two candidates to ``ceiling``, and
    ``after`` (each race is projected again, with all its candidates, when it starts).
    """
    most = 2 * measure_games * (max_edits + 1) + 2 * ceiling * max_edits
    later = sum((after or {}).values())
    panel_games = f", {later:,} games of --panel" if later else ""
    check_time(
        spec,
        base,
        most,
        f"--set's {most + later:,} games ({max_edits + 1} steps of 2 x --measure-games "
        f"{measure_games:,}, {max_edits} races of two candidates to --max-games "
        f"{ceiling:,}{panel_games})",
        "lower --measure-games, --max-games (and --pilot with it) or --max-edits"
        + (" or --panel-games" if later else ""),
        threads,
        progress,
        after=after,
        name="--set",
    )
    changes = base or Changes()
    res = SetResult(
        spec, threshold, first_bound, fields=tuple(f.lower() for f in fields), base=changes
    )
    edits: list[str] = []
    raced: set[tuple[str, str]] = set()
    kw = dict(threads=threads, chunk_size=chunk_size, progress=progress)
    race_kw = dict(tolerance=tolerance, pilot=pilot, ceiling=ceiling, **kw)
    fresh = dataclasses.replace(spec, seed=spec.seed + VERIFY_SEED_OFFSET)
    verified: dict[str, Any] = {"edit": "", "edited_card": ""}
    verified |= {f"verified_{k}": math.nan for k in VERIFIED} | {"race_games": 0}
    before: Outcomes | None = None
    for step in range(max_edits + 1):
        measured, names = play_set(spec, changes, measure_games, **kw)  # type: ignore[arg-type]
        after, _ = play_set(fresh, changes, measure_games, **kw)  # type: ignore[arg-type]
        res.games += 2 * measure_games
        (rates, fp), (vrates, vfp) = rates_of(measured, names), rates_of(after, names)
        rates = rates.sort_values("dev", ascending=False)
        worst, vworst = rates.iloc[0], vrates.iloc[int(vrates.dev.idxmax())]
        if verified["edited_card"]:
            kind = names.index(verified["edited_card"])
            b, a = _card_rows(before, kind), _card_rows(after, kind)  # type: ignore[arg-type]
            figures = {**rate_figures(a), **paired_shift(b, a)}
            verified |= {f"verified_{k}": figures[k] for k in VERIFIED}
        m = MarginMoments.from_margins(measured.margin).figures()
        done = bool(worst.dev <= threshold and abs(fp - 0.5) <= first_bound)
        s = {
            "edits": len(edits),
            "changes": "; ".join(edits),
            "worst_card": worst.card,
            **{f"worst_{k}": worst[k] for k in ("rate", "lo", "hi")},
            "worst_deviation": worst.dev,
            "first_player_decisive": fp,
            "verified_worst_card": str(vworst.card),
            "verified_worst_deviation": float(vworst.dev),
            "verified_first_player_decisive": vfp,
            **verified,
            "first_margin": m["mean"],
            "first_margin_lo": m["lo"],
            "first_margin_hi": m["hi"],
            "games": res.games,
            "within_bounds": done,
        }
        res.steps.append(s)
        before = after
        if echo is not None:
            echo(format_set_step(s))
        if done or step == max_edits:
            break
        edit = _next_edit(spec, rates, changes, res.fields, raced, span, race_kw)
        if edit is None:
            break
        change, race_games = edit
        res.games += race_games
        changes = Changes((*changes.edits, change), changes.card_files)
        edits.append(change.label())
        verified |= {"edit": change.label(), "edited_card": change.card, "race_games": race_games}
    res.changes = changes
    return res


def closer(target: float, before: tuple[Any, Any], after: tuple[Any, Any]) -> bool:
    """Whether ``after``'s rate is shown nearer ``target`` than ``before``'s (paired over the
    same games, one-sided at 95%): an edit that overshoots the target by more than the card
    was off is not closer."""
    gain, se = distance_diff(target, before, after)
    return bool(math.isfinite(gain) and math.isfinite(se) and gain + ONE_SIDED_95 * se < 0)


def set_panel(
    result: SetResult,
    bots: Sequence[str],
    games: int,
    *,
    threads: int | None = None,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    progress: bool | None = None,
) -> pd.DataFrame:
    """The proposed edits together against the cards they started from, under each bot in
    self-play on a new seed: per (bot, edited card) its rate before and after, the paired
    shift, whether it is :func:`closer` to 50%, and the bot's worst card, first player's
    share and VP margin after. Refuses an unknown bot (SpecError)."""
    edited = dict.fromkeys(e.card for e in result.changes.edits[len(result.base.edits) :])
    kw = dict(threads=threads, chunk_size=chunk_size, progress=progress)
    rows = []
    for spec in _self_play(result.spec, bots, PANEL_SEED_OFFSET):
        before, names = play_set(spec, result.base, games, **kw)  # type: ignore[arg-type]
        after, _ = play_set(spec, result.changes, games, **kw)  # type: ignore[arg-type]
        arates, afp = rates_of(after, names)
        worst = arates.iloc[int(arates.dev.idxmax())]
        for card in edited:
            b, a = _card_rows(before, names.index(card)), _card_rows(after, names.index(card))
            fb, fa, s = rate_figures(b), rate_figures(a), paired_shift(b, a)
            row = {"bot": spec.p0, "card": card, "games": games}
            for when, f in (("before", fb), ("after", fa)):
                row |= {f"{k}_{when}": f[k] for k in ("rate", "lo", "hi")}
            row |= {k: s[k] for k in ("shift", "shift_lo", "shift_hi")}
            row |= {"closer": closer(0.5, b[:2], a[:2]), "worst_card_after": str(worst.card)}
            row |= {"worst_deviation_after": float(worst.dev), "first_player_after": afp}
            row |= {f"first_margin_after{x}": fa[f"margin{x}"] for x in ("", "_lo", "_hi")}
            row |= {f"first_margin_shift{x}": s[f"margin_shift{x}"] for x in ("", "_lo", "_hi")}
            rows.append(row)
    return pd.DataFrame(rows)


def format_set_panel(panel: pd.DataFrame) -> list[str]:
    """The ``--set --panel`` re-check as lines."""
    lines = ["Panel: the proposed edits together, under each bot in self-play (new seed):"]
    for bot, g in panel.groupby("bot", sort=False):
        w = g.iloc[0]
        after = signed_text(w.first_margin_after, w.first_margin_after_lo, w.first_margin_after_hi)
        shift = signed_text(w.first_margin_shift, w.first_margin_shift_lo, w.first_margin_shift_hi)
        lines += [
            f"  {bot}: worst card after {w.worst_card_after} "
            f"{w.worst_deviation_after * 100:.2f} points off; first player "
            f"{w.first_player_after:.2%} of decisive games",
            f"    first VP margin after {after} VP, paired shift {shift} VP",
        ]
        for row in g.itertuples():
            lines.append(
                f"    {row.card}: {row.rate_before:.2%} -> "
                f"{ci_text(row.rate_after, row.lo_after, row.hi_after)}, paired shift "
                f"{shift_text(row.shift, row.shift_lo, row.shift_hi)}: "
                f"{'closer to' if row.closer else 'not shown closer to'} 50%"
            )
    held = panel.groupby("bot").closer.all()
    lines.append(
        f"Every edit brings its card closer to 50% under {int(held.sum())} of {len(held)} bots."
    )
    return lines


def _next_edit(
    spec: RunSpec,
    rates: pd.DataFrame,
    changes: Changes,
    fields: Sequence[str],
    raced: set[tuple[str, str]],
    span: int,
    race_kw: dict[str, Any],
) -> tuple[CardChange, int] | None:
    """The next edit and the games its races played: the worst card (``rates`` are in
    order) with a field not raced yet, its fields raced at once (single-field moves);
    ``None`` when no card has one. A race that keeps the card as it is marks its fields
    raced and goes on to the next card."""
    spent = 0
    for row in rates.itertuples():
        left = [f for f in fields if (row.card, f) not in raced]
        if not left:
            continue
        raced.update((row.card, f) for f in left)
        q = card_moves_question(spec, row.card, left, span=span, base=changes)
        r = race(q, spec, base=changes, **race_kw)
        spent += r.games
        chosen = q.candidates[r.chosen]
        moved = [i for i, (v, c) in enumerate(zip(chosen, q.shipped, strict=True)) if v != c]
        if moved:  # else the race kept the card as it is: try the next card
            return CardChange(q.card or row.card, q.names[moved[0]], chosen[moved[0]]), spent
    return None


def format_set_step(s: dict[str, Any]) -> str:
    """One trade-off point (a row of :meth:`SetResult.table`) as a line and, after an edit,
    its verified effect."""
    line = (
        f"  {s['edits']} edit(s) [{s['changes'] or 'none'}]: worst card {s['worst_card']} "
        f"{ci_text(s['worst_rate'], s['worst_lo'], s['worst_hi'])}, "
        f"{s['worst_deviation'] * 100:.2f} points off; first player "
        f"{s['first_player_decisive']:.2%} of decisive games, first VP margin "
        f"{signed_text(s['first_margin'], s['first_margin_lo'], s['first_margin_hi'])} VP; "
        f"verified on a new seed: worst {s['verified_worst_card']} "
        f"{s['verified_worst_deviation'] * 100:.2f} points off, first player "
        f"{s['verified_first_player_decisive']:.2%}"
    )
    if s["edit"]:
        v = {k: s[f"verified_{k}"] for k in VERIFIED}
        margin = signed_text(v["margin_shift"], v["margin_shift_lo"], v["margin_shift_hi"])
        line += (
            f"\n      verified edit {s['edit']}: {s['edited_card']} "
            f"{ci_text(v['rate'], v['lo'], v['hi'])}, paired shift "
            f"{shift_text(v['shift'], v['shift_lo'], v['shift_hi'])} on the same new "
            f"games; first VP margin shift {margin} VP"
        )
    return line
