"""The ``omensim`` command line: one module per command, one error handler.

:mod:`sim.cli.group` holds the command group (:data:`main`, also importable from here);
:mod:`sim.cli.errors` turns every error a user can cause into one ``Error:`` line and an
exit status; :mod:`sim.cli.options` holds the option types and groups several commands
share.

This module imports nothing else: :func:`console`, the console script, is in place
before click, pyarrow and the commands are imported (a third of a second), so a Ctrl-C
then ends the command as one during it does, not with the import's traceback.
"""

from __future__ import annotations

import gc
import sys

TYPE_CHECKING = False  # typing itself takes a while to import, inside the window above
if TYPE_CHECKING:
    from typing import Any, NoReturn


def __getattr__(name: str) -> Any:
    # ``from sim.cli import main``, which tests and scripts use, still works.
    if name == "main":
        from sim.cli.group import main  # deferred: imports click and every command

        return main
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _interrupted() -> NoReturn:
    """End the process as a Ctrl-C inside a command does (click's new line, then the error
    line of :class:`sim.cli.errors.OneLineErrorsGroup`), without a traceback."""
    import signal

    # A further Ctrl-C while this one is reported would print a traceback of its own; at
    # this point nothing is running that it could still stop.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.stderr.write("\nError: interrupted\n")
    sys.stderr.flush()
    sys.exit(130)  # sim.cli.errors.EXIT_INTERRUPTED, whose module imports click


def console() -> None:
    """The ``omensim`` console script (and ``python -m sim.cli``): :data:`main` for a
    process that ends with it.

    A Ctrl-C while the commands are imported, or anywhere outside the commands' own
    handling, ends the process with one line and status 130, as one inside does.

    The interpreter's shutdown runs full garbage collections over the whole heap,
    numba's thousands of type and dispatcher objects included: a noticeable part
    of every command's time beside play.
    Freezing the heap first keeps it out of those collections; objects are still
    freed as modules are cleared, and every file a command writes is closed before
    it returns. Tests call :data:`main` itself, so their process keeps collecting.
    """
    try:
        from sim.cli.group import main  # deferred: imports click and every command

        main()
    except KeyboardInterrupt:
        _interrupted()
    finally:
        gc.freeze()
