"""One compile path: a run description turned into the arrays the kernel plays.

Every way of playing games starts here: the runner's :class:`~sim.run.engine.Engine`,
the :class:`~sim.run.scenario.Scenario` stepper, ``replay``, ``compare``,
``sweep`` and ``tournament``. ``compile_run(spec, changes)`` loads and checks the
card pool, sets the run-level rules (turn cap, first player, variants,
duplicate deals, deck lists, house rules) and compiles both seats' bots, once.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import sim
from sim.base import layout as L
from sim.base.tables import Tables, flatten
from sim.data.cards import CardPool, load_pool, load_rule_overrides, with_run_rules
from sim.data.changes import Changes
from sim.data.decklist import load_decklists
from sim.data.interpretations import INTERPRETATIONS, readings_in_force
from sim.data.spec import RunSpec
from sim.data.variants import check_composition, check_reach
from strategies.policy import dispatcher
from strategies.registry import strategy_arrays

FIRST_MODE_CODES: dict[str, int] = {
    "p0": L.FIRST_P0,
    "p1": L.FIRST_P1,
    "alternate": L.FIRST_ALTERNATE,
    "random": L.FIRST_RANDOM,
}
"""The kernel's ``layout.FIRST_*`` code of each ``--first`` mode."""

GOD_SEAT_CODES: dict[str, int] = {
    "alternate": L.GODS_BY_DEAL,
    "anubis,horus": L.GODS_P0_ANUBIS,
    "horus,anubis": L.GODS_P0_HORUS,
}
"""The kernel's ``layout.GODS_*`` code of each ``--gods`` mode (``sim.data.spec.GOD_MODES``)."""


@dataclass(frozen=True)
class CompiledRun:
    """The compiled cards, rules and bots of one run: what the kernel reads.

    ``tab`` is the flat card table (``sim.base.tables.flatten(tables)``),
    ``bots`` the two seats' bot ids and ``fp`` their parameter rows. The
    arrays are read-only for the kernel, so several players may share them.
    ``ask`` is the bot dispatcher the kernel asks at every choice.
    """

    spec: RunSpec
    pool: CardPool
    tables: Tables
    tab: np.ndarray
    bots: np.ndarray
    fp: np.ndarray
    overrides: dict[str, Any] = field(default_factory=dict)
    """House rules read from ``spec.rules`` (empty without ``--rules``)."""
    changes: Changes | None = None

    @property
    def ask(self) -> Callable[..., int]:
        """The kernel's bot dispatcher for these seats: with the look-ahead's rollout code
        only if a seat is the look-ahead bot (so no other run compiles it), without the
        scripted choices, which a run's games never queue (``sim.kernel.batch.seat``)."""
        return dispatcher(self.bots, scripts=False)

    def metadata(self) -> dict[str, str]:
        """The run's Parquet key-value metadata: everything needed to reproduce its rows."""
        spec = self.spec
        meta = {
            "omensim_version": sim.__version__,
            "seed": str(spec.seed),
            "games": str(spec.games),
            "mix": self.pool.mix,
            "variant": spec.variant_label,
            "strategy_p0": spec.p0,
            "strategy_p1": spec.p1,
            "first": spec.first,
            "turn_cap": str(spec.turn_cap),
            "duplicate": str(spec.duplicate).lower(),
            "gods": spec.gods,
            "rule_overrides": json.dumps(self.overrides, sort_keys=True),
            "card_hash": self.pool.card_hash(),
            "card_table": self.pool.to_json(),
            "rules": json.dumps(self.pool.rules, sort_keys=True),
            "interpretations": json.dumps(
                {**INTERPRETATIONS, **self.pool.interpretations}, sort_keys=True
            ),
            "readings": json.dumps(readings_in_force(self.pool.rules), sort_keys=True),
        }
        if self.changes:
            meta["card_changes"] = self.changes.to_json()
        return meta


def run_pool(
    spec: RunSpec, changes: Changes | None = None, overrides: dict[str, Any] | None = None
) -> CardPool:
    """The card pool ``spec`` plays (mix limits, learning game, ``changes``); no kernel work.

    ``overrides``: house rules already read from ``spec.rules`` (read here when ``None``).
    """
    if overrides is None:
        overrides = load_rule_overrides(spec.rules) if spec.rules is not None else {}
    loader = changes.load_pool if changes else load_pool
    seed = spec.seed if spec.subset_seed is None else spec.subset_seed
    return loader(spec.mix, seed, learning="learning" in spec.variants, rule_overrides=overrides)


def compile_run(
    spec: RunSpec,
    changes: Changes | None = None,
    *,
    rule_values: Mapping[str, int] | None = None,
) -> CompiledRun:
    """Load, check and compile everything ``spec`` plays.

    Args:
        spec: the run.
        changes: designer edits to the cards (:mod:`sim.data.changes`); ``None``
            plays the shipped cards.
        rule_values: kernel rule parameters set last, by their layout name
            (``{"RU_HAND_LIMIT": 5}``); scenario tests use them to set up a
            rule in isolation.

    Raises:
        sim.data.spec.SpecError: unknown strategy or a variant the mix cannot play.
        sim.data.cards.CardDataError: invalid card, house-rules or deck-list data.
    """
    overrides = load_rule_overrides(spec.rules) if spec.rules is not None else {}
    pool = run_pool(spec, changes, overrides)
    check_composition(spec, pool)
    check_reach(pool, overrides, spec.variants)
    tables = with_run_rules(
        pool.tables,
        turn_cap=spec.turn_cap,
        emissary=False,
        first_mode=FIRST_MODE_CODES[spec.first],
        variants=spec.variants,
        duplicate=spec.duplicate,
        god_seats=GOD_SEAT_CODES[spec.gods],
    )
    if spec.decks is not None or rule_values:
        ru = tables.rules.copy()
        if spec.decks is not None:
            ru[L.RU_CONSTRUCTED] = 1
            for p, kinds in enumerate(load_decklists(spec.decks, pool)):
                ru[
                    L.RU_DECKLIST + L.N_DECK_PILES * p : L.RU_DECKLIST + L.N_DECK_PILES * (p + 1)
                ] = kinds
        for key, value in (rule_values or {}).items():
            ru[getattr(L, key)] = value
        tables = tables._replace(rules=ru)
    tab = flatten(tables)
    bots, fp = strategy_arrays(spec.p0, spec.p1, tab)
    return CompiledRun(spec, pool, tables, tab, bots, fp, overrides, changes or None)


def plays_the_same(a: CompiledRun, b: CompiledRun) -> bool:
    """Whether two compiled runs play identical games: the same flat tables (cards, rules,
    run-level rules), the same bots with the same parameters, the same games and seed."""
    sa, sb = a.spec, b.spec
    return (
        (sa.games, sa.seed) == (sb.games, sb.seed)
        and np.array_equal(a.tab, b.tab)
        and np.array_equal(a.bots, b.bots)
        and np.array_equal(a.fp, b.fp)
    )
