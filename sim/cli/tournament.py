"""``omensim tournament``: every bot against every other, seats balanced."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from sim.cli.errors import EXIT_USAGE, CliError, user_errors
from sim.cli.options import (
    BackendArgs,
    GameCount,
    backend_options,
    check_resume_options,
    force_option,
    mix_option,
    mix_recorded,
    out_option,
    progress_option,
    resume_option,
    seed_option,
    show_progress,
    split_variants,
    threads_option,
    variant_option,
)


@click.command("tournament", short_help="Play every pair of bots; print a win-rate matrix.")
@mix_option("Card sets joined by '+', as for 'omensim run', e.g. 'dunes+aegean'.")
@click.option(
    "--bots",
    default=None,
    metavar="NAME,NAME[,...]",
    help="Comma-separated bots to play each other (at least two, each once). "
    "Default: every registered bot.",
)
@click.option(
    "--games",
    "-n",
    type=GameCount(),
    default=20_000,
    show_default=True,
    help="Games per pairing, a multiple of 4: each deal is played by each bot from "
    "each seat, going first and second.",
)
@seed_option("Seed of every pairing (all pairings play the same deals).")
@variant_option()
@out_option(
    "Directory for tournament.parquet, ratings.parquet and tournament.md (absent "
    "or empty unless --force; checked before playing). "
    "Default: a new results/tournament-<mix>-s<seed>-<date>-<time>."
)
@click.option(
    "--keep-games",
    is_flag=True,
    help="Also write every game, as one run directory per seat order under OUT/games/.",
)
@threads_option()
@force_option("tournament", "the tournament goes to a new folder")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar and no tables printed.")
@progress_option
@resume_option(
    "DIR",
    "Finish the interrupted tournament written to DIR (by --out): keep its finished "
    "pairings, play the others, with the plan DIR records. Refused if the code or cards "
    "changed since it started.",
)
@backend_options
def tournament_cmd(
    mix: str,
    bots: str | None,
    games: int,
    seed: int,
    variants: tuple[str, ...],
    out: Path | None,
    keep_games: bool,
    threads: int | None,
    force: bool,
    quiet: bool,
    force_progress: bool,
    resume: Path | None,
    backend: BackendArgs,
) -> None:
    """Play every pair of bots, each bot against itself too, with seats balanced.

    For two bots A and B, half the games have A in seat 0 and half in seat 1,
    on duplicate deals, so each bot plays every deal from both seats. Prints
    the row bot's win rate against the column bot with 95% Wilson intervals
    (shared victories count for neither bot; the Parquet file has them and a
    score counting them as half) and the first player's win rate in each
    self-play pairing. Writes a tidy tournament.parquet (one row per pairing, the
    settings in its metadata), ratings.parquet and tournament.md (the same tables) to --out.

    \b
    Example:
      omensim tournament --mix dunes+aegean --bots random,greedy --games 2e4 --out results/t
      python -c 'import pandas as pd; print(pd.read_parquet("results/t/tournament.parquet"))'
      omensim tournament --resume results/t
    """
    from sim.analysis import tournament  # deferred: loads pandas

    if resume is not None:
        if out is not None:
            raise CliError("--resume DIR names the tournament folder; drop --out", EXIT_USAGE)
        check_resume_options(resume, _recorded())
        interrupted = f"interrupted; the tournament in {resume} is incomplete"
        with user_errors(resume, interrupted=interrupted), backend.open(threads) as be:
            result = tournament.resume_tournament(
                resume, threads, show_progress(quiet, force_progress), be
            )
        out = resume
    else:
        with (
            user_errors(out, interrupted="interrupted; the tournament was not finished"),
            backend.open(threads) as be,
        ):
            names = tournament.parse_bots(bots if bots is not None else tournament.valid_bots())
            tournament.check_games(games)
            out = out if out is not None else tournament.default_out_dir(mix, seed)
            result = tournament.play_tournament(
                mix,
                names,
                games,
                seed,
                split_variants(variants),
                out=out,
                keep_games=keep_games,
                threads=threads,
                progress=show_progress(quiet, force_progress),
                force=force,
                backend=be,
            )
    if not quiet:
        click.echo(tournament.format_tournament(result))
        click.echo(
            f"Tables in {out}/; load them with: import pandas as pd; "
            f'pairs = pd.read_parquet("{out}/{tournament.PAIRS_FILE}")'
        )


def _recorded() -> dict[str, Any]:
    """Where a tournament's plan records each option ``tournament --resume`` may repeat."""
    from sim.analysis.tournament import parse_bots  # deferred: loads pandas
    from sim.run.jobs import at  # deferred: loads pyarrow

    return {
        **{name: at(name) for name in ("games", "seed", "keep_games")},
        "mix": mix_recorded("mix"),
        "bots": at("bots", parse_bots),
        "variants": at("variants", split_variants),
    }
