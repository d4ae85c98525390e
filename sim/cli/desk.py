"""``omensim desk``: the designer's desk, a local web application (sim/desk)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import click

from sim.cli.errors import EXIT_ERROR, EXIT_USAGE, CliError

EXTRA = ("starlette", "uvicorn", "jinja2")
"""The modules of the optional extra ``omensim[desk]``."""


def _not_empty(ctx: click.Context, param: click.Parameter, value: str) -> str:
    # An empty --host binds every interface (and prints a URL with no host); an empty
    # --workspace is the current folder. Neither is what an empty value asks for.
    if not value.strip():
        raise click.BadParameter("must not be empty", ctx, param)
    return value


@click.command("desk", short_help="The designer's desk in the browser (a local web app).")
@click.option(
    "--workspace",
    type=click.Path(file_okay=False),
    default="desk",
    callback=_not_empty,
    show_default=True,
    help="The folder the desk keeps its change sets (changes/) and answers (answers/) in, "
    "created if absent; it opens nothing outside it.",
)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8765,
    show_default=True,
    help="The port to serve on; 0 picks any free port.",
)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    callback=_not_empty,
    help="The address to bind. The default answers this machine only; any other exposes "
    "the desk (still behind its token) to the network.",
)
def desk_cmd(workspace: str, port: int, host: str) -> None:
    """Start the desk: edit cards, ask questions, watch answers come in, in the browser.

    Prints a URL with a random access token (requests without it are refused) and
    serves until Ctrl-C, which also stops any question it is answering. Every answer
    is a folder the omensim command line writes in WORKSPACE/answers, with the command
    that reproduces it; needs the extra: pip install 'omensim[desk]'.

    \b
    Example:
      omensim desk
      omensim desk --workspace my-desk --port 0
    """
    from sim.desk.workspace import NotAWorkspace, check_root  # deferred: loads pyarrow

    try:
        # Before anything is created or bound: the folder must not be a command's output.
        check_root(workspace)
    except NotAWorkspace as exc:
        raise CliError(f"--workspace: {exc}", EXIT_USAGE) from None
    missing = [m for m in EXTRA if importlib.util.find_spec(m) is None]
    if missing:
        raise CliError(
            f"omensim desk needs the web extra ({', '.join(missing)} missing): "
            "pip install -e '.[desk]' (or pip install 'omensim[desk]')",
            EXIT_USAGE,
        )
    from sim.desk.server import serve  # deferred: loads the web framework

    try:
        serve(Path(workspace), host, port, lambda line: click.echo(line))
    except NotAWorkspace as exc:  # its folders could not be made
        raise CliError(f"--workspace: {exc}", EXIT_USAGE) from None
    except OSError as exc:
        raise CliError(
            f"cannot serve on {host}:{port}: {exc.strerror or exc} (try another --port; "
            "0 picks a free one)",
            EXIT_ERROR,
        ) from None
