"""A kernel's callees made private to the machine code of the kernel that links them.

Numba links each callee into its caller's module as ``linkonce_odr``: a definition
that another module may replace, so LLVM may not change its signature. Every call
that stays a call then passes numba's whole calling convention: each array as its
seven or nine fields (memory-info, parent, size, item size, data, shape, strides),
an exception-info pointer and a status word the caller tests, some thirty words
for ``(st, tab, fp, ask, ...)``, where a kernel reads the data pointer alone.

:func:`make_callees_private` gives a module's linked-in definitions internal
linkage before it is optimised, once it is to become machine code
(``sim.kernel.lazy_code.KernelLibrary.materialise``): LLVM then drops the unused
fields and the status nobody can fail, passes what is left in registers, and
inlines a callee with one caller. The kernel's own functions (external) keep
numba's convention, so Python, a by-symbol call and an ``ask`` pointer reach them
as before. Only linkage and calling convention change: the same floating-point
operations run in the same order, so every game plays the same.

Each private definition is renamed with a tag of its module: numba's JIT puts
local symbols of a loaded object in its symbol table too, so a private copy named
like a callee's shared definition would be found in place of it by the next
module that links the callee (a call with the wrong arguments).
"""

from __future__ import annotations

import hashlib
from typing import Any

from llvmlite import binding as ll


def make_callees_private(module: Any, owner: str) -> int:
    """Give every ``linkonce_odr`` function of ``module`` internal linkage and a name
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
