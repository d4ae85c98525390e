"""Sweep one card field over every unit kind: which cards are sensitive to what.

Each cell (card, delta) plays the baseline's games with ``field += delta`` on that one
card (common random numbers); its row is the shift of the card's holders' win rate
(:func:`sim.analysis.paired.card_shifts`), marked significant after a correction for the
number of cells. A sweep is a job (:mod:`sim.run.jobs`): the baseline and each cell are
run folders (``baseline``, ``cells/<n>``; with ``--until-ci`` the job's step tables), and
each finished cell's row a line of its log, so ``--resume`` (:func:`resume_sweep`) plays
only what is missing.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from sim.analysis.compare import KeptSteps, check_play, finish_run, plan_spec, read_outcomes
from sim.analysis.paired import card_shifts, first_player_shift, margin_shift
from sim.analysis.signs import FIELD_DIRECTION, flag_lines, plays_moved, wrong_sign
from sim.analysis.sizing import PLAN_PILOT, cached_arm, engine_arm, plan_pairs, play_until
from sim.data.cards import name_key
from sim.data.changes import FIELDS, MAX_VALUES, CardChange, Changes
from sim.data.spec import RunSpec, SpecError
from sim.run import io, jobs, ledger, runner
from sim.run import progress as P
from sim.run.compiled import run_pool
from sim.run.runner import DEFAULT_CHUNK_SIZE
from sim.run.session import numba_threads, resolve_threads
from sim.run.stats import CORRECTIONS, adjust_p, pct, points, signed_text

SWEEP_COLUMNS = [
    *("kind", "card", "field", "base_value", "delta", "new_value", "games"),
    *("count_a", "count_b", "rate_a", "rate_b", "diff", "lo", "hi", "se_paired", "se_unpaired"),
    *("n_unpaired", "p_value", "p_adjusted", "significant"),
    *("conditional_count_a", "conditional_count_b", "plays_change"),
    *(f"conditional_{k}" for k in ("rate_a", "rate_b", "diff", "lo", "hi", "p_value")),
    *(f"first_player_{k}" for k in ("diff", "lo", "hi")),
    *(f"margin_{k}" for k in ("a", "b", "diff", "lo", "hi")),
    *("expected_sign", "wrong_sign", "plays_moved"),
]
"""The columns of :func:`sim.analysis.paired.card_shifts` for the card's holders, its
corrected ``p_adjusted`` and ``significant``, the first player's win-rate shift and VP
margin (``margin_*``: baseline, cell, paired shift and its t-interval), and
``expected_sign`` (+1 a buff, -1 a nerf, 0 unknown: :data:`sim.analysis.signs.FIELD_DIRECTION`),
``wrong_sign`` (significant against it) and ``plays_moved`` (the play count moved by more
than a third)."""


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


def parse_numbers(text: str, option: str) -> tuple[int, ...]:
    """``"-1,+1"`` -> ``(-1, 1)``, ``"1-4"`` -> ``(1, 2, 3, 4)``: whole numbers, distinct, in
    the order given, at most :data:`sim.data.changes.MAX_VALUES` of them.

    Raises:
        SpecError: anything else, naming ``option``.
    """
    out: dict[int, None] = {}  # insertion-ordered, and a repeat is found in constant time
    for part in (p.strip() for p in text.split(",")):
        bounds = part.split("-", 1) if "-" in part[1:] else [part]
        try:
            if len(bounds) == 2 and bounds[0]:
                lo, hi = int(bounds[0]), int(bounds[1])
            else:
                lo = hi = int(part)
        except ValueError:
            raise SpecError(
                f"{option} {text!r}: {part!r} is not a whole number or a range like 1-4"
            ) from None
        if hi < lo:
            raise SpecError(f"{option} {text!r}: the range {part!r} is empty")
        # Counted before the range is built: "1-99999999999999" would fill memory first.
        if len(out) + hi - lo + 1 > MAX_VALUES:
            raise SpecError(
                f"{option} {text!r}: more than {MAX_VALUES:,} values, more than any rule or "
                "card field can take"
            )
        for v in range(lo, hi + 1):
            if v in out:
                raise SpecError(f"{option} {text!r}: {v} is given twice")
            out[v] = None
    return tuple(out)


def parse_deltas(text: str) -> tuple[int, ...]:
    """``"-1,+1"`` -> ``(-1, 1)``; whole, non-zero, distinct numbers.

    Raises:
        SpecError: anything else.
    """
    deltas = parse_numbers(text, "--delta")
    if 0 in deltas:
        raise SpecError(f"--delta {text!r}: a delta of 0 changes nothing")
    return deltas


def select_kinds(units: list[dict[str, Any]], cards: Sequence[str] = ()) -> list[int]:
    """Kind ids to sweep: all, or those named (a name as ``--change`` finds it:
    :func:`sim.data.cards.name_key`; or a kind id), each once."""
    if not cards:
        return list(range(len(units)))
    keys = [name_key(u["name"]) for u in units]
    kinds: list[int] = []
    for c in (c.strip() for c in cards):
        if name_key(c) in keys:
            kinds.append(keys.index(name_key(c)))
        elif c.isdigit() and int(c) < len(units):
            kinds.append(int(c))
        else:
            raise SpecError(f"--card {c!r}: no unit of that name or kind id in this mix")
    return list(dict.fromkeys(kinds))


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

    pool, todo, _ = plan_cells(spec, field, deltas, cards, None, "holm")
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
    correction: str,
) -> tuple[Any, list[tuple[int, int]], list[dict[str, Any]]]:
    """Check the arguments and list the cells: ``(pool, [(kind, delta)], skipped)``.

    Raises:
        SpecError: a bad field, correction or card.
    """
    if field not in FIELDS:
        raise SpecError(f"--field {field!r}: valid fields: {', '.join(FIELDS)}")
    if correction not in CORRECTIONS:
        raise SpecError(f"--correction {correction!r}: choose one of {', '.join(CORRECTIONS)}")
    pool = run_pool(spec, base or Changes())
    lo, hi = FIELDS[field]
    todo, skipped = [], []
    for k in select_kinds(pool.units, cards):
        unit = pool.units[k]
        for d in deltas:
            new = unit[field] + d
            if lo <= new <= hi:
                todo.append((k, d))
            else:
                why = f"{field} would be {new}, outside {lo}..{hi}"
                skipped.append({"card": unit["name"], "delta": d, "reason": why})
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
    shift = card_shifts(baseline, played, {unit["name"]: kind}).iloc[0]
    fp = first_player_shift(baseline, played)
    margin = margin_shift(baseline, played)
    m = {} if margin is None else margin.figures()
    margins = {"margin_a": "a_mean", "margin_b": "b_mean", "margin_diff": "diff"}
    margins |= {"margin_lo": "lo", "margin_hi": "hi"}
    return {
        "kind": kind,
        "card": unit["name"],
        "field": field,
        "base_value": unit[field],
        "delta": delta,
        "new_value": unit[field] + delta,
        **shift.drop(["card", "kind_a", "kind_b"]).to_dict(),
        "plays_change": int(shift["conditional_count_b"]) - int(shift["conditional_count_a"]),
        **{f"first_player_{k}": getattr(fp, k) for k in ("diff", "lo", "hi")},
        **{column: m.get(key, np.nan) for column, key in margins.items()},
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
    t = pd.DataFrame(rows, columns=SWEEP_COLUMNS)
    t["significant"], t["p_adjusted"] = adjust_p(t["p_value"].to_numpy(), correction)
    t["expected_sign"] = np.sign(t["delta"]).astype(int) * FIELD_DIRECTION[field]
    cells = t.expected_sign, t["diff"], t.significant
    t["wrong_sign"] = np.array(list(map(wrong_sign, *cells)), bool)
    counts = t.conditional_count_a.astype(int), t.conditional_count_b.astype(int)
    t["plays_moved"] = np.array(list(map(plays_moved, *counts)), bool)
    return SweepResult(spec, field, tuple(deltas), t, skipped, correction)


def cells_view(result: SweepResult) -> pd.DataFrame:
    """The sweep's cells as text columns, one row per (card, delta): what ``omensim sweep``
    prints and the report shows."""
    t = result.table
    margins = zip(t.margin_diff, t.margin_lo, t.margin_hi, strict=True)
    return pd.DataFrame(
        {
            "kind": t.kind,
            "card": t.card,
            result.field: [f"{b}->{n}" for b, n in zip(t.base_value, t.new_value, strict=True)],
            "holders win": t.rate_a.map(pct),
            "shift (pts)": t["diff"].map(points),
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
            "cond. shift": t.conditional_diff.map(points),
            "1st-player shift": t.first_player_diff.map(points),
            "1st VP margin shift (95% CI)": [signed_text(*m) for m in margins],
        }
    )


def format_table(result: SweepResult) -> str:
    """The sweep as text: one line per (card, delta), largest shifts first."""
    t = result.table
    if t.empty:
        return "Nothing to play: every (card, delta) was out of range."
    with pd.option_context("display.max_rows", None, "display.width", None):
        text = cells_view(result).to_string(index=False)
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
        change = f"{row.card} {result.field} {row.delta:+d}"
        lines += flag_lines(change, int(row.expected_sign), row.diff, bool(row.significant), hint)
    return "\n".join(lines)


KIND, BASELINE, CELLS = "sweep", "baseline", "cells"
SWEEP_FILES = ("sweep.csv", "skipped.csv", "sweep.png", "sweep.parquet")
"""The tables of a finished sweep, in the order :func:`write_outputs` writes them."""
SWEEP_OURS = (*SWEEP_FILES, BASELINE, CELLS)
"""What a sweep writes in ``--out`` besides the job's own files."""


def write_outputs(result: SweepResult, out: Path) -> None:
    """``sweep.csv``, ``skipped.csv`` (if any), ``sweep.png`` and, last (its presence says
    the sweep is finished), ``sweep.parquet``; each written atomically."""
    with io.atomic_path(out / "sweep.csv") as tmp:
        result.table.to_csv(tmp, index=False)
    if result.skipped:
        with io.atomic_path(out / "skipped.csv") as tmp:
            pd.DataFrame(result.skipped).to_csv(tmp, index=False)
    with io.atomic_path(out / "sweep.png") as tmp:
        heatmap(result, tmp)
    with io.atomic_path(out / "sweep.parquet") as tmp:
        result.table.to_parquet(tmp, index=False)


def heatmap(result: SweepResult, path: Path) -> Path:
    """A PNG heat map: cards down, deltas across, colour = holders' win-rate shift in points;
    ``*`` marks a cell significant after the correction, and each cell shows its play-count
    change and first-player shift (white text on the dark cells)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = result.table
    cards, deltas = list(dict.fromkeys(t.card)), list(result.deltas)
    grid = t.pivot(index="card", columns="delta", values="diff").reindex(cards, columns=deltas)
    grid = grid.to_numpy(float) * 100
    lim = float(np.nanmax(np.abs(grid))) if np.isfinite(grid).any() else 1.0
    lim = lim or 1.0
    fig, ax = plt.subplots(figsize=(3.5 + 2.0 * len(deltas), 1.2 + 0.42 * len(cards)))
    im = ax.imshow(grid, cmap="RdBu_r", vmin=-lim, vmax=lim, aspect="auto")
    ax.set_xticks(range(len(deltas)), [f"{result.field} {d:+d}" for d in deltas])
    ax.set_yticks(range(len(cards)), cards, fontsize=8)
    for row in t.itertuples():
        i, j = cards.index(row.card), deltas.index(row.delta)
        if not np.isfinite(grid[i, j]):
            continue
        base = row.conditional_count_a
        plays = f"{row.plays_change / base:+.0%}" if base else f"{row.plays_change:+d}"
        text = f"{grid[i, j]:+.1f}{'*' if row.significant else ''}\nplays {plays}, "
        text += f"1st {row.first_player_diff * 100:+.1f}"
        # RdBu_r is dark at both ends: white text there, black in the pale middle.
        colour = "white" if abs(grid[i, j]) > 0.55 * lim else "black"
        ax.text(j, i, text, ha="center", va="center", fontsize=6.5, color=colour)
    fig.colorbar(im, ax=ax, label="win-rate shift (points)")
    ax.set_title(
        f"{result.spec.mix}: win rate of the card's holders, {result.spec.games:,} paired "
        f"games\n(* = significant after {result.correction}; seed {result.spec.seed})",
        fontsize=9,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)
    return path


def sweep(
    spec: RunSpec,
    field: str,
    deltas: Sequence[int],
    cards: Sequence[str] = (),
    base: Changes | None = None,
    threads: int | None = None,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    progress: bool | None = None,
    correction: str = "holm",
    backend: Any = None,
    until_ci: float | None = None,
    out: Path | str | None = None,
    force: bool = False,
) -> SweepResult:
    """Play the baseline once and each (card, delta) variant over the same games, into
    ``out`` or a temporary folder removed after.

    ``spec`` names the games (seed and ``0..games-1``); ``field`` one of
    :data:`sim.data.changes.FIELDS`, ``deltas`` the amounts added to it (a value out of the
    field's range is skipped and listed in ``SweepResult.skipped``); ``cards`` restricts the
    sweep to these units; ``base`` the edits every run starts from; ``correction`` a key of
    :data:`sim.run.stats.CORRECTIONS`. ``until_ci`` stops each cell at the first kernel call
    after which its holders' shift has a paired 95% half-width of at most this
    (``spec.games`` is the ceiling). The rest is as for :func:`sim.run.runner.run`.

    Raises:
        SpecError: a bad field, delta, card or correction. RunError: a bad chunk size,
            ``until_ci`` or output folder, or more games than the time limit allows.
    """
    base = base or Changes()
    plan_cells(spec, field, deltas, cards, base, correction)  # refuse bad input first
    check_play(chunk_size, until_ci, backend)
    plan = {
        "spec": dataclasses.asdict(spec),
        "field": field,
        "deltas": list(deltas),
        "cards": list(cards),
        "base": base.describe(),
        "chunk_size": chunk_size,
        "correction": correction,
        "until_ci": until_ci,
    }
    with jobs.folder(out, KIND) as where:
        jobs.check_out(where, KIND, force, SWEEP_OURS)  # before the engine is built
        start = functools.partial(jobs.Job.start, where, KIND, plan, force=force, ours=SWEEP_OURS)
        return _play(plan, start, threads, progress, backend)


def resume_sweep(
    out: Path | str, threads: int | None = None, progress: bool | None = None, backend: Any = None
) -> SweepResult:
    """Finish the sweep in ``out``: skip its logged cells, finish its cut runs, play the rest.

    Raises:
        RunError: ``out`` holds no sweep, a finished sweep, one whose plan or log was
            edited, or one whose run key differs from the current code's (one line).
    """
    with jobs.Job.resume(out, KIND) as job:
        return _play(job.plan, job.keyed, threads, progress, backend)


def output_paths(out: Path) -> list[Path]:
    """The tables a finished sweep folder holds, in the order they were written."""
    return [out / name for name in SWEEP_FILES if (out / name).is_file()]


def _play(
    plan: dict[str, Any],
    open_job: Callable[..., jobs.Job],
    threads: int | None,
    progress: bool | None,
    backend: Any,
) -> SweepResult:
    """Play (or read back from the job's log) every cell of ``plan``; ``open_job(key=...)``
    gives the job once the engine has checked the cards and the time the sweep needs."""
    from sim.run.engine import Engine  # deferred: importing it loads the batch kernel

    spec = plan_spec(plan["spec"])
    base = Changes.parse(plan["base"]["change"], plan["base"]["cards"])
    field, deltas, chunk = plan["field"], tuple(plan["deltas"]), int(plan["chunk_size"])
    until_ci = plan.get("until_ci")
    check_play(chunk, until_ci, backend)  # a resume may be handed a backend
    pool, todo, skipped = plan_cells(spec, field, deltas, plan["cards"], base, plan["correction"])
    show = P.wanted(progress)
    n_threads = resolve_threads(threads if backend is None else None)
    with numba_threads(n_threads):
        with P.kernel_ready(show):
            engine = Engine(spec, changes=base)
            engine.warmup()
        # the baseline and every cell, refused up front if too many
        total = (len(todo) + 1) * spec.games
        runner.check_projected_time(engine, total, n_threads, runner.backend_workers(backend))
    with open_job(key=ledger.run_key(spec, engine.metadata)) as job, numba_threads(n_threads):
        out = job.out
        rows = {e["cell"]: e["row"] for e in job.logged().values() if "cell" in e}
        if until_ci is None:
            finish_run(out / BASELINE, spec, base or None, chunk, threads, show, backend)
            baseline = read_outcomes(out / BASELINE, len(pool.units))
        else:
            recall = cached_arm(KeptSteps(job, BASELINE, engine))  # every cell pairs with it
        bar = P.Bar(len(todo) * spec.games * 2, show and until_ci is not None, desc="sweep")

        def play_cell(i: int, k: int, d: int) -> dict[str, Any]:
            unit = pool.units[k]
            edited = cell_changes(base, unit["name"], field, d)
            if until_ci is None:
                run_dir = out / CELLS / f"{i:05d}"
                finish_run(run_dir, spec, edited or None, chunk, threads, show, backend)
                played = read_outcomes(run_dir, len(pool.units))
                return cell_row(baseline, played, k, unit, field, d)
            bar.describe(f"sweep {i + 1}/{len(todo)}: {unit['name']} {field} {d:+d}")
            arm = engine_arm(KeptSteps(job, f"c{i:05d}", Engine(spec, changes=edited)))
            kinds = {unit["name"]: k}
            got = play_until([recall, arm], spec.games, until_ci, kinds, kinds, bar, first=False)
            return cell_row(got.a, got.b, k, unit, field, d)

        for i, (k, d) in enumerate(todo):
            if i not in rows:
                row = {
                    c: v.item() if hasattr(v, "item") else v for c, v in play_cell(i, k, d).items()
                }
                rows[i] = job.append({"cell": i, "row": row})["row"]
            # its row is what the sweep keeps; the rows it was computed from are big
            shutil.rmtree(out / CELLS / f"{i:05d}", ignore_errors=True)
            job.drop_tables(f"c{i:05d}")
        bar.close()
        with contextlib.suppress(OSError):
            (out / CELLS).rmdir()
        result = finish(
            spec, field, deltas, [rows[i] for i in range(len(todo))], skipped, plan["correction"]
        )
        write_outputs(result, out)
        job.finish()
    return result


def read_sweep(out: Path | str) -> SweepResult:
    """A finished sweep folder back as a :class:`SweepResult`: its plan
    (the spec, field, deltas, correction), ``sweep.parquet`` and ``skipped.csv``.

    Raises:
        RunError: ``out`` holds no finished sweep. JobReadError: a file edited since.
    """
    out = Path(out)
    plan = jobs.read_finished(out, KIND)["plan"]
    table = pd.read_parquet(out / "sweep.parquet")
    skipped_csv = out / "skipped.csv"
    skipped = pd.read_csv(skipped_csv).to_dict("records") if skipped_csv.is_file() else []
    field, deltas, correction = plan["field"], tuple(plan["deltas"]), plan["correction"]
    return SweepResult(plan_spec(plan["spec"]), field, deltas, table, skipped, correction)
