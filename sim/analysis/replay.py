"""Replay one game of a run, step by step, in the rulebooks' words.

``replay(spec, game)`` rebuilds game ``game`` of the run ``spec`` from its seed
with :meth:`sim.run.scenario.Scenario.from_spec` and steps it exactly as the kernel's
turn loop does (Wealth, Surge, Portent and Feat when the rules have them, War,
Offering, end of turn). Around every step it reads the whole position (where
every physical card and reward tile is, coins, VP tokens, Favor, structures,
feats, enraged units) and turns the differences into events: cards drawn,
units played into a city, units destroyed, moved or returned, reward tiles won
and used, conflicts and their victors, offerings, structures built, discards
to the hand limit, and at the end the score with its components.

The game is also played in the kernel's trace mode (``sim.kernel.trace``): every
event in the order it happened, with the card, reward tile, structure or rule step
that caused it, and each of the greedy bot's decisions with its options' values.
:meth:`Replay.story` tells the game from that trace (``sim.analysis.story``), with
the score after each turn and why the game was won; :meth:`Replay.text` is the
step-by-step account of the positions. The replay only needs what the dataset
already guarantees, that game ``i`` depends on ``(seed, i)`` alone; and it checks
itself: the replayed game's dataset row (every column) is compared with the
row :class:`sim.run.engine.Engine` plays for the same game, and a difference
raises :class:`ReplayMismatch` (or is listed in ``Replay.mismatches`` with
``check=False``).

>>> r = replay(RunSpec(games=10, mix="aegean", seed=7), 3)  # doctest: +SKIP
>>> print(r.text())  # doctest: +SKIP
"""

from __future__ import annotations

import multiprocessing
import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from sim.analysis.positions_text import Describer, end_events, position, setup_events
from sim.analysis.story import Teller, score_line, tell, why_won
from sim.base import events as E
from sim.compiler.mode import HOOKS_ENV
from sim.data.changes import Changes
from sim.data.spec import RunSpec
from sim.kernel.trace import use_hooks
from sim.run.compiled import compile_run
from sim.run.engine import Engine
from sim.run.scenario import Scenario
from sim.run.view import with_trace


class ReplayMismatch(AssertionError):
    """The replayed game does not give the dataset row the batch kernel gives."""


@dataclass
class Replay:
    """A replayed game: its events, its final result and the dataset-row check.

    ``events`` is a list of dicts, one per thing that happened, in order, with
    the keys ``turn`` (0 for the set-up), ``active`` (the active seat, -1 at
    set-up and at the end), ``step`` (``setup``, ``wealth``, ``surge``,
    ``portent``, ``feat``, ``war``, ``offering``, ``end``), ``event`` (a short
    kind such as ``draw``, ``play``, ``destroy``, ``conflict``, ``offer``) and
    ``text`` (the sentence :meth:`text` prints), plus event-specific fields
    (``seat`` the event is about, ``cards``, ``city``, ``coins``, ...).
    ``row`` is the replay's own dataset row (the columns ``Engine.play``
    writes), ``expected`` the batch kernel's row for the same game,
    ``mismatches`` the columns where they differ.
    """

    spec: RunSpec
    game: int
    events: list[dict[str, Any]]
    result: dict[str, Any]
    row: dict[str, Any]
    expected: dict[str, Any] | None = None
    mismatches: list[str] = field(default_factory=list)
    steps: list[TracedStep] = field(default_factory=list)
    """The trace, step by step: the events each step of each turn recorded."""
    scores: dict[int, dict[str, Any]] = field(default_factory=dict)
    """The score (``Scenario.result()`` of the position) after each turn, by turn."""
    teller: Teller | None = None
    """Names the trace's ids in words (set by :func:`replay`)."""

    @property
    def matches(self) -> bool:
        """True when the replay's row equals the dataset row in every column."""
        return self.expected is not None and not self.mismatches

    def frame(self) -> pd.DataFrame:
        """The events as a DataFrame (one row per event)."""
        return pd.DataFrame(self.events)

    def text(self) -> str:
        """The game as readable text: a header, the set-up, each turn step by step, the score."""
        s = self.spec
        lines = [
            f"Game {self.game} of seed {s.seed}: {s.mix}, {s.variant_label} rules, "
            f"P0 {s.p0} vs P1 {s.p1}, first player: {s.first}"
            + (", duplicate deals" if s.duplicate else "")
            + (f", house rules {s.rules}" if s.rules else "")
        ]
        heading = None
        step = None
        for ev in self.events:
            key = (ev["turn"], ev["active"])
            if key != heading:
                heading = key
                step = None
                if ev["step"] == "setup":
                    lines.append("\nSet-up")
                elif ev["step"] == "end":
                    lines.append("\nEnd of the game")
                else:
                    lines.append(f"\nTurn {ev['turn']}: P{ev['active']}")
            if ev["step"] not in ("setup", "end") and ev["step"] != step:
                step = ev["step"]
                lines.append(f"  {ev['step_name']}")
            indent = "  " if ev["step"] in ("setup", "end") else "    "
            lines.append(f"{indent}{ev['text']}")
        return "\n".join([*lines, *self._check_lines()]) + "\n"

    def _check_lines(self) -> list[str]:
        """The last line of both texts: whether the replay gave the dataset's row."""
        if self.expected is None:
            return []
        if self.mismatches:
            return ["\nDIFFERS from the dataset row in: " + ", ".join(self.mismatches)]
        return ["\nMatches the dataset row (every column)."]

    def trace(self) -> np.ndarray:
        """Every event of the game after set-up, in order (``sim.base.events`` rows)."""
        rows = [t.rows for t in self.steps]
        return np.concatenate(rows) if rows else np.zeros((0, E.EV_W), np.int64)

    def story(self) -> str:
        """The game as a story told from the kernel's trace: the set-up, then each turn's
        events in the order they happened with their causes and the bot's weighed options,
        the score after each turn, and why the game was won."""
        lines = [self.text().split("\n", 1)[0], "", "Set-up"]
        lines += [f"  {e['text']}" for e in self.events if e["step"] == "setup"]
        if self.teller is None:
            raise ValueError("this Replay has no trace to tell: make it with replay()")
        turn = None
        for t in self.steps:
            if t.turn != turn:
                if turn is not None:
                    lines.append(f"  {score_line(self.scores[turn])}")
                turn = t.turn
                lines.append(f"\nTurn {t.turn}: P{t.active}")
            said = tell(self.teller, t.rows, t.step, t.active)
            if said and t.step != "end_turn":
                lines.append(f"  {t.title}")
            lines += [f"    {x}" for x in said]
        if turn is not None:
            lines.append(f"  {score_line(self.scores[turn])}")
        lines.append("\nEnd of the game")
        lines += [f"  {e['text']}" for e in self.events if e["step"] == "end"]
        lines += ["", *why_won(self.result)]
        return "\n".join([*lines, *self._check_lines()]) + "\n"


@dataclass(frozen=True)
class TracedStep:
    """The events one step of one turn recorded in the kernel's trace."""

    turn: int
    active: int
    step: str
    title: str
    rows: np.ndarray


TRACE_EVENTS = 50_000
"""Events a replayed game's trace holds (a long Reign game reports a few thousand)."""


def _plain(value: Any) -> Any:
    """A dataset cell as a plain Python value (numpy scalars and arrays, categories, NaN)."""
    if isinstance(value, np.ndarray):
        return [_plain(v) for v in value.tolist()]
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def compare_rows(got: dict[str, Any], want: dict[str, Any]) -> list[str]:
    """Columns where two dataset rows differ, as ``"col: got != want"`` (empty if identical)."""
    diffs = []
    for col in want:
        g, w = _plain(got.get(col, "<missing>")), _plain(want[col])
        if g != w:
            diffs.append(f"{col}: replay {g!r} != dataset {w!r}")
    return diffs


# --- replaying ----------------------------------------------------------------------------


def _replay_in_traced_process(
    spec: RunSpec, game: int, check: bool, changes: Changes | None
) -> Replay:
    """:func:`replay` in a new process whose kernels have the trace hooks, for a process
    that compiled its own without them (``sim.kernel.trace.use_hooks``): numba cannot
    compile a second copy of a kernel in one process. Its errors are raised here."""
    saved = os.environ.get(HOOKS_ENV)
    os.environ[HOOKS_ENV] = "1"  # the spawned process reads it at start-up
    try:
        with multiprocessing.get_context("spawn").Pool(1) as pool:
            return pool.apply(replay, (spec, game), {"check": check, "changes": changes})
    finally:
        if saved is None:
            del os.environ[HOOKS_ENV]
        else:
            os.environ[HOOKS_ENV] = saved


def replay(
    spec: RunSpec, game: int, *, check: bool = True, changes: Changes | None = None
) -> Replay:
    """Replay game ``game`` of the run ``spec`` step by step and describe it.

    The game is played by the same kernel step functions as a run, with the
    run's cards, variants and bots, in the kernel's trace mode: in a new process
    when this one's kernels were compiled without the trace hooks (a run played
    first; ``sim.kernel.trace``), which re-imports a script's ``__main__`` as
    ``multiprocessing``'s spawn does. With ``check`` (the default) the replayed
    result is compared with the dataset row ``Engine(spec).play(game, 1)`` gives,
    and any difference raises :class:`ReplayMismatch`; with ``check=False`` the
    differences are only listed in ``Replay.mismatches``.
    """
    if not 0 <= game < spec.games:
        raise ValueError(f"game {game} is not in the run: its games are 0 .. {spec.games - 1}")
    if not use_hooks():  # the story is told from the kernel's trace
        return _replay_in_traced_process(spec, game, check, changes)
    run = compile_run(spec, changes)  # changes: the card changes the run was played with
    sc = Scenario.from_compiled(run)
    sc.st = with_trace(sc.st, TRACE_EVENTS)
    sc.setup(spec.seed, game)
    d = Describer(sc)
    traced: list[TracedStep] = []
    scores: dict[int, dict[str, Any]] = {}
    seen = sc.trace_count  # set-up's events: the set-up is described from the position
    events: list[dict[str, Any]] = []

    def add(evs: list[dict[str, Any]], turn: int, seat: int, step: str, step_name: str) -> None:
        for e in evs:
            events.append({"turn": turn, "active": seat, "step": step, "step_name": step_name, **e})

    pos = position(sc)
    add(setup_events(sc, d, pos), 0, -1, "setup", "Set-up")
    steps = sc.turn_steps()
    offering_name = "Supply Step" if d.reign else "Offering Step"
    while not sc.over:
        turn = sc.turns_done + 1
        p = sc.active
        for step in steps:
            getattr(sc, step.name)()
            after = position(sc)
            title = offering_name if step.name == "offering" else step.title
            evs = d.diff(step.name, pos, after, p)
            if not evs:
                evs = [{"event": "nothing", "text": "nothing happens"}]
            add(evs, turn, p, step.name, title)
            pos = after
            rows = sc.trace_events()[seen:]
            seen += len(rows)
            traced.append(TracedStep(turn, p, step.name, title, rows))
        sc.end_turn()
        after = position(sc)
        evs = d.diff("end_turn", pos, after, p)
        add(evs, turn, p, "end_turn", "End of turn")
        pos = after
        rows = sc.trace_events()[seen:]
        seen += len(rows)
        traced.append(TracedStep(turn, p, "end_turn", "End of turn", rows))
        scores[turn] = sc.copy().result()
    res = sc.result()
    res["first_player"] = sc.first
    engine = Engine(run)
    row = engine.table(game, *sc.output()).to_pylist()[0]
    add(end_events(res), int(res["turns"]), -1, "end", "End")
    expected = engine.play(game, 1).to_pylist()[0]
    r = Replay(spec, game, events, res, row, expected, compare_rows(row, expected))
    r.steps, r.scores, r.teller = traced, scores, Teller(sc, d.reign)
    if check and r.mismatches:
        raise ReplayMismatch(
            f"replay of game {game} differs from the dataset row: " + "; ".join(r.mismatches)
        )
    return r
