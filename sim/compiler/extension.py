"""omensim's extension of numba's compiler: leaner machine code and a shorter cold compile.

What plain ``njit(cache=True)`` does differently (``benchmarks/bench_levers.py`` measures
each part against its removal; ``sim.compiler.mode`` picks one of the two):

* Literal arguments widened: numba compiles a copy of a function (and of its tree) for every
  literal a call site passes (``f(st, 0)`` and ``f(st, p)``); here both call one compile of
  the types numba infers.
* No wrappers a kernel does not need (numba's C and Python wrappers), machine code only
  for what runs (``sim.compiler.lazy_code``), and the linkage of ``sim.compiler.linkage``.
* No reference counting and no wraparound of negative indices: a faster game.

Kernel code indexes arrays as C does: a negative index is out of bounds, not Python's count
from the end (:func:`unwrapped_indices`). Under ``NUMBA_BOUNDSCHECK=1`` a negative index
raises ``IndexError`` like any other out-of-bounds one.

Everything here applies to kernels only: numba's own members are replaced only while a
kernel compiles, under numba's compiler lock, and put back after; other numba code in the
process compiles as numba ships it.
"""

from __future__ import annotations

import contextlib
import pickle
import signal
import threading
from collections.abc import Callable, Iterator
from typing import Any

from numba import typeof, types
from numba.core import cgutils, sigutils
from numba.core.caching import FunctionCache, IndexDataCacheFile
from numba.core.compiler_lock import global_compiler_lock
from numba.core.registry import CPUDispatcher
from numba.extending import intrinsic
from numba.np import arrayobj

import sim.compiler.mode as mode
from sim.compiler.claims import claim, kernel_name
from sim.compiler.lazy_code import KernelCacheImpl, KernelCompiler, KernelLibrary, materialised
from sim.compiler.linkage import ASK_SIGNATURE, ASK_TYPE, OFF, flags_of


def _index_as_is(context: Any, builder: Any, idxty: Any, idx: Any, size: Any) -> Any:
    """Numba's ``arrayobj.fix_integer_index`` without the wraparound of a negative index."""
    return context.cast(builder, idx, idxty, types.intp if idxty.signed else types.uintp)


@contextlib.contextmanager
def unwrapped_indices() -> Iterator[None]:
    """While it lasts, numba lowers an integer array index without Python's wraparound.

    Numba turns ``a[i]`` for a signed ``i`` into ``a[i + len(a) if i < 0 else i]`` unless it
    can prove ``i >= 0``, which it seldom can: a compare, an add and a select on nearly
    every state and table read. Kernel code never counts from the end
    (``tests/code/test_code_rules.py`` rejects a negative literal index in a kernel). Held
    under numba's compiler lock, so no other function is lowered meanwhile.
    """
    with global_compiler_lock:
        saved = arrayobj.fix_integer_index
        if "nrt" not in OFF:
            arrayobj.fix_integer_index = _index_as_is
        try:
            yield
        finally:
            arrayobj.fix_integer_index = saved


_SIGINT = {"deferring": False, "pending": False}


def _note_interrupt(signum: int, frame: Any) -> None:
    _SIGINT["pending"] = True


def _raise_if_interrupted() -> None:
    if _SIGINT["pending"]:
        _SIGINT["pending"] = False
        raise KeyboardInterrupt


@contextlib.contextmanager
def interrupts_deferred() -> Iterator[None]:
    """While it lasts, a Ctrl-C in the main thread is held until a kernel boundary: the
    entry of the next kernel compiled, or the end of this block, where it raises as usual.

    A ``KeyboardInterrupt`` raised at any other point of a compile may land inside Python
    code that llvmlite runs while LLVM works: between the acquire and the release of its
    lock (which then stays held, so any other thread that asks LLVM for an address waits
    forever), or in a callback whose exceptions are printed and dropped (the Ctrl-C is then
    lost and the command goes on). Outside the main thread, or under a SIGINT handler other
    than Python's default, it does nothing.
    """
    if _SIGINT["deferring"]:
        _raise_if_interrupted()
        yield
        return
    main = threading.current_thread() is threading.main_thread()
    if not main or signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return
    _SIGINT.update(deferring=True, pending=False)
    signal.signal(signal.SIGINT, _note_interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        _SIGINT["deferring"] = False
    _raise_if_interrupted()


TRACED_MARK = "-traced"
"""Ends the names of the cache files of kernels built with the trace hooks
(``sim.compiler.mode.HOOKS``): ``batch.play_range-12.py312-traced.nbi``."""


class KernelCache(FunctionCache):
    """Numba's on-disk cache of a function, with files of its own (:data:`TRACED_MARK`) for
    the build with the trace hooks, so that whether a build is cached can be read off the
    file names (``sim.run.progress.kernel_needs_compile``). An entry may hold a kernel's IR
    without machine code (``sim.compiler.lazy_code``)."""

    _impl_class = KernelCacheImpl

    @property
    def _cache_file(self) -> Any:
        return self._traced_file if mode.HOOKS else self._plain_file

    @_cache_file.setter
    def _cache_file(self, plain: Any) -> None:  # numba sets it once, in __init__
        self._plain_file = plain
        self._traced_file = IndexDataCacheFile(
            cache_path=self._cache_path,
            filename_base=self._impl.filename_base + TRACED_MARK,
            source_stamp=plain._source_stamp,
        )

    def load_overload(self, sig: Any, target_context: Any) -> Any:
        """Numba's cached compile of ``sig``, or None (compile it again) when its files
        cannot be read back: cut short by a full disk, or damaged."""
        try:
            return super().load_overload(sig, target_context)
        except (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError):
            return None


def kernel_args(sig: Any) -> tuple[Any, ...]:
    """The argument types a kernel is compiled for, from those of a call: literals widened
    to their type, a jitted function passed as ``ask`` as the :data:`ASK_TYPE` pointer."""
    args = sig if isinstance(sig, tuple) else sigutils.normalize_signature(sig)[0]
    return tuple(ASK_TYPE if isinstance(a, types.Dispatcher) else types.unliteral(a) for a in args)


class KernelDispatcher(CPUDispatcher):
    """A dispatcher that compiles the types of a call with its literals widened (one
    compile for ``f(st, 0)`` and ``f(st, p)``), without the wrappers it does not need."""

    flags: dict[str, bool] = {}
    """Its linkage (``sim.compiler.linkage.flags_of``)."""

    def compile(self, sig: Any) -> Any:
        """Compile (or load from the cache) the kernel for :func:`kernel_args` of ``sig``.

        A first compile holds the kernel's claim (``sim.compiler.claims``), so another
        process filling the same cache compiles it only if this one did not. Only a bot
        dispatcher (the ``ask`` signature) gets numba's C wrapper, which passing it as a
        function pointer needs.
        """
        args = kernel_args(sig)
        with interrupts_deferred(), unwrapped_indices():
            if args in self.overloads:
                return super().compile(args)
            self.targetoptions["no_cfunc_wrapper"] = args != ASK_SIGNATURE.args
            with claim(kernel_name(self.py_func)):
                return super().compile(args)

    def _compile_for_args(self, *args: Any, **kws: Any) -> Any:
        # Numba's C dispatcher calls this on a call from Python that its table does not
        # match, and calls what it returns.
        return self.python_entry(tuple(self.typeof_pyval(a) for a in args))

    def python_entry(self, sig: Any) -> Any:
        """The entry for argument types ``sig`` callable from Python (compiled first).

        Kernels are compiled without numba's Python wrapper (the code that unboxes each
        argument): most are only ever called by other kernels. The first call from Python
        builds one here, a module of the wrapper alone that calls the compiled function by
        name, kept for the process and not cached.
        """
        args = kernel_args(sig)
        # Not set in __init__: numba rebuilds an unpickled dispatcher through it.
        entries = self.__dict__.setdefault("_python_entries", {})
        if args in entries:
            return entries[args]
        with interrupts_deferred():
            return self._new_python_entry(args, entries)

    def _new_python_entry(self, args: tuple[Any, ...], entries: dict[Any, Any]) -> Any:
        self.compile(args)
        cres = self.overloads[args]
        if not materialised(cres.library):
            # So far only linked into its callers: its own machine code now, and in the
            # cache, so the next process that calls it from Python loads it.
            cres.library.materialise()
            self._cache.save_overload(args, cres)
        entry = cres.entry_point
        if self.targetoptions["no_cpython_wrapper"]:
            ctx = self.targetctx
            with global_compiler_lock:
                library = ctx.codegen().create_library(f"{self.py_func.__qualname__}.python")
                ctx.create_cpython_wrapper(library, cres.fndesc, cres.environment, None, True)
                entry = ctx.get_executable(library, cres.fndesc, cres.environment)
        self._insert([a._code for a in args], entry, False)
        entries[args] = entry
        return entry

    def add_overload(self, cres: Any) -> None:
        """Register a compiled (or cache-loaded) overload.

        Numba's version also enters the overload in the C dispatcher's table for calls
        from Python; with no Python wrapper that entry is null, so the table gets
        ``python_entry``'s on first use. A kernel run from outside the kernels (as
        ``ask``, from Python) gets its machine code now, before numba caches it.
        """
        self.overloads[tuple(cres.signature.args)] = cres
        options = self.targetoptions
        if isinstance(cres.library, KernelLibrary) and not (
            options["no_cfunc_wrapper"] and options["no_cpython_wrapper"]
        ):
            cres.library.materialise()


def kernel(fn: Callable) -> Any:
    """Jit ``fn`` as a kernel, with the linkage ``sim.compiler.linkage`` gives its name."""
    return compiled(fn, flags_of(kernel_name(fn)))


def compiled(fn: Callable, flags: dict[str, bool]) -> Any:
    """Jit ``fn`` with ``cache=True`` as a kernel of linkage ``flags`` (``inline``:
    ``alwaysinline`` in LLVM; ``into_caller``: numba's IR-level inlining; ``from_python``:
    cached with its Python wrapper)."""
    disp = KernelDispatcher(
        py_func=fn,
        pipeline_class=KernelCompiler,
        locals={},
        targetoptions={
            "nopython": True,
            "boundscheck": None,
            "inline": "always" if flags.get("into_caller") else "never",
            # Explicit even when False: numba otherwise lets a callee compiled inside a
            # forceinline caller inherit the flag.
            "forceinline": flags.get("inline", False),
            "nogil": True,
            # No reference counting: kernels never allocate (the caller hands them every
            # array), and NRT's atomic counts at each call cost a large share of a game.
            "_nrt": "nrt" in OFF,
            "no_cfunc_wrapper": True,
            "no_cpython_wrapper": not flags.get("from_python"),
        },
    )
    disp.flags = flags
    disp._cache = KernelCache(fn)  # numba's enable_caching()
    return disp


def entry_point(dispatcher: Any, *args: Any) -> Callable:
    """The compiled entry of kernel ``dispatcher`` for arguments like ``args``, to call from
    Python without numba's dispatch (which matches every argument's type on every call and
    never matches a dispatcher passed as ``ask`` exactly: the slow path, with the GIL held).
    Pass it arguments of the same types as ``args`` only.

    The addresses numba's unboxing of a kernel passed as ``ask`` looks up on every call are
    resolved here, so the kernel threads that call the entry never wait on LLVM's lock.
    """
    entry = dispatcher.python_entry(tuple(typeof(a) for a in args))
    with interrupts_deferred():
        for ask in (a for a in args if isinstance(a, KernelDispatcher)):
            cres = ask.get_compile_result(ASK_SIGNATURE)
            cres.library.get_pointer_to_function(cres.fndesc.llvm_cfunc_wrapper_name)
            cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name)
    return entry


def ask_of(dispatcher: Any) -> Any:
    """A jitted ``ask_of(dispatcher)()`` that returns ``dispatcher`` as an ``ask`` value.

    For kernel code that hands a bot dispatcher on itself (the look-ahead's rollouts).
    Numba's own cast of a global dispatcher to a first-class function stores its Python
    address, which makes every caller uncacheable; this one links the compiled function by
    name only, so the callers stay in the on-disk cache.
    """

    @intrinsic
    def _ask(typingctx: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            cres = dispatcher.get_compile_result(ASK_SIGNATURE)
            llvoidptr = context.get_value_type(types.voidptr)
            sfunc = cgutils.create_struct_proxy(ASK_TYPE)(context, builder)
            sfunc.py_addr = context.get_constant_null(types.voidptr)
            llfnty = context.get_value_type(ASK_TYPE.ftype).pointee
            wrapper = cgutils.get_or_insert_function(
                builder.module, llfnty, cres.fndesc.llvm_cfunc_wrapper_name
            )
            sfunc.c_addr = builder.bitcast(wrapper, llvoidptr)
            fn = context.declare_function(builder.module, cres.fndesc)
            sfunc.jit_addr = builder.bitcast(fn, llvoidptr)
            context.active_code_library.add_linking_library(cres.library)
            return sfunc._getvalue()

        return ASK_TYPE(), codegen

    return _ask
