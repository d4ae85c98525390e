"""``omensim compare``: the same games under two specs (A and B), paired."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import click

from sim.cli.errors import user_errors
from sim.cli.options import (
    PANEL_HELP,
    BackendArgs,
    GameArgs,
    InputPath,
    backend_options,
    change_options,
    changes_recorded,
    check_panel_seats,
    check_resume_options,
    check_until_ci_steps,
    check_variant_names,
    exclude_capped_option,
    force_option,
    game_options,
    out_option,
    panel_option,
    resume_option,
    rules_option,
    sizing_options,
    spec_recorded,
    split_variants,
)
from sim.data.spec import RunSpec, SpecError


@click.command("compare", short_help="Play the same games under two specs (A, B), paired.")
@game_options(default_games=100_000)
@rules_option(
    "House-rules file (as for `omensim run --rules`) for run A, and for B unless "
    "--b-rules is given.",
    metavar="FILE",
)
@change_options
@click.option(
    "--b-variant",
    "b_variants",
    multiple=True,
    metavar="NAME[,NAME]",
    callback=check_variant_names,
    help="Run B's variant(s), replacing A's (--variant); 'standard' for none. "
    "E.g. --b-variant emissary.",
)
@click.option(
    "--b-rules",
    type=InputPath(),
    default=None,
    metavar="FILE",
    help="Run B's house-rules file (replaces --rules for B).",
)
@click.option("--b-p0", default=None, help="Run B's strategy of seat 0 (default: --p0).")
@click.option("--b-p1", default=None, help="Run B's strategy of seat 1 (default: --p1).")
@click.option(
    "--b-first",
    type=click.Choice(["p0", "p1", "alternate", "random"]),
    default=None,
    help="Run B's first-player rule (default: --first).",
)
@exclude_capped_option(
    "Leave out of every figure the games either run ended at the turn cap (the runs "
    "written to --out keep them); the output says how many.",
)
@out_option(
    "Also write both runs (OUT/A and OUT/B) as run directories, and OUT/compare.json "
    "(with each arm's full spec) and OUT/compare.parquet."
)
@force_option("comparison")
@panel_option(
    PANEL_HELP.replace("Not with --p0/--p1.", "")
    + "Prints each bot's paired shifts and, per measure, under how many bots the change "
    "moves it each way (OUT/<bot>/A, OUT/<bot>/B, OUT/panel.csv). Not with --p0/--p1/--b-p0/--b-p1."
)
@resume_option(
    "OUT",
    "Finish the interrupted comparison written to OUT (its runs A and B play only "
    "their missing chunks).",
)
@sizing_options("the headline shifts (first player, each changed card's holders)")
@backend_options
def compare_cmd(
    game: GameArgs,
    rules_file: str | None,
    change: tuple[str, ...],
    card_files: tuple[str, ...],
    b_variants: tuple[str, ...],
    b_rules: str | None,
    b_p0: str | None,
    b_p1: str | None,
    b_first: str | None,
    exclude_capped: bool,
    out: Path | None,
    force: bool,
    panel: tuple[str, ...] | None,
    resume: Path | None,
    backend: BackendArgs,
    until_ci: float | None,
    plan: float | None,
) -> None:
    """Play the same games as run A and as run B, and compare them paired by game.

    B is A with whatever you change: cards (--change, --cards), variants
    (--b-variant), house rules (--b-rules), bots (--b-p0, --b-p1) or the
    first-player rule (--b-first). Both play game indices 0..games-1 with the
    same seed, so they deal the same games (common random numbers) and the
    difference is the change, not luck. Prints each run's first- and
    second-player win rates, shared victories, turn-capped games and the first
    player's rate among decisive games; the paired shift of the first-player
    win rate; for each changed card the shift of its holders' win rate (and
    the played-only rate, as conditional); and how many games per run an
    unpaired comparison would need for the same interval width.

    \b
    Example:
      omensim compare --mix dunes+aegean --games 2e5 --change "Moonlight Channeler.cost=3"
      omensim compare --mix dunes+aegean --games 1e5 --b-variant emissary
      omensim compare --mix aegean --cards my-aegean.toml --out results/my-aegean
      omensim compare --games 2e4 --change "Moonlight Channeler.cost=3" --panel greedy,economic
      omensim compare --games 1e6 --until-ci 0.005 --b-variant emissary
      omensim compare --plan 0.0025 --change "Ker of the Battlefield.cost=4"
    """
    from sim.analysis.compare import (  # deferred: loads numba
        check_difference,
        compare,
        format_result,
        resume_compare,
    )
    from sim.data.changes import Changes  # deferred: loads pyarrow

    check_panel_seats(click.get_current_context(), panel, ("p0", "p1", "b_p0", "b_p1"))
    check_until_ci_steps(click.get_current_context(), until_ci)

    if resume is not None:
        check_resume_options(resume, _recorded())
        with user_errors(resume), backend.open(game.threads) as be:
            result = resume_compare(
                resume, threads=game.threads, progress=game.progress, backend=be
            )
        if not game.quiet:
            click.echo(format_result(result))
        return

    with user_errors(out), backend.open(game.threads) as be:
        changes = Changes.parse(change, card_files)
        spec = game.spec(rules=rules_file)
        spec_b = dataclasses.replace(
            spec,
            variants=_b_variants(b_variants) if b_variants else spec.variants,
            rules=b_rules if b_rules is not None else spec.rules,
            p0=spec.p0 if b_p0 is None else b_p0,
            p1=spec.p1 if b_p1 is None else b_p1,
            first=b_first or spec.first,
        )
        check_difference(spec, spec_b, Changes(), changes)
        if plan is not None and out is not None and until_ci is None:
            raise SpecError("--plan prints how many games are needed and plays nothing: drop --out")
        if panel and (until_ci is not None or plan is not None):
            raise SpecError("--until-ci and --plan size one comparison: not with --panel")
        if plan is not None:
            from sim.analysis.compare import plan_compare  # deferred: loads numba

            sized = plan_compare(
                spec, spec_b, Changes(), changes, plan, game.threads, game.progress
            )
            click.echo("\n".join(sized.lines()))
            if until_ci is None:
                return  # a plan alone plays nothing more; with --until-ci the run follows
        if panel:
            _compare_panel(
                panel, spec, spec_b, changes, out, game.quiet,
                dict(
                    threads=game.threads, chunk_size=game.chunk_size, force=force,
                    progress=game.progress, exclude_capped=exclude_capped, backend=be,
                ),
            )  # fmt: skip
            return
        result = compare(
            spec,
            changes,
            out=out,
            threads=game.threads,
            backend=be,
            chunk_size=game.chunk_size,
            force=force,
            progress=game.progress,
            spec_b=spec_b,
            exclude_capped=exclude_capped,
            until_ci=until_ci,
        )
    if not game.quiet:
        click.echo(format_result(result))


def _b_variants(values: tuple[str, ...]) -> tuple[str, ...]:
    """``--b-variant`` as run B's variants (``standard``: none)."""
    return tuple(v for v in split_variants(values) if v != "standard")


def _recorded() -> dict[str, Any]:
    """Where a comparison's plan records each option ``compare --resume`` may repeat."""
    from sim.run.jobs import at  # deferred: loads pyarrow

    return {
        **spec_recorded("spec"),
        **changes_recorded("changes"),
        "b_variants": at("spec_b.variants", _b_variants),
        **{f"b_{name}": at(f"spec_b.{name}") for name in ("rules", "p0", "p1", "first")},
        **{name: at(name) for name in ("chunk_size", "exclude_capped", "until_ci")},
    }


def _compare_panel(
    panel: tuple[str, ...],
    spec: RunSpec,
    spec_b: RunSpec,
    changes: Any,
    out: Path | None,
    quiet: bool,
    kwargs: dict[str, Any],
) -> None:
    """The comparison once per bot in self-play (both arms), then the per-measure verdicts.

    Runs inside the caller's ``user_errors``; every bot is resolved before any is played.
    """
    import pandas as pd

    from sim.analysis import panel as P  # deferred: loads pandas
    from sim.analysis.compare import compare, timed_arms  # deferred: loads numba
    from sim.data.changes import Changes  # deferred: loads pyarrow
    from sim.run import io  # deferred: loads pyarrow
    from strategies.registry import resolve  # deferred: loads numba

    for bot in panel:
        resolve(bot)
    dirs = P.panel_dir_names(panel)
    if out is not None:
        ours = {*dirs.values(), P.PANEL_TABLE}
        io.check_output_dir(
            out, kwargs["force"], ours=lambda e: e.name in ours, what="panel comparison"
        )
    pairs = {
        bot: (
            dataclasses.replace(spec, p0=bot, p1=bot),
            dataclasses.replace(spec_b, p0=bot, p1=bot),
        )
        for bot in panel
    }
    # Each bot's comparison alone would time only its own arms as it starts, after the
    # bots before it have played; timed here together, each then plays the engines timed.
    engines = timed_arms(
        pairs, (Changes(), changes), kwargs["threads"], kwargs["progress"], kwargs["backend"]
    )
    results = {}
    for bot, (a, b) in pairs.items():
        results[bot] = compare(
            a, changes, out=None if out is None else out / dirs[bot],
            spec_b=None if b == a else b, engines=engines.pop(bot), **kwargs,
        )  # fmt: skip
    effects = pd.concat(
        [r.table().assign(bot=bot) for bot, r in results.items()], ignore_index=True
    )
    if out is not None:
        with io.atomic_path(out / P.PANEL_TABLE) as tmp:
            effects.to_csv(tmp, index=False)
    if quiet:
        return
    what = next(iter(results.values())).differences()
    click.echo(
        f"panel of {len(panel)} bots, each in self-play in both runs: {spec.games:,} games of "
        f"{spec.mix} (seed {spec.seed}), B with: {'; '.join(what) or 'nothing different'}."
    )
    margins = [
        {"bot": bot, **r.comparison.margin.figures()}
        for bot, r in results.items()
        if r.comparison.margin is not None
    ]
    click.echo("\n".join(P.shift_lines(effects, pd.DataFrame(margins))))
    for bot, r in results.items():
        for line in r.flags(panel_hint="compare the bots' shifts above") + r.play_changes():
            click.echo(f"{bot}: {line}")
    if out is not None:
        click.echo(
            f"Runs in {out}/<bot>/A and {out}/<bot>/B; every shift in {out / P.PANEL_TABLE}."
        )
