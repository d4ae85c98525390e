"""``@kernel``: the decorator of every kernel function, by plain numba or by omensim's extension.

``sim.kernel.mode`` picks the compiler once per process:

* the extension (``sim.kernel.numba_ext``, the default on the numba releases it
  is tested on): one signature per function read off its parameter names
  (``sim.kernel.signatures``), no wrappers or reference counting a kernel does
  not need, no wraparound of negative indices;
* plain ``numba.njit(cache=True)`` (``OMENSIM_PLAIN_NUMBA=1``, and every other
  numba release): numba's documented API only. The flags ``@kernel`` takes
  (``inline``, ``into_caller``, ``by_symbol``, ``twin``, ``from_python``) shape the
  extension's compile and are ignored; ``nogil`` is numba's own.

Kernel code and the run layer use only this module's names, so they read the
same in both modes. Both modes play the same games; ``docs/numba.md`` measures
what the extension buys.

In plain mode the machine code is cached in its own directory
(``sim.kernel.cache.plain_root``), never beside the extension's: the two are
compiled with different flags that numba's cache key does not record.
"""

from __future__ import annotations

import contextlib
import functools
import types as pytypes
from collections.abc import Callable, Iterator
from typing import Any

import numba
from numba.extending import overload

from sim.kernel.cache import plain_root
from sim.kernel.mode import MODE, PLAIN
from sim.kernel.signatures import ASK_SIGNATURE, ASK_TYPE, declared_signature

__all__ = [
    "ASK_SIGNATURE",
    "ASK_TYPE",
    "MODE",
    "PLAIN",
    "as_ask",
    "ask_of",
    "declared_signature",
    "entry_point",
    "kernel",
]


@contextlib.contextmanager
def plain_cache_dir() -> Iterator[None]:
    """While it lasts, a function jitted with ``cache=True`` caches under ``plain_root()``.

    Numba picks a function's cache directory when it is decorated, from
    ``numba.config.CACHE_DIR`` (``NUMBA_CACHE_DIR``), so setting it around the
    decoration only moves the kernels' cache.
    """
    saved = numba.config.CACHE_DIR
    numba.config.CACHE_DIR = str(plain_root())
    try:
        yield
    finally:
        numba.config.CACHE_DIR = saved


EXTENSION_FLAGS = frozenset({"inline", "into_caller", "by_symbol", "twin", "from_python"})
"""``@kernel`` flags that shape the extension's compile (``sim.kernel.numba_ext.kernel``)."""


def plain_kernel(fn: Callable | None = None, *, nogil: bool = False, **flags: bool) -> Any:
    """``numba.njit(cache=True, nogil=nogil)(fn)``, cached under ``plain_root()``.

    ``flags`` (:data:`EXTENSION_FLAGS`) change nothing here; they are checked as the
    extension checks them, so code valid in one mode is valid in both.
    """
    unknown = set(flags) - EXTENSION_FLAGS
    if unknown:
        raise TypeError(f"@kernel got unknown flags {sorted(unknown)}")
    if flags.get("by_symbol") and (flags.get("inline") or flags.get("into_caller")):
        raise ValueError("a by-symbol kernel is never inlined")
    if flags.get("twin") and not flags.get("by_symbol"):
        raise ValueError("only a by-symbol kernel is linked in a twin")
    if fn is None:
        return functools.partial(plain_kernel, nogil=nogil, **flags)
    with plain_cache_dir():
        return numba.njit(cache=True, nogil=nogil)(fn)


def _renamed(fn: Callable, suffix: str) -> Callable:
    """A copy of Python function ``fn`` whose qualified name ends in ``suffix``.

    Numba names a function's cache files after its qualified name: a C callback
    compiled from a kernel's own code needs files of its own.
    """
    copy = pytypes.FunctionType(
        fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__
    )
    copy.__qualname__ = f"{fn.__qualname__}{suffix}"
    copy.__module__ = fn.__module__
    copy.__doc__ = fn.__doc__
    return copy


@functools.cache
def _plain_ask(dispatcher: Any) -> Any:
    """Bot dispatcher ``dispatcher`` compiled as a C callback of :data:`ASK_SIGNATURE`.

    Plain numba types a jitted function passed as an argument by the function itself,
    an address that differs in every process, so the callee would never load from
    the cache; a C callback is typed by its signature alone.
    """
    with plain_cache_dir():
        return numba.cfunc(ASK_SIGNATURE, cache=True, nogil=True)(
            _renamed(dispatcher.py_func, ".ask")
        )


def as_ask(dispatcher: Any) -> Any:
    """Bot dispatcher ``dispatcher`` as the value the run layer passes the kernel as ``ask``.

    The dispatcher itself under the extension; in plain mode a C callback of it
    (compiled, or loaded from the cache, on the first call; one per process).
    """
    return _plain_ask(dispatcher) if PLAIN else dispatcher


def plain_ask_of(dispatcher: Any) -> Callable[[], Any]:
    """Plain mode's :func:`ask_of`: kernel code calling it gets :func:`as_ask`'s callback.

    The callback's address is a constant of the caller's machine code, so numba
    compiles such a caller in every process instead of caching it (only the
    look-ahead's rollouts are).
    """

    def value() -> Any:
        raise TypeError("ask_of(...)() is callable from kernel code only")

    @overload(value)
    def _value() -> Any:
        callback = _plain_ask(dispatcher)
        return lambda: callback

    return value


if PLAIN:
    kernel = plain_kernel
    ask_of = plain_ask_of

    def entry_point(dispatcher: Any) -> Callable:
        """Kernel ``dispatcher`` as called from Python: in plain mode, itself."""
        return dispatcher

else:
    from sim.kernel import numba_ext

    kernel = numba_ext.kernel
    ask_of = numba_ext.ask_of
    entry_point = numba_ext.entry_point
