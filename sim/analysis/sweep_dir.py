"""A sweep played into its ``--out`` folder as it goes, so an interrupted one can be finished.

A sweep is many runs (a baseline and one run per cell, i.e. per (card, delta)).
With ``--out`` each of them is an ordinary run directory written by
:func:`sim.run.runner.run` (so ``--backend dask`` workers write the parts), and
the folder holds::

    OUT/_sweep_plan.json   what the sweep is: spec, field, deltas, cards, base edits,
                           chunk size, correction, and the baseline's run key
    OUT/baseline/          the baseline run (kept: every cell is paired with it)
    OUT/cells/<n>/         the run of cell n while it plays (deleted once its row is logged)
    OUT/_cells.jsonl       one JSON line per finished cell: its table row (appended, fsynced)
    OUT/sweep.parquet ...  the table, written when every cell is done

``omensim sweep --resume OUT`` (:func:`resume_sweep`) reads the plan, refuses
in one line if the baseline's run key (spec, card hash, kernel source digest,
version; :func:`sim.run.ledger.run_key`) differs from the current code's,
skips every logged cell, resumes the baseline or a cell whose run was cut
short (:func:`sim.run.runner.resume`: only its missing chunks), and plays the
rest. A cell's row is a function of the two runs' rows, which depend only on
the plan, so the resumed table equals an uninterrupted sweep's.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from sim.analysis.compare import read_outcomes
from sim.analysis.sweep import (
    SWEEP_FILES,
    SWEEP_STATE,
    SweepResult,
    cell_changes,
    cell_row,
    check_sweep_out,
    finish,
    plan_cells,
)
from sim.data.changes import Changes
from sim.data.spec import RunSpec
from sim.run import io, ledger, runner
from sim.run import progress as P
from sim.run.lock import LOCK_NAME, FolderLockedError, locked
from sim.run.session import RunError, numba_threads, resolve_threads
from sim.run.storage import is_url

PLAN_NAME, CELLS_LOG, BASELINE, CELLS = SWEEP_STATE


def sweep_to_dir(
    out: Path | str,
    spec: RunSpec,
    field: str,
    deltas: Sequence[int],
    cards: Sequence[str],
    base: Changes | None,
    threads: int | None,
    chunk_size: int,
    progress: bool | None,
    correction: str,
    backend: Any,
    force: bool = False,
) -> SweepResult:
    """:func:`sim.analysis.sweep.sweep` played into ``out`` (see the module docstring)."""
    out = Path(out) if not is_url(out) else out
    if is_url(out):
        raise RunError(f"sweep --out must be a local folder, not a URL ({out})")
    base = base or Changes()
    plan_cells(spec, field, deltas, cards, base, chunk_size, correction)  # refuse bad input first
    check_sweep_out(out, force)
    plan = {
        "spec": dataclasses.asdict(spec),
        "field": field,
        "deltas": list(deltas),
        "cards": list(cards),
        "base": base.describe(),
        "chunk_size": chunk_size,
        "correction": correction,
    }
    return _play(out, plan, threads, progress, backend, fresh=True, force=force)


def resume_sweep(
    out: Path | str,
    threads: int | None = None,
    progress: bool | None = None,
    backend: Any = None,
) -> SweepResult:
    """Finish the sweep in ``out``: skip its logged cells, finish its cut runs, play the rest.

    Raises:
        RunError: ``out`` holds no sweep plan, a finished sweep, or one whose run
            key differs from the current code's (the reason in one line).
    """
    out = Path(out)
    try:
        plan = json.loads((out / PLAN_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise RunError(f"cannot resume {out}: it holds no sweep ({PLAN_NAME})") from None
    if (out / "sweep.parquet").exists():
        raise RunError(f"{out} is already complete; nothing to resume")
    return _play(out, plan, threads, progress, backend, fresh=False)


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

    spec = RunSpec(**{**plan["spec"], "variants": tuple(plan["spec"].get("variants", ()))})
    base = Changes.parse(plan["base"]["change"], plan["base"]["cards"])
    field, deltas, chunk = plan["field"], tuple(plan["deltas"]), int(plan["chunk_size"])
    pool, todo, skipped = plan_cells(
        spec, field, deltas, plan["cards"], base, chunk, plan["correction"]
    )
    show = P.wanted(progress)
    n_threads = resolve_threads(threads if backend is None else None)
    with numba_threads(n_threads), P.kernel_ready(show):
        engine = Engine(spec, changes=base)
        engine.warmup()
    key = ledger.run_key(spec, engine.metadata)
    if not fresh:
        reason = ledger.key_mismatch(plan.get("key"), key)
        if reason is not None:
            raise RunError(f"cannot resume {out}: {reason}")
    out.mkdir(parents=True, exist_ok=True)
    try:
        with locked(out):
            if fresh:
                if force:
                    _clear(out)
                with io.atomic_path(out / PLAN_NAME) as tmp:
                    tmp.write_text(json.dumps({**plan, "key": key}, indent=2) + "\n")
            _finish_run(out / BASELINE, spec, base, chunk, threads, show, backend)
            baseline = read_outcomes(out / BASELINE, len(pool.units))
            rows = _logged_cells(out)
            for i, (k, d) in enumerate(todo):
                cell = out / CELLS / f"{i:05d}"
                if i in rows:
                    shutil.rmtree(cell, ignore_errors=True)  # killed after logging its row
                    continue
                unit = pool.units[k]
                edited = cell_changes(base, unit["name"], field, d)
                _finish_run(cell, spec, edited, chunk, threads, show, backend)
                played = read_outcomes(cell, len(pool.units))
                rows[i] = _log_cell(out, i, cell_row(baseline, played, k, unit, field, d))
                shutil.rmtree(cell)  # its row is what the sweep keeps; the rows are big
    except FolderLockedError as exc:
        raise RunError(str(exc)) from None
    with contextlib.suppress(OSError):
        (out / CELLS).rmdir()
    ordered = [rows[i] for i in range(len(todo))]
    return finish(spec, field, deltas, ordered, skipped, plan["correction"])


def _finish_run(
    run_dir: Path,
    spec: RunSpec,
    changes: Changes,
    chunk: int,
    threads: int | None,
    show: bool,
    backend: Any,
) -> None:
    """Make ``run_dir`` a complete run: leave it, resume it, or (re)start it."""
    if io.is_complete(run_dir):
        return
    if (run_dir / io.MANIFEST_NAME).exists():
        runner.resume(run_dir, threads, show, backend)
        return
    # No manifest: killed before its first one, so whatever is there is ours to replace.
    runner.run(
        spec, run_dir, threads, chunk, force=True, progress=show, changes=changes or None,
        backend=backend,
    )  # fmt: skip


def _logged_cells(out: Path) -> dict[int, dict[str, Any]]:
    """The rows of the finished cells (a line cut short by a kill is ignored)."""
    rows: dict[int, dict[str, Any]] = {}
    with contextlib.suppress(FileNotFoundError), open(out / CELLS_LOG, encoding="utf-8") as fh:
        for line in fh:
            with contextlib.suppress(ValueError, KeyError, TypeError):
                entry = json.loads(line)
                rows[int(entry["cell"])] = entry["row"]
    return rows


def _log_cell(out: Path, index: int, row: dict[str, Any]) -> dict[str, Any]:
    """Append a finished cell's row to the log, durably; return it as the log holds it."""
    plain = {k: v.item() if hasattr(v, "item") else v for k, v in row.items()}
    with open(out / CELLS_LOG, "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"cell": index, "row": plain}) + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    return plain


def _clear(out: Path) -> None:
    """Remove an earlier sweep's entries (``--force``; the caller checked there are no others)."""
    for entry in out.iterdir():
        if entry.name == LOCK_NAME or entry.name not in (*SWEEP_FILES, *SWEEP_STATE):
            continue
        if entry.is_dir():
            shutil.rmtree(entry)
        else:
            entry.unlink()


def read_sweep(out: Path | str) -> SweepResult:
    """A finished sweep folder back as a :class:`sim.analysis.sweep.SweepResult`: its plan
    (the spec, field, deltas, correction), ``sweep.parquet`` and ``skipped.csv``.

    Raises:
        RunError: ``out`` holds no finished sweep (``sweep.parquet`` and its plan).
    """
    out = Path(out)
    try:
        plan = json.loads((out / PLAN_NAME).read_text(encoding="utf-8"))
        table = pd.read_parquet(out / "sweep.parquet")
    except (OSError, ValueError):
        raise RunError(f"{out} holds no finished sweep (sweep.parquet and {PLAN_NAME})") from None
    spec = RunSpec(**{**plan["spec"], "variants": tuple(plan["spec"].get("variants", ()))})
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
