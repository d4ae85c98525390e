"""Scenarios: build a position from a readable description and step it by the rules.

This is how tests (and curious designers) reach the kernel: every rulebook
example becomes a few lines. A position names cards by their printed names;
the kernel underneath is exactly the one a run plays.

>>> sc = Scenario.build(
...     "aegean",
...     hands={0: ["Talos, Bronze Guardian of Crete"]},
...     coins=(6, 4),
...     cities={0: {1: ["Eudorus, Swift Runner"]}},
...     stacks={0: ["Thunderbolt of Zeus"], 1: ["Helm of Hades"], 2: []},
... )
>>> sc.script_play("Talos, Bronze Guardian of Crete", city=0)
>>> sc.script_pass()
>>> sc.surge()
>>> sc.city(0, 0)
['Talos, Bronze Guardian of Crete']

Decisions nobody scripted are made by the seats' bots (``greedy`` unless
``bots=`` says otherwise). A scripted choice waits in a queue until a
decision of its kind comes up; one that matches no legal option raises.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from sim.base import layout as L
from sim.base import vocab as V
from sim.data.cards import CardPool
from sim.data.changes import Changes
from sim.data.spec import RunSpec
from sim.kernel import decisions as D
from sim.kernel import game as G
from sim.kernel import turn as T
from sim.kernel.board import is_war_torn, resync_totals, side_strength
from sim.run.compiled import CompiledRun, compile_run
from sim.run.positions import place
from sim.run.scripting import ANY, ScenarioError, Scripting
from sim.run.view import StateView, new_state
from strategies.policy import BOT_STRICT, dispatcher

__all__ = ["ANY", "TURN_STEPS", "Scenario", "ScenarioError", "Step"]


@dataclass(frozen=True)
class Step:
    """One step of a turn, as the scenario stepper and the replay run it."""

    name: str
    """The :class:`Scenario` method that runs it (and the replay's step key)."""
    title: str
    """The rulebook's heading for it."""
    index: int
    """Its number in the kernel's list of steps (``sim.kernel.turn.S_*``)."""


_TITLES = {
    "wealth": "Wealth Step",
    "surge": "Surge Step",
    "portent": "Portent Step",
    "feat": "Feat Step",
    "war": "War Step",
    "offering": "Offering Step",
}

# The kernel's own list of a turn's steps (sim.kernel.turn.STEP_NAMES), with headings.
TURN_STEPS: tuple[Step, ...] = tuple(
    Step(name, _TITLES[name], i) for i, name in enumerate(T.STEP_NAMES)
)

# The keywords of Scenario.build that describe the position (the rest configure the run).
_POSITION_KEYS = frozenset(inspect.signature(place).parameters) - {"sc"}


class Scenario(Scripting, StateView):
    """One game state plus the compiled cards and bots that act on it.

    Reading the position by name comes from :class:`sim.run.view.StateView`,
    the ``script*`` methods from :class:`sim.run.scripting.Scripting`.
    """

    def __init__(
        self,
        mix: str = "aegean",
        *,
        bots: tuple[str, str] = ("greedy", "greedy"),
        emissary: bool = False,
        first: str = "p0",
        turn_cap: int = 200,
        rules: Mapping[str, int] | None = None,
        strict: bool = False,
    ) -> None:
        """``strict=True``: no bot answers for either seat; every decision with more
        than one legal option must have been scripted, or the step raises
        :class:`ScenarioError` (so a test never depends on a bot's taste).
        ``rules`` sets kernel rule parameters by layout name (``{"RU_HAND_LIMIT": 5}``)."""
        spec = RunSpec(
            games=2,
            mix=mix,
            p0=bots[0],
            p1=bots[1],
            first=first,
            turn_cap=turn_cap,
            variants=("emissary",) if emissary else (),
        )
        self._load(compile_run(spec, rule_values=rules), strict)

    @property
    def ask(self) -> Any:
        """The kernel's bot dispatcher for the seats' bots as they are now
        (``strategies.policy.dispatcher``)."""
        return dispatcher(self.bot_ids)

    def _load(self, run: CompiledRun, strict: bool = False) -> None:
        self.pool: CardPool = run.pool
        self.tables = run.tables
        self.tab = run.tab
        self.fp = run.fp
        self.st = new_state((BOT_STRICT, BOT_STRICT) if strict else run.bots)
        self.out = np.zeros(L.O_COLS, np.int64)

    @classmethod
    def from_compiled(cls, run: CompiledRun, *, strict: bool = False) -> Scenario:
        """An empty position over a run :func:`sim.run.compiled.compile_run` compiled."""
        sc = cls.__new__(cls)
        sc._load(run, strict)
        return sc

    def copy(self) -> Scenario:
        """An independent copy of the position (the compiled cards and bots are shared)."""
        twin = copy.copy(self)
        twin.st = self.st.copy()
        twin.out = self.out.copy()
        return twin

    # --- building positions --------------------------------------------------

    @classmethod
    def from_game(cls, mix: str, seed: int, game: int, **kw: Any) -> Scenario:
        """The position right after set-up of game ``game`` of a run with ``seed``."""
        sc = cls(mix, **kw)
        sc.setup(seed, game)
        return sc

    @classmethod
    def from_spec(
        cls, spec: RunSpec, game: int | None = None, changes: Changes | None = None
    ) -> Scenario:
        """The cards, rules and bots of a whole run (mix limits, variants, ``--rules``).

        With ``game`` the position is that game's, right after set-up, exactly as
        the run plays it.
        """
        sc = cls.from_compiled(compile_run(spec, changes))
        if game is not None:
            sc.setup(spec.seed, game)
        return sc

    def setup(self, seed: int, game: int) -> None:
        """Deal game ``game`` of a run with ``seed`` (the kernel's set-up, Emissary included).

        Choices scripted before the call (e.g. each seat's ``"emissary"``) are kept
        and used by the set-up.
        """
        G.setup(self.st, self.tab, self.fp, self.ask, seed, game)
        self._check()

    def emissary(self, oldest: int) -> int:
        """Run the Emissary of War variant on the hands as they stand; returns the first player.

        ``oldest`` is the seat that wins a full tie. The winner becomes first and active;
        with gods in play (Heir to the Dunes) the Favor card turns to the other seat's god,
        as the kernel's set-up does ("the god of the second player").
        """
        first = int(G.emissary(self.st, self.tab, self.fp, self.ask, oldest))
        self._check()
        self.st[L.OLDEST] = oldest
        G.begin_with(self.st, self.tab, first)
        return first

    @classmethod
    def build(cls, mix: str = "aegean", **kw: Any) -> Scenario:
        """A position described card by card (see :func:`sim.run.positions.place` for
        the position's keywords); any other keyword goes to the constructor."""
        position = {k: kw.pop(k) for k in list(kw) if k in _POSITION_KEYS}
        sc = cls(mix, **kw)
        place(sc, **position)
        return sc

    def kind_index(self, name: str) -> int:
        """The unit kind called ``name`` in the mix."""
        try:
            return self.pool.kind_index(name)
        except KeyError as e:
            raise ScenarioError(str(e)) from None

    def feat_index(self, name: str) -> int:
        """The feat slot of the feat called ``name`` in the mix."""
        for f, fd in enumerate(self.pool.feats):
            if fd["name"] == name:
                return f
        raise ScenarioError(f"no feat named {name!r} in the mix")

    def structure_slot(self, p: int, name: str) -> int:
        """Seat ``p``'s structure slot holding the structure ``name``."""
        s = self.structure_index(p, name)
        if s is None:
            raise ScenarioError(f"seat {p} has no structure named {name!r}")
        return s

    def rule(self, name: str) -> int:
        """A rule parameter by its layout name, e.g. ``rule("RU_HAND_LIMIT")``."""
        return int(self.tables.rules[getattr(L, name)])

    def _check(self) -> None:
        err = self.error
        if err < 0:
            self.error = 0
            name = V.name_of(D.DECISIONS, -err - 1)
            raise ScenarioError(f"strict scenario: no scripted choice for a {name!r} decision")
        if err:
            self.error = 0
            name = V.name_of(D.DECISIONS, err - 1)
            raise ScenarioError(f"a scripted {name!r} choice matched no legal option")

    # --- stepping ------------------------------------------------------------------

    def sync_totals(self) -> None:
        """Recompute each city side's running totals (``layout.TOT_*``) from its slots.

        The kernel keeps them as it moves units; a test that writes units or
        enraged flags into the state from Python does not, so every method
        here that runs the kernel calls this first.
        """
        resync_totals(self.st, self.tab)

    def _step(self, s: int) -> None:
        """Run kernel step ``s`` if it is in this turn now, exactly as ``play_turn`` would."""
        self.sync_totals()
        if T.step_applies(self.st, self.tab, s):
            T.run_step(self.st, self.tab, self.fp, self.ask, s)
        self._check()

    def wealth(self) -> None:
        """Run the active seat's Wealth step (a look-ahead seat may plan its split by rollouts)."""
        self._step(T.S_WEALTH)

    def surge(self) -> None:
        """Run the active seat's Surge step (plays, reward tile, end-of-Surge abilities)."""
        self._step(T.S_SURGE)

    def portent(self) -> None:
        """Run the active seat's Portent step (Reign: its Oracles resolve)."""
        self._step(T.S_PORTENT)

    def feat(self) -> None:
        """Run the active seat's Feat step (Reign: met feats turn face down)."""
        self._step(T.S_FEAT)

    def war(self) -> None:
        """Run the War step."""
        self._step(T.S_WAR)

    def offering(self) -> None:
        """Run the Offering step (offering, TRIBUTE, hand and coin limits), unless the
        game already ended at the War step (``RU_END_AFTER_WAR``)."""
        self._step(T.S_OFFERING)

    def turn_steps(self) -> list[Step]:
        """The steps of a turn under this scenario's rules, in order (before ``end_turn``)."""
        return [s for s in TURN_STEPS if T.step_in_rules(self.tab, s.index)]

    def end_turn(self) -> None:
        """Check the end of the game and pass the turn."""
        self.sync_totals()
        T.end_turn(self.st, self.tab)

    def turn(self) -> None:
        """One full turn of the active seat."""
        self.sync_totals()
        T.play_turn(self.st, self.tab, self.fp, self.ask)
        self._check()

    def play_out(self) -> dict[str, int]:
        """Play turns until the game ends; returns the final result (see ``result``)."""
        while not self.over:
            self.turn()
        return self.result()

    # --- reading the position ------------------------------------------------
    # (names, zones and counts: sim.run.view.StateView)

    def war_torn(self, c: int) -> bool:
        """Whether city ``c`` is war-torn for the active seat right now."""
        self.sync_totals()
        return bool(is_war_torn(self.st, self.tab, c, self.active))

    def strength(self, c: int, p: int) -> int:
        """Seat ``p``'s total strength in city ``c``."""
        self.sync_totals()
        return int(side_strength(self.st, self.tab, c, p))

    def result(self) -> dict[str, int]:
        """Score the position as it stands: winner, turns, end reason and each seat's figures
        of the output row (every per-seat number of ``layout.OUT_COLUMNS``: score, its
        components, units played, ...)."""
        self.sync_totals()
        G.finish(self.st, self.tab, self.out)
        o = self.out
        res = {"winner": int(o[L.O_WINNER]), "turns": int(o[L.O_TURNS])}
        res["end_reason"] = V.END_REASONS[int(o[L.O_END_REASON])]
        for c in L.OUT_COLUMNS:
            if c.per_seat and c.dtype in ("int8", "int16"):
                for p in range(2):
                    res[f"{c.name}_p{p}"] = int(o[c.offset + p])
        return res

    def output(self) -> tuple[np.ndarray, np.ndarray]:
        """The scored game as the batch kernel returns it for one game: ``(out[1, O_COLS],
        masks[1, 4 * MASK_WORDS])``, ready for :meth:`sim.run.engine.Engine.table`.

        Call :meth:`result` first, which scores the position into ``out``.
        """
        masks = self.kind_masks[None, :].copy()
        return self.out[None, :].copy(), masks

    def snapshot(self) -> dict[str, Any]:
        """Everything public and private about the position, by name (for debugging)."""
        return {
            "active": self.active,
            "hands": [self.hand(0), self.hand(1)],
            "coins": [self.coins(0), self.coins(1)],
            "supply": self.supply,
            "cities": [[self.city(c, p) for p in range(2)] for c in range(L.N_CITIES)],
            "stacks": [self.stack(c) for c in range(L.N_CITIES)],
            "rewards": [self.rewards(0), self.rewards(1)],
            "discard": self.discard_pile(),
            "deck": self.deck_size(),
        }
