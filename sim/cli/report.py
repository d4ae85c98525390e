"""``omensim report``: an HTML report about finished runs."""

from __future__ import annotations

from pathlib import Path

import click

from sim.base.errors import Error
from sim.cli.errors import EXIT_ERROR, EXIT_USAGE, CliError
from sim.cli.options import (
    OutLocation,
    exclude_capped_option,
    force_option,
    progress_option,
    show_progress,
)


@click.command("report", short_help="Write one self-contained HTML report about finished runs.")
@click.argument(
    "runs", nargs=-1, required=False, metavar="RUN...", type=OutLocation(file_okay=True)
)
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
@click.option(
    "--panel",
    "panel_dir",
    type=OutLocation(file_okay=True),
    default=None,
    metavar="DIR",
    help="Report on the output DIR of 'run --panel' or 'compare --panel' instead of RUN...: "
    "each bot's answer side by side (first-player rate, or each change's paired shift) "
    "and whether the conclusion keeps its sign and significance under every bot.",
)
@force_option("report", None)
@click.option("--quiet", "-q", is_flag=True, help="No progress bar and no key figures printed.")
@progress_option
def report_cmd(
    runs: tuple[Path, ...],
    out: Path,
    exclude_capped: bool,
    panel_dir: Path | None,
    force: bool,
    quiet: bool,
    force_progress: bool,
) -> None:
    """Analyse one or more finished runs and write OUT/report.html.

    One self-contained file (charts inlined, no network needed): key figures
    with 95% intervals; who wins (first, second, shared, turn-capped, and the
    first player's rate among decisive games); the first-player win rate (and
    the paired estimate for --duplicate runs); seat balance; each run minus the
    first one given, paired game by game where the runs share a seed and a mix; a
    sortable, filterable table of every card (figures, play rate, effect with
    interval); end reasons; game length with quantiles; score margins and
    where the points come from. The key figures are also printed here. Every
    number is computed by sim.analysis, so a notebook can reproduce it.

    With --panel DIR (a bot panel's output) the runs are the panel's, one per
    bot (A and B per bot for a compare panel), and the report opens with the
    panel: each bot's answer side by side and the across-bots verdict
    ("first player favoured under every bot: yes (significant under 3 of 3)";
    "this change raises it under 2 of 3 bots").

    A compare, balance, sweep or tournament folder (their --out) gets its own
    report: what B changed and the paired shifts; the candidates, the race look
    by look and the chosen value; every cell against the baseline; the win-rate
    matrix, the self-play table and the ratings; a balance --set folder, the
    trade-off (edits made vs the worst remaining deviation) and each verified
    proposal. The compare, sweep, tournament and balance pages give the first
    player's VP margin with its interval and its distribution. A strength folder
    (strength --out) is reported as its bots' runs side by side, with the card
    strength table and the rank correlation between the bots.

    \b
    Example:
      omensim run --games 1e6 --mix aegean --seed 1 --out results/standard
      omensim run --games 1e6 --mix aegean --seed 1 --variant emissary --out results/emissary
      omensim report results/standard results/emissary --out reports/emissary
      omensim compare --mix aegean --cards my-aegean.toml --out results/my-aegean
      omensim report results/my-aegean --out reports/my-aegean
      omensim report results/sweep --out reports/sweep
      omensim report --panel results/panel --out reports/panel
      omensim report results/s --out reports/strength
    """
    from sim.analysis import report  # deferred: loads pandas
    from sim.run import io  # deferred: loads pyarrow

    if bool(runs) == (panel_dir is not None):
        raise CliError("give either RUN... or --panel DIR (exactly one of them)", EXIT_USAGE)
    from sim.analysis.report_folders import (  # deferred: loads pandas
        folder_kind,
        write_folder_report,
    )

    if len(runs) == 1 and folder_kind(runs[0]) is not None:
        try:
            io.check_output_dir(out, force, ours=lambda e: e.name == report.REPORT_NAME)
            html, text = write_folder_report(runs[0], out)
        except (io.RunError, OSError, ValueError) as exc:
            raise CliError(str(exc), EXIT_ERROR) from None
        if not quiet:
            click.echo(text)
        click.echo(f"Report: {html}")
        return
    from sim.analysis.card_strength import strength_runs  # deferred: loads pandas

    bots = strength_runs(runs[0]) if len(runs) == 1 else None
    try:
        page = report.build_report(
            bots or list(runs),
            out,
            progress=show_progress(quiet, force_progress),
            force=force,
            exclude_capped=exclude_capped,
            panel=panel_dir,
        )
    except Error as exc:  # every failure a user can cause, the panel's included
        raise CliError(str(exc), EXIT_ERROR) from None
    except OSError as exc:
        where = exc.filename if exc.filename is not None else out
        raise CliError(f"cannot write {where}: {exc.strerror or exc}", EXIT_ERROR) from None
    if not quiet:
        click.echo(page.text)
    click.echo(f"Report: {page.html}")
