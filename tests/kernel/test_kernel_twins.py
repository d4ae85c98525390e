"""Linked twins (``sim/kernel/twins.py``): the kernel tree again, its steps linked in.

The steps marked ``@kernel(by_symbol=True, twin=True)`` are by symbol in the tree a first
run compiles and linked in the twin that later runs play; the kernels between them are
copied with their globals pointing at the copies, and everything else is shared. That
both trees play the same rows is ``test_entry_points.py``'s.
"""

from __future__ import annotations

import types

import pytest

from sim.kernel import abilities, game, turn, war
from sim.kernel.batch import play_range_shared_deck
from sim.kernel.jit import kernel
from sim.kernel.twins import (
    SUFFIX,
    call_graph,
    calls,
    kernel_globals,
    linked_twin,
    reaching,
    with_replaced,
)


@kernel(by_symbol=True, twin=True)
def marked(mask, n):
    """Not a real step: one linked in a twin."""
    return mask[n] + 1


@kernel
def by_name(mask, n):
    """Not a real kernel: calls the marked one by its name."""
    return marked(mask, n) * 2


HOLDER = types.ModuleType("holder")
HOLDER.marked = marked


@kernel
def by_attribute(mask, n):
    """Not a real kernel: reaches the marked one through a module's attribute."""
    return HOLDER.marked(mask, n)


def test_a_twin_is_marked_on_a_by_symbol_kernel_only() -> None:
    with pytest.raises(ValueError, match="by-symbol"):
        kernel(twin=True)(lambda mask, n: n)


def test_the_twin_links_the_marked_kernels_and_shares_the_rest() -> None:
    """The War step, the end of the turn and the ability interpreter are
    by symbol in the kernel's tree and linked into the twin; the set-up and the end of the
    game, by symbol and not marked, are the same kernels in both."""
    twin = linked_twin(play_range_shared_deck)
    assert twin is not play_range_shared_deck
    assert twin.py_func.__qualname__ == "play_range_shared_deck" + SUFFIX
    graph = call_graph(twin)
    reached = {d.py_func.__qualname__ for d, _ in graph.values()}
    for step in (war.war_step, turn.end_turn, abilities.run_op):
        assert step.by_symbol and step.twin
        assert step.py_func.__qualname__ + SUFFIX in reached
        assert not linked_twin(step).by_symbol
    assert not reaching(twin)  # nothing in the twin is by symbol and marked any more
    assert kernel_globals(twin.py_func)["play_game_shared_deck"] is not game.play_game_shared_deck
    on = linked_twin(game.play_on)
    assert kernel_globals(on.py_func)["finish_game"] is game.finish_game
    shared = linked_twin(game.play_game_shared_deck)
    assert kernel_globals(shared.py_func)["setup_shared_deck"] is game.setup_shared_deck


def test_one_twin_per_kernel() -> None:
    assert linked_twin(war.war_step) is linked_twin(war.war_step)
    assert linked_twin(game.emissary_value) is game.emissary_value  # reaches no marked kernel


def test_a_caller_by_name_is_twinned() -> None:
    twin = linked_twin(by_name)
    assert kernel_globals(twin.py_func)["marked"] is linked_twin(marked)


def test_a_marked_kernel_reached_through_a_module_attribute_is_refused() -> None:
    """Its twin could not replace it: the copy's globals name the module, not the kernel."""
    with pytest.raises(TypeError, match="module attribute"):
        linked_twin(by_attribute)


def test_a_replaced_kernel_is_called_in_the_copies_only() -> None:
    """``with_replaced``: the copy of ``by_name`` calls the replacement, the original still
    calls ``marked``; a kernel that reaches none of the replaced is itself."""

    @kernel
    def other(mask, n):
        """Not a real kernel: what ``marked`` is replaced by."""
        return n

    copy = with_replaced(by_name, {marked: other}, "by_name_without_marked")
    assert copy.py_func.__qualname__ == "by_name_without_marked"
    assert kernel_globals(copy.py_func)["marked"] is other
    assert kernel_globals(by_name.py_func)["marked"] is marked
    assert with_replaced(game.emissary_value, {marked: other}, "x") is game.emissary_value


def test_a_replaced_kernel_reached_through_a_module_attribute_is_refused() -> None:
    with pytest.raises(TypeError, match="module attribute"):
        with_replaced(by_attribute, {marked: by_name}, "x")


def test_calls_follows_names_module_attributes_and_replacements() -> None:
    """``calls`` is what ``sim.run.compile_ahead`` reads to know whether an entry point
    compiles A Reign of War's steps: through calls by name, by a module's attribute and
    by symbol, and not into a kernel a copy replaced."""

    @kernel
    def other(mask, n):
        """Not a real kernel: what ``marked`` is replaced by."""
        return n

    assert calls(by_name, marked)
    assert calls(by_attribute, marked)
    assert not calls(marked, by_name)
    assert not calls(with_replaced(by_name, {marked: other}, "by_name_calls_other"), marked)
    assert calls(play_range_shared_deck, war.war_step)
