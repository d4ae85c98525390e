"""Answers built on finished runs: statistics, paired comparisons, reports, replays.

``from sim import analysis as A`` gives the tidy-table functions of
:mod:`sim.analysis.frames` (``A.load_runs``, ``A.first_player_advantage``, ...).
The other modules each answer one kind of question: :mod:`~sim.analysis.stats`
(intervals), :mod:`~sim.analysis.paired` (common-random-number comparisons),
:mod:`~sim.analysis.compare` and :mod:`~sim.analysis.sweep` (card changes),
:mod:`~sim.analysis.panel` (whether an answer holds under every bot of a panel),
:mod:`~sim.analysis.tournament`, :mod:`~sim.analysis.report` (HTML) and
:mod:`~sim.analysis.replay` (one game, step by step). ``A.report_tables`` and
``A.run_totals`` (:mod:`~sim.analysis.streaming`) compute the same aggregates
out of core, for runs too large for a DataFrame.
"""

from sim.analysis.frames import (
    GROUP_COLS,
    SCORE_WEIGHTS,
    Z95,
    RunLoadError,
    card_impact,
    card_names,
    difference,
    end_reasons,
    first_player_advantage,
    first_player_won,
    game_lengths,
    load_runs,
    newcombe_interval,
    paired_first_player_advantage,
    run_info,
    score_components,
    score_margins,
    summary_stats,
)
from sim.analysis.loading import cards, load
from sim.analysis.stats import wilson_interval
from sim.analysis.streaming import report_tables, run_totals

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
    "load",
    "load_runs",
    "newcombe_interval",
    "paired_first_player_advantage",
    "report_tables",
    "run_info",
    "run_totals",
    "score_components",
    "score_margins",
    "summary_stats",
    "wilson_interval",
]
