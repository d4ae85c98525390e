"""``omensim report``: an HTML report about finished runs."""

from __future__ import annotations

from pathlib import Path

import click

from sim.cli.errors import EXIT_ERROR, CliError
from sim.cli.options import (
    OutLocation,
    exclude_capped_option,
    force_option,
    progress_option,
    show_progress,
)


@click.command("report", short_help="Write one self-contained HTML report about finished runs.")
@click.argument("runs", nargs=-1, required=True, metavar="RUN...", type=OutLocation(file_okay=True))
@click.option(
    "--out",
    "-o",
    type=OutLocation(file_okay=True),
    required=True,
    help="Directory to write report.html into (absent or empty unless --force).",
)
@exclude_capped_option(
    "Leave turn-capped games out of every figure and chart (the text says how many "
    "per run). By default they are included and counted.",
)
@force_option("report")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar and no key figures printed.")
@progress_option
def report_cmd(
    runs: tuple[Path, ...],
    out: Path,
    exclude_capped: bool,
    force: bool,
    quiet: bool,
    force_progress: bool,
) -> None:
    """Analyse one or more finished runs and write OUT/report.html.

    One self-contained file (charts inlined, no network needed): key figures
    with 95% intervals; who wins (first, second, shared, turn-capped, and the
    first player's rate among decisive games); the first-player win rate (and
    the paired estimate for --duplicate runs); seat balance; each run minus the
    first one given, paired game by game where the runs share a seed; a
    sortable, filterable table of every card (figures, play rate, effect with
    interval); end reasons; game length with quantiles; score margins and
    where the points come from. The key figures are also printed here. Every
    number is computed by sim.analysis, so a notebook can reproduce it.

    \b
    Example:
      omensim report results/standard results/emissary --out reports/emissary
    """
    from sim import analysis
    from sim.analysis import report
    from sim.run import io

    try:
        page = report.build_report(
            list(runs),
            out,
            progress=show_progress(quiet, force_progress),
            force=force,
            exclude_capped=exclude_capped,
        )
    except (analysis.RunLoadError, io.RunReadError, io.RunError, report.ReportError) as exc:
        raise CliError(str(exc), EXIT_ERROR) from None
    except OSError as exc:
        where = exc.filename if exc.filename is not None else out
        raise CliError(f"cannot write {where}: {exc.strerror or exc}", EXIT_ERROR) from None
    if not quiet:
        click.echo(page.text)
    click.echo(f"Report: {page.html}")
