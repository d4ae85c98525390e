"""``omensim report``: an HTML report about finished runs."""

from __future__ import annotations

from pathlib import Path

import click

from sim.cli.errors import EXIT_ERROR, CliError


@click.command("report", short_help="Write an HTML report (with charts) about finished runs.")
@click.argument("runs", nargs=-1, required=True, metavar="RUN...", type=click.Path(path_type=Path))
@click.option(
    "--out",
    "-o",
    type=click.Path(path_type=Path),
    required=True,
    help="Directory to write report.html and its PNG charts into (created if absent; "
    "an earlier report there is replaced).",
)
@click.option(
    "--exclude-capped",
    is_flag=True,
    help="Leave turn-capped games out of every figure and chart (the text says how many "
    "per run). By default they are included and counted.",
)
def report_cmd(runs: tuple[Path, ...], out: Path, exclude_capped: bool) -> None:
    """Analyse one or more finished runs and write OUT/report.html.

    Each run's first- and second-player win rates, shared victories,
    turn-capped games and the first player's rate among decisive games head
    the text, each with a 95% interval. The page shows the first-player win
    rate of each run with its 95% interval
    (and the paired estimate for --duplicate runs), the difference of each run
    from the first one given, the cards whose players win most and least often,
    and histograms of score margins, game lengths, end reasons and where the
    points come from. The key figures are also printed here. Every number is
    computed by sim.analysis, so a notebook can reproduce it.

    \b
    Example:
      omensim report results/standard results/emissary --out reports/emissary
    """
    from sim import analysis
    from sim.analysis import report
    from sim.run import io

    try:
        page = report.build_report(list(runs), out, exclude_capped=exclude_capped)
    except (analysis.RunLoadError, io.IncompleteRunError, report.ReportError) as exc:
        raise CliError(str(exc), EXIT_ERROR) from None
    except OSError as exc:
        where = exc.filename if exc.filename is not None else out
        raise CliError(f"cannot write {where}: {exc.strerror or exc}", EXIT_ERROR) from None
    click.echo(page.text)
    click.echo(f"Report: {page.html}")
