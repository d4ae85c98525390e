"""The heuristic bot dispatcher: scripted choices, then the seat's random or greedy bot.

``choose_heuristic`` answers every decision without looking ahead; it is the
whole dispatcher of a run without a look-ahead seat, and the one the look-ahead
bot's rollouts play with (``strategies.policy`` adds the look-ahead on top).
``choose_greedy_seats`` is the same dispatcher where both seats are greedy and
no choice is scripted (a run's games), without the code that never answers there.
"""

from __future__ import annotations

from sim.base import layout as L
from sim.compiler import kernel
from sim.kernel import decisions as D
from sim.kernel.tab import card_kind
from sim.kernel.zones import hand_card, opt
from strategies.greedy import choose_greedy
from strategies.random_bot import choose_random

BOT_RANDOM = 0
BOT_GREEDY = 1
# Scenario-only (``Scenario(strict=True)``): every decision with more than one
# legal option must be scripted; an unscripted one is reported as an error.
BOT_STRICT = 2
# Greedy answers here; strategies.policy.choose plans its Surge (and, if its profile
# says so, its Wealth split) by rollouts before falling back to this dispatcher.
BOT_LOOKAHEAD = 3
# Greedy answers here too; strategies.policy.choose plans its decisions by search first.
BOT_SEARCH = 4
# Greedy answers here too; strategies.policy.choose values its options by the learned value.
BOT_VALUE = 5


@kernel
def option_card(st, p, dec, i):
    """The card option ``i`` of decision ``dec`` is about (-1 if none)."""
    if dec == D.D_SURGE:
        a = opt(st, i, 0)
        return hand_card(st, p, opt(st, i, 1)) if a == D.ACT_PLAY or a == D.ACT_BEAST else -1
    if dec == D.D_OFFER or dec == D.D_REVEAL or dec == D.D_REINFORCE or dec == D.D_KEEP_REVEALED:
        return opt(st, i, 1) if opt(st, i, 0) >= 0 else -1
    if dec == D.D_EMISSARY or dec == D.D_TAKE or dec == D.D_DISCARD or dec == D.D_DRAFT:
        return opt(st, i, 1)
    if dec == D.D_RALLY:
        # The "stop" row (-1, 0, 0, 0) is about no card (0 would read as card id 0).
        return opt(st, i, 1) if opt(st, i, 0) >= 0 else -1
    if dec == D.D_MAY or dec == D.D_ENRAGE or dec == D.D_PORTENT:
        return opt(st, i, 2)
    if dec == D.D_DESTROY or dec == D.D_RETURN:
        return opt(st, i, 3)
    if dec == D.D_MOVE:
        return opt(st, i, 3) if opt(st, i, 0) >= 0 else -1
    return -1


@kernel
def _scripted(st, tab, p, dec, n):
    """Index of the option matching the next queued scripted choice, or -1.

    A queued row whose decision differs from ``dec`` waits for its decision;
    a row that matches no legal option is an error the scenario API reports.
    """
    pos = st[L.SCRIPT_POS]
    row = L.SCRIPT + L.SCRIPT_W * pos
    if pos >= st[L.SCRIPT_N] or st[row] != dec:
        return -1
    st[L.SCRIPT_POS] = pos + 1
    for i in range(n):
        ok = True
        for j in range(4):
            want = st[row + 1 + j]
            if want != D.ANY and want != opt(st, i, j):
                ok = False
                break
        kind = st[row + 5]
        if ok and kind != D.ANY:
            card = option_card(st, p, dec, i)
            ok = card >= 0 and card_kind(tab, card) == kind
        if ok:
            return i
    st[L.ERROR] = 1 + dec
    return 0


@kernel
def choose_heuristic(st, tab, fp, p, dec, n):
    """Ask seat ``p``'s bot to pick one of the ``n`` legal options at ``st[OPTS]``, without
    look-ahead (a look-ahead or search seat answers as the greedy bot)."""
    if st[L.SCRIPT_N] > 0:
        i = _scripted(st, tab, p, dec, n)
        if i >= 0:
            return i
    if n == 1:
        return 0
    bot = st[L.BOT + p]
    if bot in (BOT_GREEDY, BOT_LOOKAHEAD, BOT_SEARCH, BOT_VALUE):
        return choose_greedy(st, tab, fp, p, dec, n)
    if bot == BOT_STRICT:
        # Nothing scripted for a real choice: flag it (first one wins), take option 0.
        if st[L.ERROR] == 0:
            st[L.ERROR] = -(1 + dec)
        return 0
    return choose_random(st, p, dec, n)


@kernel
def choose_greedy_seats(st, tab, fp, p, dec, n):
    """``choose_heuristic`` for two greedy seats with no scripted choice queued: the same
    answers, without the scripts', the strict bot's and the random bot's code to compile.

    Inlined where it is called by its symbol (``strategies.greedy_batch``): each call site
    asks one decision, so LLVM keeps only that decision's scorer there, with no call, and
    the Surge's scoring loop is compiled for the Surge alone (faster than the one private
    copy: ``benchmarks/bench_min.py`` measures it). Passed as ``ask`` it is still a
    function of its own.
    """
    if n == 1:
        return 0
    return choose_greedy(st, tab, fp, p, dec, n)
