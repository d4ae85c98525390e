"""A kernel's linked callees are private to its machine code (``sim/kernel/private_callees.py``).

Private callees let LLVM drop the parts of numba's calling convention a kernel never
reads. Each private copy is renamed: numba's JIT also files an object's local symbols
by name, so a copy under the callee's own name would be found in place of the shared
definition by the next module that links the callee, and called with the wrong
arguments. The first test checks the renaming on a module; the second plays that
second module in a fresh process.
"""

from __future__ import annotations

from pathlib import Path

import numba
import numpy as np
from fresh import in_fresh_interpreter
from llvmlite import binding as ll

from sim.kernel.numba_ext import entry_point, kernel
from sim.kernel.private_callees import make_callees_private

IR = """
define linkonce_odr i32 @callee(i64 %a, i64 %b) {
  %s = add i64 %a, %b
  %t = trunc i64 %s to i32
  ret i32 %t
}
define i32 @root(i64 %a) {
  %r = call i32 @callee(i64 %a, i64 1)
  ret i32 %r
}
declare i32 @elsewhere(i64)
"""


def linkages(owner: str) -> dict[str, str]:
    """Each function of :data:`IR`'s module by name -> linkage, after ``make_callees_private``."""
    ll.initialize_native_target()
    module = ll.parse_assembly(IR)
    assert make_callees_private(module, owner) == 1
    module.verify()
    return {fn.name: fn.linkage.name for fn in module.functions}


def test_linked_definitions_become_private_and_renamed() -> None:
    first, second = linkages("one"), linkages("two")
    assert first["root"] == "external"
    assert first["elsewhere"] == "external"
    (private,) = set(first) - {"root", "elsewhere"}
    assert private.startswith("callee.") and first[private] == "internal"
    # Another library's copy gets another name: their symbols never meet in the JIT.
    assert private not in second


@numba.njit(cache=True)
def shared(mask, n):
    """A callee both kernels below link; recursive, so it stays out of line."""
    if n <= 0:
        return 0
    return mask[n - 1] * (n + 2) + shared(mask, n - 1)


@kernel(from_python=True)
def first_root(mask, n):
    """A root: its machine code holds a private copy of ``shared``."""
    return shared(mask, n) + shared(mask, n - 1)


@numba.njit(cache=True)
def second_caller(mask, n):
    """Links ``shared`` again, as numba links any callee, after the root's code is loaded."""
    return shared(mask, n) + 1


def both_callers() -> list[int]:
    """The root's value, then the second caller's, compiled in that order."""
    mask = np.arange(7, dtype=np.int64)
    return [int(entry_point(first_root)(mask, 7)), int(second_caller(mask, 7))]


def test_a_later_caller_of_the_callee_gets_the_shared_definition(tmp_path: Path) -> None:
    def value(n: int) -> int:
        return sum(i * (i + 3) for i in range(n))

    got = in_fresh_interpreter("test_private_callees", "t.both_callers()", tmp_path)
    assert got == [value(7) + value(6), value(7) + 1]
