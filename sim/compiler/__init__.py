"""The compiler of the game kernel: ``@kernel``, by omensim's extension of numba or plain numba.

Kernel code decorates every kernel with a plain ``@kernel`` and calls the few names below;
``sim.compiler.mode`` picks the compiler once per process (``docs/compile.md``).
"""

from __future__ import annotations

import functools
import os
import sys
import types as pytypes
from collections.abc import Callable
from typing import Any

import numba
from numba.extending import overload

from sim.compiler.cache import ReadableCache, plain_root
from sim.compiler.linkage import ASK_SIGNATURE, ASK_TYPE
from sim.compiler.mode import MODE, PLAIN, fallback_note

__all__ = ["ASK_SIGNATURE", "ASK_TYPE", "MODE", "PLAIN", "as_ask", "ask_of", "entry_point"]
__all__ += ["kernel"]


def plain_cached(decorate: Callable[[], Any]) -> Any:
    """``decorate()`` with numba's cache directory ``plain_root()``, read when it decorates."""
    saved, numba.config.CACHE_DIR = numba.config.CACHE_DIR, str(plain_root())
    try:
        return decorate()
    finally:
        numba.config.CACHE_DIR = saved


def copy_function(fn: Callable, globs: dict[str, Any], qualname: str) -> Callable:
    """Python function ``fn`` with globals ``globs``, named ``qualname``: numba names a
    function's cache files after its qualified name, so a copy has files of its own."""
    copy = pytypes.FunctionType(fn.__code__, globs, fn.__name__, fn.__defaults__, fn.__closure__)
    copy.__qualname__, copy.__module__, copy.__doc__ = qualname, fn.__module__, fn.__doc__
    return copy


@functools.cache
def _plain_ask(dispatcher: Any) -> Any:
    # A C callback is typed by its signature alone; a jitted function passed as an argument
    # is typed by the function itself, an address that differs in every process, so the
    # callee would never load from the cache.
    fn = dispatcher.py_func
    copy = copy_function(fn, fn.__globals__, f"{fn.__qualname__}.ask")
    return plain_cached(lambda: numba.cfunc(ASK_SIGNATURE, cache=True, nogil=True)(copy))


def as_ask(dispatcher: Any) -> Any:
    """Bot dispatcher ``dispatcher`` as the kernel takes it as ``ask``: itself under the
    extension, a C callback of it in plain mode."""
    return _plain_ask(dispatcher) if PLAIN else dispatcher


_NOTE = fallback_note(os.environ, numba.__version__)
if _NOTE:
    print(_NOTE, file=sys.stderr)

if PLAIN:

    def kernel(fn: Callable) -> Any:
        """``numba.njit(nogil=True)(fn)``, cached under ``plain_root()`` by a ReadableCache."""
        dispatcher = numba.njit(nogil=True)(fn)
        plain_cached(lambda: setattr(dispatcher, "_cache", ReadableCache(fn)))
        return dispatcher

    def ask_of(dispatcher: Any) -> Callable[[], Any]:
        """Plain mode's ``ask_of``: kernel code calling it gets :func:`as_ask`'s callback,
        whose address is a constant of the caller's machine code (so the caller is not cached)."""

        def value() -> Any:
            raise TypeError("ask_of(...)() is callable from kernel code only")

        @overload(value)
        def _value() -> Any:
            callback = _plain_ask(dispatcher)
            return lambda: callback

        return value

    def entry_point(dispatcher: Any, *args: Any) -> Callable:
        """Kernel ``dispatcher`` as called from Python: in plain mode, itself."""
        return dispatcher

else:
    from sim.compiler.extension import ask_of, entry_point, kernel
