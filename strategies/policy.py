"""The bot dispatchers the run layer hands the kernel as its ``ask``.

Two jitted dispatchers with the kernel's ``ask(st, tab, fp, p, dec, n)`` signature:

* ``choose_heuristic`` (``strategies.heuristic``): scripted choices, then the
  random or greedy bot; no look-ahead.
* ``choose``: the same, except that a look-ahead seat plans its Surge options
  (reward use included) by rollouts (``strategies.lookahead``), which play with
  ``choose_heuristic``; its profile's ``wealth``, ``offer``, ``war_order``,
  ``keep`` and ``draft`` knobs plan those decisions by rollouts too; a search
  seat plans every decision that has a continuation by search
  (``strategies.search``), whose play-outs play with ``choose_heuristic`` too.

``dispatcher`` picks the one a run needs, so a run without a look-ahead seat
never compiles the rollout or search code, and one of two greedy seats with no
scripted choices compiles neither the scripts nor the random bot
(``choose_greedy_seats``), whose games the kernel plays with the bot
linked in once that build is cached (``strategies.greedy_batch``, imported here so that
its entry points are registered wherever a dispatcher is picked).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from sim.base import layout as L
from sim.compiler import as_ask, kernel
from sim.kernel import decisions as D
from strategies.greedy import P_LA_DRAFT, P_LA_KEEP, P_LA_OFFER, P_LA_WAR_ORDER, P_LA_WEALTH
from strategies.greedy_batch import play_range_greedy_seats  # noqa: F401 (its entry points)
from strategies.heuristic import (
    BOT_GREEDY,
    BOT_LOOKAHEAD,
    BOT_RANDOM,
    BOT_SEARCH,
    BOT_STRICT,
    BOT_VALUE,
    choose_greedy_seats,
    choose_heuristic,
    option_card,
)
from strategies.lookahead import best_option, best_surge_option, best_wealth_split
from strategies.search import search_option
from strategies.value_bot import value_option

__all__ = [
    "BOT_GREEDY",
    "BOT_LOOKAHEAD",
    "BOT_RANDOM",
    "BOT_SEARCH",
    "BOT_STRICT",
    "BOT_VALUE",
    "choose",
    "choose_greedy_seats",
    "choose_heuristic",
    "dispatcher",
    "heuristic_dispatcher",
    "option_card",
]


@kernel
def choose(st, tab, fp, p, dec, n):
    """``choose_heuristic``, with a look-ahead seat's Surge (and, by its knobs, its Wealth,
    Offering, war order, keeps and draft picks) planned by rollouts.

    A scripted choice still waiting (a scenario's) and a forced one (``n == 1``)
    are the heuristic dispatcher's, as for every other decision. A search seat's
    decisions are planned by ``strategies.search.search_option`` where it can, a value
    seat's by ``strategies.value_bot.value_option``.
    """
    if st[L.BOT + p] == BOT_SEARCH and n > 1 and st[L.SCRIPT_POS] >= st[L.SCRIPT_N]:
        k = search_option(st, tab, fp, p, dec, n)
        if k >= 0:
            return k
    if st[L.BOT + p] == BOT_VALUE and n > 1 and st[L.SCRIPT_POS] >= st[L.SCRIPT_N]:
        k = value_option(st, tab, fp, p, dec, n)
        if k >= 0:
            return k
    if st[L.BOT + p] == BOT_LOOKAHEAD and n > 1 and st[L.SCRIPT_POS] >= st[L.SCRIPT_N]:
        if dec == D.D_SURGE:
            return best_surge_option(st, tab, fp, p, n)
        r = st[L.PROW + p]
        if dec == D.D_WEALTH and fp[r, P_LA_WEALTH] > 0:
            return best_wealth_split(st, tab, fp, p, n)
        if (
            (dec == D.D_OFFER and fp[r, P_LA_OFFER] > 0)
            or (dec == D.D_WAR_ORDER and fp[r, P_LA_WAR_ORDER] > 0)
            or (dec == D.D_KEEP and fp[r, P_LA_KEEP] > 0)
            or (dec == D.D_DRAFT and fp[r, P_LA_DRAFT] > 0)
        ):
            return best_option(st, tab, fp, p, dec, n)
    return choose_heuristic(st, tab, fp, p, dec, n)


def dispatcher(bots: Iterable[int], scripts: bool = True) -> Callable[..., int]:
    """The dispatcher for seats playing ``bots`` (strategy ids), as the kernel's ``ask``
    value (``sim.compiler.as_ask``): ``choose`` only if one of them is the look-ahead,
    the search or the value bot, else ``choose_heuristic``; with ``scripts=False`` (the caller
    never queues a scripted choice, as a run's games do not) and two greedy seats,
    ``choose_greedy_seats``, which answers the same."""
    ids = {int(b) for b in bots}
    if ids & {BOT_LOOKAHEAD, BOT_SEARCH, BOT_VALUE}:
        return as_ask(choose)
    if not scripts and ids == {BOT_GREEDY}:
        return as_ask(choose_greedy_seats)
    return as_ask(choose_heuristic)


def heuristic_dispatcher() -> Callable[..., int]:
    """``choose_heuristic`` as the kernel's ``ask`` value, for callers that hand it to a
    kernel step themselves (tests, the scenario stepper)."""
    return as_ask(choose_heuristic)
