"""The ``omensim`` command group, :data:`main`: every command added to it.

Heavy modules (numba, the engine) are imported inside the commands so that
``omensim --help`` answers at once.
"""

from __future__ import annotations

import click

from sim import __version__
from sim.cli.balance import balance_cmd
from sim.cli.cards import cards_cmd
from sim.cli.compare import compare_cmd
from sim.cli.compile import compile_cmd
from sim.cli.desk import desk_cmd
from sim.cli.errors import OneLineErrorsGroup
from sim.cli.mixes import mixes_cmd
from sim.cli.replay import replay_cmd
from sim.cli.report import report_cmd
from sim.cli.run import run_cmd
from sim.cli.strength import strength_cmd
from sim.cli.sweep import sweep_cmd
from sim.cli.tournament import tournament_cmd


def _print_version(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    from sim.compiler.mode import describe  # deferred: imports numba

    click.echo(f"omensim, version {__version__} ({describe()})")
    ctx.exit()


@click.group(cls=OneLineErrorsGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--version",
    "-V",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_print_version,
    help="Show the version, numba's and the kernel's compile mode, and exit.",
)
def main() -> None:
    """Monte Carlo simulator for the Omen card games.

    Plays many bot-vs-bot games of Omen (A Reign of War, Edge of the Aegean,
    Heir to the Dunes and mixes of them) and writes one row per game to
    Parquet, ready for pandas.

    \b
    Examples:
      omensim run --games 1e6 --mix aegean --seed 1
      omensim cards --mix dunes+aegean
      omensim compare --mix aegean --games 2e5 --change "Talos, Bronze Guardian of Crete.cost=+1"
      omensim sweep --mix aegean --field cost --delta -1,+1 --games 5e4 --out results/sweep
      omensim report results/demo --out reports/demo
      omensim tournament --mix aegean --bots random,greedy --games 2000
      omensim replay results/demo --game 123
      omensim strength --mix aegean --panel greedy,economic --games 2e4
      omensim compile --mix dunes+aegean --linked
      omensim desk
    """


for _command in (
    run_cmd,
    cards_cmd,
    tournament_cmd,
    compare_cmd,
    sweep_cmd,
    report_cmd,
    replay_cmd,
    strength_cmd,
    mixes_cmd,
    balance_cmd,
    compile_cmd,
    desk_cmd,
):
    main.add_command(_command)
