"""omensim's extension of numba's compiler: leaner machine code and a shorter cold compile.

What it changes from plain ``njit(cache=True)`` is listed in ``docs/compile.md``. Numba's
members are replaced only while a kernel compiles, under numba's compiler lock.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from typing import Any

from numba import typeof, types
from numba.core import cgutils, sigutils
from numba.core.caching import IndexDataCacheFile
from numba.core.compiler_lock import global_compiler_lock
from numba.core.registry import CPUDispatcher
from numba.extending import intrinsic
from numba.np import arrayobj

import sim.compiler.mode as mode
from sim.compiler.ahead import claim
from sim.compiler.cache import ReadableCache
from sim.compiler.lazy_code import KernelCacheImpl, KernelCompiler
from sim.compiler.linkage import ASK_SIGNATURE, ASK_TYPE, OFF, flags_of, kernel_name


def _index_as_is(context: Any, builder: Any, idxty: Any, idx: Any, size: Any) -> Any:
    return context.cast(builder, idx, idxty, types.intp if idxty.signed else types.uintp)


@contextlib.contextmanager
def unwrapped_indices() -> Iterator[None]:
    """While it lasts (under numba's compiler lock), an integer index is lowered without
    Python's wraparound (a compare, an add and a select on nearly every read)."""
    with global_compiler_lock:
        saved = arrayobj.fix_integer_index
        if "nrt" not in OFF:
            arrayobj.fix_integer_index = _index_as_is
        try:
            yield
        finally:
            arrayobj.fix_integer_index = saved


_HELD: list[int] = []  # Ctrl-Cs held by :func:`interrupts_deferred`


def _hold(signum: int, frame: Any) -> None:
    _HELD.append(signum)


@contextlib.contextmanager
def interrupts_deferred() -> Iterator[None]:
    """While it lasts, a Ctrl-C in the main thread (under Python's own handler) raises at the
    next kernel compile or the block's end, never inside LLVM's work (``docs/compile.md``)."""
    main = threading.current_thread() is threading.main_thread()
    handler = signal.getsignal(signal.SIGINT) if main else None
    if handler is signal.default_int_handler:
        signal.signal(signal.SIGINT, _hold)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, signal.default_int_handler)
    elif handler is not _hold or not _HELD:  # held within a compile: raised at this boundary
        yield
    if _HELD and handler in (_hold, signal.default_int_handler):
        _HELD.clear()
        raise KeyboardInterrupt


TRACED_MARK = "-traced"  # ends the cache files' names of kernels with the trace hooks


class KernelCache(ReadableCache):
    """Numba's on-disk cache of a function, with files of their own for the build with the
    trace hooks (so whether a build is cached reads off the file names)."""

    _impl_class = KernelCacheImpl

    @property
    def _cache_file(self) -> Any:
        return self._files[mode.HOOKS]

    @_cache_file.setter
    def _cache_file(self, plain: Any) -> None:  # numba sets it once, in __init__
        base = self._impl.filename_base + TRACED_MARK
        self._files = (plain, IndexDataCacheFile(self._cache_path, base, plain._source_stamp))


def kernel_args(sig: Any) -> tuple[Any, ...]:
    """The argument types a kernel is compiled for, from those of a call: literals widened,
    a jitted function passed as ``ask`` as the :data:`ASK_TYPE` pointer."""
    args = sig if isinstance(sig, tuple) else sigutils.normalize_signature(sig)[0]
    return tuple(ASK_TYPE if isinstance(a, types.Dispatcher) else types.unliteral(a) for a in args)


class KernelDispatcher(CPUDispatcher):
    """A dispatcher that compiles a call's types with literals widened, without the wrappers
    a kernel does not need; only a bot dispatcher (``ask``) gets numba's C wrapper."""

    flags: dict[str, bool] = {}  # its linkage (``sim.compiler.linkage.flags_of``)

    def compile(self, sig: Any) -> Any:
        """Compile (or load) the kernel for ``sig``, holding its claim (``sim.compiler.ahead``)."""
        args = kernel_args(sig)
        with interrupts_deferred(), unwrapped_indices():
            if args in self.overloads:
                return super().compile(args)
            self.targetoptions["no_cfunc_wrapper"] = args != ASK_SIGNATURE.args
            with claim(kernel_name(self.py_func)):
                return super().compile(args)

    def _compile_for_args(self, *args: Any, **kws: Any) -> Any:
        # Numba's C dispatcher calls this on a call from Python its table does not match.
        return self.python_entry(tuple(self.typeof_pyval(a) for a in args))

    def python_entry(self, sig: Any) -> Any:
        """The entry for argument types ``sig`` callable from Python (numba's Python wrapper
        in a module of its own, kept for the process, not cached)."""
        args = kernel_args(sig)
        # Not set in __init__: numba rebuilds an unpickled dispatcher through it.
        entries = self.__dict__.setdefault("_python_entries", {})
        if args not in entries:
            with interrupts_deferred():
                self.compile(args)
                cres = self.overloads[args]
                if not getattr(cres.library, "in_engine", True):
                    # Only linked into callers so far: its machine code now, and in the cache.
                    cres.library.materialise()
                    self._cache.save_overload(args, cres)
                entry = cres.entry_point
                if self.targetoptions["no_cpython_wrapper"]:
                    ctx = self.targetctx
                    with global_compiler_lock:
                        lib = ctx.codegen().create_library(f"{self.py_func.__qualname__}.python")
                        ctx.create_cpython_wrapper(lib, cres.fndesc, cres.environment, None, True)
                        entry = ctx.get_executable(lib, cres.fndesc, cres.environment)
                self._insert([a._code for a in args], entry, False)
                entries[args] = entry
        return entries[args]

    def add_overload(self, cres: Any) -> None:
        """Register an overload (``python_entry`` fills the C dispatcher's table), with its
        machine code if anything outside the kernels runs it."""
        self.overloads[tuple(cres.signature.args)] = cres
        options = self.targetoptions
        wrapped = not (options["no_cfunc_wrapper"] and options["no_cpython_wrapper"])
        if wrapped and not getattr(cres.library, "in_engine", True):  # numba's have machine code
            cres.library.materialise()


def kernel(fn: Callable, flags: dict[str, bool] | None = None) -> Any:
    """Jit ``fn`` as a cached kernel of linkage ``flags`` (default: its name's in ``LINKAGE``)."""
    flags = flags_of(kernel_name(fn)) if flags is None else flags
    disp = KernelDispatcher(
        py_func=fn,
        pipeline_class=KernelCompiler,
        locals={},
        targetoptions={
            "nopython": True,
            "boundscheck": None,
            "inline": "always" if flags.get("into_caller") else "never",
            # Explicit when False too, or a callee compiled in a forceinline caller inherits it.
            "forceinline": flags.get("inline", False),
            "nogil": True,
            # Kernels never allocate, and NRT's atomic counts cost a large share of a game.
            "_nrt": "nrt" in OFF,
            "no_cfunc_wrapper": True,
            "no_cpython_wrapper": not flags.get("from_python"),
        },
    )
    disp.flags = flags
    disp._cache = KernelCache(fn)  # numba's enable_caching()
    return disp


def entry_point(dispatcher: Any, *args: Any) -> Callable:
    """Kernel ``dispatcher``'s entry for the types of ``args``, called without numba's dispatch;
    an ``ask`` among them has its addresses resolved here, so kernel threads never lock LLVM."""
    entry = dispatcher.python_entry(tuple(typeof(a) for a in args))
    with interrupts_deferred():
        for ask in (a for a in args if isinstance(a, KernelDispatcher)):
            cres = ask.get_compile_result(ASK_SIGNATURE)
            for name in (cres.fndesc.llvm_cfunc_wrapper_name, cres.fndesc.llvm_func_name):
                cres.library.get_pointer_to_function(name)
    return entry


def ask_of(dispatcher: Any) -> Any:
    """A jitted ``ask_of(dispatcher)()`` returning ``dispatcher`` as an ``ask`` value, linked
    by name (numba's own cast stores its address, which makes every caller uncacheable)."""

    @intrinsic
    def _ask(typingctx: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            cres = dispatcher.get_compile_result(ASK_SIGNATURE)
            sfunc = cgutils.create_struct_proxy(ASK_TYPE)(context, builder)
            sfunc.py_addr = context.get_constant_null(types.voidptr)
            llfnty = context.get_value_type(ASK_TYPE.ftype).pointee
            wrapper = cgutils.get_or_insert_function(
                builder.module, llfnty, cres.fndesc.llvm_cfunc_wrapper_name
            )
            llvoidptr = context.get_value_type(types.voidptr)
            sfunc.c_addr = builder.bitcast(wrapper, llvoidptr)
            fn = context.declare_function(builder.module, cres.fndesc)
            sfunc.jit_addr = builder.bitcast(fn, llvoidptr)
            context.active_code_library.add_linking_library(cres.library)
            return sfunc._getvalue()

        return ASK_TYPE(), codegen

    return _ask
