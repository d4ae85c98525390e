"""``omensim mixes``: play a list of mixes and rank them by first-player edge and seat balance."""

from __future__ import annotations

from pathlib import Path

import click

from sim.cli.errors import EXIT_USAGE, CliError, user_errors
from sim.cli.options import OutLocation, games_option, seed_option

MAX_SUBSETS = 100_000
"""The most card subsets a partial mix may be averaged over: each costs a pool and an
engine set-up whatever --games is."""


@click.command("mixes", short_help="Rank mixes by first-player edge and seat balance.")
@click.argument("mix_list", nargs=-1, metavar="[MIX]...")
@games_option(4_000, "Games per mix (a partial mix splits them over its --subsets).")
@seed_option("Deal seed shared by every mix and subset.")
@click.option(
    "--subset-seed",
    type=click.IntRange(0, 2**63 - 1),
    default=0,
    show_default=True,
    help="Seed the card subsets of a partial mix (SET:N) are drawn from, apart from the "
    "deal seed; the subsets' seeds are in the table.",
)
@click.option(
    "--subsets",
    type=click.IntRange(2, MAX_SUBSETS),
    default=8,
    show_default=True,
    help="Card subsets a partial mix is averaged over (each costs a set-up whatever "
    f"--games is, so at most {MAX_SUBSETS:,}, and at most --games).",
)
@click.option("--bot", default="greedy", show_default=True, help="The bot in both seats.")
@click.option(
    "--out",
    "-o",
    type=OutLocation(file_okay=True),
    default=None,
    help="Also write the table to this CSV file (a new one, unless --force).",
)
@click.option("--force", is_flag=True, help="Replace the file --out names if it exists.")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing but errors.")
def mixes_cmd(
    mix_list: tuple[str, ...],
    games: int,
    seed: int,
    subset_seed: int,
    subsets: int,
    bot: str,
    out: Path | None,
    force: bool,
    quiet: bool,
) -> None:
    """Play each MIX in self-play and rank them.

    Ranked by the first player's share of decisive games (rank) and by how near seat
    0's share is to 50% (bal), each with its 95% interval. Without MIX: every single
    set, every two-set mix with either base, and each base with 10 units of another
    set. A partial mix (SET:N) is the mean over --subsets card subsets drawn from
    --subset-seed, with a t-interval on the subset means, and says how much of the
    spread between subsets is the subset and how much the deals.

    \b
    Example:
      omensim mixes --games 8000
      omensim mixes aegean dunes+aegean dunes+aegean:10 --subsets 16 --out mixes.csv
    """
    from sim.analysis.mixes import default_mixes, format_mixes, rank_mixes  # deferred: loads pandas
    from sim.data.spec import RunSpec  # deferred: loads the data layer
    from sim.run import progress as P  # deferred: loads the run layer
    from sim.run.engine import Engine  # deferred: loads the batch kernel
    from sim.run.io import atomic_path, check_out_file  # deferred: loads pyarrow
    from sim.run.runner import check_projected_time  # deferred: loads numba
    from sim.run.session import resolve_threads  # deferred: loads numba
    from strategies.registry import resolve  # deferred: loads numba

    mixes = list(mix_list) or default_mixes()
    with user_errors():
        if subsets > games and any(":" in m for m in mixes):
            raise CliError(
                f"--subsets {subsets:,} is more than --games {games:,}: a partial mix splits "
                "its games over its subsets", EXIT_USAGE,
            )  # fmt: skip
        if out is not None:
            check_out_file(out, force)
        resolve(bot)
        from sim.data.cards import load_pool  # deferred: loads pyarrow

        for mix in mixes:  # every mix is checked before any is played
            load_pool(mix, seed)

        def each(mix: str) -> None:
            if not quiet:
                click.echo(f"playing {mix}...", err=True)

        with P.kernel_ready(not quiet):  # a cold cache compiles here, with its estimate shown
            engine = Engine(
                RunSpec(games=2, mix=mixes[0].partition(":")[0], seed=seed, p0=bot, p1=bot)
            )
            engine.warmup()
        # every mix's games, at the first mix's speed: refused up front if too many
        check_projected_time(engine, games * len(mixes), resolve_threads(None))
        table = rank_mixes(mixes, games, seed, bot, subsets, subset_seed, each)
    if out is not None:
        with user_errors(out), atomic_path(out) as tmp:
            check_out_file(out, force)  # again: another command may have written it meanwhile
            table.to_csv(tmp, index=False)
    if quiet:
        return
    click.echo(
        f"{len(mixes)} mixes, {bot} in both seats, {games:,} games each, deal seed {seed}, "
        f"subset seed {subset_seed} ({subsets} subsets per partial mix)"
    )
    click.echo(format_mixes(table))
