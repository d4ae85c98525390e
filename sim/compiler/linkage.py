"""The compiler's policy: how each kernel is linked, and the few signatures declared by hand.

Kernel code is decorated with a plain ``@kernel``. What the extension does with a kernel
beyond its defaults (no wrappers, no reference counting, no index wraparound:
``sim.compiler.extension``) is looked up here by the kernel's ``module:function`` name, so
a rule author never needs to know it; a kernel named nowhere here is simply linked into
its callers, as numba does. Argument types are numba's own inference from each call
(literals widened: ``f(st, 0)`` and ``f(st, p)`` share one compile), except where a
process must compile a kernel before anything calls it (:data:`SIGNATURES`).
"""

from __future__ import annotations

import os

from numba import types

INLINE = frozenset(
    {
        "sim.kernel.abilities:find_ability",
        "sim.kernel.abilities:in_target",
        "sim.kernel.abilities:run_trigger",
        "sim.kernel.board:can_resolve",
        "sim.kernel.board:cost_fx_in_play",
        "sim.kernel.board:cost_modifiers",
        "sim.kernel.board:cost_source",
        "sim.kernel.board:devoted_to_own",
        "sim.kernel.board:enraged",
        "sim.kernel.board:favored",
        "sim.kernel.board:has_kw",
        "sim.kernel.board:is_war_torn",
        "sim.kernel.board:loc_city",
        "sim.kernel.board:loc_seat",
        "sim.kernel.board:loc_slot",
        "sim.kernel.board:n_units",
        "sim.kernel.board:pack_loc",
        "sim.kernel.board:place_unit",
        "sim.kernel.board:room",
        "sim.kernel.board:seat_total",
        "sim.kernel.board:side",
        "sim.kernel.board:side_cost",
        "sim.kernel.board:side_strength",
        "sim.kernel.board:side_weight",
        "sim.kernel.board:slot_card",
        "sim.kernel.board:slot_strength",
        "sim.kernel.board:slot_weight",
        "sim.kernel.board:soldiers",
        "sim.kernel.board:tally",
        "sim.kernel.board:total",
        "sim.kernel.board:weight",
        "sim.kernel.tab:abil_col",
        "sim.kernel.tab:card_col",
        "sim.kernel.tab:card_kind",
        "sim.kernel.tab:feat_col",
        "sim.kernel.tab:kind_col",
        "sim.kernel.tab:n_cards",
        "sim.kernel.tab:n_tiles",
        "sim.kernel.tab:op_col",
        "sim.kernel.tab:reward_col",
        "sim.kernel.tab:rule",
        "sim.kernel.tab:struct_col",
        "sim.kernel.tab:tile_kind",
        "sim.kernel.trace:event",
        "sim.kernel.trace:option",
        "sim.kernel.trace:pop_cause",
        "sim.kernel.trace:push_cause",
        "sim.kernel.trace:tracing",
        "sim.kernel.turn:step_applies",
        "sim.kernel.war:conflict_result",
        "sim.kernel.zones:hand_card",
        "sim.kernel.zones:opt",
        "sim.kernel.zones:pile_of",
        "sim.kernel.zones:put_opt",
        "strategies.greedy:choose_greedy",
        "strategies.greedy:coin_weight",
        "strategies.greedy:decision_figures",
        "strategies.greedy:keep_value",
        "strategies.greedy:play_value",
        "strategies.greedy:score_option",
        "strategies.greedy:urgency",
        "strategies.greedy:war_outcome",
        "strategies.heuristic:choose_greedy_seats",
        "strategies.lookahead:_copy_zone",
        "strategies.search:_sum",
        "strategies.search:_worlds",
    }
)
"""Small kernels inlined by LLVM into every caller (``alwaysinline``), typed and compiled once:
for functions called once per option in a hot loop."""

INTO_CALLER = frozenset(
    {
        "sim.kernel.game:play_game",
        "sim.kernel.game:play_game_shared_deck",
        "sim.kernel.game:play_on",
        "sim.kernel.turn:play_steps",
        "sim.kernel.turn:play_turn",
        "sim.kernel.turn:run_step",
    }
)
"""Thin kernels at the top of the call chain copied into their callers at numba's IR level
and never compiled on their own: each level would otherwise link and optimise the whole
tree again."""

FROM_PYTHON = frozenset(
    {
        "sim.kernel.batch:play_range",
        "sim.kernel.batch:play_range_shared_deck",
        "sim.kernel.draft:builds_decks",
        "strategies.greedy:prepare",
        "strategies.greedy_batch:play_range_greedy_seats",
        "strategies.greedy_batch:play_range_shared_deck_greedy_seats",
    }
)
"""Kernels every run calls from Python: cached with numba's Python wrapper, which the
others build on a first call from Python (``KernelDispatcher.python_entry``)."""

ASK_SIGNATURE = types.int64(
    types.int64[::1], types.int64[::1], types.float64[:, ::1], types.int64, types.int64, types.int64
)
"""A bot dispatcher ``ask(st, tab, fp, p, dec, n)``: the index of the option seat ``p`` picks."""

ASK_TYPE = types.FunctionType(ASK_SIGNATURE)
"""The type of an ``ask`` argument: a function pointer, so one compiled kernel serves every
dispatcher and stays in the on-disk cache (numba's per-dispatcher type would not)."""

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
"""Argument types of the kernels a process compiles by name before anything calls them (the
two-core compile's list, ``sim.compiler.ahead``; the entry points and bot dispatchers): the
types a run's calls infer, which ``tests/compiler`` checks against a compiled run."""


LEVERS_ENV = "OMENSIM_LEVERS_OFF"
"""Names the extension's levers switched off, comma-separated: for ``benchmarks/bench_levers.py``,
which measures each against its removal (a child process of a two-process compile inherits it)."""

OFF: frozenset[str] = frozenset(filter(None, os.environ.get(LEVERS_ENV, "").split(",")))
"""Levers switched off (:data:`LEVERS_ENV`): ``nrt`` (reference counting and index
wraparound back), ``lazy`` (machine code for every
kernel), ``private`` (callees keep numba's linkage), ``two_process`` (a cold compile in one
process)."""


def flags_of(name: str) -> dict[str, bool]:
    """The linkage flags of kernel ``name`` (``module:function``) in the tables above."""
    return {
        "inline": name in INLINE,
        "into_caller": name in INTO_CALLER,
        "from_python": name in FROM_PYTHON,
    }
