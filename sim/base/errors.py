"""The project's one error type: every failure a user can cause is a :class:`Error`.

It is declared at the bottom layer so that the data readers, the runner, the
analysis and the API all raise it (or a subclass), and a caller catches one
type: ``except sim.Error``. It subclasses ``ValueError`` because every such
failure is a bad value handed in (a file, an argument, a folder), and its
message is the one line the CLI prints after ``Error:``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable


class Error(ValueError):
    """A user-caused failure; ``str(e)`` is one line naming what is wrong."""


class FrameError(Error):
    """A table handed to an analysis helper that lacks what the helper reads (a column, a
    group), or is not a table at all; the message names what is missing."""


def exit_status(main: Callable[[], int]) -> int:
    """``main()``'s exit status, for a script run from the command line (``benchmarks/``,
    ``tools/``): an :class:`Error` it raises (a bad option or input, named by the library)
    is its one line on stderr after ``Error:`` and status 2, never a traceback."""
    try:
        return main()
    except Error as e:
        print(f"Error: {e}", file=sys.stderr)
        return 2
