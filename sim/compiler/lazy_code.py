"""Machine code only for kernels something runs; the rest stay LLVM IR (cached as such) for
callers to link: numba would optimise every tree once per caller (``docs/compile.md``)."""

from __future__ import annotations

import hashlib
from typing import Any

from llvmlite import binding as ll
from numba.core import compiler
from numba.core.caching import CompileResultCacheImpl
from numba.core.codegen import CPUCodeLibrary, JITCodeLibrary
from numba.core.compiler_lock import global_compiler_lock, require_global_compiler_lock

from sim.compiler.linkage import OFF


def make_callees_private(module: Any, owner: str) -> None:
    """Give every ``linkonce_odr`` function of ``module`` internal linkage, so LLVM may trim
    numba's calling convention to what it uses, and a name unique to it (tagged by ``owner``
    and its external functions): numba's JIT lists a loaded object's local symbols too."""
    fns = list(module.functions)
    own = sorted(f.name for f in fns if not f.is_declaration and f.linkage == ll.Linkage.external)
    tag = hashlib.sha256("\n".join([owner, *own]).encode()).hexdigest()[:12]
    for fn in fns:
        if fn.linkage == ll.Linkage.linkonce_odr:
            fn.linkage, fn.name = ll.Linkage.internal, f"{fn.name}.{tag}"


IR_KIND = "omensim-ir"
"""The cache kind of a kernel without machine code: its final module's bitcode alone."""


class KernelLibrary(JITCodeLibrary):
    """A kernel's code library whose machine code is generated on first use (module doc)."""

    in_engine = False  # whether the module has its machine code

    @property
    def codegen(self) -> Any:
        """Numba's code generator; until there is machine code, one that keeps ``set_env``."""
        if self.in_engine:
            return self._codegen
        return self.__dict__.setdefault("_deferred", DeferredEnvs(self._codegen))

    def finalize(self) -> None:
        """Link the callees' IR in, as numba's ``finalize`` does; ``materialise`` does the rest."""
        require_global_compiler_lock()
        self._codegen._check_llvm_bugs()
        self._raise_if_finalized()
        for library in dict.fromkeys(self._linking_libraries):  # each once, in order
            self._reload_init.update(library._reload_init)
            self._final_module.link_in(library._get_module_for_linking(), preserve=True)
        self._final_module.verify()
        self._finalize_dynamic_globals()
        self._verify_declare_only_symbols()
        self._finalized = True
        if "lazy" in OFF:
            self.materialise()

    def materialise(self) -> None:
        """Optimise the module and generate its machine code, once (callees made private)."""
        # Also asked outside a compile: the engine is numba's, shared with any thread compiling.
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
            for name, env in getattr(self.__dict__.pop("_deferred", None), "envs", ()):
                self._codegen.set_env(name, env)

    def get_pointer_to_function(self, name: str) -> int:
        """The address of function ``name`` (0 if not defined here), remembered: numba asks at
        every call from Python that passes ``ask``, and asking LLVM takes its lock."""
        addresses = self.__dict__.setdefault("_addresses", {})
        if name not in addresses:
            self._ensure_finalized()
            if not self.in_engine:
                try:
                    fn = self._final_module.get_function(name)
                except NameError:  # not in the module
                    fn = None
                if fn is not None and not fn.is_declaration:
                    self.materialise()
            addresses[name] = super().get_pointer_to_function(name) if self.in_engine else 0
        return addresses[name]

    def _optimize_functions(self, ll_module: Any) -> None:
        # Numba's builds a pass manager per function; one per module runs the same passes.
        ll_module.data_layout = self._codegen._data_layout
        fpm, pb = self._codegen._function_pass_manager()
        for func in ll_module.functions:
            fpm.run(func, pb)

    def _get_compiled_object(self) -> bytes:
        self.materialise()
        return super()._get_compiled_object()

    def serialize_using_object_code(self) -> tuple[str, str, Any]:
        """Numba's cached form of a library once materialised, else its IR (:data:`IR_KIND`)."""
        if self.in_engine:
            return super().serialize_using_object_code()
        self._ensure_finalized()
        return (self.name, IR_KIND, self._final_module.as_bitcode())


class DeferredEnvs:
    """A code generator that keeps ``set_env`` calls for :meth:`KernelLibrary.materialise`."""

    def __init__(self, codegen: Any) -> None:
        self.real, self.envs = codegen, []

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


class KernelCacheImpl(CompileResultCacheImpl):
    """Numba's cache of compile results, which also loads a kernel cached as IR alone."""

    def reduce(self, cres: Any) -> Any:
        """Numba's entry without the annotated source it renders for ``inspect_types``: a large
        part of saving a kernel."""
        return cres._replace(type_annotation="(not cached)")._reduce()

    def rebuild(self, target_context: Any, payload: tuple[Any, ...]) -> Any:
        """The compile result of a cache entry (numba's ``CompileResult._rebuild``)."""
        (name, kind, bitcode), *rest = payload
        if kind != IR_KIND:
            return super().rebuild(target_context, payload)
        names = ("fndesc", "environment", "signature", "objectmode", "lifted", "type_annotation")
        fields = dict(zip((*names, "reload_init", "referenced_envs"), rest, strict=True))
        for fn in fields["reload_init"]:
            fn()
        library = KernelLibrary(target_context.codegen(), name)
        library.enable_object_caching()
        library._final_module = ll.parse_bitcode(bitcode)
        library._finalize_dynamic_globals()
        library._finalized = True
        result = compiler.CompileResult(
            target_context=target_context,
            typing_context=target_context.typing_context,
            library=library,
            entry_point=target_context.get_executable(
                library, fields["fndesc"], fields["environment"]
            ),
            **fields,
            **dict.fromkeys(("typing_error", "call_helper", "metadata")),
        )
        for referenced in fields["referenced_envs"]:
            library.codegen.set_env(referenced.env_name, referenced)
        return result
