"""Which way a card change should move its holders, and the flags a result earns when not.

``compare`` and ``sweep`` flag a significant result of the sign a change forbids (it says
how the bot misplays the card); a change in how often the card is played is reported as
such, not flagged: a bot adapting its play to a changed card is what a player does.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from sim.data.changes import CardChange

FIELD_DIRECTION: dict[str, int] = {"strength": 1, "offering": 1, "cost": -1, "copies": 0}
"""How raising a unit field moves the card's power for its holder: +1 a buff (more
strength, a bigger Offering), -1 a nerf (a higher cost), 0 no known direction (more
copies also changes who holds it)."""


def direction(edits: Iterable[CardChange], old: dict[str, dict[str, int]]) -> int:
    """The sign of edits that all push the same way (+1 buff, -1 nerf); 0 for mixed,
    unknown-direction or no-op edits. ``old``: each card's fields before the edits."""
    signs = set()
    for e in edits:
        if e.card not in old or e.field not in old[e.card]:
            return 0
        before = old[e.card][e.field]
        step = int(np.sign(e.new_value(before) - before)) * FIELD_DIRECTION.get(e.field, 0)
        if step == 0:
            return 0
        signs.add(step)
    return signs.pop() if len(signs) == 1 else 0


PLAYS_MOVED = 1 / 3
"""A change that moves the card's play count by more than this share changed how the bot
uses the card: reported as the change in play (:func:`play_change_line`)."""


def plays_moved(plays_a: int, plays_b: int) -> bool:
    """True when the play count moved by more than :data:`PLAYS_MOVED` of run A's."""
    if plays_a <= 0:
        return plays_b > 0
    return abs(plays_b - plays_a) > PLAYS_MOVED * plays_a


def wrong_sign(expected: int, diff: float, significant: bool) -> bool:
    """A significant result whose sign the change forbids (a nerf that helps, a buff that hurts)."""
    return bool(significant) and expected != 0 and np.sign(diff) == -expected


def flag_lines(
    card: str,
    expected: int,
    diff: float,
    significant: bool,
    panel_hint: str,
) -> list[str]:
    """One line when the result is :func:`wrong_sign` (none: the answer reads as the card's),
    ending with ``panel_hint``, the command to rerun it under other bots."""
    if not wrong_sign(expected, diff, significant):
        return []
    what = "a nerf that helps its holders" if expected < 0 else "a buff that hurts them"
    return [
        f"FLAG {card}: the sign contradicts the change ({what}, {diff * 100:+.2f} points): "
        f"read it as the bot misplaying the card, not as the card; {panel_hint}"
    ]


def play_change_line(card: str, plays_a: int, plays_b: int) -> str | None:
    """The change in how often the card was played, when it moved by more than
    :data:`PLAYS_MOVED` (None otherwise): a report of the bot's play, not a warning."""
    if not plays_moved(plays_a, plays_b):
        return None
    share = f"{(plays_b - plays_a) / plays_a:+.0%}" if plays_a > 0 else "from none"
    return (
        f"Change in play, {card}: played {share} ({plays_a:,} -> {plays_b:,} (game, seat)s); "
        "the bot uses the card differently under the change"
    )
