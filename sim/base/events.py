"""The kernel's event trace: the kinds of event it records, their fields and their causes.

In trace mode (``sim.kernel.trace``) the kernel writes one fixed-width integer row per
event into a buffer after the game state, in the order the events happen. This module is
the one place where an event kind or a cause meets its code: the kernel's hooks write
these integers, the replay (``sim.analysis.replay``) and the tests read them back by the
names declared here.

A row is :data:`EV_W` integers, read with the ``F_*`` offsets. ``cause`` and
``cause_id`` say what made the event happen: the card whose ability resolved
(``CA_CARD``, a physical card id), the reward tile used (``CA_TILE``, a physical tile
id), the structure completed (``CA_STRUCT``, its structure row), or the rule step of
the turn (``CA_STEP``, the step's number in ``sim.kernel.turn.STEP_NAMES``); ``CA_SETUP``
during set-up.
"""

from __future__ import annotations

from dataclasses import dataclass

# --- the fields of one event row -----------------------------------------------------
F_KIND = 0  # EV_*
F_SEAT = 1  # the seat the event is about (-1: none)
F_AMOUNT = 2  # how much (coins, VP tokens, a cost, an option's value in thousandths)
F_TARGET = 3  # what it is about: a card, a tile, a city, a structure row, a feat, a seat
F_CAUSE = 4  # CA_*: the kind of thing whose rule or ability did it
F_CAUSE_ID = 5  # which one (card id, tile id, structure row, step number)
F_TURN = 6  # turns completed when it happened
F_X0 = 7  # event-specific extras (each kind's ``extras`` names them)
F_X1 = 8
F_X2 = 9
F_X3 = 10
F_X4 = 11
EV_W = 12
"""Integers in one event row."""

# --- causes -----------------------------------------------------------------------------
CA_SETUP = 0
CA_STEP = 1
CA_CARD = 2
CA_TILE = 3
CA_STRUCT = 4
CAUSE_NAMES = ("setup", "step", "card", "tile", "structure")
CAUSE_SPAN = 1 << 16
"""The kernel keeps the current cause as ``kind * CAUSE_SPAN + id`` in one state slot."""

VALUE_SCALE = 1000
"""An option's value is recorded as ``round(value * VALUE_SCALE)``."""


@dataclass(frozen=True)
class EventKind:
    """One kind of event: its code, its name, and what its fields hold."""

    code: int
    name: str
    doc: str
    amount: str = ""
    """What ``F_AMOUNT`` holds ("" unused)."""
    target: str = ""
    """What ``F_TARGET`` holds ("" unused)."""
    extras: tuple[str, ...] = ()
    """What ``F_X0``, ``F_X1``, ... hold, in order."""


_kinds: list[EventKind] = []


def _ev(name: str, doc: str, amount: str = "", target: str = "", extras: tuple = ()) -> int:
    code = len(_kinds)
    _kinds.append(EventKind(code, name, doc, amount, target, tuple(extras)))
    return code


EV_COINS = _ev("coins", "the seat's coins change", "the change (signed)", "", ("coins after",))
EV_STEAL = _ev(
    "steal",
    "the seat takes coins from the other seat",
    "coins taken",
    "the seat robbed",
    ("robbed seat's coins after", "seat's coins after"),
)
EV_VP = _ev("vp", "the seat takes VP tokens", "tokens taken", "", ("VP tokens after",))
EV_DRAW = _ev("draw", "the seat draws a card", "", "card")
EV_RESHUFFLE = _ev("reshuffle", "a discard pile is shuffled into its deck", "cards", "pile")
EV_REVEAL = _ev("reveal", "the seat reveals the top card", "1: into hand, 0: discarded", "card")
EV_DISCARD = _ev("discard", "the seat discards a card from hand", "", "card")
EV_OFFER = _ev("offer", "the seat offers a card (discarded for its offering value)", "", "card")
EV_PLAY = _ev("play", "the seat plays a unit into a city", "its cost", "card", ("city",))
EV_BEAST = _ev("beast", "the seat pays for and discards a Beast for its ability", "cost", "card")
EV_DESTROY = _ev("destroy", "a unit in a city is destroyed", "", "card", ("city",))
EV_RETURN = _ev("return", "a unit returns from a city to its owner's hand", "", "card", ("city",))
EV_MOVE = _ev("move", "a unit moves to another city", "", "card", ("from city", "to city"))
EV_EXALT = _ev("exalt", "a unit is EXALTed: out of play, with a VP token", "", "card", ("city",))
EV_ENRAGE = _ev("enrage", "a unit is enraged", "", "card", ("city",))
EV_UNDER = _ev("under", "a card goes under the seat's structure", "", "card", ("structure",))
EV_TAKE = _ev("take", "the seat takes a card into hand (from the discard pile)", "", "card")
EV_CONFLICT = _ev(
    "conflict",
    "a war-torn city's conflict is resolved; the seat is the victor (-1: none)",
    "",
    "city",
    ("P0 strength", "P1 strength"),
)
EV_TILE = _ev("tile", "the seat wins a reward tile", "", "tile", ("city",))
EV_USE = _ev("use", "the seat uses a reward tile", "", "tile")
EV_STRUCTURE = _ev("structure", "the seat completes a structure", "", "structure row")
EV_FEAT = _ev("feat", "the seat completes a feat", "", "feat")
EV_FAVOR = _ev("favor", "the Favor turns", "the god now Favored (vocab DEV_*)")
EV_OPTION = _ev(
    "option",
    "one option the seat's bot valued at a decision",
    "its value x VALUE_SCALE",
    "option index",
    (
        "decision",
        "field 0",
        "field 1 (a Surge play's or Beast's card, not its hand index)",
        "field 2",
        "field 3",
    ),
)
EV_CHOICE = _ev(
    "choice",
    "the option the seat's bot took",
    "options",
    "option index",
    ("decision", "how the options were valued (VALUED_BY_*)"),
)
VALUED_BY_SCORER = 0
"""A choice whose options carry the greedy scorer's values (every option is valued)."""
VALUED_BY_ROLLOUTS = 1
"""A choice whose options carry their mean rollout outcome (``strategies.lookahead``): only
the options played out are listed, each valued by the VP margin its rollouts reached, a
won or lost game counting 30 VP."""
EV_TURN = _ev("turn", "a turn ends", "turns completed", "", ())
EVENT_KINDS: tuple[EventKind, ...] = tuple(_kinds)
"""Every event kind, by code."""
EVENT_BY_NAME: dict[str, EventKind] = {k.name: k for k in EVENT_KINDS}
