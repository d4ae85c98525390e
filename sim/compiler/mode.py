"""Which compiler builds the kernels, read once at import: omensim's extension or plain numba.

``OMENSIM_PLAIN_NUMBA=1`` asks for plain ``numba.njit(cache=True)``, and so does a numba
release the extension is not tested on, with one line saying why (``docs/numba.md``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

import numba

PLAIN_ENV = "OMENSIM_PLAIN_NUMBA"
HOOKS_ENV = "OMENSIM_TRACE_HOOKS"
"""``1`` compiles the event trace's hooks into the kernels from the start (``sim.kernel.trace``)."""

EXTENSION_RELEASES = ((0, 68),)
"""numba (major, minor) releases ``sim.compiler.extension`` is tested on."""


def release(version: str) -> tuple[int, int]:
    """(major, minor) of a numba version string such as ``0.68.1`` or ``0.69.0rc1``."""
    major, minor = version.split(".")[:2]
    return int(major), int("".join(ch for ch in minor if ch.isdigit()) or 0)


def _switch(environ: Mapping[str, str], name: str) -> bool:
    asked = environ.get(name, "").strip()
    if asked not in ("", "0", "1"):
        raise ValueError(f"{name} must be 0 or 1, got {asked!r}")
    return asked == "1"


def plain_wanted(environ: Mapping[str, str], version: str) -> bool:
    """Whether kernels compile with plain ``njit``: asked for, or the extension untested on
    numba ``version``; ``ValueError`` for a bad value of :data:`PLAIN_ENV`."""
    return _switch(environ, PLAIN_ENV) or release(version) not in EXTENSION_RELEASES


def hooks_wanted(environ: Mapping[str, str]) -> bool:
    """Whether :data:`HOOKS_ENV` asks for the trace hooks; ``ValueError`` for a bad value."""
    return _switch(environ, HOOKS_ENV)


PLAIN: bool = plain_wanted(os.environ, numba.__version__)
MODE = "plain" if PLAIN else "extension"  # in every run's manifest and ``omensim --version``
HOOKS: bool = hooks_wanted(os.environ)
"""Whether the kernels have the trace hooks compiled in (``sim.kernel.trace.use_hooks``)."""


def fallback_note(environ: Mapping[str, str], version: str) -> str | None:
    """The line saying why kernels compile with plain numba though nobody asked, or None."""
    if _switch(environ, PLAIN_ENV) or release(version) in EXTENSION_RELEASES:
        return None
    tested = ", ".join(f"{a}.{b}" for a, b in EXTENSION_RELEASES)
    why = f"numba {version} is not a release its compiler extension is tested on ({tested})"
    return f"omensim: {why}; compiling with plain numba, which is slower"


def describe() -> str:
    """The compile mode and numba release of this process (``omensim --version``)."""
    return f"numba {numba.__version__}, compile mode: {MODE}"
