"""Which compiler the kernel is built with: omensim's numba extension or plain ``njit``.

Read once, at import, so every kernel of a process is compiled the same way:

* ``OMENSIM_PLAIN_NUMBA=1`` asks for plain ``numba.njit(cache=True)``;
  ``OMENSIM_PLAIN_NUMBA=0`` (or unset) for the extension (``sim.compiler.extension``).
* The extension reaches into numba's compiler, so it is used only on the numba
  releases it is tested on (:data:`EXTENSION_RELEASES`); any other release gets
  plain mode whatever the variable says.

Both modes play the same games (the golden replays and the rule tests pass in
both); the extension compiles faster and plays faster (``docs/numba.md``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

import numba

PLAIN_ENV = "OMENSIM_PLAIN_NUMBA"
"""The environment variable that switches plain mode on (``1``) or off (``0``)."""

EXTENSION_RELEASES = ((0, 68),)
"""numba (major, minor) releases ``sim.compiler.extension`` is tested on."""


def release(version: str) -> tuple[int, int]:
    """(major, minor) of a numba version string such as ``0.68.1`` or ``0.69.0rc1``."""
    major, minor = version.split(".")[:2]
    return int(major), int("".join(ch for ch in minor if ch.isdigit()) or 0)


def plain_wanted(environ: Mapping[str, str], version: str) -> bool:
    """Whether kernels compile with plain ``njit``: asked for, or the extension untested on
    numba ``version``. Raises ``ValueError`` for a value of :data:`PLAIN_ENV` other than
    ``0``, ``1`` or empty."""
    asked = environ.get(PLAIN_ENV, "").strip()
    if asked not in ("", "0", "1"):
        raise ValueError(f"{PLAIN_ENV} must be 0 or 1, got {asked!r}")
    return asked == "1" or release(version) not in EXTENSION_RELEASES


PLAIN: bool = plain_wanted(os.environ, numba.__version__)
"""True when this process compiles kernels with plain ``numba.njit(cache=True)``."""

MODE = "plain" if PLAIN else "extension"
"""This process's compile mode, by name (the run's manifest, ``omensim --version``, the
compile estimate and the benchmarks record it)."""


def fallback_note(environ: Mapping[str, str], version: str) -> str | None:
    """The line saying why kernels compile with plain numba though nobody asked for it, or
    None: the extension is not tested on numba ``version``."""
    if environ.get(PLAIN_ENV, "").strip() == "1" or release(version) in EXTENSION_RELEASES:
        return None
    tested = ", ".join(f"{a}.{b}" for a, b in EXTENSION_RELEASES)
    return (
        f"omensim: numba {version} is not a release its compiler extension is tested on "
        f"({tested}); compiling with plain numba, which is slower"
    )


def describe() -> str:
    """The compile mode and numba release of this process, in words (``omensim --version``)."""
    return f"numba {numba.__version__}, compile mode: {MODE}"


HOOKS_ENV = "OMENSIM_TRACE_HOOKS"
"""``1`` compiles the event trace's hooks into the kernels from the start
(``sim.kernel.trace``); ``0`` or unset leaves them out until a replay asks for them."""


def hooks_wanted(environ: Mapping[str, str]) -> bool:
    """Whether :data:`HOOKS_ENV` in ``environ`` asks for the trace hooks (``1``); raises
    ``ValueError`` for a value other than ``0``, ``1`` or empty."""
    asked = environ.get(HOOKS_ENV, "").strip()
    if asked not in ("", "0", "1"):
        raise ValueError(f"{HOOKS_ENV} must be 0 or 1, got {asked!r}")
    return asked == "1"


HOOKS: bool = hooks_wanted(os.environ)
"""Whether this process's kernels have the trace hooks compiled in; set before the first
kernel compiles (``sim.kernel.trace.use_hooks``); it picks the kernels' cache files
(``sim.compiler.extension.KernelCache``, ``sim.compiler.cache.plain_root``)."""
