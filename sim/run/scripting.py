"""Scripted choices: a scenario's decisions, queued by name instead of left to a bot.

A scripted choice waits in the state's script queue until a decision of its
kind comes up; the kernel's decision dispatcher then picks the legal option
it matches, or flags an error that :class:`sim.run.scenario.Scenario` raises.
"""

from __future__ import annotations

from collections.abc import Iterable

from sim.base.layout import MAX_SCRIPT
from sim.kernel import decisions as D

ANY = D.ANY


class ScenarioError(AssertionError):
    """A scenario that cannot be built, or a scripted choice the rules did not allow."""


class Scripting:
    """The ``script*`` methods of :class:`sim.run.scenario.Scenario`.

    Mixed into the scenario, which provides the script queue fields, ``active``, ``kind_index``,
    ``reward_tiles``, ``tile_name`` and ``structure_slot``.
    """

    def script(
        self,
        decision: str,
        a: int = ANY,
        b: int = ANY,
        c: int = ANY,
        d: int = ANY,
        card: str | None = None,
    ) -> None:
        """Queue an explicit choice for the next decision of kind ``decision``.

        ``a..d`` match the option fields documented in ``sim.kernel.decisions``
        (``ANY`` matches anything); ``card`` matches the card the option is about.
        """
        n = self.script_n
        if n >= MAX_SCRIPT:
            raise ScenarioError("too many scripted choices queued")
        if decision not in D.DECISIONS:
            raise ScenarioError(f"unknown decision {decision!r}; valid: {', '.join(D.DECISIONS)}")
        kind = ANY if card is None else self.kind_index(card)
        self.script_queue[n] = (D.DECISIONS[decision], a, b, c, d, kind)
        self.script_n = n + 1

    def script_wealth(self, cards: int) -> None:
        """Spend ``cards`` of this turn's Wealth actions on cards, the rest on coins."""
        self.script("wealth", a=cards)

    def script_play(self, name: str, city: int) -> None:
        """Play the unit ``name`` from hand into ``city`` at the next Surge choice."""
        self.script("surge", a=D.ACT_PLAY, c=city, card=name)

    def script_use_reward(self, name: str) -> None:
        """Use the reward tile ``name`` (one the active seat holds) at the next Surge choice."""
        p = self.active
        for t, _used in self.reward_tiles(p):
            if self.tile_name(t) == name:
                self.script("surge", a=D.ACT_REWARD, c=t)
                return
        raise ScenarioError(f"seat {p} holds no reward tile named {name!r}")

    def script_pass(self) -> None:
        """End the Surge (play nothing more) at the next Surge choice."""
        self.script("surge", a=D.ACT_PASS)

    def script_offer(self, name: str | None, cards: int = 0) -> None:
        """Offer ``name`` (None: no offering), taking ``cards`` cards and the rest in coins."""
        if name is None:
            self.script("offer", a=-1)
            return
        self.script("offer", card=name)
        self.script("split", a=cards)

    def script_build(self, name: str, structure: str) -> None:
        """Reveal ``name`` at the next Offering to build the active seat's ``structure``
        (Heir to the Dunes, Offering Step: "reveal a unit from hand to build")."""
        s = self.structure_slot(self.active, structure)
        self.script("offer", c=1, d=s, card=name)

    def script_beast(self, name: str) -> None:
        """Pay for the Beast ``name`` and discard it to resolve its ability (Reign, Surge)."""
        self.script("surge", a=D.ACT_BEAST, card=name)

    def script_enrage(self, name: str, city: int | None = None) -> None:
        """Enrage the unit ``name`` (in ``city``, if given) at the next ``enrage`` choice."""
        self.script("enrage", a=ANY if city is None else city, card=name)

    def script_portent(self, name: str) -> None:
        """Resolve the Oracle ``name`` next in the Portent step (Reign)."""
        self.script("portent", card=name)

    def script_may(self, yes: bool) -> None:
        """Answer the next "may" of an ability."""
        self.script("may", a=int(yes))

    def script_keep(self, city: int, slots: Iterable[int]) -> None:
        """After a conflict in ``city``, keep the units in these slot positions."""
        mask = sum(1 << s for s in slots)
        self.script("keep", a=mask, b=city)

    def script_target(self, decision: str, name: str) -> None:
        """Pick the unit ``name`` at the next ``destroy``/``return``/``take``/``discard``."""
        self.script(decision, card=name)

    def script_left(self) -> int:
        """Scripted choices not yet used."""
        return self.script_n - self.script_pos
