"""The compiler of the game kernel: ``@kernel``, by omensim's extension of numba or by plain numba.

Kernel code (``sim.kernel``, ``strategies``) decorates every kernel function with a plain
``@kernel`` and calls the few names below; it never needs to know which compiler runs.
``sim.compiler.mode`` picks one once per process:

* the extension (``sim.compiler.extension``, the default on the numba releases it is
  tested on): no wrappers or reference counting a kernel does not need, no wraparound of
  negative indices, the linkage of ``sim.compiler.linkage``, machine code only for what
  runs (``sim.compiler.lazy_code``);
* plain ``numba.njit(cache=True)`` (``OMENSIM_PLAIN_NUMBA=1``, and every other numba
  release): numba's documented API only, its machine code cached in a directory of its own
  (``sim.compiler.cache.plain_root``): numba's cache key does not record the flags.

Both play the same games; ``benchmarks/bench_levers.py`` measures what each part of the
extension buys. Nothing here changes numba for other code in the process.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import types as pytypes
from collections.abc import Callable, Iterator
from typing import Any

import numba
from numba.extending import overload

from sim.compiler.cache import plain_root
from sim.compiler.linkage import ASK_SIGNATURE, ASK_TYPE
from sim.compiler.mode import MODE, PLAIN, fallback_note

__all__ = [
    "ASK_SIGNATURE",
    "ASK_TYPE",
    "MODE",
    "PLAIN",
    "as_ask",
    "ask_of",
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


def plain_kernel(fn: Callable) -> Any:
    """``numba.njit(cache=True, nogil=True)(fn)``, cached under ``plain_root()``."""
    with plain_cache_dir():
        return numba.njit(cache=True, nogil=True)(fn)


def copy_function(fn: Callable, globs: dict[str, Any], qualname: str) -> Callable:
    """Python function ``fn`` with globals ``globs``, named ``qualname``: numba names a
    function's cache files after its qualified name, so a copy has files of its own."""
    copy = pytypes.FunctionType(fn.__code__, globs, fn.__name__, fn.__defaults__, fn.__closure__)
    copy.__qualname__ = qualname
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
    fn = dispatcher.py_func
    with plain_cache_dir():
        return numba.cfunc(ASK_SIGNATURE, cache=True, nogil=True)(
            copy_function(fn, fn.__globals__, f"{fn.__qualname__}.ask")
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


_NOTE = fallback_note(os.environ, numba.__version__)
if _NOTE:
    print(_NOTE, file=sys.stderr)

if PLAIN:
    kernel = plain_kernel
    ask_of = plain_ask_of

    def entry_point(dispatcher: Any, *args: Any) -> Callable:
        """Kernel ``dispatcher`` as called from Python: in plain mode, itself."""
        return dispatcher

else:
    from sim.compiler.extension import ask_of, entry_point, kernel
