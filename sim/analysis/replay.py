"""Replay one game of a run in the kernel's trace mode (``sim.kernel.trace``) and tell it
with :mod:`sim.analysis.narrator` (what it tells: ``docs/replay.md``).

Game ``i`` depends on ``(seed, i)`` alone, so :func:`replay` rebuilds it from the run's spec
and checks itself: its row must equal the row :class:`sim.run.engine.Engine` plays for it.
"""

from __future__ import annotations

import json
import multiprocessing
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np
import pandas as pd

from sim.analysis import narrator as N
from sim.base import events as E
from sim.compiler.mode import HOOKS_ENV
from sim.data.cards import SETS_DIR, load_rule_overrides, load_set, parse_mix
from sim.data.changes import Changes
from sim.data.spec import RunSpec
from sim.kernel.trace import use_hooks
from sim.run.compiled import compile_run, run_pool
from sim.run.engine import Engine
from sim.run.scenario import Scenario
from sim.run.view import with_trace


class ReplayMismatch(AssertionError):
    """The replayed game does not give the dataset row the batch kernel gives."""


@dataclass
class Replay:
    """A replayed game: its events, its final result and the dataset-row check.

    ``events``: one dict per thing that happened, in order: ``turn`` (0 for the set-up),
    ``active`` (-1 at set-up and at the end), ``step``, ``step_name`` and the keys of
    :func:`sim.analysis.narrator.events`. ``row`` is the replay's own dataset row,
    ``expected`` the batch kernel's for the same game, ``mismatches`` where they differ.
    """

    spec: RunSpec
    game: int
    events: list[dict[str, Any]]
    result: dict[str, Any]
    row: dict[str, Any]
    expected: dict[str, Any] | None = None
    mismatches: list[str] = field(default_factory=list)
    rows: np.ndarray = field(default_factory=lambda: np.zeros((0, E.EV_W), np.int64))
    """Every event of the trace after set-up, in order (``sim.base.events`` rows)."""
    scores: dict[int, dict[str, Any]] = field(default_factory=dict)
    """The score (``Scenario.result()`` of the position) after each turn, by turn."""

    @property
    def matches(self) -> bool:
        """True when the replay's row equals the dataset row in every column."""
        return self.expected is not None and not self.mismatches

    def frame(self) -> pd.DataFrame:
        """The events as a DataFrame (one row per event)."""
        return pd.DataFrame(self.events)

    def text(self) -> str:
        """The game step by step: a header, the set-up, what each step of each turn changed
        with its causes, the score (``omensim replay --positions``)."""
        return self._told(story=False)

    def story(self) -> str:
        """The game as a story: the set-up, then each turn's events in the order they
        happened with their causes and the bots' weighed options, the score after each
        turn, and why the game was won (``omensim replay``)."""
        return self._told(story=True)

    def _told(self, story: bool) -> str:
        s = self.spec
        head = (
            f"Game {self.game} of seed {s.seed}: {s.mix}, {s.variant_label} rules, "
            f"P0 {s.p0} vs P1 {s.p1}, first player: {s.first}"
            + (", duplicate deals" if s.duplicate else "")
            + (f", house rules {s.rules}" if s.rules else "")
        )
        lines = N.render(head, self.events, self.scores, self.result, story)
        if self.expected is not None and self.mismatches:
            lines += ["", "DIFFERS from the dataset row in: " + ", ".join(self.mismatches)]
        elif self.expected is not None:
            lines += ["", "Matches the dataset row (every column)."]
        return "\n".join(lines) + "\n"

    def trace(self) -> np.ndarray:
        """Every event of the game after set-up, in order (``sim.base.events`` rows)."""
        return self.rows


TRACE_EVENTS = 50_000
"""Events a replayed game's trace holds (a long Reign game reports a few thousand)."""


def compare_rows(got: dict[str, Any], want: dict[str, Any]) -> list[str]:
    """Columns where two dataset rows (plain values, as ``Table.to_pylist`` gives them)
    differ, as ``"col: replay got != dataset want"`` (empty if identical)."""
    return [
        f"{col}: replay {got.get(col, '<missing>')!r} != dataset {w!r}"
        for col, w in want.items()
        if got.get(col, "<missing>") != w
    ]


# --- replaying ----------------------------------------------------------------------------


def _placed(said: list[dict[str, Any]], turn: int, active: int, step: str, title: str) -> list:
    """The events ``said`` with where in the game they happened (the keys of ``Replay.events``)."""
    return [{"turn": turn, "active": active, "step": step, "step_name": title, **e} for e in said]


def _replay_in_traced_process(
    spec: RunSpec, game: int, check: bool, changes: Changes | None
) -> Replay:
    """:func:`replay` in a new process whose kernels have the trace hooks, for a process
    that compiled its own without them (``sim.kernel.trace.use_hooks``): numba cannot
    compile a second copy of a kernel in one process. Its errors are raised here."""
    # The spawned process reads it at start-up; it is restored after.
    spawn = multiprocessing.get_context("spawn")
    with mock.patch.dict(os.environ, {HOOKS_ENV: "1"}), spawn.Pool(1) as pool:
        return pool.apply(replay, (spec, game), {"check": check, "changes": changes})


_ENTRY_LISTS = ("units", "rewards", "structures", "feats")


def changed_input(
    spec: RunSpec, changes: Changes | None, metadata: Mapping[str, Any]
) -> str | None:
    """``None`` when the cards and house rules a replay of ``spec`` would read now are the
    ones the run recorded in its ``metadata`` (``card_hash``, ``rule_overrides``); else why
    not, naming the file that changed.

    A replay rebuilds the cards from the files the run named (``--cards``, the shipped
    sets, ``--rules``), which may have been edited since: replaying other cards would tell
    another game than the one in the dataset. A run recorded without a card hash (an older
    omensim) is not checked.

    Raises:
        SpecError, CardDataError, OSError: a file that no longer loads, as the replay would.
    """
    overrides = load_rule_overrides(spec.rules) if spec.rules is not None else {}
    recorded = metadata.get("rule_overrides")
    if recorded is not None and recorded != json.dumps(overrides, sort_keys=True):
        return f"{spec.rules} has changed since the run: its house rules are not the ones it played"
    was = metadata.get("card_hash")
    if not was:
        return None
    pool = run_pool(spec, changes, overrides)
    now = pool.card_hash()
    if now == was:
        return None
    files = _changed_set_files(spec, changes, metadata.get("card_table"), pool.to_json())
    return (
        f"{' or '.join(str(f) for f in files)} has changed since the run: the cards it gives "
        f"are not the ones the run played (card hash {was[:12]} then, {now[:12]} now)"
    )


def _changed_set_files(
    spec: RunSpec, changes: Changes | None, recorded: str | None, current: str
) -> list[Path]:
    """The set files of ``spec``'s mix holding a card whose entry differs between the
    ``recorded`` and ``current`` card tables (JSON of ``CardPool.to_json``); every set file
    of the mix when that cannot be told (no recorded table, or only rules differ)."""
    files = {p.name: SETS_DIR / f"{p.name}.toml" for p in parse_mix(spec.mix)}
    for path in changes.card_files if changes else ():
        files[load_set(path).name] = path
    try:
        then = json.loads(recorded or "{}")
    except ValueError:
        then = {}
    now = json.loads(current)
    differ: set[str] = set()
    sets: set[str] = set()  # units and rewards say which set they come from
    for key in _ENTRY_LISTS:
        old = {e.get("name"): e for e in then.get(key, []) if isinstance(e, dict)}
        new = {e.get("name"): e for e in now.get(key, [])}
        for name in old.keys() | new.keys():
            if old.get(name) != new.get(name):
                differ.add(name)
                sets |= {e["set"] for e in (old.get(name), new.get(name)) if e and "set" in e}
    named = [
        path
        for set_name, path in files.items()
        if set_name in sets
        or any(e["name"] in differ for key in _ENTRY_LISTS for e in getattr(load_set(path), key))
    ]
    return named or list(files.values())


def replay(
    spec: RunSpec, game: int, *, check: bool = True, changes: Changes | None = None
) -> Replay:
    """Replay game ``game`` of the run ``spec`` step by step and describe it.

    Played by the kernel's own step functions with the run's cards, variants and bots, in
    trace mode: in a new (spawned) process when this one's kernels were compiled without
    the trace hooks. With ``check`` a difference from ``Engine(spec).play(game, 1)``'s row
    raises :class:`ReplayMismatch`; without, it is listed in ``Replay.mismatches``.
    """
    if not 0 <= game < spec.games:
        raise ValueError(f"game {game} is not in the run: its games are 0 .. {spec.games - 1}")
    if not use_hooks():  # the story is told from the kernel's trace
        return _replay_in_traced_process(spec, game, check, changes)
    run = compile_run(spec, changes)  # changes: the card changes the run was played with
    sc = Scenario.from_compiled(run)
    sc.st = with_trace(sc.st, TRACE_EVENTS)
    sc.setup(spec.seed, game)
    reign = sc.pool.mix.split("+")[0].split(":")[0] == "reign"
    teller = N.Teller(sc, reign)
    events = _placed(N.setup_events(sc, reign), 0, -1, "setup", "Set-up")
    traced = [np.zeros((0, E.EV_W), np.int64)]
    scores: dict[int, dict[str, Any]] = {}
    seen = sc.trace_count  # set-up's events: the set-up is told from the position
    steps = [*((s.name, s.title) for s in sc.turn_steps()), ("end_turn", "End of turn")]
    while not sc.over:
        turn, p = sc.turns_done + 1, sc.active
        for name, title in steps:
            title = "Supply Step" if name == "offering" and reign else title
            before = N.sides(sc)
            if name == "end_turn":
                sc.end_turn()
            else:
                getattr(sc, name)()
            rows = sc.trace_events()[seen:]
            seen += len(rows)
            traced.append(rows)
            said = N.untraced(teller, N.events(teller, rows, name, p), before, N.sides(sc), name, p)
            if not said and name != "end_turn":
                said = [{"event": N.NOTHING, "text": "nothing happens"}]
            events += _placed(said, turn, p, name, title)
        scores[turn] = sc.copy().result()
    res = sc.result()
    res["first_player"] = sc.first
    engine = Engine(run)
    row = engine.table(game, *sc.output()).to_pylist()[0]
    events += _placed(N.end_events(res), int(res["turns"]), -1, "end", "End")
    expected = engine.play(game, 1).to_pylist()[0]
    r = Replay(spec, game, events, res, row, expected, compare_rows(row, expected))
    r.rows, r.scores = np.concatenate(traced), scores
    if check and r.mismatches:
        raise ReplayMismatch(
            f"replay of game {game} differs from the dataset row: " + "; ".join(r.mismatches)
        )
    return r
