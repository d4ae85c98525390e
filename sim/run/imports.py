"""Keep a library from importing a heavy module it only probes for.

pyarrow imports pandas, and numba imports ``scipy.linalg`` (with its BLAS), only to
ask whether they are there; ``omensim run`` needs neither. Refusing the import once,
while the library makes its check, leaves it noting "not there" for good.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import Any


class _Refuse:
    """A meta-path finder that makes one module (and its submodules) fail to import."""

    def __init__(self, module: str, why: str) -> None:
        self.module, self.why = module, why

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> None:
        """Refuse the module and its submodules; leave every other import to the next finder."""
        if name == self.module or name.startswith(self.module + "."):
            raise ImportError(self.why)


@contextlib.contextmanager
def refused(module: str, why: str) -> Iterator[None]:
    """While the block runs, ``import module`` raises ``ImportError(why)``."""
    finder = _Refuse(module, why)
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
