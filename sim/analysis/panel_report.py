"""``omensim report --panel``: a bot panel's answers side by side, and whether they agree.

Finds the run (or A/B pair) per bot that ``run --panel`` and ``compare --panel`` leave beside
``panel.csv``, and builds the report's panel section from them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from sim.analysis import panel as P
from sim.analysis.report_folders import COMPARE_FILE, margin_shift_row, shift_row
from sim.analysis.streaming import RunTotals
from sim.base.errors import Error
from sim.run import io
from sim.run.margins import moments_of_counts

# The columns each kind of panel.csv has (as run --panel and compare --panel write them).
RUN_COLUMNS = ("bot", "games", "favoured")
COMPARE_COLUMNS = ("bot", "metric", "rate_a", "rate_b", "diff", "lo", "hi")


class PanelError(Error):
    """A ``--panel`` directory that is not a finished panel; the message is one line."""


@dataclass
class PanelRuns:
    """A ``"run"`` or ``"compare"`` panel: ``dirs[bot]`` is the bot's run directory, or the
    folder of its ``A`` and ``B``; ``runs`` each run directory by a short label (the bot, or
    ``bot/A`` and ``bot/B``); ``shifts`` a compare panel's ``panel.csv``."""

    kind: str
    dirs: dict[str, Path]
    runs: dict[str, Path]
    shifts: pd.DataFrame


def find_panel(panel_dir: Path | str) -> PanelRuns:
    """Read ``panel_dir`` as the output of ``run --panel`` or ``compare --panel``.

    Raises:
        PanelError: not a directory, no readable ``panel.csv``, or a bot's run missing.
    """
    base = Path(panel_dir)
    if not base.is_dir():
        raise PanelError(f"--panel {base} is not a directory")
    table = base / P.PANEL_TABLE
    try:
        df = pd.read_csv(table)
    except (OSError, ValueError) as exc:
        raise PanelError(
            f"--panel {base} has no readable {P.PANEL_TABLE} ({type(exc).__name__}): it is not "
            "the output of run --panel or compare --panel"
        ) from None
    if set(COMPARE_COLUMNS) <= set(df.columns):
        kind, arms = "compare", ("A", "B")
    elif set(RUN_COLUMNS) <= set(df.columns):
        kind, arms = "run", ("",)
    else:
        raise PanelError(f"{table} has neither run --panel's nor compare --panel's columns")
    bots = list(dict.fromkeys(str(b) for b in df["bot"]))
    if not bots:
        raise PanelError(f"{table} names no bot")
    dirs = {bot: base / name for bot, name in P.panel_dir_names(bots).items()}
    runs = {f"{bot}/{arm}" if arm else bot: d / arm for bot, d in dirs.items() for arm in arms}
    for label, path in runs.items():
        if not (path / io.MANIFEST_NAME).is_file():
            raise PanelError(f"--panel {base}: the run of {label} is missing ({path})")
    return PanelRuns(kind, dirs, runs, df if kind == "compare" else pd.DataFrame())


def _margin_shifts(panel: PanelRuns) -> pd.DataFrame:
    """A compare panel's first-player VP margin per bot: A, B and the paired shift, as each
    bot's ``compare.json`` holds them (:meth:`sim.run.margins.MarginShift.figures`); no
    rows when the comparisons predate the margin."""
    rows = []
    for bot, folder in panel.dirs.items():
        try:
            summary = json.loads((folder / COMPARE_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if summary.get("margin"):
            rows.append({"bot": bot, **summary["margin"]})
    return pd.DataFrame(rows)


def panel_section(
    panel: PanelRuns, totals: Mapping[str, RunTotals]
) -> tuple[str, tuple[pd.DataFrame, list[str]]]:
    """The panel as the report gives it: its text (the table per bot, then the verdict
    lines), and for the HTML page its table (one row per bot, or per bot and measure) and
    verdict lines. ``totals[label]`` counts the games of the run ``label`` of
    :attr:`PanelRuns.runs` (turn-capped games already left out when the report leaves them
    out)."""
    if panel.kind == "run":
        counts = [(bot, run.seats, moments_of_counts(run.margins)) for bot, run in totals.items()]
        t = P.first_player_panel(P.counts_table(counts))
        head = f"bot panel: {len(panel.dirs)} bots, each in self-play on the same games"
        view = P.first_player_cells(t).drop(columns=["decisive", "shared"])
        return f"{head}\n{P.format_first_player_panel(t)}", (view, [P.first_player_verdict(t)])
    shifts = _margin_shifts(panel)
    head = f"bot panel: {len(panel.dirs)} bots, each in self-play in both runs"
    rows = [
        {"bot": str(r["bot"]), **shift_row(P.metric_label(str(r["metric"])), r)}
        for r in panel.shifts.to_dict("records")
    ]
    rows += [{"bot": str(r["bot"]), **margin_shift_row(r)} for r in shifts.to_dict("records")]
    view = pd.DataFrame(rows).drop(columns="kind")  # the folder page's column
    verdicts = P.effect_verdicts(P.effect_panel(panel.shifts))
    return "\n".join([head, *P.shift_lines(panel.shifts, shifts)]), (view, verdicts)
