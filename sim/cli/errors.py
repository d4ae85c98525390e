"""One way to fail: every error a user can cause becomes one ``Error:`` line.

Exit status 2 for a bad command line or an impossible run description
(unknown mix, variant or strategy, malformed ``--games``), 1 for everything
else the user controls (bad card data, an output directory that exists or
cannot be written), 130 when interrupted with Ctrl-C.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

import click

from sim.base.errors import Error
from sim.data.spec import SpecError
from sim.run.lock import FolderLockedError

EXIT_USAGE = 2
EXIT_ERROR = 1
EXIT_INTERRUPTED = 130


class CliError(click.ClickException):
    """A user-caused failure with its own exit status; printed as one ``Error:`` line."""

    def __init__(self, message: str, exit_code: int = EXIT_ERROR) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def one_line(message: str) -> str:
    # Our contract is one line on stderr; squash any stray newlines from library messages.
    return " ".join(message.split())


def fail(message: str, exit_code: int) -> NoReturn:
    click.echo(f"Error: {one_line(message)}", err=True)
    sys.exit(exit_code)


class OneLineErrorsGroup(click.Group):
    """A click group that reports every ClickException as a single ``Error:`` line.

    Click's default prints the usage synopsis and a "Try --help" hint above the
    error; we keep to one line so scripts and people see the reason at once.
    """

    def main(  # type: ignore[override]
        self,
        args: Any = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.exceptions.NoArgsIsHelpError as exc:
            exc.show()  # bare `omensim`: the help text is the useful answer
            sys.exit(exc.exit_code)
        except click.ClickException as exc:
            fail(exc.format_message(), exc.exit_code)
        except click.Abort:
            fail("interrupted", EXIT_INTERRUPTED)
        # In non-standalone mode click returns the exit code of --help/--version as an int.
        sys.exit(rv if isinstance(rv, int) else 0)


@contextlib.contextmanager
def user_errors(out: Path | None = None, interrupted: str | None = None) -> Iterator[None]:
    """Turn the errors a user can cause into one-line CliErrors with their exit codes.

    ``interrupted`` is the message for Ctrl-C; by default it names ``out`` as incomplete.
    """
    from sim.data.cards import CardDataError  # deferred: loads pyarrow
    from sim.run import io, runner  # deferred: loads pyarrow

    try:
        yield
    except KeyboardInterrupt:
        if interrupted is None:
            where = f" in {out}" if out is not None else ""
            interrupted = f"interrupted; output{where} is incomplete"
        raise CliError(interrupted, EXIT_INTERRUPTED) from None
    except SpecError as exc:
        raise CliError(str(exc), EXIT_USAGE) from None
    except (CardDataError, runner.RunError, io.RunReadError, FolderLockedError) as exc:
        raise CliError(str(exc), EXIT_ERROR) from None
    except Error as exc:  # every other failure a user can cause (sim.Error)
        raise CliError(str(exc), EXIT_ERROR) from None
    except OSError as exc:
        where = exc.filename if exc.filename is not None else out
        raise CliError(f"cannot write {where}: {exc.strerror or exc}", EXIT_ERROR) from None
