"""Sweep one card field over every unit kind: which cards are sensitive to what.

For each unit kind of the pool and each delta, ``field += delta`` is applied
to that one kind and the same games are played (common random numbers: same
seed, same game indices) as the baseline; the result is, per card and delta,
the shift of that card's effect (:mod:`sim.analysis.paired`): the win rate of every
(game, seat) that held the card in either arm, paired by (game, seat), with a paired
interval. Significance marks are corrected for the number of cells swept
(Holm's step-down method by default, ``statsmodels.stats.multitest.multipletests``),
so a map of 44 cells does not show two or three "significant" cells by chance.
Each cell also carries the change in how often the card was played and the
first-player shift. The kernel is compiled once: each variant is only a new card table.
This module holds the cells, the table and its text; :mod:`sim.analysis.sweep_dir` plays them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from sim.analysis.paired import card_shifts, first_player_shift, margin_shift
from sim.analysis.signs import FIELD_DIRECTION, flag_lines, plays_moved, wrong_sign
from sim.analysis.sizing import PLAN_PILOT, cached_arm, engine_arm, plan_pairs
from sim.data.changes import FIELDS, CardChange, Changes
from sim.data.spec import RunSpec, SpecError
from sim.run import io, jobs
from sim.run import progress as P
from sim.run.compiled import run_pool
from sim.run.runner import DEFAULT_CHUNK_SIZE, RunError
from sim.run.session import numba_threads, resolve_threads
from sim.run.stats import CORRECTIONS, adjust_p

# card_shifts' columns a sweep row copies, in three groups the row's own columns go between.
_SHIFT_COLUMNS = [
    "games",
    "count_a",
    "count_b",
    "rate_a",
    "rate_b",
    "diff",
    "lo",
    "hi",
    "se_paired",
    "se_unpaired",
    "n_unpaired",
    "p_value",
]
_CONDITIONAL_COUNTS = ["conditional_count_a", "conditional_count_b"]
_CONDITIONAL_SHIFT = [
    "conditional_rate_a",
    "conditional_rate_b",
    "conditional_diff",
    "conditional_lo",
    "conditional_hi",
    "conditional_p_value",
]
MARGIN_COLUMNS = ["margin_a", "margin_b", "margin_diff", "margin_lo", "margin_hi"]
"""The first player's mean VP margin in the baseline and the cell, and its paired shift with
the 95% paired t-interval (:class:`sim.run.margins.MarginShift`)."""
SWEEP_COLUMNS = [
    "kind",
    "card",
    "field",
    "base_value",
    "delta",
    "new_value",
    *_SHIFT_COLUMNS,
    "p_adjusted",
    "significant",
    *_CONDITIONAL_COUNTS,
    "plays_change",
    *_CONDITIONAL_SHIFT,
    "first_player_diff",
    "first_player_lo",
    "first_player_hi",
    *MARGIN_COLUMNS,
    "expected_sign",
    "wrong_sign",
    "plays_moved",
]
"""``expected_sign``: +1 when the cell is a buff, -1 a nerf, 0 no known direction
(:data:`sim.analysis.signs.FIELD_DIRECTION`); ``wrong_sign``: significant with the sign
the change forbids; ``plays_moved``: the play count moved by more than a third."""
@dataclass
class SweepResult:
    """One row per (card, delta) played, and the (card, delta) pairs skipped."""

    spec: RunSpec
    field: str
    deltas: tuple[int, ...]
    table: pd.DataFrame
    """Columns :data:`SWEEP_COLUMNS`; ``rate_a`` is the baseline win rate of the card's holders."""
    skipped: list[dict[str, Any]] = field(default_factory=list)
    """``{"card", "delta", "reason"}`` for values out of the field's range."""
    correction: str = "holm"
    """How ``significant`` was decided: a key of :data:`CORRECTIONS`."""


def adjust(p_values: Sequence[float], method: str = "holm", alpha: float = 0.05) -> tuple:
    """``(reject, p_adjusted)`` for the cells' p-values under ``method`` (NaN never rejects).

    Raises:
        SpecError: ``method`` is not a key of :data:`CORRECTIONS`.
    """
    if method not in CORRECTIONS:
        raise SpecError(f"--correction {method!r}: choose one of {', '.join(CORRECTIONS)}")
    return adjust_p(p_values, method, alpha)


def parse_deltas(text: str) -> tuple[int, ...]:
    """``"-1,+1"`` -> ``(-1, 1)``; whole, non-zero, distinct numbers.

    Raises:
        SpecError: anything else.
    """
    out: list[int] = []
    for part in text.split(","):
        part = part.strip()
        try:
            d = int(part)
        except ValueError:
            raise SpecError(
                f"--delta {text!r}: {part!r} is not a whole number (write e.g. -1,+1)"
            ) from None
        if d == 0:
            raise SpecError(f"--delta {text!r}: a delta of 0 changes nothing")
        if d in out:
            raise SpecError(f"--delta {text!r}: {d:+d} is given twice")
        out.append(d)
    return tuple(out)


def select_kinds(units: list[dict[str, Any]], cards: Sequence[str] = ()) -> list[int]:
    """Kind ids to sweep: all, or those named (exact or case-insensitive name, or kind id)."""
    if not cards:
        return list(range(len(units)))
    names = [u["name"] for u in units]
    folded = [n.casefold() for n in names]
    kinds: list[int] = []
    for c in cards:
        c = c.strip()
        if c in names:
            k = names.index(c)
        elif c.casefold() in folded:
            k = folded.index(c.casefold())
        elif c.isdigit() and int(c) < len(units):
            k = int(c)
        else:
            raise SpecError(f"--card {c!r}: no unit of that name or kind id in this mix")
        if k not in kinds:
            kinds.append(k)
    return kinds


def plan_sweep(
    spec: RunSpec,
    field: str,
    deltas: Sequence[int],
    cards: Sequence[str],
    width: float,
    threads: int | None = None,
    progress: bool | None = None,
) -> Any:
    """A short pilot of the baseline and every cell, and the games and time a sweep needs for
    ``width`` on every cell's holders' shift (a :class:`sim.analysis.sizing.Plan`)."""
    from sim.run.engine import Engine  # deferred: loads the batch kernel

    pool, todo, _ = plan_cells(spec, field, deltas, cards, None, DEFAULT_CHUNK_SIZE, "holm")
    show = P.wanted(progress)
    pilot = min(PLAN_PILOT, spec.games)
    with numba_threads(resolve_threads(threads)):
        with P.kernel_ready(show):
            engine = Engine(spec)
            engine.warmup()
        baseline = cached_arm(engine)
        pairs, kinds = [], []
        for k, d in todo:
            name = pool.units[k]["name"]
            edited = cell_changes(Changes(), name, field, d)
            pairs.append((baseline, engine_arm(Engine(spec, changes=edited))))
            kinds.append(({name: k}, {name: k}))
        with P.Bar(2 * pilot * len(todo), show, desc="plan: pilot") as bar:
            return plan_pairs(pairs, kinds, pilot, width, len(todo) + 1, bar, first=False)


def plan_cells(
    spec: RunSpec,
    field: str,
    deltas: Sequence[int],
    cards: Sequence[str],
    base: Changes | None,
    chunk_size: int,
    correction: str,
) -> tuple[Any, list[tuple[int, int]], list[dict[str, Any]]]:
    """Check the arguments and list the cells: ``(pool, [(kind, delta)], skipped)``.

    Raises:
        SpecError: a bad field, correction or card. RunError: a bad chunk size.
    """
    if field not in FIELDS:
        raise SpecError(f"--field {field!r}: valid fields: {', '.join(FIELDS)}")
    if chunk_size < 1:
        raise RunError(f"--chunk-size must be at least 1, got {chunk_size}")
    adjust([], correction)  # refuse a bad --correction before any game is played
    pool = run_pool(spec, base or Changes())
    kinds = select_kinds(pool.units, cards)
    lo, hi = FIELDS[field]
    todo, skipped = [], []
    for k in kinds:
        unit = pool.units[k]
        for d in deltas:
            new = unit[field] + d
            if lo <= new <= hi:
                todo.append((k, d))
            else:
                skipped.append(
                    {
                        "card": unit["name"],
                        "delta": d,
                        "reason": f"{field} would be {new}, outside {lo}..{hi}",
                    }
                )
    if not todo:
        raise SpecError(
            f"every cell is out of range: no card's {field} stays within {lo}..{hi} after "
            f"--delta {','.join(f'{d:+d}' for d in deltas)}"
        )
    return pool, todo, skipped


def cell_changes(base: Changes, name: str, field: str, delta: int) -> Changes:
    """The edits a cell plays with: the base edits plus ``field += delta`` on card ``name``."""
    return Changes((*base.edits, CardChange(name, field, delta, relative=True)), base.card_files)


def cell_row(
    baseline: Any, played: Any, kind: int, unit: dict[str, Any], field: str, delta: int
) -> dict[str, Any]:
    """One cell's table row (without the corrected ``p_adjusted`` and ``significant``)."""
    name = unit["name"]
    shift = card_shifts(baseline, played, {name: kind}).iloc[0]
    fp = first_player_shift(baseline, played)
    margin = margin_shift(baseline, played)
    figures = {} if margin is None else margin.figures()
    keys = ("a_mean", "b_mean", "diff", "lo", "hi")
    return {
        "kind": kind,
        "card": name,
        "field": field,
        "base_value": unit[field],
        "delta": delta,
        "new_value": unit[field] + delta,
        **{c: shift[c] for c in (*_SHIFT_COLUMNS, *_CONDITIONAL_COUNTS, *_CONDITIONAL_SHIFT)},
        "plays_change": int(shift["conditional_count_b"]) - int(shift["conditional_count_a"]),
        "first_player_diff": fp.diff,
        "first_player_lo": fp.lo,
        "first_player_hi": fp.hi,
        **{c: figures.get(k, np.nan) for c, k in zip(MARGIN_COLUMNS, keys, strict=True)},
    }


def finish(
    spec: RunSpec,
    field: str,
    deltas: Sequence[int],
    rows: list[dict[str, Any]],
    skipped: list[dict[str, Any]],
    correction: str,
) -> SweepResult:
    """The sweep's table from its cells' rows, with the multiple-testing correction applied."""
    table = pd.DataFrame(rows, columns=SWEEP_COLUMNS)
    reject, adjusted = adjust(table["p_value"].to_numpy(), correction)
    table["p_adjusted"] = adjusted
    table["significant"] = reject
    table["expected_sign"] = np.sign(table["delta"]).astype(int) * FIELD_DIRECTION[field]
    table["wrong_sign"] = [
        wrong_sign(e, d, s)
        for e, d, s in zip(table.expected_sign, table["diff"], table.significant, strict=True)
    ]
    table["plays_moved"] = [
        plays_moved(int(a), int(b))
        for a, b in zip(table.conditional_count_a, table.conditional_count_b, strict=True)
    ]
    table["wrong_sign"] = table["wrong_sign"].astype(bool)
    table["plays_moved"] = table["plays_moved"].astype(bool)
    return SweepResult(
        spec=spec,
        field=field,
        deltas=tuple(deltas),
        table=table,
        skipped=skipped,
        correction=correction,
    )


def cells_view(result: SweepResult) -> pd.DataFrame:
    """The sweep's cells as text columns, one row per (card, delta): what ``omensim sweep``
    prints and the report shows."""
    t = result.table
    return pd.DataFrame(
        {
            "kind": t.kind,
            "card": t.card,
            result.field: [f"{b}->{n}" for b, n in zip(t.base_value, t.new_value, strict=True)],
            "holders win": [f"{r:.2%}" if np.isfinite(r) else "-" for r in t.rate_a],
            "shift (pts)": [f"{d * 100:+.2f}" if np.isfinite(d) else "-" for d in t["diff"]],
            "95% CI": [
                f"{lo * 100:+.2f} to {hi * 100:+.2f}" if np.isfinite(lo) else "-"
                for lo, hi in zip(t.lo, t.hi, strict=True)
            ],
            "sig": ["*" if s else "" for s in t.significant],
            "flag": ["sign" if w else "" for w in t.wrong_sign],
            "plays": [
                f"{b:,} ({d:+,})"
                for b, d in zip(t.conditional_count_b, t.plays_change, strict=True)
            ],
            "cond. shift": [
                f"{d * 100:+.2f}" if np.isfinite(d) else "-" for d in t.conditional_diff
            ],
            "1st-player shift": [
                f"{d * 100:+.2f}" if np.isfinite(d) else "-" for d in t.first_player_diff
            ],
            "1st VP margin shift (95% CI)": [
                f"{d:+.2f} ({lo:+.2f} to {hi:+.2f})" if np.isfinite(d) else "-"
                for d, lo, hi in zip(t.margin_diff, t.margin_lo, t.margin_hi, strict=True)
            ],
        }
    )


def format_table(result: SweepResult) -> str:
    """The sweep as text: one line per (card, delta), largest shifts first."""
    t = result.table
    if t.empty:
        return "Nothing to play: every (card, delta) was out of range."
    show = cells_view(result)
    with pd.option_context("display.max_rows", None, "display.width", None):
        text = show.to_string(index=False)
    lines = [line.rstrip() for line in text.splitlines()]
    lines.append(
        "shift: change in the win rate of every (game, seat) that held the card in either run "
        f"(paired); sig *: significant after {CORRECTIONS[result.correction]}. plays: "
        "(game, seat) that played it in B (change from A); cond. shift: the played-only rate, "
        "whose population moves with the change; 1st-player shift: in points; 1st VP margin "
        "shift: the first player's mean VP margin, cell minus baseline (paired t-interval). "
        "flag: "
        "'sign' when the shift is significant against the change's direction (see the lines "
        "below); a play count that moved is the bot adapting its play, shown in plays."
    )
    for row in t[t.wrong_sign].itertuples():
        hint = (
            f"check it under other bots: omensim compare --mix {result.spec.mix} "
            f'--change "{row.card}.{result.field}={row.delta:+d}" --panel '
            "greedy,economic,aggressive,defensive"
        )
        lines += flag_lines(
            f"{row.card} {result.field} {row.delta:+d}",
            int(row.expected_sign),
            row.diff,
            bool(row.significant),
            hint,
        )
    return "\n".join(lines)


SWEEP_FILES = ("sweep.csv", "skipped.csv", "sweep.png", "sweep.parquet")
"""The tables of a finished sweep, in the order :func:`write_outputs` writes them."""
SWEEP_STATE = (jobs.JOB_NAME, jobs.LOG_NAME, "baseline", "cells")
"""What a sweep keeps in ``--out`` while it plays (:mod:`sim.analysis.sweep_dir`)."""


def check_sweep_out(out: Path, force: bool) -> None:
    """Refuse ``--out`` before playing: absent or empty, or an earlier sweep with ``force``."""
    ours = {*SWEEP_FILES, *SWEEP_STATE, *jobs.JOB_FILES}
    io.check_output_dir(out, force, ours=lambda e: e.name in ours, what="sweep")


def write_outputs(result: SweepResult, out: Path) -> list[Path]:
    """``sweep.csv``, ``skipped.csv`` (if any), ``sweep.png`` and, last, ``sweep.parquet``.

    Each file is written atomically (:func:`sim.run.io.atomic_path`); the table
    comes last because its presence says the sweep in ``out`` is finished.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    with io.atomic_path(out / "sweep.csv") as tmp:
        result.table.to_csv(tmp, index=False)
    paths.append(out / "sweep.csv")
    if result.skipped:
        with io.atomic_path(out / "skipped.csv") as tmp:
            pd.DataFrame(result.skipped).to_csv(tmp, index=False)
        paths.append(out / "skipped.csv")
    with io.atomic_path(out / "sweep.png") as tmp:
        heatmap(result, tmp)
    paths.append(out / "sweep.png")
    with io.atomic_path(out / "sweep.parquet") as tmp:
        result.table.to_parquet(tmp, index=False)
    return [out / "sweep.parquet", *paths]


def heatmap(result: SweepResult, path: Path) -> Path:
    """A PNG heat map: cards down, deltas across, colour = holders' win-rate shift in points.

    Cells significant after the sweep's multiple-testing correction are marked
    with ``*``; each cell also shows the play-count change and the first-player
    shift. Text is white on dark cells so every label stays readable.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = result.table
    cards = list(dict.fromkeys(t.card))
    deltas = list(result.deltas)
    grid = np.full((len(cards), len(deltas)), np.nan)
    sig = np.zeros_like(grid, bool)
    note = np.full(grid.shape, "", object)
    for row in t.itertuples():
        i, j = cards.index(row.card), deltas.index(row.delta)
        grid[i, j] = row.diff * 100
        sig[i, j] = bool(row.significant)
        base_plays = row.conditional_count_a
        plays = f"{row.plays_change / base_plays:+.0%}" if base_plays else f"{row.plays_change:+d}"
        note[i, j] = f"plays {plays}, 1st {row.first_player_diff * 100:+.1f}"
    lim = float(np.nanmax(np.abs(grid))) if np.isfinite(grid).any() else 1.0
    lim = lim or 1.0
    fig, ax = plt.subplots(figsize=(3.5 + 2.0 * len(deltas), 1.2 + 0.42 * len(cards)))
    im = ax.imshow(grid, cmap="RdBu_r", vmin=-lim, vmax=lim, aspect="auto")
    ax.set_xticks(range(len(deltas)), [f"{result.field} {d:+d}" for d in deltas])
    ax.set_yticks(range(len(cards)), cards, fontsize=8)
    for i in range(len(cards)):
        for j in range(len(deltas)):
            if np.isfinite(grid[i, j]):
                mark = "*" if sig[i, j] else ""
                # RdBu_r is dark at both ends: white text there, black in the pale middle.
                colour = "white" if abs(grid[i, j]) > 0.55 * lim else "black"
                ax.text(
                    j,
                    i,
                    f"{grid[i, j]:+.1f}{mark}\n{note[i, j]}",
                    ha="center",
                    va="center",
                    fontsize=6.5,
                    color=colour,
                )
    fig.colorbar(im, ax=ax, label="win-rate shift (points)")
    spec = result.spec
    ax.set_title(
        f"{spec.mix}: win rate of the card's holders, {spec.games:,} paired games\n"
        f"(* = significant after {result.correction}; seed {spec.seed})",
        fontsize=9,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)
    return path
