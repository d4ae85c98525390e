"""``@kernel(inline=True)`` inlines in LLVM, not at numba's IR level (``sim/kernel/numba_ext.py``).

Issue 15: numba's ``inline="always"`` re-reads, copies and re-types a helper's
body at every call site, a tenth of the cold compile; LLVM's ``alwaysinline``
types it once and still leaves no call in the hot loop. These tests pin both
halves: the helper is compiled on its own (one signature, so once), and the
caller's optimised machine-level IR holds no call to it.
"""

from __future__ import annotations

import re
from pathlib import Path

import numba
import numpy as np
from fresh import in_fresh_interpreter

from sim.kernel.numba_ext import kernel


@kernel(inline=True)
def doubled_plus(mask, n):
    """Not a real kernel: a small helper a hot loop would call."""
    return 2 * mask[n] + 1


@kernel
def sums_helper(mask, n):
    """Calls the helper once per element, as option scoring calls its helpers."""
    total = 0
    for i in range(n):
        total += doubled_plus(mask, i)
    return total


@numba.njit(cache=True, _dbg_optnone=True)
def plain_helper(mask, n):
    """The same helper, kept out of line (numba's ``noinline``): the control."""
    return 2 * mask[n] + 1


@kernel
def sums_plain(mask, n):
    """Calls the plain helper in the same loop."""
    total = 0
    for i in range(n):
        total += plain_helper(mask, i)
    return total


def calls_in(caller: str, callee: str) -> int:
    """Calls to kernel ``callee`` in kernel ``caller``'s final (linked, optimised) LLVM IR.

    Compiled afresh (numba shows no IR for cached code), so run by
    :func:`fresh_calls_in` in a child with an empty cache.
    """
    import numpy as np

    caller_fn, callee_fn = globals()[caller], globals()[callee]
    caller_fn(np.arange(5, dtype=np.int64), 5)
    (ir,) = caller_fn.inspect_llvm().values()
    (cres,) = callee_fn.overloads.values()
    return len(re.findall(r"call [^\n]*@\"?" + re.escape(cres.fndesc.mangled_name), ir))


def fresh_calls_in(caller: str, callee: str, cache: Path) -> int:
    """:func:`calls_in` in a fresh interpreter compiling into the empty ``cache``."""
    return in_fresh_interpreter("test_kernel_inline", f"t.calls_in({caller!r}, {callee!r})", cache)


def test_an_inline_kernel_leaves_no_call_in_its_caller(tmp_path: Path) -> None:
    mask = np.arange(5, dtype=np.int64)
    assert sums_helper(mask, 5) == sums_plain(mask, 5) == 2 * 10 + 5
    assert doubled_plus.targetoptions["inline"] == "never"  # not numba's IR copy
    assert fresh_calls_in("sums_helper", "doubled_plus", tmp_path) == 0


def test_the_inline_check_counts_a_call_that_stays(tmp_path: Path) -> None:
    """Control: the check finds a call where one is left, so the test above can fail."""
    assert fresh_calls_in("sums_plain", "plain_helper", tmp_path) > 0
