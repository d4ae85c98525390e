"""``omensim compile``: the kernel a run plays compiled (or loaded) now, and said so."""

from __future__ import annotations

import re

import pytest
from conftest import assert_one_error_line, invoke, ok

from sim.compiler.mode import PLAIN


def test_compile_names_what_it_compiled_and_how_long_it_took() -> None:
    out = ok(invoke("compile", "--mix", "dunes+aegean")).output
    assert re.fullmatch(r"compiled \S+:\S+, \S+:\S+ in \d+\.\d s \(cached from now on\)\n", out)


@pytest.mark.skipif(PLAIN, reason="plain numba has no linked builds")
def test_compile_linked_names_the_linked_build() -> None:
    from sim.compiler.linkage import kernel_name
    from sim.data.spec import RunSpec
    from sim.kernel.batch import linked_run
    from sim.run.compiled import compile_run

    run = compile_run(RunSpec(mix="aegean"))
    top, ask = linked_run(run.tab, run.ask)
    out = ok(invoke("compile", "--mix", "aegean", "--linked")).output
    assert out.startswith(f"compiled {kernel_name(top)}, {kernel_name(ask)} in ")


def test_compile_of_an_unknown_mix_is_one_error_line() -> None:
    assert_one_error_line(invoke("compile", "--mix", "atlantis"))


def test_compile_help_shows_its_options() -> None:
    out = ok(invoke("compile", "--help")).output
    for option in ("--mix", "--p0", "--p1", "--linked"):
        assert option in out
