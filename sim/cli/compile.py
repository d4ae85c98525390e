"""``omensim compile``: compile the game kernel into numba's cache now, and say what it took."""

from __future__ import annotations

import time

import click

from sim.cli.errors import user_errors
from sim.cli.options import mix_option, seat_help


@click.command("compile", short_help="Compile the game kernel into the cache now.")
@mix_option("Card sets whose entry point to compile, e.g. 'dunes+aegean'.")
@click.option("--p0", default="greedy", show_default=True, help=seat_help(0))
@click.option("--p1", default="greedy", show_default=True, help=seat_help(1))
@click.option(
    "--linked",
    is_flag=True,
    help="Compile the bots' linked build too (the steps and the bot linked into one tree): "
    "later runs of these seats play it, faster; it takes longer to compile.",
)
def compile_cmd(mix: str, p0: str, p1: str, linked: bool) -> None:
    """Compile (or load) the kernel a run of MIX with these seats plays, in this command.

    A run compiles what it needs itself on its first game; this command does it ahead,
    with nothing left running when it returns, and prints each kernel and the time it
    took. Runs of the same seats then start from the cache.

    \b
    Example:
      omensim compile --mix dunes+aegean --linked
    """
    t0 = time.perf_counter()
    with user_errors(interrupted="interrupted; nothing half-compiled is kept"):
        from sim.data.spec import RunSpec  # deferred: loads the engine's imports
        from sim.run.engine import Engine, entry_names  # deferred: loads numba

        engine = Engine.ready(RunSpec(games=2, mix=mix, p0=p0, p1=p1))
        if linked:
            engine.warmup(linked=True)
    names = ", ".join(entry_names(engine))
    click.echo(f"compiled {names} in {time.perf_counter() - t0:.1f} s (cached from now on)")
