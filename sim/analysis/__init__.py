"""Answers built on finished runs: statistics, paired comparisons, reports, replays.

``from sim import analysis as A`` gives the loader (``A.load``, ``A.load_runs``), the
tidy-table functions of :mod:`sim.analysis.frames` and the out-of-core ``A.report_tables``
and ``A.run_totals`` (:mod:`sim.analysis.streaming`); ``docs/architecture.md`` says what
each other module answers.
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
