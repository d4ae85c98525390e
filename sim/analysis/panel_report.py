"""``omensim report --panel``: a bot panel's answers side by side, and whether they agree.

``run --panel`` and ``compare --panel`` leave one run (or one A/B pair) per bot under their
folder, plus ``panel.csv``. This module finds them and builds the report's panel section:
the first-player question under each bot (recomputed from the runs' rows) with its verdict,
or each bot's paired shifts per measure and how many bots see each move each way.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from sim.analysis import panel as P
from sim.base.errors import Error
from sim.run import io
from sim.run.margins import MarginMoments
from sim.run.seats import SeatCounts

PANEL_TABLE = "panel.csv"
COMPARE_FILE = "compare.json"
# The columns each kind of panel.csv has (as run --panel and compare --panel write them).
RUN_COLUMNS = ("bot", "games", "favoured")
COMPARE_COLUMNS = ("bot", "metric", "rate_a", "rate_b", "diff", "lo", "hi")


class PanelError(Error):
    """A ``--panel`` directory that is not a finished panel; the message is one line."""


@dataclass
class PanelRuns:
    """Where a panel's runs are: ``kind`` is ``"run"`` or ``"compare"``.

    ``runs[bot]`` lists the bot's run directories: one for a ``run`` panel,
    ``A`` then ``B`` for a ``compare`` panel. ``shifts`` is a compare panel's
    ``panel.csv`` (empty for a run panel).
    """

    kind: str
    runs: dict[str, list[Path]]
    shifts: pd.DataFrame = field(default_factory=pd.DataFrame)

    @property
    def paths(self) -> list[Path]:
        """Every run directory, bot by bot."""
        return [p for paths in self.runs.values() for p in paths]

    @property
    def labels(self) -> list[str]:
        """A short label per run of :attr:`paths`: the bot, or ``bot/A`` and ``bot/B``."""
        if self.kind == "run":
            return list(self.runs)
        return [f"{bot}/{p.name}" for bot, paths in self.runs.items() for p in paths]


def find_panel(panel_dir: Path | str) -> PanelRuns:
    """Read ``panel_dir`` as the output of ``run --panel`` or ``compare --panel``.

    Raises:
        PanelError: not a directory, no readable ``panel.csv``, or a bot's run missing.
    """
    base = Path(panel_dir)
    if not base.is_dir():
        raise PanelError(f"--panel {base} is not a directory")
    table = base / PANEL_TABLE
    try:
        df = pd.read_csv(table)
    except (OSError, ValueError) as exc:
        raise PanelError(
            f"--panel {base} has no readable {PANEL_TABLE} ({type(exc).__name__}): it is not "
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
    dirs = P.panel_dir_names(bots)
    runs: dict[str, list[Path]] = {}
    for bot in bots:
        paths = [base / dirs[bot] / arm if arm else base / dirs[bot] for arm in arms]
        for path in paths:
            if not (path / io.MANIFEST_NAME).is_file():
                raise PanelError(f"--panel {base}: the run of {bot} is missing ({path})")
        runs[bot] = paths
    return PanelRuns(kind, runs, df if kind == "compare" else pd.DataFrame())


def first_player_table(
    panel: PanelRuns,
    seats: Mapping[Path, SeatCounts],
    margins: Mapping[Path, MarginMoments] | None = None,
) -> pd.DataFrame:
    """A run panel's :func:`sim.analysis.panel.first_player_panel` from each run's counts.

    ``seats[path]`` holds the counts of the run in ``path`` (turn-capped games
    already left out when the report leaves them out); ``margins[path]``, when
    given, the first player's VP margins of the same games.
    """
    rows = []
    for bot, (path,) in panel.runs.items():
        c = seats[path]
        row = [bot, c.games, c.first_wins, c.second_wins, c.shared, c.capped]
        if margins is not None:
            m = margins[path]
            row += [m.games, m.total, m.squares]
        rows.append(row)
    cols = [*P.COUNT_COLS, *(P.MARGIN_COUNT_COLS if margins is not None else ())]
    return P.first_player_panel(pd.DataFrame(rows, columns=cols))


def margin_shifts(panel: PanelRuns) -> pd.DataFrame:
    """A compare panel's first-player VP margin per bot: A, B and the paired shift, as each
    bot's ``compare.json`` holds them (:meth:`sim.run.margins.MarginShift.figures`); no
    rows when the comparisons predate the margin."""
    rows = []
    for bot, paths in panel.runs.items():
        try:
            summary = json.loads((paths[0].parent / COMPARE_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if summary.get("margin"):
            rows.append({"bot": bot, **summary["margin"]})
    return pd.DataFrame(rows)


def panel_text(
    panel: PanelRuns,
    seats: Mapping[Path, SeatCounts],
    margins: Mapping[Path, MarginMoments] | None = None,
) -> str:
    """The panel as the report prints it: the table per bot, then the verdict line(s)."""
    if panel.kind == "run":
        head = f"bot panel: {len(panel.runs)} bots, each in self-play on the same games"
        table = first_player_table(panel, seats, margins)
        return head + "\n" + P.format_first_player_panel(table)
    lines = [
        f"bot panel: {len(panel.runs)} bots, each in self-play in both runs",
        "Paired shifts, B - A, per bot (95% CI):",
        *("  " + line for line in P.format_shifts(panel.shifts)),
        *("  " + line for line in P.margin_lines(margin_shifts(panel))),
        *P.effect_verdicts(P.effect_panel(panel.shifts)),
    ]
    return "\n".join(lines)


def panel_frames(
    panel: PanelRuns,
    seats: Mapping[Path, SeatCounts],
    margins: Mapping[Path, MarginMoments] | None = None,
) -> tuple[pd.DataFrame, list[str]]:
    """The panel's table for the HTML page (one row per bot, or per bot and measure) and
    its verdict lines."""
    if panel.kind == "run":
        t = first_player_table(panel, seats, margins)
        view = pd.DataFrame(
            {
                "bot": t["bot"],
                "games": t["games"].map("{:,}".format),
                "first player won (95% CI)": [
                    f"{r:.2%} ({lo:.2%} to {hi:.2%})"
                    for r, lo, hi in zip(t["rate"], t["lo"], t["hi"], strict=True)
                ],
                "first of decisive (95% CI)": [
                    f"{r:.2%} ({lo:.2%} to {hi:.2%})" if d else "n/a"
                    for r, lo, hi, d in zip(
                        t["first_share"], t["first_lo"], t["first_hi"], t["decisive"], strict=True
                    )
                ],
                "favoured": t["favoured"],
                "significant": t["significant"].map({True: "yes", False: "no"}),
                "turn-capped": t["capped_share"].map("{:.2%}".format),
            }
        )
        if "margin" in t.columns:
            view["first VP margin (95% CI)"] = P.margin_cell(t)
        return view, [P.first_player_verdict(t)]
    s = panel.shifts
    view = pd.DataFrame(
        {
            "bot": s["bot"].astype(str),
            "measure": s["metric"].astype(str).map(P.metric_label),
            "A": s["rate_a"].map("{:.2%}".format),
            "B": s["rate_b"].map("{:.2%}".format),
            "B - A": s["diff"].map(lambda v: f"{v * 100:+.2f} points"),
            "95% CI": [
                f"{lo * 100:+.2f} to {hi * 100:+.2f}"
                for lo, hi in zip(s["lo"], s["hi"], strict=True)
            ],
        }
    )
    m = margin_shifts(panel)
    if not m.empty:
        vp = pd.DataFrame(
            {
                "bot": m["bot"].astype(str),
                "measure": "the first player's VP margin",
                "A": m["a_mean"].map("{:+.2f} VP".format),
                "B": m["b_mean"].map("{:+.2f} VP".format),
                "B - A": m["diff"].map("{:+.2f} VP".format),
                "95% CI": [f"{lo:+.2f} to {hi:+.2f}" for lo, hi in zip(m.lo, m.hi, strict=True)],
            }
        )
        view = pd.concat([view, vp], ignore_index=True)
    return view, P.effect_verdicts(P.effect_panel(s))
