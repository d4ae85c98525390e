"""``omensim run``: play games and write them to Parquet."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from sim.cli.errors import EXIT_USAGE, CliError, user_errors
from sim.cli.options import (
    BackendArgs,
    GameCount,
    InputPath,
    backend_options,
    change_options,
    changes_recorded,
    check_panel_seats,
    check_resume_options,
    check_until_ci,
    chunk_size_option,
    exclude_capped_option,
    first_option,
    force_option,
    game_spec,
    gods_option,
    mix_option,
    out_option,
    panel_option,
    progress_option,
    resume_option,
    rules_option,
    seat_help,
    seed_option,
    show_progress,
    spec_recorded,
    threads_option,
    variant_option,
)


@click.command("run", short_help="Play games and write them to Parquet.")
@click.option(
    "--games",
    "-n",
    type=GameCount(),
    default=100_000,
    show_default=True,
    help="Number of games to play; 250000, 1_000 and 1e6 are all accepted.",
)
@mix_option(
    "Card sets joined by '+', the first being the base; SET:N adds N random unit "
    "cards of that set (drawn with --seed). E.g. 'aegean', 'dunes+aegean:10'."
)
@seed_option("Run seed; game i depends only on (seed, i), so a run is reproducible anywhere.")
@out_option(
    "Run directory to write (must be absent or empty unless --force), a local path or an "
    "fsspec URL (file://, s3://, gs://...; not with --until-ci or --panel). "
    "Default: a new results/<mix>-s<seed>-<date>-<time>.",
    url_ok=True,
)
@click.option(
    "--p0",
    default="greedy",
    show_default=True,
    help=seat_help(0),
)
@click.option(
    "--p1",
    default="greedy",
    show_default=True,
    help=seat_help(1),
)
@panel_option()
@first_option(
    "Who takes the first turn: always p0, always p1, alternate game by game, or random per game."
)
@gods_option()
@variant_option()
@click.option(
    "--decks",
    type=InputPath(),
    default=None,
    help="Deck-list file (TOML: p0 = [10 kind names], p1 = [...]) for --variant constructed.",
)
@rules_option(
    "House-rules TOML file whose [rules] table overrides named rule parameters "
    "(e.g. tiles_per_city = 3); see configs/rules/.",
)
@click.option(
    "--duplicate",
    is_flag=True,
    help="Play every deal twice, the other seat going first the second time (same "
    "shuffles, same random draws per seat); rows carry a deal_id linking the pair.",
)
@threads_option()
@chunk_size_option(
    "Games per Parquet part and per kernel call; trades memory for overhead. "
    "Results do not depend on it."
)
@force_option("run", "the run goes to a new folder")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar and no summary.")
@progress_option
@click.option(
    "--until-ci",
    type=float,
    default=None,
    callback=check_until_ci,
    metavar="HALF_WIDTH",
    help="Stop once the 95% interval of the first-player win rate is at most "
    "+/- HALF_WIDTH (e.g. 0.005), checked every few thousand games; --games is the ceiling. "
    "The manifest records the games played and games_requested.",
)
@resume_option(
    "DIR",
    "Finish the interrupted run in DIR (a path or an fsspec URL): play only its missing "
    "chunks, with the spec, cards and chunk size its manifest records. Refused if the "
    "code or cards changed since it started.",
    url_ok=True,
)
@backend_options
@change_options
@exclude_capped_option(
    "Leave turn-capped games out of the printed first-player figures (the summary "
    "says how many). The rows are still written; a capped game has end_reason turn_cap.",
)
def run_cmd(
    games: int,
    mix: str,
    seed: int,
    out: Path | None,
    p0: str,
    p1: str,
    panel: tuple[str, ...] | None,
    first: str,
    gods: str,
    variants: tuple[str, ...],
    decks: str | None,
    rules_file: str | None,
    duplicate: bool,
    threads: int | None,
    chunk_size: int,
    force: bool,
    quiet: bool,
    force_progress: bool,
    until_ci: float | None,
    resume: Path | None,
    backend: BackendArgs,
    change: tuple[str, ...],
    card_files: tuple[str, ...],
    exclude_capped: bool,
) -> None:
    """Play bot-vs-bot games and write one Parquet row per game.

    The run directory gets part-*.parquet files and a _manifest.json that says
    "complete": true only once every game is written. A summary is printed at
    the end: first- and second-player win rates, shared victories, turn-capped
    games and the first player's rate among decisive games, each with its 95%
    interval.

    \b
    Example:
      omensim run --games 1e6 --mix aegean --seed 1 --variant emissary --out results/emissary
      python -c 'from sim.analysis import load; print(load("results/emissary").winner.mean())'
      omensim run --games 1e7 --until-ci 0.002 --mix aegean
      omensim run --games 1e5 --panel greedy,economic,lookahead --out results/panel
      omensim run --resume results/emissary
      omensim run --games 1e8 --backend dask --scheduler tcp://10.0.0.5:8786
    """
    from sim.run import io, runner, session  # deferred: loads pyarrow

    io.arrow_without_pandas()  # the run writes Arrow only; pandas would add to its RSS
    session.numba_without_blas()  # and plays no matrix product; scipy's BLAS would too
    if resume is not None:
        if out is not None:
            raise CliError("--resume DIR names the run directory; drop --out", EXIT_USAGE)
        check_resume_options(resume, _recorded())
        with (
            user_errors(resume, interrupted=f"interrupted; the run in {resume} is incomplete"),
            backend.open(threads) as be,
        ):
            result = runner.resume(
                resume, threads=threads, progress=show_progress(quiet, force_progress), backend=be
            )
        if not quiet:
            click.echo(runner.summary(result))
        return

    check_panel_seats(click.get_current_context(), panel)
    if panel and out is not None and not isinstance(out, Path):
        raise CliError(f"--panel writes only to a local --out folder, not {out}", EXIT_USAGE)
    if panel:
        with user_errors():
            extras = _run_extras(change, card_files, until_ci)
        _run_panel(
            panel,
            dict(
                games=games, mix=mix, seed=seed, first=first, variants=variants, decks=decks,
                rules=rules_file, duplicate=duplicate, gods=gods,
            ),
            out,
            dict(
                threads=threads, chunk_size=chunk_size, force=force,
                progress=show_progress(quiet, force_progress),
                **extras,
            ),
            backend,
            quiet,
        )  # fmt: skip
        return
    with user_errors():
        spec = game_spec(
            games, mix, seed, p0, p1, first, variants,
            decks=decks, rules=rules_file, duplicate=duplicate, gods=gods,
        )  # fmt: skip
        # Chosen here rather than inside run() so messages can name it.
        out = out if out is not None else runner.default_out_dir(spec)
    with (
        user_errors(out, interrupted=f"interrupted; the run in {out} is marked incomplete"),
        backend.open(threads) as be,
    ):
        result = runner.run(
            spec,
            out,
            threads=threads,
            chunk_size=chunk_size,
            force=force,
            progress=show_progress(quiet, force_progress),
            backend=be,
            **_run_extras(change, card_files, until_ci),
        )
    if not quiet:
        click.echo(runner.summary(result, exclude_capped=exclude_capped))


def _recorded() -> dict[str, Any]:
    """Where a run's manifest records each option ``run --resume`` may repeat."""
    from sim.run.jobs import Recorded, at  # deferred: loads pyarrow

    spec_games = at("spec.games").read
    return {
        **spec_recorded(),
        # --until-ci cuts spec.games to the games played; the ceiling is games_requested
        "games": Recorded(lambda m: m.get("games_requested", spec_games(m))),
        "decks": at("spec.decks"),
        "duplicate": at("spec.duplicate"),
        **{name: at(name) for name in ("chunk_size", "until_ci")},
        **changes_recorded("card_changes"),
    }


def _run_extras(
    change: tuple[str, ...], card_files: tuple[str, ...], until_ci: float | None
) -> dict[str, Any]:
    """The keyword arguments of runner.run that `run` passes only when given."""
    from sim.data.changes import Changes  # deferred: loads pyarrow

    extras: dict[str, Any] = {}
    changes = Changes.parse(change, card_files)
    if changes:
        extras["changes"] = changes
    if until_ci is not None:
        extras["until_ci"] = until_ci
    return extras


def _run_panel(
    panel: tuple[str, ...],
    games: dict[str, Any],
    out: Path | None,
    run_args: dict[str, Any],
    backend: BackendArgs,
    quiet: bool,
) -> None:
    """Play the same games once per bot in self-play, on ``backend``, then print the panel
    table and verdict.

    Every bot's spec is checked before anything is played, so a typo in the last
    bot does not leave the first bots' runs behind looking like a finished panel; and
    every bot's games are timed, each bot's at its own speed, so a slow later bot is
    refused before the first plays.
    """
    from sim.analysis import panel as P  # deferred: loads pandas
    from sim.run import io, runner  # deferred: loads pyarrow
    from sim.run.session import resolve_threads  # deferred: loads numba
    from strategies.registry import resolve  # deferred: loads numba

    with user_errors():
        for bot in panel:
            resolve(bot)
        specs = {bot: game_spec(p0=bot, p1=bot, **games) for bot in panel}
        base = out if out is not None else runner.default_out_dir(specs[panel[0]])
        dirs = P.panel_dir_names(panel)
        ours = {*dirs.values(), P.PANEL_TABLE}
        io.check_output_dir(base, run_args["force"], ours=lambda e: e.name in ours, what="panel")
    results = {}
    with user_errors(), backend.open(run_args["threads"]) as be:
        # Each bot's run alone would only time itself as it starts, after the bots before
        # it have played; timed here together, each run then plays the engine timed.
        each = runner.games_to_play(games["games"], run_args.get("until_ci"))
        engines = runner.timed_engines(
            specs, each, resolve_threads(run_args["threads"] if be is None else None),
            what=f"{len(panel)} bots x {each:,} games ({each * len(panel):,})",
            progress=run_args["progress"], changes=run_args.get("changes"),
            workers=runner.backend_workers(be),
        )  # fmt: skip
        for bot, spec in specs.items():
            sub = base / dirs[bot]
            with user_errors(
                sub, interrupted=f"interrupted; the run in {sub} is marked incomplete"
            ):
                results[bot] = runner.run(
                    spec, sub, engine=engines.pop(bot, None), backend=be, **run_args
                )
    table = P.first_player_panel(P.counts_from_results(results))
    with user_errors(base), io.atomic_path(base / P.PANEL_TABLE) as tmp:
        table.to_csv(tmp, index=False)
    if quiet:
        return
    first = specs[panel[0]]
    click.echo(
        f"panel of {len(panel)} bots, each in self-play: {first.games:,} games of {first.mix}, "
        f"{first.variant_label}, first: {first.first}, seed {first.seed}"
    )
    click.echo(P.format_first_player_panel(table))
    click.echo(f"data: {base}/<bot>/ (one run per bot), table: {base / P.PANEL_TABLE}")
