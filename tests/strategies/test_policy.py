"""The dispatcher a run plays with (``strategies.policy.dispatcher``).

Two greedy seats in a run's games (no scripted choices) get ``choose_greedy_seats``:
the same answers as ``choose_heuristic``, so the same rows, and a first run
compiles neither the scripts, the strict bot nor the random bot.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from fresh import in_fresh_interpreter

from sim.compiler import ASK_SIGNATURE, as_ask
from sim.data.spec import RunSpec
from sim.kernel.batch import RunArgs, play_batch
from sim.run.compiled import compile_run
from strategies import heuristic, random_bot
from strategies.heuristic import BOT_GREEDY, BOT_RANDOM
from strategies.policy import (
    BOT_SEARCH,
    choose,
    choose_greedy_seats,
    choose_heuristic,
    dispatcher,
)


def test_two_greedy_seats_without_scripts_get_the_greedy_dispatcher() -> None:
    assert dispatcher([BOT_GREEDY, BOT_GREEDY], scripts=False) is as_ask(choose_greedy_seats)
    # A scenario queues scripted choices: the general dispatcher answers them.
    assert dispatcher([BOT_GREEDY, BOT_GREEDY]) is as_ask(choose_heuristic)
    assert dispatcher([BOT_GREEDY, BOT_RANDOM], scripts=False) is as_ask(choose_heuristic)
    assert dispatcher([BOT_SEARCH, BOT_GREEDY], scripts=False) is as_ask(choose)


def test_a_run_of_two_greedy_seats_asks_the_greedy_dispatcher() -> None:
    run = compile_run(RunSpec(games=2, mix="aegean"))
    assert run.ask is as_ask(choose_greedy_seats)


@pytest.mark.parametrize("mix", ["dunes+aegean", "reign"])
def test_the_greedy_dispatcher_plays_the_same_rows(mix: str) -> None:
    run = compile_run(RunSpec(games=2, mix=mix, seed=3))
    rows = [
        play_batch(RunArgs(run.tab, run.fp, run.bots, as_ask(ask), 3), 0, 300, 2)
        for ask in (choose_heuristic, choose_greedy_seats)
    ]
    np.testing.assert_array_equal(rows[0][0], rows[1][0])
    np.testing.assert_array_equal(rows[0][1], rows[1][1])


def compiled_bots() -> list[str]:
    """Compile ``choose_greedy_seats`` here; the heuristic dispatcher's other bots compiled
    (or loaded) with it."""
    disp = heuristic.choose_greedy_seats
    disp.compile(ASK_SIGNATURE.args)
    others = (heuristic._scripted, heuristic.option_card, random_bot.choose_random)
    return [d.py_func.__name__ for d in others if d.overloads]


def test_the_greedy_dispatchers_compile_reaches_neither_scripts_nor_random_bot(
    tmp_path: Path,
) -> None:
    assert in_fresh_interpreter("test_policy", "t.compiled_bots()", tmp_path) == []
