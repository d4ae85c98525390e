"""omensim's extension of numba's compiler: one signature per kernel, leaner machine code.

What plain ``njit(cache=True)`` does differently, and why this module exists
(measured in ``docs/numba.md``; ``sim.kernel.mode`` picks one of the two):

* One signature per function, read off its parameter names
  (``sim.kernel.signatures``), compiled lazily. Numba compiles a separate copy
  of a function (and of everything it calls) for every literal argument a call
  site passes (``side_weight(st, tab, c, 0)`` and ``side_weight(st, tab, c, p)``
  would be two compilations); here literal arguments are simply cast.
* No wrappers a kernel does not need (numba's C and Python wrappers), calls by
  symbol instead of relinking a large callee into every caller, and inlining in
  LLVM instead of numba's IR: each cut a part of the cold compile.
* No reference counting and no wraparound of negative indices: a faster game.

Kernel code indexes arrays as C does: a negative index is out of bounds, not
Python's count from the end (``unwrapped_indices``). Numba wraps every signed
index (a compare, an add and a select per access, with the array's length
loaded) unless it can prove the index non-negative, which it rarely can;
kernels never index from the end. Under ``NUMBA_BOUNDSCHECK=1`` a negative
index raises ``IndexError`` like any other out-of-bounds one.

The signature is compiled (or loaded from numba's on-disk cache) on the first
call, not at import: importing ``sim`` compiles nothing, so ``omensim --help``
and test collection stay instant, and a run loads only the kernels it calls.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
from llvmlite import binding as llvm
from numba import types
from numba.core import cgutils, targetconfig
from numba.core.caching import FunctionCache, IndexDataCacheFile
from numba.core.compiler_lock import global_compiler_lock
from numba.core.registry import CPUDispatcher
from numba.extending import intrinsic
from numba.np import arrayobj, numpy_support

from sim.kernel import claims, mode
from sim.kernel.lazy_code import KernelCacheImpl, KernelCompiler, KernelLibrary, materialised
from sim.kernel.signatures import ASK_SIGNATURE, ASK_TYPE, declared_signature, parameter_names


def _index_as_is(context: Any, builder: Any, idxty: Any, idx: Any, size: Any) -> Any:
    """Numba's ``arrayobj.fix_integer_index`` without the wraparound of a negative index."""
    return context.cast(builder, idx, idxty, types.intp if idxty.signed else types.uintp)


@contextlib.contextmanager
def unwrapped_indices() -> Iterator[None]:
    """While it lasts, numba lowers an integer array index without Python's wraparound.

    Numba turns ``a[i]`` for a signed ``i`` into ``a[i + len(a) if i < 0 else i]``
    unless it can prove ``i >= 0``; it seldom can (``st[L.OPTS + 4 * i + j]``
    carries no no-overflow flag), so nearly every state, table and parameter
    read paid a compare, an add and a select, and the array's length had to be
    at hand: 13% of a turn.
    Kernel code never counts from the end (``tests/code/test_code_rules.py`` rejects
    a negative literal index in a kernel). Only kernels are compiled with it
    (``KernelDispatcher.compile`` holds numba's compiler lock, so no other
    function is lowered meanwhile); nested compiles of callees restore it in
    order. Numba's own implementations a kernel calls are lowered the same way;
    kernels call none that index arrays (scalar casts only).
    """
    with global_compiler_lock:
        saved = arrayobj.fix_integer_index
        arrayobj.fix_integer_index = _index_as_is
        try:
            yield
        finally:
            arrayobj.fix_integer_index = saved


def flags_hash(self: Any) -> int:
    """Numba's hash of compiler flags ``self`` (of its sorted option names), without first
    building a dict of every option's value as numba's does."""
    return hash(tuple(sorted(self.options)))


def flags_eq(self: Any, other: Any) -> Any:
    """Numba's compare of compiler flags: flags of one class have the same values when each
    option either sets has the same value in both (an option neither sets has its default in
    both); flags of different classes are compared by numba's own code."""
    if type(self) is not type(other):
        return _NUMBA_FLAGS_EQ(self, other)
    mine, theirs = self._values, other._values
    if mine == theirs:
        return True
    return all(getattr(self, name) == getattr(other, name) for name in mine.keys() | theirs.keys())


_NUMBA_FLAGS_EQ = targetconfig.TargetConfig.__eq__


@contextlib.contextmanager
def quick_flag_compare() -> Iterator[None]:
    """While it lasts, numba hashes and compares its compiler flags without building a dict
    of every option's value; the results are numba's own.

    Numba looks up each typed call of an ``@overload`` function (the arithmetic, ``min``,
    ``max``) in a cache keyed on the compile's flags, whose hash and compare each built a
    dict of all ~40 options: about a tenth of a cold compile in a sampling profile, 171,000
    lookups. Held like ``unwrapped_indices``, under numba's compiler lock.
    """
    cls = targetconfig.TargetConfig
    with global_compiler_lock:
        saved = cls.__hash__, cls.__eq__
        cls.__hash__, cls.__eq__ = flags_hash, flags_eq
        try:
            yield
        finally:
            cls.__hash__, cls.__eq__ = saved


LOWERING = "unwrapped-indices-1"
"""How this module lowers kernels beyond numba's own flags (``unwrapped_indices``), in every
kernel's cache key: numba keys an entry on the function's own code only, so without it a
tree whose kernel files did not change would keep loading machine code lowered the old
way. Change it whenever that lowering changes."""


TRACED_MARK = "-traced"
"""Ends the names of the cache files of kernels built with the trace hooks
(``sim.kernel.mode.HOOKS``): ``batch.play_range-12.py312-traced.nbi``."""


class KernelCache(FunctionCache):
    """Numba's on-disk cache of a function, with :data:`LOWERING` in each entry's key, and
    files of its own (:data:`TRACED_MARK`) for the build with the trace hooks, so that
    whether a build is cached can be read off the file names
    (``sim.run.progress.kernel_needs_compile``). An entry may hold a kernel's IR without
    machine code (``sim.kernel.lazy_code``)."""

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

    def _index_key(self, sig: Any, codegen: Any) -> Any:
        return (*super()._index_key(sig, codegen), LOWERING)


class KernelDispatcher(CPUDispatcher):
    """A dispatcher that compiles only its declared signature, whatever its callers pass.

    Numba asks ``compile`` for the argument types of each call site (literal
    ``0`` included) and from Python; answering every request with the one
    declared signature keeps one specialisation per function, as eager
    compilation did, without compiling at import.
    """

    by_symbol = False
    """Set by ``@kernel(by_symbol=True)``: callers call this kernel's own machine code."""

    twin = False
    """Set by ``@kernel(twin=True)``: linked into its callers in a linked twin
    (``sim.kernel.twins``)."""

    def compile(self, sig: Any) -> Any:
        """Compile (or load from the cache) the declared signature; ``sig`` is ignored.

        Returns numba's entry for the overload, which has no Python wrapper
        (see ``python_entry``): not callable from Python. Array indices are
        not wrapped (``unwrapped_indices``). A first compile holds the kernel's claim
        (``sim.kernel.claims``), so another process filling the same cache compiles it
        only if this one did not.
        """
        sig = declared_signature(self.py_func)
        with unwrapped_indices(), quick_flag_compare():
            if sig in self.overloads:
                return super().compile(sig)
            with claims.claim(claims.kernel_name(self.py_func)):
                return super().compile(sig)

    def _compile_for_args(self, *args: Any, **kws: Any) -> Any:
        # Numba's C dispatcher calls this on a call from Python that its table does not
        # match, and calls what it returns: the entry with a Python wrapper, which checks
        # no more than an array's item size (``check_arrays`` does the rest).
        check_arrays(self.py_func, args)
        super()._compile_for_args(*args, **kws)
        return self.python_entry()

    def python_entry(self) -> Any:
        """The declared signature's entry callable from Python (compiled or loaded first).

        Kernels are compiled without numba's Python wrapper (the code that
        unboxes each argument from a Python object): most are only ever
        called by other kernels, and the wrappers were a sixth of a cold
        compile. The first call from Python builds one here, a
        module of the wrapper alone that calls the compiled function by name
        (so nothing is optimised again), kept for the process and not cached.
        """
        sig = declared_signature(self.py_func)
        # Not set in __init__: numba rebuilds an unpickled dispatcher through it.
        entries = self.__dict__.setdefault("_python_entries", {})
        entry = entries.get(sig)
        if entry is not None:
            return entry
        self.compile(sig)
        cres = self.overloads[sig]
        if not materialised(cres.library):
            # A kernel so far only linked into its callers: its own machine code now, and
            # in the cache, so the next process that calls it from Python loads it.
            cres.library.materialise()
            self._cache.save_overload(sig, cres)
        if not self.targetoptions["no_cpython_wrapper"]:  # @kernel(from_python=True)
            self._insert([a._code for a in sig], cres.entry_point, False)
            entries[sig] = cres.entry_point
            return cres.entry_point
        ctx = self.targetctx
        nogil = bool(self.targetoptions.get("nogil"))
        with global_compiler_lock:
            library = ctx.codegen().create_library(f"{self.py_func.__qualname__}.python")
            ctx.create_cpython_wrapper(library, cres.fndesc, cres.environment, None, nogil)
            entry = ctx.get_executable(library, cres.fndesc, cres.environment)
        self._insert([a._code for a in sig], entry, False)
        entries[sig] = entry
        return entry

    def add_overload(self, cres: Any) -> None:
        """Register a compiled (or cache-loaded) overload; see ``by_symbol`` for the rest.

        Numba's version also enters the overload's entry in the C dispatcher's
        table for calls from Python; with no Python wrapper that entry is a
        null function, so the table gets ``python_entry``'s, on first use.

        A library loaded from numba's cache starts with no reload hooks: numba
        keeps them on the compile result only, so a caller compiled later that
        links this library would not inherit them. They are put back here,
        which is what lets a by-symbol call's loader reach every caller's cache
        entry however the callee in between was obtained.
        """
        self.overloads[tuple(cres.signature.args)] = cres
        options = self.targetoptions
        if isinstance(cres.library, KernelLibrary) and (
            self.by_symbol or not options["no_cfunc_wrapper"] or not options["no_cpython_wrapper"]
        ):
            # Run from outside the kernels (by symbol, as ``ask``, from Python): its machine
            # code now, before numba caches the overload, so a warm start loads it.
            cres.library.materialise()
        if cres.reload_init:
            cres.library._reload_init.update(cres.reload_init)
        if self.by_symbol:
            name = define_symbol(self)
            call = _call_by_symbol(cres.fndesc, name, self.py_func)
            self.targetctx.remove_user_function(cres.entry_point)
            self.targetctx.insert_func_defn([(call, cres.entry_point, cres.fndesc.argtypes)])


def symbol_of(fn: Callable) -> str:
    """The process-wide symbol a by-symbol kernel's callers call (``@kernel(by_symbol=True)``).

    Not numba's mangled name: that carries a per-process counter, so it can
    differ between the process that wrote a caller's cache entry and the one
    that compiled the callee.
    """
    return f"omensim.kernel.{fn.__module__}.{fn.__qualname__}"


def load_by_symbol(name: str) -> None:
    """Compile (or load) kernel ``module:function`` so its symbol is defined in this process.

    Stored in the cache entry of every caller of a by-symbol kernel (numba's
    ``reload_init``, run before the entry's machine code is loaded), so it is
    part of the cache format: keep its name and module.
    """
    module, _, attr = name.partition(":")
    disp = getattr(importlib.import_module(module), attr)
    disp.compile(declared_signature(disp.py_func))
    # Whatever the kernel's flag says now: a caller cached while it was by-symbol needs it.
    define_symbol(disp)


def define_symbol(disp: Any) -> str:
    """Point kernel ``disp``'s process-wide symbol at its compiled code; returns the symbol."""
    cres = disp.overloads[declared_signature(disp.py_func)]
    name = symbol_of(disp.py_func)
    llvm.add_symbol(name, cres.library.get_pointer_to_function(cres.fndesc.mangled_name))
    return name


@functools.cache
def _loader(name: str) -> Callable[[], None]:
    # One object per kernel, so a library's set of reload hooks holds it once.
    return functools.partial(load_by_symbol, name)


def _call_by_symbol(fndesc: Any, name: str, fn: Callable) -> Callable:
    """Numba's call of a compiled function (``imputils.user_function``), by ``name``, unlinked.

    Numba's own version also links the callee's library into the caller's,
    so the callee's whole tree is optimised and code-generated again inside
    every caller. This one declares the process-wide symbol that
    ``add_overload`` defined and records, in the caller's library, the hook
    that defines it again in a process that loads the caller from the cache.
    """
    hook = _loader(f"{fn.__module__}:{fn.__qualname__}")

    def imp(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        fnty = context.call_conv.get_function_type(fndesc.restype, fndesc.argtypes)
        callee = cgutils.get_or_insert_function(builder.module, fnty, name)
        context.call_conv.decorate_function(
            callee, fndesc.args, fndesc.argtypes, noalias=fndesc.noalias
        )
        status, retval = context.call_conv.call_function(
            builder, callee, fndesc.restype, fndesc.argtypes, args
        )
        with cgutils.if_unlikely(builder, status.is_error):
            context.call_conv.return_status_propagate(builder, status)
        context.active_code_library._reload_init.add(hook)
        return retval

    imp.signature = fndesc.argtypes  # type: ignore[attr-defined]
    imp.libs = ()  # type: ignore[attr-defined]
    return imp


def check_arrays(fn: Callable, args: tuple[Any, ...]) -> None:
    """Raise ``TypeError`` unless each array argument of a call of kernel ``fn`` from Python
    is a C-contiguous NumPy array of its declared dtype and number of dimensions.

    Numba's unboxing checks only an array's item size: a 1-D array passed for a
    2-D parameter, a float array for an int one, or a strided view for a
    contiguous one would be read with a made-up shape or layout, and written
    outside its memory (a segfault, or worse, wrong rows).
    """
    for name, ty, arg in zip(parameter_names(fn), declared_signature(fn), args, strict=False):
        if not isinstance(ty, types.Array):
            continue
        want = numpy_support.as_dtype(ty.dtype)
        if not (
            isinstance(arg, np.ndarray)
            and arg.ndim == ty.ndim
            and arg.dtype == want
            and arg.flags.c_contiguous
        ):
            got = (
                f"a {'C-contiguous' if arg.flags.c_contiguous else 'strided'} "
                f"{arg.ndim}-D {arg.dtype} array"
                if isinstance(arg, np.ndarray)
                else type(arg).__name__
            )
            raise TypeError(
                f"{fn.__qualname__}: {name} must be a C-contiguous {ty.ndim}-D {want} array, "
                f"got {got}"
            )


def kernel(
    fn: Callable | None = None,
    *,
    inline: bool = False,
    into_caller: bool = False,
    by_symbol: bool = False,
    twin: bool = False,
    from_python: bool = False,
    nogil: bool = False,
) -> Any:
    """Jit ``fn`` with ``cache=True`` and the signature its parameter names imply (the extension).

    ``@kernel(inline=True)`` also inlines the function into its callers, in
    LLVM (``alwaysinline``): for small functions called once per option in a
    hot loop. The function is typed and compiled once; numba's IR-level
    ``inline="always"`` instead re-reads, copies and re-types its body at every
    call site, which cost a tenth of the cold compile for no speed.
    ``@kernel(into_caller=True)`` is copied into its callers at numba's IR level
    and not compiled on its own unless Python calls it: for the thin functions
    at the top of the call chain (``play_game``, ``play_turn``, ...). Numba
    links, optimises and generates machine code for a function's whole callee
    tree again for every compiled function, so each such level lengthened a
    cold compile; copying a few lines of dispatch costs little.
    ``@kernel(by_symbol=True)`` is called by its callers through a symbol
    instead of being linked into them: its tree is optimised and
    code-generated once, in its own compile, instead of once more in every
    function above it (for a large subtree many functions reach: the ability
    interpreter). LLVM can no longer inline it into a caller, so it is for
    functions too large to be inlined anyway.
    ``@kernel(by_symbol=True, twin=True)`` is by symbol in the kernel's own
    tree and linked into its callers in a linked twin of that tree
    (``sim.kernel.twins``), built for the runs a cold compile does not wait for.
    ``@kernel(from_python=True)`` is compiled with numba's Python wrapper, so
    it is in the cache with it: for the few kernels every run calls from
    Python, which would otherwise build one in every process (``python_entry``).
    ``@kernel(nogil=True)`` releases the GIL while it runs (entry points called
    from threads).
    """
    if fn is None:
        return lambda f: kernel(
            f,
            inline=inline,
            into_caller=into_caller,
            by_symbol=by_symbol,
            twin=twin,
            from_python=from_python,
            nogil=nogil,
        )
    if by_symbol and (inline or into_caller):
        raise ValueError("a by-symbol kernel is never inlined")
    if twin and not by_symbol:
        raise ValueError("only a by-symbol kernel is linked in a twin")
    disp = KernelDispatcher(
        py_func=fn,
        pipeline_class=KernelCompiler,
        locals={},
        targetoptions={
            "nopython": True,
            "boundscheck": None,
            "inline": "always" if into_caller else "never",
            # Explicit even when False: numba otherwise lets a callee compiled inside a
            # forceinline caller inherit the flag.
            "forceinline": inline,
            "nogil": nogil,
            # No reference counting: kernels never allocate (the caller hands them every
            # array), and NRT's atomic incref/decref of st/tab/fp at each call took ~40% of a
            # game's cycles.
            "_nrt": False,
            # Numba's C wrapper lets a function be passed as a first-class function value,
            # which only a bot dispatcher (``ask``'s signature) ever is; for the ~190 others
            # it was a tenth of the cold compile.
            "no_cfunc_wrapper": declared_signature(fn) != ASK_SIGNATURE.args,
            # Built on a first call from Python (python_entry) unless the run layer calls it.
            "no_cpython_wrapper": not from_python,
        },
    )
    disp.by_symbol = by_symbol
    disp.twin = twin
    # What a linked twin of this kernel is compiled with (``sim.kernel.twins``).
    disp.kernel_flags = {
        "inline": inline,
        "into_caller": into_caller,
        "by_symbol": by_symbol,
        "twin": twin,
        "from_python": from_python,
        "nogil": nogil,
    }
    disp._cache = KernelCache(fn)  # numba's enable_caching(), keyed on LOWERING too
    return disp


def entry_point(dispatcher: Any) -> Callable:
    """The compiled entry of kernel ``dispatcher`` (compiled or loaded first), to call from Python.

    Calling it skips numba's dispatch, which matches each argument's type to an
    overload: a bot dispatcher passed as ``ask`` never matches the declared
    function type exactly, so every call took numba's slow path (several times
    slower, with the GIL held). The entry unboxes
    each argument as its declared type and never compiles another
    specialisation. It checks no more than an array's item size: pass the
    arrays the declared signature names (``check_arrays`` says what a call
    through the dispatcher is refused for).
    """
    return dispatcher.python_entry()


def ask_of(dispatcher: Any) -> Any:
    """A jitted ``ask_of(dispatcher)()`` that returns ``dispatcher`` as an ``ask`` value.

    For kernel code that hands a bot dispatcher on itself (the look-ahead's
    rollouts). Numba's own cast of a global dispatcher to a first-class
    function stores the dispatcher's Python address as a "dynamic global",
    which makes every caller uncacheable; this one links the compiled
    function by symbol only, as the cast does otherwise, so the callers stay
    in the on-disk cache. The value cannot go back to Python (no object).
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
