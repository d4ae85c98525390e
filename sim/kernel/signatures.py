"""Kernel argument types declared by parameter name, and the bot dispatcher's signature.

Kernel code follows one naming convention, so each function has exactly one
signature (``declared_signature``), which the compiler extension compiles and
the two-core compile (``sim.run.compile_ahead``) asks for:

* ``st``, ``ro``, ``tab``, ``out``, ``mask``: ``int64[::1]`` (state, a look-ahead
  rollout's state, card table, output rows)
* ``fp``: ``float64[:, ::1]`` (bot parameters per seat); ``par``: ``float64[::1]``
* ``urg``, ``cw``, ``val``: ``float64`` (a bot decision's urgency and coin weight, an
  option's value)
* ``to_hand``: ``boolean``
* ``ask``: the bot dispatcher, a first-class function
  ``ask(st, tab, fp, p, dec, n) -> int`` (see ``sim.kernel.decisions``). The kernel
  asks whatever dispatcher the run layer passes and never imports a bot; a typed
  function pointer (not numba's per-dispatcher type) keeps one compiled copy of
  the kernel for every dispatcher, and keeps it in the on-disk cache
* ``rows``, ``masks``: ``int64[:, ::1]`` (a batch's output rows and mask rows)
* anything else: ``int64``

Plain ``njit`` infers the same types from the arguments, except that it compiles
a copy for each literal a call site passes.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from numba import types

ASK_SIGNATURE = types.int64(
    types.int64[::1], types.int64[::1], types.float64[:, ::1], types.int64, types.int64, types.int64
)
"""``ask(st, tab, fp, p, dec, n)``: the index of the option seat ``p`` picks."""

ASK_TYPE = types.FunctionType(ASK_SIGNATURE)
"""The type of an ``ask`` argument: a function pointer of :data:`ASK_SIGNATURE`."""

ARG_TYPES: dict[str, Any] = {
    "st": types.int64[::1],
    "ro": types.int64[::1],
    "tab": types.int64[::1],
    "out": types.int64[::1],
    "mask": types.int64[::1],
    "fp": types.float64[:, ::1],
    "par": types.float64[::1],
    "urg": types.float64,
    "cw": types.float64,
    "val": types.float64,
    "to_hand": types.boolean,
    "ask": ASK_TYPE,
    "rows": types.int64[:, ::1],
    "masks": types.int64[:, ::1],
}
"""The argument type each parameter name declares; any other name is ``int64``."""


@functools.cache
def parameter_names(fn: Callable) -> tuple[str, ...]:
    """``fn``'s parameter names, which declare its argument types (the module docstring)."""
    return tuple(inspect.signature(fn).parameters)


@functools.cache
def declared_signature(fn: Callable) -> tuple[Any, ...]:
    """The argument types ``fn``'s parameter names declare (see the module docstring).

    Kept per function: ``inspect.signature`` is slow next to a kernel call from Python,
    and the extension asks for it on every one (``numba_ext.entry_point``).
    """
    return tuple(ARG_TYPES.get(name, types.int64) for name in parameter_names(fn))
