"""Each run plays with the entry point of its own set-up (``sim.kernel.batch.range_kernel``).

A run whose decks no variant builds plays ``play_range_shared_deck``, which is
compiled without the draft and Trial of Skill code, so a plain first run does
not compile them; every other run plays ``play_range``. Both must play the
same rows wherever both can play, and so must the linked builds runs play once
they are cached (``sim.kernel.batch.linked_run``): the entry points of two greedy
seats with the bot linked in (``strategies.greedy_batch``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from fresh import in_fresh_interpreter

from sim.compiler import PLAIN, as_ask, entry_point
from sim.compiler.ahead import compile_named, kernel_named
from sim.data.spec import RunSpec
from sim.kernel.batch import (
    linked_run,
    output_arrays,
    play_range,
    play_range_shared_deck,
    play_range_shared_deck_without_reign_steps,
    play_range_without_reign_steps,
    range_kernel,
    scratch_states,
)
from sim.run.compiled import CompiledRun, compile_run
from strategies.greedy_batch import play_range_greedy_seats, play_range_shared_deck_greedy_seats
from strategies.heuristic import choose_greedy_seats
from strategies.policy import choose, heuristic_dispatcher


def rows(
    run: CompiledRun, top: object, games: int, ask: object = None
) -> tuple[np.ndarray, np.ndarray]:
    """Games ``0 .. games-1`` of ``run`` played by entry point ``top`` on one fresh state,
    asking ``ask`` (default: the run's own dispatcher)."""
    out, masks = output_arrays(games)
    state = scratch_states(run.bots, 1)[0]
    ask = run.ask if ask is None else ask
    args = (run.tab, run.fp, ask, run.spec.seed, 0, 0, games, state, out, masks)
    entry_point(top, *args)(*args)
    return out, masks


@pytest.mark.parametrize(
    ("mix", "top"),
    [
        ("aegean", play_range_shared_deck_without_reign_steps),
        ("dunes+aegean", play_range_shared_deck_without_reign_steps),
        ("reign", play_range_shared_deck),
        ("reign+aegean", play_range_shared_deck),
    ],
)
def test_a_run_without_a_deck_building_variant_plays_the_shared_deck_entry(
    mix: str, top: object
) -> None:
    """Of the two, the one without A Reign of War's Portent and Feat steps where the rules
    have neither."""
    assert range_kernel(compile_run(RunSpec(games=1, mix=mix)).tab) is top


@pytest.mark.parametrize(
    ("mix", "variant"),
    [
        ("reign", "trial"),
        ("reign", "simple-draft"),
        ("aegean", "pile-draft"),
        ("reign", "draft1"),
        ("reign", "draft2"),
    ],
)
def test_a_run_whose_decks_a_variant_builds_plays_the_full_entry(mix: str, variant: str) -> None:
    run = compile_run(RunSpec(games=1, mix=mix, variants=(variant,)))
    want = play_range if mix == "reign" else play_range_without_reign_steps
    assert range_kernel(run.tab) is want


@pytest.mark.skipif(PLAIN, reason="plain numba has no linked builds")
def test_the_linked_builds_of_each_dispatcher() -> None:
    """Two greedy seats: ``strategies.greedy_batch``'s entry points of the run's set-up, the
    same dispatcher; every other dispatcher: none."""
    shared = compile_run(RunSpec(games=1, mix="dunes+aegean"))
    built = compile_run(RunSpec(games=1, mix="reign", variants=("trial",)))
    assert shared.ask is as_ask(choose_greedy_seats)
    greedy = as_ask(choose_greedy_seats)
    assert linked_run(shared.tab, shared.ask) == (play_range_shared_deck_greedy_seats, greedy)
    assert linked_run(built.tab, built.ask) == (play_range_greedy_seats, greedy)
    assert linked_run(shared.tab, heuristic_dispatcher()) is None
    search = compile_run(RunSpec(games=1, mix="dunes+aegean", p0="search"))
    assert search.ask is as_ask(choose)
    assert linked_run(search.tab, search.ask) is None


LINKED_ONLY = pytest.mark.skipif(PLAIN, reason="plain numba has no linked builds")


@pytest.mark.parametrize(
    ("mix", "variant", "top", "other"),
    [
        # the full entry point and the shared deck's, wherever both can play
        ("dunes+aegean", None, play_range, play_range_shared_deck),
        ("reign", None, play_range, play_range_shared_deck),
        # without A Reign of War's steps, where the rules have neither
        ("dunes+aegean", None, play_range_shared_deck, play_range_shared_deck_without_reign_steps),
        ("aegean", "pile-draft", play_range, play_range_without_reign_steps),
        # the linked entry points with the greedy bot linked in
        pytest.param(
            "dunes+aegean",
            None,
            play_range_shared_deck,
            play_range_shared_deck_greedy_seats,
            marks=LINKED_ONLY,
        ),
        pytest.param(
            "reign",
            None,
            play_range_shared_deck,
            play_range_shared_deck_greedy_seats,
            marks=LINKED_ONLY,
        ),
        pytest.param("reign", "trial", play_range, play_range_greedy_seats, marks=LINKED_ONLY),
    ],
)
def test_entry_points_play_the_same_rows(
    mix: str, variant: str | None, top: object, other: object
) -> None:
    run = compile_run(RunSpec(games=300, mix=mix, seed=5, variants=(variant,) if variant else ()))
    want_out, want_masks = rows(run, top, 300)
    out, masks = rows(run, other, 300)
    np.testing.assert_array_equal(out, want_out)
    np.testing.assert_array_equal(masks, want_masks)


def compiled_after(names: list[str], probes: list[str]) -> list[bool]:
    """Compile each kernel named (``module:function``), in order, and say after each
    whether any of the kernels ``probes`` had been compiled (run in a fresh interpreter
    with an empty cache)."""
    got = []
    for name in names:
        compile_named([name])
        got.append(any(bool(kernel_named(p).overloads) for p in probes))
    return got


def test_the_shared_deck_set_up_compiles_no_draft_code(tmp_path: Path) -> None:
    """The set-up of a plain run leaves the draft uncompiled; the control, the set-up of
    every run, compiles it."""
    setups = ["sim.kernel.game:setup_shared_deck", "sim.kernel.game:setup"]
    draft = ["sim.kernel.draft:build_decks", "sim.kernel.draft:draft_run"]
    expr = f"t.compiled_after({setups!r}, {draft!r})"
    assert in_fresh_interpreter("test_entry_points", expr, tmp_path) == [False, True]


@pytest.mark.skipif(PLAIN, reason="plain numba has no entry points without the steps")
def test_the_entry_point_without_reign_steps_compiles_neither(tmp_path: Path) -> None:
    """The control, the entry point of rules with them, compiles them."""
    tops = [
        "sim.kernel.batch:play_range_shared_deck_without_reign_steps",
        "sim.kernel.batch:play_range_shared_deck",
    ]
    steps = ["sim.kernel.portent:portent_step", "sim.kernel.feats:feat_step"]
    expr = f"t.compiled_after({tops!r}, {steps!r})"
    assert in_fresh_interpreter("test_entry_points", expr, tmp_path) == [False, True]
