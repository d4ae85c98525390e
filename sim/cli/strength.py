"""``omensim strength``: every card's holders' win rate, plays and rank, for each bot."""

from __future__ import annotations

from pathlib import Path

import click

from sim.cli.errors import user_errors
from sim.cli.options import (
    force_option,
    game_spec,
    games_option,
    mix_option,
    out_option,
    parse_panel_option,
    seed_option,
    show_progress,
    threads_option,
)

TOO_LONG = "play fewer games (--games) or measure with fewer bots"
"""What a refusal of a strength run too long to play advises."""


@click.command("strength", short_help="Each card's holders' win rate and rank, per bot.")
@mix_option("Card sets joined by '+', the first being the base, e.g. 'dunes+aegean'.")
@click.option(
    "--panel",
    default="greedy,economic",
    show_default=True,
    metavar="BOT[,BOT...]",
    callback=parse_panel_option,
    help="Bots to measure with, comma-separated: each plays itself on the same seed and "
    "games, one run directory per bot under --out.",
)
@click.option(
    "--tiers",
    default=None,
    metavar="BOT[,BOT...]",
    callback=parse_panel_option,
    help="Skill tiers, weakest first (e.g. greedy,value,search): played as --panel plays "
    "its bots (it replaces --panel), then each card's holders' effect per tier with 95% "
    "intervals, flagging a card whose effect changes sign between tiers (Holm); the table "
    "goes to tiers.csv under --out.",
)
@games_option(20_000, "Games each bot plays.")
@seed_option("Seed shared by every bot's run (the same deals for each).")
@out_option(
    "Folder for the bots' runs and the tables (absent or empty unless --force). "
    "Default: a new results/strength-<mix>-s<seed>-<date>-<time>."
)
@threads_option()
@force_option("strength measurement", "the bots' runs go to a new folder")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing but errors.")
def strength_cmd(
    mix: str,
    panel: tuple[str, ...],
    tiers: tuple[str, ...] | None,
    games: int,
    seed: int,
    out: Path | None,
    threads: int | None,
    force: bool,
    quiet: bool,
) -> None:
    """Measure every card of a mix under each bot of --panel.

    For each card: its holders' win rate (player-games in which that player held
    it at some point, 95% Wilson interval), the player-games per game in which it
    was played ("pl/g", 0 to 2) and its rank by holders' win rate (1 = highest),
    for each bot; then Spearman's rank correlation between the bots. The tables go
    to strength.csv and rank_correlation.csv under --out.

    With --tiers, the bots are skill tiers: for each card, its holders' win rate
    minus the other player-games' under each tier, with its interval, and a SIGN
    flag where the effect is significantly positive under one tier and negative
    under another (Holm over every card and tier): a card whose strength depends on
    the skill of the table.

    \b
    Example:
      omensim strength --mix aegean --panel greedy,economic,aggressive --games 2e4 --out results/s
      omensim strength --mix aegean --tiers greedy,value,vsearch --games 2e4
      python -c 'import pandas as pd; print(pd.read_csv("results/s/strength.csv").head())'
      python -c 'from sim import analysis as A; print(A.load("results/s/greedy").shape)'
    """
    from sim.analysis import panel as P  # deferred: loads pandas
    from sim.analysis.card_strength import (  # deferred: loads pandas
        CORRELATION_TABLE,
        STRENGTH_TABLE,
        TIERS_TABLE,
        bot_margins,
        format_correlation,
        format_margins,
        format_strength,
        format_tiers,
        rank_correlation,
        strength,
        tier_effects,
    )
    from sim.run import io, runner  # deferred: loads pyarrow
    from sim.run.session import resolve_threads  # deferred: loads numba
    from strategies.registry import resolve  # deferred: loads numba

    if tiers is not None:
        if click.get_current_context().get_parameter_source("panel").name != "DEFAULT":
            raise click.UsageError("give --tiers or --panel, not both: the tiers are the panel")
        panel = tiers
    with user_errors():
        for bot in panel:
            resolve(bot)
        specs = {bot: game_spec(games, mix, seed, bot, bot, "alternate", ()) for bot in panel}
        base = (
            out
            if out is not None
            else runner.fresh_dir(runner.RESULTS_ROOT, f"strength-{runner.mix_label(mix)}-s{seed}")
        )
        dirs = P.panel_dir_names(panel)
        ours = {*dirs.values(), STRENGTH_TABLE, CORRELATION_TABLE, TIERS_TABLE}
        io.check_output_dir(base, force, ours=lambda e: e.name in ours, what="strength")
        # Every bot's games, each bot's at its own speed: refused before any bot plays (a
        # slow later bot too), with what strength has to offer (it has no --until-ci). Each
        # bot's run then plays the engine built and timed here, without timing it again.
        total = games * len(panel)
        engines = runner.timed_engines(
            specs, games, resolve_threads(threads),
            what=f"{len(panel)} bots x {games:,} games ({total:,})", fix=TOO_LONG,
            progress=show_progress(quiet, False),
        )  # fmt: skip
    for bot, spec in specs.items():
        sub = base / dirs[bot]
        with user_errors(sub, interrupted=f"interrupted; the run in {sub} is marked incomplete"):
            runner.run(
                spec, sub, threads=threads, force=force, progress=show_progress(quiet, False),
                fix=TOO_LONG, engine=engines.pop(bot, None),
            )  # fmt: skip
    with user_errors(base):
        table = strength({bot: base / dirs[bot] for bot in panel})
        corr = rank_correlation(table)
        with io.atomic_path(base / STRENGTH_TABLE) as tmp:
            table.to_csv(tmp, index=False)
        with io.atomic_path(base / CORRELATION_TABLE) as tmp:
            corr.to_csv(tmp)
        if tiers is not None:
            effects = tier_effects({bot: base / dirs[bot] for bot in panel})
            with io.atomic_path(base / TIERS_TABLE) as tmp:
                effects.to_csv(tmp, index=False)
    if quiet:
        return
    click.echo(
        f"card strength on {mix}: {games:,} self-play games per bot, seed {seed}, "
        "seats alternating who goes first"
    )
    click.echo(format_strength(table))
    click.echo(format_margins(bot_margins({bot: base / dirs[bot] for bot in panel})))
    click.echo("\nrank correlation of holders' win rate between bots (Spearman):")
    click.echo(format_correlation(corr))
    if tiers is not None:
        click.echo("\nholders' effect per skill tier, weakest first:")
        click.echo(format_tiers(effects))
    click.echo(f"data: {base}/<bot>/ (one run per bot), tables: {base / STRENGTH_TABLE}")
    click.echo(f"report: omensim report {base} --out <dir> (the bots' runs side by side)")
