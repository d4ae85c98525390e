"""``omensim report``: one self-contained HTML page about one or more runs, from the tables
of :mod:`~sim.analysis.report_tables`, the charts of :mod:`~sim.analysis.report_charts` and
the page of :mod:`~sim.analysis.report_html`; every input is checked before anything is
written, and the page is written atomically."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from sim.analysis.panel_report import PanelRuns, find_panel, panel_section
from sim.analysis.report_charts import charts as draw
from sim.analysis.report_html import REPORT_NAME, page, write_page
from sim.analysis.report_tables import key_figures
from sim.analysis.streaming import RunTotals, report_totals, tables_from_totals
from sim.base.errors import Error
from sim.run import io
from sim.run import progress as P
from sim.run.gods import god_rows
from sim.run.margins import margin_row, moments_of_counts
from sim.run.seats import seat_rows

TOP_CARDS = 15


class ReportError(Error):
    """A report that cannot be written where asked; the message is one line."""


@dataclass
class Report:
    """What :func:`build_report` made: the page (its charts inlined) and the key figures as
    text."""

    html: Path
    text: str


def _is_report_file(entry: Path) -> bool:
    # report.html, and the PNG charts earlier versions wrote beside it.
    return entry.is_file() and (entry.name == REPORT_NAME or entry.suffix == ".png")


def _check_out_dir(out: Path, runs: list[Path], force: bool = False) -> None:
    """Refuse an output directory that would clobber a file or pollute a run directory."""
    if out.exists() and not out.is_dir():
        raise ReportError(f"--out {out} exists and is not a directory")
    if (out / io.MANIFEST_NAME).exists():
        # A page in a run directory would be a stray file that later blocks `run --force`.
        raise ReportError(f"--out {out} is a run directory; write the report elsewhere")
    try:
        resolved, runs_at = out.resolve(), [(run, run.resolve()) for run in runs]
    except (OSError, RuntimeError) as exc:  # RuntimeError: a symlink loop
        raise ReportError(f"cannot resolve a path: {exc}") from None
    for run, at in runs_at:
        if resolved == at or at in resolved.parents:
            raise ReportError(f"--out {out} is inside the run {run}; write the report elsewhere")
    io.check_output_dir(out, force, ours=_is_report_file, what="report")


def build_report(
    paths: Iterable[Path | str] | Path | str,
    out_dir: Path | str,
    *,
    top_cards: int = TOP_CARDS,
    min_games: int = 200,
    progress: bool = False,
    exclude_capped: bool = False,
    force: bool = False,
    panel: Path | str | None = None,
) -> Report:
    """Analyse the runs in ``paths`` and write the self-contained ``out_dir/report.html``.

    ``panel``: the folder of ``run --panel`` or ``compare --panel`` instead of ``paths``
    (pass ``[]``); the page and text then open with the panel's answers per bot
    (:mod:`sim.analysis.panel_report`). ``progress`` draws a bar of the steps on stderr.
    The text ends with each run's seat figures, mean VP margin and gods' win rates; with
    ``exclude_capped`` every figure leaves turn-capped games out. ``out_dir`` must be absent
    or empty unless ``force``, checked before any run is read; nothing is written unless
    every run loads.

    Raises:
        sim.analysis.RunLoadError: a path that is missing or not a run directory.
        sim.run.io.IncompleteRunError: a run that did not finish.
        sim.analysis.panel_report.PanelError: ``panel`` is not a finished panel.
        ReportError: ``out_dir`` cannot hold a report, or both ``paths`` and ``panel``.
        sim.run.io.RunError: ``out_dir`` holds something and ``force`` is not set.
        OSError: ``out_dir`` cannot be written.
    """
    run_paths = [Path(p) for p in ([paths] if isinstance(paths, str | Path) else paths)]
    out = Path(out_dir)
    found: PanelRuns | None = None
    if panel is not None:
        if run_paths:
            raise ReportError("give either run directories or --panel, not both")
        found = find_panel(panel)
        run_paths = list(found.runs.values())
    _check_out_dir(out, run_paths, force)
    with P.Bar(12, progress, desc="report", unit="steps") as bar:
        bar.describe("report: loading runs")
        # Out of core: each run is read once, a batch of the columns needed at a time.
        info, totals = report_totals(run_paths, exclude_capped=exclude_capped)
        if found is not None:
            info = info.assign(run=list(found.runs))  # "greedy/A", not the whole path
        runs = dict(zip(map(str, info["run"]), totals, strict=True))
        empty = [run for run, t in runs.items() if t.seats.games == 0]
        if exclude_capped and empty:
            raise ReportError(
                f"every game of {empty[0]} ended at the turn cap: nothing is left to report "
                "with --exclude-capped"
            )
        bar.advance(1)
        bar.describe("report: analysing")
        tables = tables_from_totals(info, totals, min_games, exclude_capped)
        text = "\n".join([key_figures(tables), *(_who_wins(run, t) for run, t in runs.items())])
        section = None
        if found is not None:
            panel_lines, section = panel_section(found, dict(zip(found.runs, totals, strict=True)))
            text = panel_lines + "\n\n" + text
        bar.advance(1)
        bar.describe("report: drawing charts")
        images = draw(tables, top_cards, lambda: bar.advance(1))
        final = write_page(out, page(tables, images, text, panel=section))
        bar.advance(1)
    return Report(html=final, text=text)


def _who_wins(run: str, t: RunTotals) -> str:
    """The run's seat figures, its first player's margin and each god's win rate, aligned as
    the run summary prints them."""
    rows = [*seat_rows(t.seats), margin_row(moments_of_counts(t.margins)), *god_rows(t.gods)]
    width = max(len(label) for label, _ in rows)
    return "\n".join([f"{run}: who wins", *(f"  {k.ljust(width)}  {v}" for k, v in rows)])
