"""``omensim mixes``: play a list of mixes and rank them by first-player edge and seat balance."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import click

from sim.cli.errors import EXIT_USAGE, CliError, user_errors
from sim.cli.options import (
    check_resume_options,
    force_option,
    games_option,
    out_option,
    resume_option,
    seed_option,
    typed,
)


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
    "deal seed; the subsets' seeds are in the table. Refused when no MIX is partial.",
)
@click.option(
    "--subsets",
    type=click.IntRange(min=2),
    default=8,
    show_default=True,
    help="Card subsets a partial mix is averaged over (at most --games; each costs a "
    "set-up whatever --games is, timed before any is played: refused if they would take "
    "longer than a run may, or when no MIX is partial). A SET:N that keeps all of its "
    "set's units has no subsets to draw and is refused.",
)
@click.option("--bot", default="greedy", show_default=True, help="The bot in both seats.")
@out_option(
    "Also keep the ranking in this folder: OUT/mixes.csv, with the plan, a log of every "
    "subset played and their checksums (absent or empty unless --force)."
)
@force_option("mixes ranking")
@resume_option(
    "DIR",
    "Finish the interrupted ranking written to DIR (by --out): its logged subsets are read "
    "back, the rest played, with the plan DIR records.",
)
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
    resume: Path | None,
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
      omensim mixes aegean dunes+aegean dunes+aegean:10 --subsets 16 --out results/mixes
      omensim mixes --resume results/mixes
    """
    from sim.analysis.mixes import (  # deferred: loads pandas
        check_subsets,
        default_mixes,
        format_mixes,
        rank_mixes,
        resume_mixes,
    )
    from sim.data.spec import RunSpec  # deferred: loads the data layer
    from sim.run import progress as P  # deferred: loads the run layer
    from sim.run.engine import Engine  # deferred: loads the batch kernel
    from sim.run.runner import timed_engines  # deferred: loads numba
    from sim.run.session import resolve_threads  # deferred: loads numba
    from strategies.registry import resolve  # deferred: loads numba

    def each(mix: str) -> None:
        if not quiet:
            click.echo(f"playing {mix}...", err=True)

    if resume is not None:
        if out is not None:
            raise CliError("--resume DIR names the ranking's folder; drop --out", EXIT_USAGE)
        if mix_list:
            raise CliError("--resume DIR plays the mixes it recorded; drop MIX", EXIT_USAGE)
        check_resume_options(resume, _recorded())
        with user_errors(resume):
            table = resume_mixes(resume, each)
    else:
        mixes = list(mix_list) or default_mixes()
        interrupted = None if out is None else f"interrupted; resume: omensim mixes --resume {out}"
        with user_errors(out, interrupted=interrupted):
            resolve(bot)
            from sim.data.cards import load_pool  # deferred: loads pyarrow

            named: dict[str, str] = {}
            for mix in mixes:  # every mix is checked before any is played
                load_pool(mix, seed)
                key = mix.strip().lower()
                if key in named:
                    raise CliError(
                        f"mix {mix!r} is named twice (also as {named[key]!r}); name each mix once",
                        EXIT_USAGE,
                    )
                named[key] = mix
                check_subsets(mix)
            _check_subset_options(mixes)
            # every mix's games, each at its own mix's speed (a mix with more steps plays
            # slower): refused up front if too many (and every subset's set-up, in rank_mixes)
            specs = {
                mix: RunSpec(games=games, mix=mix.partition(":")[0], seed=seed, p0=bot, p1=bot)
                for mix in mixes
            }
            timed = timed_engines(
                specs, games, resolve_threads(None),
                what=f"{len(mixes)} mixes x {games:,} games ({games * len(mixes):,})",
                fix="play fewer games", progress=not quiet,
            )  # fmt: skip
            if not timed:  # too few games to time: a cold cache compiles here all the same
                with P.kernel_ready(not quiet):  # its estimate shown
                    Engine(dataclasses.replace(specs[mixes[0]], games=2)).warmup()
            table = rank_mixes(
                mixes, games, seed, bot, subsets, subset_seed, each, out=out, force=force
            )
    if quiet:
        return
    p = table.attrs["plan"]  # what was played (a resumed ranking's plan, not these options)
    mixes, games, seed, subset_seed, subsets, bot = (
        p["mixes"], p["games"], p["seed"], p["subset_seed"], p["subsets"], p["bot"]
    )  # fmt: skip
    click.echo(
        f"{len(mixes)} mixes, {bot} in both seats, {games:,} games each, deal seed {seed}, "
        f"subset seed {subset_seed} ({subsets} subsets per partial mix)"
    )
    click.echo(format_mixes(table))


def _check_subset_options(mixes: list[str]) -> None:
    """Refuse ``--subsets`` or ``--subset-seed`` typed for mixes none of which is partial:
    only a ``SET:N`` draws card subsets, so either would be ignored."""
    from sim.analysis.mixes import is_partial  # deferred: loads pandas

    given = typed(click.get_current_context(), "subsets", "subset_seed")
    if given and not any(is_partial(m) for m in mixes):
        option = "--" + given[0].replace("_", "-")
        raise CliError(
            f"{option} is for the card subsets of a partial mix (SET:N, e.g. dunes+aegean:10) "
            f"and none of the mixes given is one; drop {option}",
            EXIT_USAGE,
        )


def _recorded() -> dict[str, Any]:
    """Where a ranking's plan records each option ``mixes --resume`` may repeat."""
    from sim.run.jobs import at  # deferred: loads pyarrow

    return {name: at(name) for name in ("games", "seed", "subset_seed", "subsets", "bot")}
