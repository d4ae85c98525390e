"""Importing ``sim`` and compiling kernels leaves numba as numba ships it for everyone else.

A user's own ``@numba.njit`` in the same process compiles and runs as without omensim:
Python's negative-index wraparound and a float argument included, before and after
``import sim`` and a kernel compile; and the numba members omensim's compiler once
replaced are numba's own objects afterwards.
"""

from __future__ import annotations

import numpy as np
from fresh import in_fresh_interpreter


def users_function(a, x):  # numba.njit'd in the child, as a user's notebook would
    """The last element of ``a`` (a negative index) times ``x`` (a float)."""
    return a[-1] * x + a[-2]


def tiny(st, n):  # a kernel of the child (sim.compiler.kernel)
    """Sum of the first ``n`` entries of ``st``."""
    total = 0
    for i in range(n):
        total += st[i]
    return total


def patched_members() -> dict[str, int]:
    """Ids of the numba members omensim's compiler replaced, globally or during a compile."""
    from numba.core import cpu, targetconfig
    from numba.core.types import functions
    from numba.np import arrayobj

    members = {
        "CPUContext.refresh": cpu.CPUContext.refresh,
        "BaseFunction.get_call_type": functions.BaseFunction.get_call_type,
        "fix_integer_index": arrayobj.fix_integer_index,
        "TargetConfig.__hash__": targetconfig.TargetConfig.__hash__,
        "TargetConfig.__eq__": targetconfig.TargetConfig.__eq__,
    }
    return {name: id(value) for name, value in members.items()}


def users_results() -> list[float]:
    import numba

    a = np.array([1.0, 2.0, 3.0, 4.0])
    f = numba.njit(users_function)
    g = numba.njit(lambda a, i: a[i])  # a fresh compile each time it is asked
    return [f(a, 0.5), f(a.astype(np.int64), 1.5), g(a, -1), g(a, -4)]


def before_and_after() -> dict[str, object]:
    members = patched_members()
    before = users_results()
    from sim.compiler import entry_point, kernel

    k = kernel(tiny)
    st = np.arange(5, dtype=np.int64)
    summed = entry_point(k, st, 3)(st, 3)
    after = users_results()
    return {
        "same_members": patched_members() == members,
        "before": before,
        "after": after,
        "kernel": int(summed),
    }


def test_a_users_njit_is_the_same_before_and_after_import_and_compile(tmp_path) -> None:
    got = in_fresh_interpreter("test_numba_untouched", "t.before_and_after()", tmp_path)
    assert got["kernel"] == 0 + 1 + 2
    assert got["before"] == [4.0 * 0.5 + 3.0, 4 * 1.5 + 3, 4.0, 1.0]
    assert got["after"] == got["before"]
    assert got["same_members"]
