"""``@kernel``: numba's njit with a signature read off the parameter names.

Numba compiles a separate copy of a function (and of everything it calls)
for every literal argument a call site passes (``side_weight(st, tab, c, 0)``
and ``side_weight(st, tab, c, p)`` would be two compilations). Kernel code
follows one naming convention instead, so each function gets exactly one
eagerly compiled, cached signature and literal arguments are simply cast:

* ``st``, ``ro``, ``tab``, ``out``, ``mask``: ``int64[::1]`` (state, a look-ahead
  rollout's state, card table, output rows)
* ``fp``: ``float64[:, ::1]`` (bot parameters per seat); ``par``: ``float64[::1]``
* ``to_hand``: ``boolean``
* anything else: ``int64``
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from numba import njit, types

_ARG_TYPES: dict[str, Any] = {
    "st": types.int64[::1],
    "ro": types.int64[::1],
    "tab": types.int64[::1],
    "out": types.int64[::1],
    "mask": types.int64[::1],
    "fp": types.float64[:, ::1],
    "par": types.float64[::1],
    "to_hand": types.boolean,
}


def kernel(fn: Callable | None = None, *, inline: bool = False) -> Any:
    """Compile ``fn`` with ``cache=True`` and the signature its parameter names imply.

    ``@kernel(inline=True)`` also inlines the function into its callers at
    numba's IR level: for small functions called once per option in a hot loop.
    """
    if fn is None:
        return lambda f: kernel(f, inline=inline)
    names = inspect.signature(fn).parameters
    sig = tuple(_ARG_TYPES.get(name, types.int64) for name in names)
    return njit(sig, cache=True, inline="always" if inline else "never")(fn)
