"""A sweep played into a job folder (:mod:`sim.run.jobs`), so a cut one can be finished.

The baseline and each cell (card, delta) are ordinary run folders (``baseline``, then
``cells/<n>`` until the cell's row is logged), or with ``--until-ci`` the step tables of
the job; each finished cell's row is a line of the job's log. A cell's row depends only on
the plan, so ``omensim sweep --resume OUT`` (:func:`resume_sweep`) skips the logged cells,
finishes a cut run and plays the rest to the table an uninterrupted sweep writes.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from sim.analysis.compare import (
    check_until_ci,
    finish_run,
    plan_spec,
    read_outcomes,
    stored_arm,
)
from sim.analysis.sizing import play_until
from sim.analysis.sweep import (
    SWEEP_FILES,
    SWEEP_STATE,
    SweepResult,
    cell_changes,
    cell_row,
    check_sweep_out,
    finish,
    plan_cells,
    write_outputs,
)
from sim.data.changes import Changes
from sim.data.spec import RunSpec
from sim.run import io, jobs, ledger, runner
from sim.run import progress as P
from sim.run.runner import DEFAULT_CHUNK_SIZE
from sim.run.session import RunError, numba_threads, resolve_threads

PLAN_NAME, CELLS_LOG, BASELINE, CELLS = SWEEP_STATE
KIND = "sweep"
SWEEP_OURS = (*SWEEP_FILES, *SWEEP_STATE)


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
    plan_cells(spec, field, deltas, cards, base, chunk_size, correction)  # refuse bad input first
    check_until_ci(until_ci, backend)
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
    if out is None:  # one code path: a folder, a temporary one when none is asked for
        with tempfile.TemporaryDirectory(prefix="omensim-sweep-") as tmp:
            return _play(Path(tmp) / KIND, plan, threads, progress, backend, fresh=True)
    out = io.local_out(out)
    check_sweep_out(out, force)
    return _play(out, plan, threads, progress, backend, fresh=True, force=force)


def resume_sweep(
    out: Path | str,
    threads: int | None = None,
    progress: bool | None = None,
    backend: Any = None,
) -> SweepResult:
    """Finish the sweep in ``out``: skip its logged cells, finish its cut runs, play the rest.

    Raises:
        RunError: ``out`` holds no sweep, a finished sweep, one whose plan or log was
            edited, or one whose run key differs from the current code's (one line).
    """
    out = io.local_out(out)
    with jobs.Job.resume(out, KIND) as job:  # checked (and released) before the engine is built
        plan = job.plan
    return _play(out, plan, threads, progress, backend, fresh=False)


def output_paths(out: Path) -> list[Path]:
    """The tables a finished sweep folder holds, in the order they were written."""
    return [out / name for name in SWEEP_FILES if (out / name).is_file()]


def _play(
    out: Path,
    plan: dict[str, Any],
    threads: int | None,
    progress: bool | None,
    backend: Any,
    *,
    fresh: bool,
    force: bool = False,
) -> SweepResult:
    from sim.run.engine import Engine  # deferred: importing it loads the batch kernel

    spec = plan_spec(plan["spec"])
    base = Changes.parse(plan["base"]["change"], plan["base"]["cards"])
    field, deltas, chunk = plan["field"], tuple(plan["deltas"]), int(plan["chunk_size"])
    until_ci = plan.get("until_ci")
    check_until_ci(until_ci, backend)  # a resume may be handed a backend
    pool, todo, skipped = plan_cells(
        spec, field, deltas, plan["cards"], base, chunk, plan["correction"]
    )
    show = P.wanted(progress)
    n_threads = resolve_threads(threads if backend is None else None)
    with numba_threads(n_threads):
        with P.kernel_ready(show):
            engine = Engine(spec, changes=base)
            engine.warmup()
        # the baseline and every cell, refused up front if too many
        total = (len(todo) + 1) * spec.games
        runner.check_projected_time(engine, total, n_threads, runner.backend_workers(backend))
    key = ledger.run_key(spec, engine.metadata)
    if fresh:
        job = jobs.Job.start(out, KIND, plan, force=force, ours=SWEEP_OURS, key=key)
    else:
        job = jobs.Job.resume(out, KIND)
    with job, numba_threads(n_threads):
        job.check_key(key)
        rows = {e["cell"]: e["row"] for e in job.logged().values() if "cell" in e}
        if until_ci is None:
            finish_run(out / BASELINE, spec, base or None, chunk, threads, show, backend)
            baseline = read_outcomes(out / BASELINE, len(pool.units))
        else:
            recall = functools.cache(stored_arm(job, BASELINE, engine))  # every cell pairs with it
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
            arm = stored_arm(job, f"c{i:05d}", Engine(spec, changes=edited))
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
    """A finished sweep folder back as a :class:`sim.analysis.sweep.SweepResult`: its plan
    (the spec, field, deltas, correction), ``sweep.parquet`` and ``skipped.csv``.

    Raises:
        RunError: ``out`` holds no finished sweep. JobReadError: a file edited since.
    """
    out = Path(out)
    try:
        plan = jobs.verify(out, KIND)["plan"]
    except FileNotFoundError:
        raise RunError(f"{out} holds no finished sweep ({PLAN_NAME})") from None
    table = pd.read_parquet(out / "sweep.parquet")
    skipped_csv = out / "skipped.csv"
    skipped = pd.read_csv(skipped_csv).to_dict("records") if skipped_csv.is_file() else []
    field, deltas, correction = plan["field"], tuple(plan["deltas"]), plan["correction"]
    return SweepResult(plan_spec(plan["spec"]), field, deltas, table, skipped, correction)
