"""``omensim compile``: the kernel a run plays compiled (or loaded) now, and said so."""

from __future__ import annotations

import re

import pytest
from conftest import assert_one_error_line, invoke, ok

from sim.kernel.mode import PLAIN


def test_compile_names_what_it_compiled_and_how_long_it_took() -> None:
    out = ok(invoke("compile", "--mix", "dunes+aegean")).output
    assert re.fullmatch(r"compiled \S+:\S+, \S+:\S+ in \d+\.\d s \(cached from now on\)\n", out)


@pytest.mark.skipif(PLAIN, reason="plain numba has no linked builds")
def test_compile_linked_names_the_linked_build() -> None:
    plain = ok(invoke("compile", "--mix", "aegean")).output
    linked = ok(invoke("compile", "--mix", "aegean", "--linked")).output
    assert plain.split(" in ")[0] != linked.split(" in ")[0]


def test_compile_of_an_unknown_mix_is_one_error_line() -> None:
    assert_one_error_line(invoke("compile", "--mix", "atlantis"))


def test_compile_help_shows_its_options() -> None:
    out = ok(invoke("compile", "--help")).output
    for option in ("--mix", "--p0", "--p1", "--linked"):
        assert option in out
