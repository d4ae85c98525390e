"""Answers built on finished runs: statistics, paired comparisons, reports, replays.

``from sim import analysis as A`` gives the loader (:mod:`sim.analysis.loading`:
``A.load``, ``A.load_runs``) and the tidy-table functions of :mod:`sim.analysis.frames`
(``A.first_player_advantage``, ...). The other modules each answer one kind of question:
:mod:`~sim.run.stats` (intervals), :mod:`~sim.analysis.paired` (common-random-number
comparisons), :mod:`~sim.analysis.compare` and :mod:`~sim.analysis.sweep` (card changes),
:mod:`~sim.analysis.panel` (whether an answer holds under every bot of a panel),
:mod:`~sim.analysis.tournament`, :mod:`~sim.analysis.report` (HTML) and
:mod:`~sim.analysis.replay` (one game, step by step). ``A.report_tables`` and
``A.run_totals`` (:mod:`~sim.analysis.streaming`, whose totals the tidy tables are
computed from too) read runs too large for a DataFrame out of core.
"""

from __future__ import annotations

import importlib
from typing import Any

# Where each public name lives (a submodule of this package, or a full module name). The
# names load on first use (PEP 562): importing one submodule does not import pandas, which
# sim.analysis.frames needs and which is heavy in memory.
_HOME = {
    **dict.fromkeys(
        ["GROUP_COLS", "SCORE_WEIGHTS", "card_impact", "difference", "end_reasons",
         "first_player_advantage", "first_player_won", "game_lengths", "god_win_rates",
         "paired_first_player_advantage", "score_components", "score_margins",
         "summary_stats"],
        "frames",
    ),
    **dict.fromkeys(["RunLoadError", "card_names", "cards", "load", "load_runs", "run_info"],
                    "loading"),
    **dict.fromkeys(["Z95", "newcombe_interval", "wilson_interval"], "sim.run.stats"),
    **dict.fromkeys(["report_tables", "run_totals"], "streaming"),
    **dict.fromkeys(["rank_correlation", "strength"], "card_strength"),
}  # fmt: skip

__all__ = sorted(_HOME)


def __getattr__(name: str) -> Any:
    """Load a public name from its submodule on first use."""
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = home if "." in home else f"{__name__}.{home}"
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The public names, loaded or not (for tab completion)."""
    return sorted([*globals(), *__all__])
