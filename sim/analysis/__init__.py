"""Answers built on finished runs: statistics, paired comparisons, reports, replays.

``from sim import analysis as A`` gives the tidy-table functions of
:mod:`sim.analysis.frames` (``A.load_runs``, ``A.first_player_advantage``, ...).
The other modules each answer one kind of question: :mod:`~sim.run.stats`
(intervals), :mod:`~sim.analysis.paired` (common-random-number comparisons),
:mod:`~sim.analysis.compare` and :mod:`~sim.analysis.sweep` (card changes),
:mod:`~sim.analysis.panel` (whether an answer holds under every bot of a panel),
:mod:`~sim.analysis.tournament`, :mod:`~sim.analysis.report` (HTML) and
:mod:`~sim.analysis.replay` (one game, step by step). ``A.report_tables`` and
``A.run_totals`` (:mod:`~sim.analysis.streaming`) compute the same aggregates
out of core, for runs too large for a DataFrame.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sim.analysis.card_strength import rank_correlation, strength
    from sim.analysis.frames import (
        GROUP_COLS,
        SCORE_WEIGHTS,
        RunLoadError,
        card_impact,
        card_names,
        difference,
        end_reasons,
        first_player_advantage,
        first_player_won,
        game_lengths,
        god_win_rates,
        load_runs,
        paired_first_player_advantage,
        run_info,
        score_components,
        score_margins,
        summary_stats,
    )
    from sim.analysis.loading import cards, load
    from sim.analysis.streaming import report_tables, run_totals
    from sim.run.stats import Z95, newcombe_interval, wilson_interval

# Where each public name lives (a submodule of this package, or a full module name). The
# names load on first use (PEP 562): importing one submodule does not import pandas, which
# sim.analysis.frames needs and which is heavy in memory.
_HOME = {
    **dict.fromkeys(
        [
            "GROUP_COLS",
            "SCORE_WEIGHTS",
            "RunLoadError",
            "card_impact",
            "card_names",
            "difference",
            "end_reasons",
            "first_player_advantage",
            "first_player_won",
            "game_lengths",
            "god_win_rates",
            "load_runs",
            "paired_first_player_advantage",
            "run_info",
            "score_components",
            "score_margins",
            "summary_stats",
        ],
        "frames",
    ),
    "cards": "loading",
    "load": "loading",
    "wilson_interval": "sim.run.stats",
    "newcombe_interval": "sim.run.stats",
    "Z95": "sim.run.stats",
    "report_tables": "streaming",
    "run_totals": "streaming",
    "strength": "card_strength",
    "rank_correlation": "card_strength",
}


def __getattr__(name: str) -> Any:
    """Load a public name from its submodule on first use."""
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = home if "." in home else f"{__name__}.{home}"
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "GROUP_COLS",
    "SCORE_WEIGHTS",
    "Z95",
    "RunLoadError",
    "card_impact",
    "card_names",
    "cards",
    "difference",
    "end_reasons",
    "first_player_advantage",
    "first_player_won",
    "game_lengths",
    "god_win_rates",
    "load",
    "load_runs",
    "newcombe_interval",
    "paired_first_player_advantage",
    "rank_correlation",
    "report_tables",
    "run_info",
    "run_totals",
    "score_components",
    "score_margins",
    "strength",
    "summary_stats",
    "wilson_interval",
]


def __dir__() -> list[str]:
    """The public names, loaded or not (for tab completion)."""
    return sorted([*globals(), *__all__])
