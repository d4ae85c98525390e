"""The compiler's policy: how each kernel is linked, and the signatures declared by hand.

Kernel code uses a plain ``@kernel``; the extension looks its linkage up here by
``module:function`` name. A kernel named nowhere here is linked into its callers, as in numba.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from numba import types

LINKAGE: dict[str, dict[str, str]] = {
    # Small kernels LLVM inlines into every caller (``alwaysinline``): called per option.
    "inline": {
        "sim.kernel.abilities": "find_ability in_target run_trigger",
        "sim.kernel.board": (
            "can_resolve cost_fx_in_play cost_modifiers cost_source devoted_to_own "
            "enraged favored has_kw is_war_torn loc_city loc_seat loc_slot n_units "
            "pack_loc place_unit room seat_total side side_cost side_strength "
            "side_weight slot_card slot_strength slot_type slot_weight soldiers tally total "
            "weight"
        ),
        "sim.kernel.tab": (
            "abil_col card_col card_kind feat_col kind_col n_cards n_tiles op_col "
            "reward_col rule struct_col tile_kind"
        ),
        "sim.kernel.trace": "event option pop_cause push_cause tracing",
        "sim.kernel.turn": "empty_stacks step_applies",
        "sim.kernel.war": "conflict_result",
        "sim.kernel.zones": "hand_card opt pile_of put_opt",
        "strategies.greedy": (
            "choose_greedy coin_weight decision_figures keep_value play_value "
            "score_option urgency war_outcome"
        ),
        "strategies.heuristic": "choose_greedy_seats",
        "strategies.lookahead": "_copy_zone",
        "strategies.search": "_sum _worlds",
    },
    # Thin kernels at the top of the call chain copied into their callers at numba's IR
    # level, never compiled alone: each level would otherwise link the whole tree again.
    "into_caller": {
        "sim.kernel.game": "play_game play_game_shared_deck play_on",
        "sim.kernel.turn": "play_steps play_turn run_step",
    },
    # Kernels every run calls from Python: cached with numba's Python wrapper.
    "from_python": {
        "sim.kernel.batch": "play_range play_range_shared_deck",
        "sim.kernel.draft": "builds_decks",
        "strategies.greedy": "prepare",
        "strategies.greedy_batch": "play_range_greedy_seats play_range_shared_deck_greedy_seats",
    },
}

ASK_SIGNATURE = types.int64(
    types.int64[::1], types.int64[::1], types.float64[:, ::1], types.int64, types.int64, types.int64
)
"""A bot dispatcher ``ask(st, tab, fp, p, dec, n)``: the index of the option seat ``p`` picks."""

ASK_TYPE = types.FunctionType(ASK_SIGNATURE)
"""An ``ask`` argument's type: a function pointer, so one cached kernel serves every bot."""

_I, _F = types.int64, types.float64
_ST, _FP, _ROWS = types.int64[::1], types.float64[:, ::1], types.int64[:, ::1]
_STEP = (_ST, _ST, _FP, ASK_TYPE)
_RUN = (*_STEP, _I, _I, _I, _I)
_ENTRY = (_ST, _FP, ASK_TYPE, _I, _I, _I, _I, _ST, _ROWS, _ROWS)
_SETUP = (*_STEP, _I, _I)

SIGNATURES: dict[str, tuple] = {
    "sim.kernel.abilities:run_op": _RUN,
    "sim.kernel.abilities:run_ability": _RUN,
    "sim.kernel.abilities:_fire_trigger": _RUN,
    "sim.kernel.surge:surge_rest": (*_STEP, _I),
    "sim.kernel.surge:surge_step": _STEP,
    "sim.kernel.war:war_step": _STEP,
    "sim.kernel.wealth:wealth_step": _STEP,
    "sim.kernel.offering:offering_step": _STEP,
    "sim.kernel.portent:portent_step": _STEP,
    "sim.kernel.feats:feat_step": (_ST, _ST),
    "sim.kernel.turn:end_turn": (_ST, _ST),
    "sim.kernel.game:finish_game": (_ST, _ST, _ST, _ST),
    "sim.kernel.game:setup": _SETUP,
    "sim.kernel.game:setup_shared_deck": _SETUP,
    "strategies.greedy:score_option": (_ST, _ST, _FP, _I, _I, _I, _I, _F, _F, _I),
    "strategies.greedy:choose_greedy": ASK_SIGNATURE.args,
    "strategies.heuristic:choose_heuristic": ASK_SIGNATURE.args,
    "strategies.heuristic:choose_greedy_seats": ASK_SIGNATURE.args,
    "strategies.policy:choose": ASK_SIGNATURE.args,
    "sim.kernel.batch:play_range": _ENTRY,
    "sim.kernel.batch:play_range_shared_deck": _ENTRY,
    "sim.kernel.batch:play_range_without_reign_steps": _ENTRY,
    "sim.kernel.batch:play_range_shared_deck_without_reign_steps": _ENTRY,
    "strategies.greedy_batch:play_range_greedy_seats": _ENTRY,
    "strategies.greedy_batch:play_range_shared_deck_greedy_seats": _ENTRY,
}
"""Argument types of the kernels compiled by name before anything calls them
(``sim.compiler.ahead``): those a run's calls infer (``tests/compiler/test_ahead.py``)."""


LEVERS_ENV = "OMENSIM_LEVERS_OFF"
"""Levers switched off, comma-separated, for ``benchmarks/bench_levers.py``: ``nrt``
(reference counting and index wraparound back), ``lazy`` (machine code for every kernel),
``private`` (callees keep numba's linkage), ``two_process`` (a cold compile in one process)."""

OFF: frozenset[str] = frozenset(filter(None, os.environ.get(LEVERS_ENV, "").split(",")))


def kernel_name(fn: Callable) -> str:
    """``module:function`` of kernel ``fn`` (its dispatcher or Python function): its name in
    these tables, in claims and on the compile child's command line."""
    return f"{fn.__module__}:{fn.__qualname__}"


def flags_of(name: str) -> dict[str, bool]:
    """The linkage flags of kernel ``name`` (``module:function``) in :data:`LINKAGE`."""
    module, _, function = name.partition(":")
    return {flag: function in table.get(module, "").split() for flag, table in LINKAGE.items()}
