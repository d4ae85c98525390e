"""``omensim compare``: the same games with and without a change, paired."""

from __future__ import annotations

from pathlib import Path

import click

from sim.cli.errors import user_errors
from sim.cli.options import (
    backend_options,
    change_options,
    game_options,
    game_spec,
    show_progress,
)
from sim.data.spec import SpecError


@click.command("compare", short_help="Play the same games with and without a card change.")
@game_options(default_games=100_000)
@change_options
@click.option(
    "--out",
    "-o",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Also write both runs (OUT/A with the base cards, OUT/B with the changes) as run "
    "directories, and OUT/compare.json and OUT/compare.parquet.",
)
@click.option("--force", is_flag=True, help="Replace an earlier comparison in --out.")
@click.option(
    "--resume",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    metavar="OUT",
    help="Finish the interrupted comparison written to OUT (its runs A and B play only "
    "their missing chunks); the game and change options here are ignored.",
)
@backend_options
def compare_cmd(
    games: int,
    mix: str,
    seed: int,
    p0: str,
    p1: str,
    first: str,
    variants: tuple[str, ...],
    threads: int | None,
    chunk_size: int,
    quiet: bool,
    force_progress: bool,
    change: tuple[str, ...],
    card_files: tuple[str, ...],
    out: Path | None,
    force: bool,
    resume: Path | None,
    backend: str,
    scheduler: str | None,
    workers: int | None,
) -> None:
    """Play the same games with the base cards (A) and with card changes (B).

    Both tables play game indices 0..games-1 with the same seed, so they deal
    the same games (common random numbers) and the difference is the change,
    not luck. Prints, with 95% intervals paired by game: the change of the
    first-player win rate, and of the win rate of the player who played each
    changed card; and how many games per run an unpaired comparison would need
    for the same interval width.

    \b
    Example:
      omensim compare --mix dunes+aegean --games 2e5 --change "Moonlight Channeler.cost=3"
      omensim compare --mix aegean --cards my-aegean.toml --out results/my-aegean
    """
    from sim.analysis.compare import compare, format_result, resume_compare
    from sim.data.changes import Changes
    from sim.run.backends import open_backend

    if resume is not None:
        with user_errors(resume), open_backend(backend, threads, scheduler, workers) as be:
            result = resume_compare(
                resume, threads=threads, progress=show_progress(quiet, force_progress), backend=be
            )
        if not quiet:
            click.echo(format_result(result))
        return

    with (
        user_errors(out),
        open_backend(backend, threads, scheduler, workers) as be,
    ):
        changes = Changes.parse(change, card_files)
        if not changes:
            raise SpecError("nothing to compare: give at least one --change or --cards")
        spec = game_spec(games, mix, seed, p0, p1, first, variants)
        result = compare(
            spec,
            changes,
            out=out,
            threads=threads,
            backend=be,
            chunk_size=chunk_size,
            force=force,
            progress=show_progress(quiet, force_progress),
        )
    if not quiet:
        click.echo(format_result(result))
