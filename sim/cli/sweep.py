"""``omensim sweep``: shift one field of every card and measure each effect."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from sim.cli.errors import EXIT_USAGE, CliError, user_errors
from sim.cli.options import (
    BackendArgs,
    GameArgs,
    backend_options,
    check_resume_options,
    check_until_ci_steps,
    force_option,
    game_options,
    out_option,
    resume_option,
    sizing_options,
    spec_recorded,
)
from sim.data.changes import MAX_VALUES


@click.command("sweep", short_help="Shift one field of every card and measure each effect.")
@game_options(default_games=20_000)
@click.option(
    "--field",
    default="cost",
    show_default=True,
    help="Unit field to shift: cost, offering, strength or copies.",
)
@click.option(
    "--delta",
    "deltas",
    default="-1,+1",
    show_default=True,
    metavar="D[,D]",
    help="Amounts added to the field, comma-separated, e.g. -1,+1, or a range such as 1-3 "
    f"(at most {MAX_VALUES:,} in all). Values that would leave the field's range are skipped "
    "and listed.",
)
@click.option(
    "--card",
    "cards",
    multiple=True,
    metavar="NAME|KIND",
    help="Sweep only this unit (name or kind id from `omensim cards`). Repeatable; "
    "default: every unit.",
)
@click.option(
    "--correction",
    type=click.Choice(["holm", "fdr_bh", "none"]),
    default="holm",
    show_default=True,
    help="Multiple-testing correction behind the significance marks: holm (Holm step-down, "
    "5% family-wise over all cells), fdr_bh (Benjamini-Hochberg, 5% false discoveries) or none.",
)
@out_option(
    "Write OUT/sweep.parquet, OUT/sweep.csv, a heat map OUT/sweep.png and, only when a "
    "cell was skipped, OUT/skipped.csv (each skipped card and delta, with the reason) "
    "(OUT must be absent or empty unless --force; checked before anything is played)."
)
@force_option("sweep")
@resume_option(
    "DIR",
    "Finish the interrupted sweep written to DIR (by --out): skip its finished cells, "
    "finish a cut run, play the rest, with the plan DIR records. Refused if the code or "
    "cards changed since it started.",
)
@sizing_options("every cell's holders' shift")
@backend_options
def sweep_cmd(
    game: GameArgs,
    field: str,
    deltas: str,
    cards: tuple[str, ...],
    correction: str,
    out: Path | None,
    force: bool,
    resume: Path | None,
    backend: BackendArgs,
    until_ci: float | None,
    plan: float | None,
) -> None:
    """For every unit and delta, play the same games with FIELD += DELTA on that unit.

    Each variant plays the same game indices with the same seed as the
    baseline (common random numbers); the table gives, per card and delta, the
    shift of the win rate of every (game, seat) that held the card in either
    run (the same seats in both, so the shift is the card's power, not a change
    in who plays it), with a 95% interval paired by game; significance marks
    corrected for the number of cells (--correction); the change in how often
    the card was played; the played-only (conditional) shift; and the
    first-player shift. The kernel is compiled once; each variant is only
    a new card table. It costs (cards x deltas + 1) x games games.

    \b
    Example:
      omensim sweep --mix aegean --field cost --delta -1,+1 --games 5e4 --out results/sweep
      omensim sweep --mix aegean --card "Ker of the Spoils" --card 3 --games 1e4
      omensim sweep --resume results/sweep
      omensim sweep --mix aegean --games 1e6 --until-ci 0.01 --card 11
      omensim sweep --mix aegean --plan 0.005
    """
    from sim.analysis.sweep import output_paths, parse_deltas, sweep  # deferred: loads numba

    check_until_ci_steps(click.get_current_context(), until_ci)
    if resume is not None and out is not None:
        raise CliError("--resume DIR names the sweep folder; drop --out", EXIT_USAGE)
    if resume is not None:
        check_resume_options(resume, _recorded())
        from sim.analysis.sweep import resume_sweep  # deferred: loads numba

        interrupted = f"interrupted; the sweep in {resume} is incomplete"
        with user_errors(resume, interrupted=interrupted), backend.open(game.threads) as be:
            result = resume_sweep(resume, threads=game.threads, progress=game.progress, backend=be)
        paths = output_paths(resume)
        _show(result, paths, game.quiet)
        return
    interrupted = None if out is None else f"interrupted; resume with: omensim sweep --resume {out}"
    with user_errors(out, interrupted=interrupted), backend.open(game.threads) as be:
        spec = game.spec()
        if plan is not None:
            from sim.analysis.sweep import plan_sweep  # deferred: loads numba

            sized = plan_sweep(
                spec, field.lower(), parse_deltas(deltas), cards, plan, game.threads, game.progress
            )
            if not game.quiet:
                click.echo("\n".join(sized.lines()))
            if until_ci is None:
                return  # a plan alone plays nothing more; with --until-ci the sweep follows
        result = sweep(
            spec, field.lower(), parse_deltas(deltas), cards, threads=game.threads, backend=be,
            chunk_size=game.chunk_size, progress=game.progress, correction=correction,
            until_ci=until_ci, out=out, force=force,
        )  # fmt: skip
        paths = output_paths(out) if out is not None else []
    _show(result, paths, game.quiet)


def _recorded() -> dict[str, Any]:
    """Where a sweep's plan records each option ``sweep --resume`` may repeat."""
    from sim.analysis.sweep import parse_deltas  # deferred: loads numba
    from sim.run.jobs import at  # deferred: loads pyarrow

    return {
        **spec_recorded(),
        "field": at("field", str.lower),
        "deltas": at("deltas", parse_deltas),
        **{name: at(name) for name in ("cards", "correction", "chunk_size", "until_ci")},
    }


def _show(result: Any, paths: list[Path], quiet: bool) -> None:
    """Print the sweep's table, its skipped cells and the files written (unless quiet)."""
    from sim.analysis.sweep import format_table  # deferred: loads numba

    if quiet:
        return
    click.echo(format_table(result))
    for s in result.skipped:
        click.echo(f"skipped {s['card']} {result.field} {s['delta']:+d}: {s['reason']}")
    if paths:
        click.echo("Wrote " + ", ".join(str(p) for p in paths))
