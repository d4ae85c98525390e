"""A sweep played into its ``--out`` folder as it goes, so an interrupted one can be finished.

A sweep is many runs (a baseline and one run per cell, i.e. per (card, delta)).
Each of them is an ordinary run directory written by :func:`sim.run.runner.run` (so
``--backend dask`` workers write the parts) in ``--out``, or in a temporary folder removed
after, and the folder holds::

    OUT/_job.json          what the sweep is (spec, field, deltas, cards, base edits, chunk
                           size, correction), the baseline's run key and, once finished,
                           every file's checksum (:mod:`sim.run.jobs`)
    OUT/baseline/          the baseline run (kept: every cell is paired with it)
    OUT/cells/<n>/         the run of cell n while it plays (deleted once its row is logged)
    OUT/_job.jsonl         one checksummed line per finished cell: its table row
    OUT/steps/             with ``--until-ci``, in place of the runs: each step's rows of the
                           baseline (kept) and of the cell playing (deleted once its row is
                           logged), so a resumed cell looks where it looked
    OUT/sweep.parquet ...  the table, written when every cell is done

``omensim sweep --resume OUT`` (:func:`resume_sweep`) reads the plan, refuses
in one line an edited plan or log line, or a baseline's run key (spec, card hash,
kernel source digest, version; :func:`sim.run.ledger.run_key`) that differs from
the current code's, skips every logged cell, resumes the baseline or a cell whose run
was cut short (:func:`sim.run.runner.resume`: only its missing chunks), and plays the
rest. A cell's row is a function of the two runs' rows, which depend only on
the plan, so the resumed table equals an uninterrupted sweep's.
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
    ``out`` (see the module docstring) or a temporary folder removed after.

    Args:
        spec: the games (seed and ``0..games-1``) every variant plays.
        field: one of :data:`sim.data.changes.FIELDS`.
        deltas: amounts added to ``field``; a value that would leave the field's
            range is skipped and listed in ``SweepResult.skipped``.
        cards: restrict to these units (names or kind ids); default all.
        base: edits the baseline (and every variant) starts from.
        threads, chunk_size, progress, backend: as for :func:`sim.run.runner.run`.
        correction: how the ``significant`` column is corrected for the number
            of cells (:data:`sim.run.stats.CORRECTIONS`).
        until_ci: each cell stops at the first kernel call after which its
            holders' shift has a paired 95% half-width of at most this
            (``spec.games`` is the ceiling); the baseline is played only as far
            as the longest cell needs.
        out, force: the folder, and whether an earlier sweep there may be replaced.

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
    check_until_ci(plan.get("until_ci"), backend)  # a resume may be handed a backend
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
        logged = job.logged().values()
        rows = {e["cell"]: e["row"] for e in logged if "cell" in e}
        until_ci = plan.get("until_ci")
        if until_ci is None:
            finish_run(out / BASELINE, spec, base or None, chunk, threads, show, backend)
            baseline = read_outcomes(out / BASELINE, len(pool.units))
        else:
            recall = functools.cache(stored_arm(job, BASELINE, engine))  # every cell pairs with it
        bar = P.Bar(len(todo) * spec.games * 2, show and until_ci is not None, desc="sweep")
        for i, (k, d) in enumerate(todo):
            cell = out / CELLS / f"{i:05d}"
            name = f"c{i:05d}"
            if i in rows:  # killed after logging its row: drop what it left
                shutil.rmtree(cell, ignore_errors=True)
                job.drop_tables(name)
                continue
            unit = pool.units[k]
            edited = cell_changes(base, unit["name"], field, d)
            if until_ci is None:
                finish_run(cell, spec, edited or None, chunk, threads, show, backend)
                a, b = baseline, read_outcomes(cell, len(pool.units))
            else:
                bar.describe(f"sweep {i + 1}/{len(todo)}: {unit['name']} {field} {d:+d}")
                arm = stored_arm(job, name, Engine(spec, changes=edited))
                kinds = {unit["name"]: k}
                got = play_until(
                    [recall, arm], spec.games, until_ci, kinds, kinds, bar, first=False
                )
                a, b = got.a, got.b
            row = cell_row(a, b, k, unit, field, d)
            plain = {k: v.item() if hasattr(v, "item") else v for k, v in row.items()}
            rows[i] = job.append({"cell": i, "row": plain})["row"]
            # its row is what the sweep keeps; the rows it was computed from are big
            shutil.rmtree(cell, ignore_errors=True)
            job.drop_tables(name)
        bar.close()
        with contextlib.suppress(OSError):
            (out / CELLS).rmdir()
        ordered = [rows[i] for i in range(len(todo))]
        result = finish(spec, field, deltas, ordered, skipped, plan["correction"])
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
    spec = plan_spec(plan["spec"])
    skipped_csv = out / "skipped.csv"
    skipped = pd.read_csv(skipped_csv).to_dict("records") if skipped_csv.is_file() else []
    return SweepResult(
        spec=spec,
        field=plan["field"],
        deltas=tuple(plan["deltas"]),
        table=table,
        skipped=skipped,
        correction=plan["correction"],
    )
