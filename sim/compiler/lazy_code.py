"""Machine code only for the kernels something runs: the rest stay LLVM IR to link.

Numba finalises every function it compiles at once: it links the IR of every
callee into the function's module, optimises that module, and generates
machine code for all of it, callees included, then caches that machine code.
Kernels are called by other kernels, whose modules link the callee's IR again
(numba's ``_get_module_for_linking``), so a cold compile optimised and
code-generated each function's whole tree of callees once per function above
it, and the machine code of a kernel that only other kernels call never runs.

:class:`KernelLibrary` links as numba does but leaves the module as its
function passes left it; optimising the module and generating its machine code
(:meth:`KernelLibrary.materialise`) wait until something asks for an address in
it: a call from Python, a bot dispatcher passed as
``ask``. Those roots are optimised once with their whole tree linked in, which
LLVM's inliner works through bottom-up as it did level by level before (the
rows are the same and the kernel as fast: ``docs/compile.md``). Roots are
materialised before they are cached
(``sim.compiler.extension.KernelDispatcher.add_overload``), so a warm start
loads their machine code as before. A kernel that was never materialised is
cached as its IR alone (:data:`IR_KIND`); a caller compiled in another process
(the two-core compile's child, ``sim.compiler.ahead``) links it from there,
and a later call from Python generates its machine code then and caches it.

Numba's own work around a kernel's compile is trimmed where it does nothing for kernels:
a pass manager built per function (:meth:`KernelLibrary._optimize_functions`), the type
annotation rendered into every cache entry (:meth:`KernelCacheImpl.reduce`). Nothing here
changes numba for code other than kernels.

Only the extension uses it (``sim.compiler.mode``); plain mode is numba's own.
"""

from __future__ import annotations

import hashlib
from typing import Any

from llvmlite import binding as ll
from numba.core import compiler
from numba.core.caching import CompileResultCacheImpl
from numba.core.codegen import CPUCodeLibrary, JITCodeLibrary
from numba.core.compiler_lock import global_compiler_lock, require_global_compiler_lock

from sim.compiler.linkage import OFF


def make_callees_private(module: Any, owner: str) -> int:
    """Give every ``linkonce_odr`` function of ``module`` internal linkage before it is
    optimised, once it is to become machine code.

    Numba links each callee into its caller's module as ``linkonce_odr``: a definition
    another module may replace, so LLVM may not change its signature, and every call that
    stays a call passes numba's whole calling convention (each array as its seven or nine
    fields, an exception pointer, a status the caller tests), where a kernel reads the data
    pointer alone. Made internal, LLVM drops what is unused and passes the rest in
    registers; the same operations run in the same order, so every game plays the same.
    Each private definition is renamed with a tag of its module: numba's JIT puts local
    symbols of a loaded object in its symbol table too, so a private copy named like a
    shared definition would be found in its place by the next module that links it.

    Gives every ``linkonce_odr`` function of ``module`` internal linkage and a name
    unique to the module (tagged by ``owner``, the library's name, and the module's own
    external functions); returns how many."""
    own = sorted(
        fn.name
        for fn in module.functions
        if not fn.is_declaration and fn.linkage == ll.Linkage.external
    )
    tag = hashlib.sha256("\n".join([owner, *own]).encode()).hexdigest()[:12]
    n = 0
    for fn in module.functions:
        if fn.linkage == ll.Linkage.linkonce_odr:
            fn.linkage = ll.Linkage.internal
            fn.name = f"{fn.name}.{tag}"
            n += 1
    return n


IR_KIND = "omensim-ir"
"""The serialisation kind of a kernel cached without machine code: its final module's
bitcode alone (numba's own kinds are ``object`` and ``bitcode``)."""


class KernelLibrary(JITCodeLibrary):
    """A kernel's code library whose machine code is generated on first use (module doc)."""

    in_engine = False
    """Whether the module was handed to numba's execution engine (machine code generated)."""

    @property
    def codegen(self) -> Any:
        """Numba's code generator, through :class:`DeferredEnvs` until the module has machine
        code: numba points each function's environment global at its ``Environment`` as
        soon as it is compiled (``set_env``), which needs the global's address."""
        if self.in_engine:
            return self._codegen
        if "_deferred" not in self.__dict__:
            self._deferred = DeferredEnvs(self._codegen)
        return self._deferred

    def finalize(self) -> None:
        """Link the callees' IR in, as numba's ``finalize`` does, but neither optimise the
        module nor generate machine code (:meth:`materialise` does both, when asked)."""
        require_global_compiler_lock()
        self._codegen._check_llvm_bugs()
        self._raise_if_finalized()
        seen: set[Any] = set()
        for library in self._linking_libraries:
            if library not in seen:
                self._reload_init.update(library._reload_init)
                seen.add(library)
                self._final_module.link_in(library._get_module_for_linking(), preserve=True)
        self._final_module.verify()
        self._finalize_dynamic_globals()
        self._verify_declare_only_symbols()
        self._finalized = True
        if "lazy" in OFF:
            self.materialise()

    def materialise(self) -> None:
        """Optimise the module and generate its machine code (once): the rest of numba's
        ``finalize``, with the linked callees made private to this code first
        (``sim.compiler.lazy_code``)."""
        # Also asked outside a compile (a call from Python, an ``ask`` unboxed): the engine is
        # numba's, shared with any thread compiling.
        with global_compiler_lock:
            self._ensure_finalized()
            if self.in_engine:
                return
            self.in_engine = True
            if "private" not in OFF:
                make_callees_private(self._final_module, self.name)
            self._optimize_final_module()
            self._dynamic_globals = []  # numba's step scans them again
            CPUCodeLibrary._finalize_final_module(self)
            deferred = self.__dict__.pop("_deferred", None)
            if deferred is not None:
                for name, env in deferred.envs:
                    self._codegen.set_env(name, env)

    def get_pointer_to_function(self, name: str) -> int:
        """The address of function ``name``, 0 if this library does not define it; generates
        the machine code only for a function it defines. Remembered: numba asks again at
        every call from Python that passes a kernel as ``ask``, and asking LLVM takes its lock."""
        addresses = self.__dict__.setdefault("_addresses", {})
        if name not in addresses:
            addresses[name] = self._address(name)
        return addresses[name]

    def _address(self, name: str) -> int:
        self._ensure_finalized()
        if not self.in_engine:
            try:
                fn = self._final_module.get_function(name)
            except NameError:
                return 0
            if fn.is_declaration:
                return 0
            self.materialise()
        return super().get_pointer_to_function(name)

    def _optimize_functions(self, ll_module: Any) -> None:
        # Numba's own builds a new pass manager (and its pass builder) for every function of
        # every module it is handed; one per module runs the same passes on each function.
        ll_module.data_layout = self._codegen._data_layout
        fpm, pb = self._codegen._function_pass_manager()
        for func in ll_module.functions:
            fpm.run(func, pb)

    def _get_compiled_object(self) -> bytes:
        self.materialise()
        return super()._get_compiled_object()

    def serialize_using_object_code(self) -> tuple[str, str, Any]:
        """Numba's cached form of a library: machine code and linkable IR once materialised,
        else the IR alone (:data:`IR_KIND`), so caching generates no machine code."""
        if self.in_engine:
            return super().serialize_using_object_code()
        self._ensure_finalized()
        return (self.name, IR_KIND, self._final_module.as_bitcode())

    @classmethod
    def from_ir(cls, codegen: Any, name: str, bitcode: bytes) -> KernelLibrary:
        """A finalised library of the module in ``bitcode``, as :meth:`finalize` left it."""
        self = cls(codegen, name)
        self.enable_object_caching()
        self._final_module = ll.parse_bitcode(bitcode)
        self._finalize_dynamic_globals()
        self._finalized = True
        return self


class DeferredEnvs:
    """A code generator's stand-in that keeps ``set_env`` calls for :meth:`KernelLibrary.
    materialise` and passes everything else on."""

    def __init__(self, codegen: Any) -> None:
        self.real = codegen
        self.envs: list[tuple[str, Any]] = []

    def set_env(self, env_name: str, env: Any) -> None:
        """Point global ``env_name`` at ``env`` once the module has machine code."""
        self.envs.append((env_name, env))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


class KernelCompiler(compiler.Compiler):
    """Numba's compiler pipeline, lowering into a :class:`KernelLibrary`."""

    def compile_extra(self, func: Any) -> Any:
        if self.state.library is None:
            library = KernelLibrary(self.state.targetctx.codegen(), func.__qualname__)
            library.enable_object_caching()  # numba's lowering does it for a library it makes
            self.state.library = library
        return super().compile_extra(func)


NO_ANNOTATION = "(not kept: numba's type annotation of a kernel is not cached)"
"""What a kernel's cache entry holds in place of numba's type annotation (``inspect_types``)."""


class KernelCacheImpl(CompileResultCacheImpl):
    """Numba's cache of compile results, which also loads a kernel cached as IR alone."""

    def reduce(self, cres: Any) -> Any:
        """The cache entry of compile result ``cres``: numba's, without its type annotation.

        Numba renders every cached function's annotated source (each line with the
        types of its variables) as text into the entry, for ``inspect_types`` of a
        loaded function only; for every kernel of a cold compile that was a large part of
        saving it to the cache.
        """
        return cres._replace(type_annotation=NO_ANNOTATION)._reduce()

    def rebuild(self, target_context: Any, payload: tuple[Any, ...]) -> Any:
        """The compile result of a cache entry (numba's ``CompileResult._rebuild``)."""
        libdata = payload[0]
        if libdata[1] != IR_KIND:
            return super().rebuild(target_context, payload)
        _, fndesc, env, signature, objectmode, lifted, typeann, reload_init, envs = payload
        for fn in reload_init:
            fn()
        name, _, bitcode = libdata
        library = KernelLibrary.from_ir(target_context.codegen(), name, bitcode)
        result = compiler.CompileResult(
            target_context=target_context,
            typing_context=target_context.typing_context,
            library=library,
            environment=env,
            entry_point=target_context.get_executable(library, fndesc, env),
            fndesc=fndesc,
            type_annotation=typeann,
            signature=signature,
            objectmode=objectmode,
            lifted=lifted,
            typing_error=None,
            call_helper=None,
            metadata=None,
            reload_init=reload_init,
            referenced_envs=envs,
        )
        for referenced in envs:
            library.codegen.set_env(referenced.env_name, referenced)
        return result


def materialised(library: Any) -> bool:
    """Whether ``library`` has its machine code (numba's own libraries always do)."""
    return not isinstance(library, KernelLibrary) or library.in_engine
