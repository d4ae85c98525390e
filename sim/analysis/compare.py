"""Play the same games under two card tables and compare them, paired by game.

``compare(spec, changes)`` plays games ``0 .. spec.games-1`` with the shipped
cards (run A) and with ``changes`` applied (run B), same seed, so both runs
deal the same games (common random numbers), and returns a
:class:`CompareResult`: the change of the first-player win rate and of every
card's win rate with paired intervals (:mod:`sim.analysis.paired`). With ``out`` both
runs are written as ordinary run directories ``out/A`` and ``out/B`` and the
comparison as ``out/compare.json`` and ``out/compare.parquet``.
"""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from sim.analysis.paired import COLUMNS, Comparison, Outcomes, compare_runs, kinds_of
from sim.data.changes import Changes, changed_units
from sim.data.spec import RunSpec
from sim.run import io
from sim.run import progress as P
from sim.run.compiled import run_pool
from sim.run.runner import DEFAULT_CHUNK_SIZE, RunError
from sim.run.session import numba_threads, resolve_threads

PLAN_NAME = "_compare_plan.json"
COMPARE_FILES = ("A", "B", "compare.json", "compare.parquet", PLAN_NAME)


@dataclass
class CompareResult:
    """Run B (changed cards) against run A (base cards) over the same games."""

    spec: RunSpec
    base: Changes
    changes: Changes
    comparison: Comparison
    affected: list[str]
    """Cards whose entry differs between A and B (the ones the change is about)."""
    out: Path | None = None

    def table(self) -> Any:
        """The first-player row and the affected cards' rows (a pandas DataFrame)."""
        return self.comparison.table(self.affected)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary (``compare.json``)."""
        spec = self.spec
        return {
            "format": "omensim-compare",
            "mix": spec.mix,
            "seed": spec.seed,
            "games": spec.games,
            "p0": spec.p0,
            "p1": spec.p1,
            "first": spec.first,
            "variant": spec.variant_label,
            "base_changes": self.base.describe(),
            "changes": self.changes.describe(),
            "affected_cards": self.affected,
            "first_player": self.comparison.first_player.to_dict(),
            "cards": [
                {k: _json_value(v) for k, v in row.items()}
                for row in self.comparison.cards[
                    self.comparison.cards.card.isin(self.affected)
                ].to_dict("records")
            ],
            "written": datetime.now(UTC).isoformat(timespec="seconds"),
        }


def _json_value(v: Any) -> Any:
    if hasattr(v, "item"):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def play_outcomes(
    engine: Any,
    games: int,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    bar: Any = None,
    backend: Any = None,
    changes: Changes | None = None,
) -> Outcomes:
    """Play games ``0 .. games-1`` of ``engine`` in memory; keep what pairing needs.

    ``bar`` (a :class:`sim.run.progress.Bar`) advances every few thousand games.
    With a ``backend`` (:mod:`sim.run.backends`) the chunks are played there;
    ``changes`` must then be the edits ``engine`` was built with.
    """
    n_kinds = len(engine.pool.units)
    if backend is not None:
        from sim.run.backends import play_columns

        tables = play_columns(backend, engine, COLUMNS, games, chunk_size, changes, bar=bar)
        return Outcomes.concat([Outcomes.from_frame(t, n_kinds) for t in tables])
    parts = []
    tick = None
    if bar is not None:

        def tick(rows: Any) -> bool:
            bar.advance(len(rows))
            return False

    for start in range(0, games, chunk_size):
        table = engine.play(start, min(chunk_size, games - start), tick=tick).select(COLUMNS)
        parts.append(Outcomes.from_frame(table, n_kinds))
    return Outcomes.concat(parts)


def read_outcomes(run_dir: Path, n_kinds: int) -> Outcomes:
    """The columns pairing needs from a written run directory."""
    try:
        manifest = io.verify_run(run_dir)
    except (OSError, ValueError) as exc:
        raise RunError(f"{run_dir} is not a complete run: {exc}") from None
    table = pq.read_table([str(run_dir / p["file"]) for p in manifest["parts"]], columns=COLUMNS)
    return Outcomes.from_frame(table, n_kinds)


def _check_compare_out(out: Path, force: bool) -> None:
    io.check_output_dir(out, force, ours=lambda e: e.name in COMPARE_FILES, what="comparison")


def compare(
    spec: RunSpec,
    changes: Changes,
    base: Changes | None = None,
    out: Path | str | None = None,
    threads: int | None = None,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    force: bool = False,
    progress: bool | None = None,
    backend: Any = None,
) -> CompareResult:
    """Play ``spec`` under the base cards (A) and under ``changes`` (B); compare them.

    Args:
        spec: the games (both runs use its seed and game indices ``0..games-1``).
        changes: the edits run B plays with.
        base: edits run A plays with (default: the shipped cards).
        out: if given, write ``out/A`` and ``out/B`` (normal run directories)
            and ``out/compare.json`` / ``out/compare.parquet``.
        threads, chunk_size, force, progress, backend: as for :func:`sim.run.runner.run`.

    Raises:
        SpecError: a bad spec or edit. CardDataError: a bad card file.
        RunError: bad ``threads``/``chunk_size`` or output directory.
    """
    base = base or Changes()
    show = P.wanted(progress)
    pool_a, pool_b = run_pool(spec, base), run_pool(spec, changes)
    if chunk_size < 1:
        raise RunError(f"--chunk-size must be at least 1, got {chunk_size}")
    if out is not None:
        from sim.run import runner

        out = Path(out)
        _check_compare_out(out, force)
        out.mkdir(parents=True, exist_ok=True)
        # What both runs are, so `compare --resume` can finish them after an interrupt.
        plan = {
            "spec": dataclasses.asdict(spec),
            "base": base.describe(),
            "changes": changes.describe(),
            "chunk_size": chunk_size,
        }
        (out / PLAN_NAME).write_text(json.dumps(plan, indent=2) + "\n")
        for name, ch in (("A", base), ("B", changes)):
            runner.run(
                spec, out / name, threads, chunk_size, force, show, changes=ch, backend=backend
            )
        return _compare_dirs(spec, base, changes, out)
    a, b = _play_both(spec, base, changes, threads, chunk_size, show, backend)
    return CompareResult(
        spec=spec,
        base=base,
        changes=changes,
        comparison=compare_runs(a, b, kinds_of(pool_a.units), kinds_of(pool_b.units)),
        affected=changed_units(pool_a, pool_b),
    )


def resume_compare(
    out: Path | str,
    threads: int | None = None,
    progress: bool | None = None,
    backend: Any = None,
) -> CompareResult:
    """Finish a comparison in ``out`` that was interrupted: resume or start A and B, then compare.

    Raises:
        RunError: ``out`` holds no comparison plan, or a run cannot be resumed
            (see :func:`sim.run.runner.resume`).
    """
    from sim.run import runner

    out = Path(out)
    try:
        plan = json.loads((out / PLAN_NAME).read_text())
    except (OSError, ValueError):
        raise RunError(f"cannot resume {out}: it holds no comparison ({PLAN_NAME})") from None
    spec = RunSpec(**{**plan["spec"], "variants": tuple(plan["spec"].get("variants", ()))})
    base = Changes.parse(plan["base"]["change"], plan["base"]["cards"])
    changes = Changes.parse(plan["changes"]["change"], plan["changes"]["cards"])
    for name, ch in (("A", base), ("B", changes)):
        run_dir = out / name
        if io.is_complete(run_dir):
            continue
        if (run_dir / io.MANIFEST_NAME).exists():
            runner.resume(run_dir, threads, progress, backend)
        else:
            runner.run(
                spec,
                run_dir,
                threads,
                int(plan["chunk_size"]),
                progress=progress,
                changes=ch,
                backend=backend,
            )
    return _compare_dirs(spec, base, changes, out)


def _compare_dirs(spec: RunSpec, base: Changes, changes: Changes, out: Path) -> CompareResult:
    """Compare the finished runs ``out/A`` and ``out/B`` and write the summary files."""
    pool_a, pool_b = run_pool(spec, base), run_pool(spec, changes)
    a = read_outcomes(out / "A", len(pool_a.units))
    b = read_outcomes(out / "B", len(pool_b.units))
    result = CompareResult(
        spec=spec,
        base=base,
        changes=changes,
        comparison=compare_runs(a, b, kinds_of(pool_a.units), kinds_of(pool_b.units)),
        affected=changed_units(pool_a, pool_b),
        out=out,
    )
    write_compare(result, out)
    return result


def _play_both(
    spec: RunSpec,
    base: Changes,
    changes: Changes,
    threads: int | None,
    chunk_size: int,
    show: bool = False,
    backend: Any = None,
) -> tuple[Outcomes, Outcomes]:

    from sim.run.engine import Engine  # deferred: importing it loads the batch kernel

    with numba_threads(resolve_threads(threads if backend is None else None)):
        with P.kernel_ready(show):
            engines = [Engine(spec, changes=base), Engine(spec, changes=changes)]
            engines[0].warmup()
        with P.Bar(2 * spec.games, show, desc="compare A and B") as bar:
            return tuple(  # type: ignore[return-value]
                play_outcomes(e, spec.games, chunk_size, bar, backend, ch)
                for e, ch in zip(engines, (base, changes), strict=True)
            )


def write_compare(result: CompareResult, out: Path) -> None:
    """``out/compare.json`` (summary) and ``out/compare.parquet`` (every card's row)."""
    out.mkdir(parents=True, exist_ok=True)
    with io.atomic_path(out / "compare.parquet") as tmp:
        result.comparison.table().to_parquet(tmp, index=False)
    # The summary last: its presence says the comparison is whole.
    with io.atomic_path(out / "compare.json") as tmp:
        tmp.write_text(json.dumps(result.to_dict(), indent=2) + "\n", encoding="utf-8")


def format_result(result: CompareResult) -> str:
    """The comparison as a few lines a person reads."""
    spec = result.spec
    fp = result.comparison.first_player
    edits = ", ".join(result.changes.describe()["change"] + result.changes.describe()["cards"])
    lines = [
        f"{spec.games:,} games of {spec.mix} (seed {spec.seed}, {spec.p0} vs {spec.p1}), "
        f"each played with the base cards (A) and with {edits} (B):",
        _line("first-player win rate", fp.rate_a, fp.rate_b, fp.diff, fp.lo, fp.hi)
        + f"  (unpaired would need {_games(fp.n_unpaired)} games per run)",
    ]
    cards = result.comparison.cards
    for row in cards[cards.card.isin(result.affected)].itertuples():
        lines.append(
            _line(f"{row.card} win rate", row.rate_a, row.rate_b, row.diff, row.lo, row.hi)
            + f"  [{row.count_a:,} / {row.count_b:,} plays; unpaired would need "
            f"{_games(row.n_unpaired)} games per run]"
        )
    unpaired = [c for c in result.affected if c not in set(cards.card)]
    if unpaired:
        lines.append(f"  Only one run has {', '.join(unpaired)}: no paired win rate.")
    if not result.affected:
        lines.append("No card differs between A and B.")
    lines.append(
        "Win rate of a card: games its player won outright, over every (game, seat) that "
        "played it. Intervals are 95%, paired by game_id."
    )
    if result.out is not None:
        lines.append(f"Runs in {result.out}/A and {result.out}/B; summary in compare.json.")
    return "\n".join(lines)


def _line(label: str, a: float, b: float, d: float, lo: float, hi: float) -> str:
    return (
        f"  {label}: {a:.2%} -> {b:.2%}, change {d * 100:+.2f} points "
        f"(95% CI {lo * 100:+.2f} to {hi * 100:+.2f})"
    )


def _games(n: float) -> str:
    if not math.isfinite(n):
        return "infinitely many" if n == math.inf else "?"
    return f"{math.ceil(n):,}"
