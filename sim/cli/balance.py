"""``omensim balance``: the value of a card field or a rule that brings a rate to a target."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from sim.cli.errors import EXIT_USAGE, CliError, user_errors
from sim.cli.options import (
    GameCount,
    change_options,
    changes_recorded,
    check_resume_options,
    chunk_size_option,
    first_option,
    force_option,
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
    split_variants,
    threads_option,
    typed,
    variant_option,
)
from sim.data.changes import FIELDS, MAX_VALUES
from sim.data.spec import RunSpec

_BOT = "the balance default bot (sim.analysis.balance.DEFAULT_BOT)"


def _default_bot() -> str:
    from sim.analysis.balance import DEFAULT_BOT  # deferred: loads numba

    return DEFAULT_BOT


def _number_option(flag: str, kind: Any, default: Any, help: str, **more: Any) -> Any:
    """A numeric option of the race or the set search, its default shown unless None
    (``more``: e.g. the ``callback`` that turns points or percent into a rate)."""
    return click.option(flag, type=kind, default=default, show_default=True, help=help, **more)


def _rate(ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    """A rate given in percent (``50``) or as a fraction (``0.5``) -> a fraction."""
    if value is None:
        return None
    rate = value / 100 if value > 1 else value
    if not 0 < rate < 1:
        raise click.BadParameter(f"must be a rate between 0 and 100%, got {value:g}", ctx, param)
    return rate


def _points(ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    """Points (``0.25``) -> a fraction (``0.0025``)."""
    if value is None:
        return None
    if not 0 < value < 50:
        raise click.BadParameter(f"must be between 0 and 50 points, got {value:g}", ctx, param)
    return value / 100


@click.command("balance", short_help="Find the value that brings a card or rule to a target.")
@mix_option("Card sets, joined by '+', e.g. 'aegean' or 'dunes+aegean'.")
@seed_option("Seed of the race's games (every candidate plays the same games).")
@click.option("--p0", default=_default_bot, show_default=_BOT, help=seat_help(0))
@click.option("--p1", default=_default_bot, show_default=_BOT, help=seat_help(1))
@first_option()
@variant_option("Rule variant(s) every candidate plays with.")
@rules_option("House-rules file every candidate plays with (a --rule candidate's value wins).")
@change_options
@click.option("--card", default=None, metavar="NAME|KIND", help="The card to balance.")
@click.option(
    "--field",
    "fields",
    multiple=True,
    metavar="FIELD",
    help="The card's field to search: cost, offering, strength or copies. Repeat for "
    "several: with --card every combination of their values is a candidate; with --set "
    "each edit moves one of them (default: cost).",
)
@click.option(
    "--rule",
    "rules",
    multiple=True,
    metavar="NAME",
    help="A numeric rule parameter to search instead of a card (e.g. start_coins, "
    "tiles_per_city); the rate is the first player's share of decisive games. Repeatable.",
)
@click.option(
    "--variant-choice",
    default=None,
    metavar="NAME",
    help="Search a variant off and on (e.g. emissary); the rate is the first player's "
    "share of decisive games.",
)
@click.option(
    "--values",
    "values",
    multiple=True,
    metavar="V[,V]|LO-HI",
    help="Values to try, one --values per --field or --rule in the same order (e.g. "
    f"'1-6' or '2,3,5'; at most {MAX_VALUES:,}, the most a rule or card field takes). "
    "Default: the shipped value +/- --span, inside the schema's bounds.",
)
@_number_option(
    "--span",
    click.IntRange(min=1),
    None,
    "Without --values: try the shipped value +/- SPAN (default 4; 2 with --set). Not with "
    "--variant-choice, nor with a --values for every --field or --rule (nothing left to span).",
)
@_number_option(
    "--target",
    float,
    None,
    "The rate wanted, in percent or as a fraction (default 50). Not with --set, whose "
    "bounds are --threshold and --first-bound.",
    callback=_rate,
)
@_number_option(
    "--tolerance",
    float,
    0.25,
    "Points (of a percentage) within the target that count as reaching it.",
    callback=_points,
)
@_number_option(
    "--precision",
    float,
    None,
    "Points: the 95% half-width the chosen value's rate is settled to (default: "
    "--tolerance). Not with --set.",
    callback=_points,
)
@_number_option(
    "--pilot", GameCount(), 4_000, "Games of the first look; each further look doubles them."
)
@_number_option(
    "--max-games", GameCount(), 400_000, "Most games one candidate plays (the last look)."
)
@_number_option(
    "--alpha",
    float,
    0.05,
    "Chance, over the whole race, of dropping the best candidate (from 1e-9 up to 0.5). "
    "Not with --set.",
)
@click.option(
    "--set",
    "whole_set",
    is_flag=True,
    help="Balance the whole mix: fix the worst card with one edit (race each --field "
    "moved alone, default cost), re-measure, repeat; print edits made vs the worst "
    "remaining deviation, each step verified on a new seed (paired with the step before).",
)
@_number_option(
    "--threshold",
    float,
    2.0,
    "With --set: points from 50% every card's holders' rate must come within.",
    callback=_points,
)
@_number_option(
    "--first-bound",
    float,
    2.0,
    "With --set: points from 50% the first player's decisive share must come within.",
    callback=_points,
)
@_number_option("--max-edits", click.IntRange(min=1), 3, "With --set: most edits to propose.")
@_number_option(
    "--measure-games",
    GameCount(),
    20_000,
    "With --set: games of each whole-set measurement (and of each verification).",
)
@panel_option(
    "Re-check the chosen value under each of these bots (comma-separated, each in "
    "self-play on a new seed, --panel-games games each) and say whether it holds under all; "
    "with --set, the proposed edits together against the cards they started from."
)
@_number_option(
    "--panel-games", GameCount(), 20_000, "Games of each --panel re-check (only with --panel)."
)
@out_option(
    "Write the race (plan, every candidate's paired rows, decisions, candidates.csv, "
    "balance.json) to OUT as it plays; resumable with --resume."
)
@force_option("balance run")
@resume_option(
    "DIR",
    "Finish the interrupted race written to DIR (by --out): reuse its rows, play the rest. "
    "Refused if the code or cards changed since.",
)
@threads_option()
@chunk_size_option("Games per kernel call. Results do not depend on it.")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing but errors.")
@progress_option
def balance_cmd(**kw: Any) -> None:
    """Search a card field's (or a rule's) legal values for the one closest to a target.

    A card (--card, --field) is measured by its holders' win rate (every
    (game, seat) that held it, the share that won outright), target 50%. A rule
    (--rule) or a variant (--variant-choice) is measured by the first
    player's share of decisive games, target 50%. Every candidate value plays
    the same games (common random numbers), the shipped value among them, and
    they race: rounds of doubling game counts from --pilot; at each look a
    candidate shown farther from the target than another (paired test,
    Holm's correction at alpha/looks) is dropped, so clear losers cost few
    games, and one shown at most --precision closer than the leader rests (it
    plays no more while that candidate leads); the leader then plays on until
    its 95% interval is +/- --precision.
    Prints every candidate's rate with its interval and fate, the chosen value
    (or that none reaches the target within --tolerance, and the closest), and
    the games spent.

    \b
    Example:
      omensim balance --mix aegean --card "Ker of the Spoils" --field cost --out results/balance
      omensim balance --mix aegean --rule start_coins --values 2-6
      omensim balance --mix dunes+aegean --variant-choice emissary --panel greedy,economic
      omensim balance --mix aegean --set --max-edits 3 --out results/balance-set
      omensim balance --mix aegean --set --field cost --field strength --panel greedy,economic
      omensim balance --resume results/balance
    """
    from sim.analysis import balance as B  # deferred: loads numba
    from sim.analysis import balance_checks as C  # deferred: loads numba
    from sim.analysis import balance_question as Q  # deferred: loads numba

    progress = show_progress(kw["quiet"], kw["force_progress"])
    quiet = kw["quiet"]
    out, resume = kw["out"], kw["resume"]
    if resume is not None:
        if out is not None:
            raise CliError("--resume DIR names the balance folder; drop --out", EXIT_USAGE)
        check_resume_options(resume, _recorded())
        with user_errors(resume, interrupted=f"interrupted; the race in {resume} is incomplete"):
            result = B.resume_balance(resume, threads=kw["threads"], progress=progress)
        if not quiet:
            click.echo(B.format_result(result))
        return
    asked = [bool(kw["card"]), bool(kw["rules"]), bool(kw["variant_choice"]), kw["whole_set"]]
    if sum(asked) != 1:
        raise CliError(
            "say what to balance: exactly one of --card (with --field), --rule, "
            "--variant-choice or --set",
            EXIT_USAGE,
        )
    if kw["fields"] and not (kw["card"] or kw["whole_set"]):
        raise CliError("--field goes with --card or --set", EXIT_USAGE)
    if kw["values"] and not (kw["card"] or kw["rules"]):
        raise CliError("--values goes with --card or --rule", EXIT_USAGE)
    _check_unused(kw)
    interrupted = (
        None if out is None else f"interrupted; resume with: omensim balance --resume {out}"
    )
    with user_errors(out, interrupted=interrupted):
        from sim.data.changes import Changes  # deferred: loads pyarrow

        base = Changes.parse(kw["change"], kw["card_files"])
        spec = RunSpec(
            games=1, mix=kw["mix"], seed=kw["seed"], p0=kw["p0"], p1=kw["p1"],
            first=kw["first"], variants=split_variants(kw["variants"]), rules=kw["rules_file"],
        )  # fmt: skip
        from strategies.registry import resolve  # deferred: loads numba

        for bot in (spec.p0, spec.p1, *(kw["panel"] or ())):
            resolve(bot)
        common = dict(
            tolerance=kw["tolerance"], pilot=kw["pilot"], ceiling=kw["max_games"],
            threads=kw["threads"], chunk_size=kw["chunk_size"], progress=progress,
        )  # fmt: skip
        # --panel plays its games after the race or the set: they count in its projected
        # time, each bot's at its own speed
        after = {bot: 2 * kw["panel_games"] for bot in kw["panel"] or ()}
        if kw["whole_set"]:
            _balance_set(kw, spec, base, common, quiet, after)
            return
        from sim.analysis.sweep import parse_numbers  # deferred: loads numba

        values = [parse_numbers(v, "--values") for v in kw["values"]]
        span = kw["span"] or Q.DEFAULT_SPAN
        if kw["card"]:
            q = Q.card_question(spec, kw["card"], kw["fields"], values, span, base)
        elif kw["rules"]:
            q = Q.rule_question(spec, kw["rules"], values, span)
        else:
            q = Q.variant_question(spec, kw["variant_choice"])
        target = kw["target"] if kw["target"] is not None else B.DEFAULT_TARGET

        def panel(result: B.BalanceResult) -> Any:
            return C.panel_check(
                result, kw["panel"], kw["panel_games"], threads=kw["threads"],
                chunk_size=kw["chunk_size"], progress=progress, base=base,
            )  # fmt: skip

        result = B.race(
            q, spec, base=base, target=target, precision=kw["precision"], alpha=kw["alpha"],
            out=out, force=kw["force"], panel=panel if kw["panel"] else None, after=after,
            **common,
        )  # fmt: skip
    if not quiet:
        click.echo(B.format_result(result))


_GOES_WITH = {
    **dict.fromkeys(("target", "precision", "alpha"), "--card, --rule or --variant-choice"),
    **dict.fromkeys(("threshold", "first_bound", "max_edits", "measure_games"), "--set"),
    "span": "--card, --rule or --set",
    "panel_games": "--panel",
}
"""The options only some questions read, and those questions: typed for another, they
would be ignored."""


def _check_unused(kw: dict[str, Any]) -> None:
    """Refuse an option typed for a question that does not read it (:data:`_GOES_WITH`),
    and ``--span`` beside a ``--values`` for every ``--field`` or ``--rule``, which leaves
    no value for it to range over."""
    ctx = click.get_current_context()
    reads = {
        "--card, --rule or --variant-choice": not kw["whole_set"],
        "--set": kw["whole_set"],
        "--card, --rule or --set": not kw["variant_choice"],
        "--panel": bool(kw["panel"]),
    }
    for name, goes_with in _GOES_WITH.items():
        if not typed(ctx, name):
            continue
        if not reads[goes_with]:
            raise CliError(f"--{name.replace('_', '-')} goes with {goes_with}", EXIT_USAGE)
    names = kw["fields"] if kw["card"] else kw["rules"]
    if kw["span"] is not None and names and len(kw["values"]) >= len(names):
        option = "--field" if kw["card"] else "--rule"
        raise CliError(
            f"--span ranges over the shipped value of a {option} without --values, and "
            f"--values gives every {option}'s values; drop --span",
            EXIT_USAGE,
        )


def _recorded() -> dict[str, Any]:
    """Where a race's plan records each option ``balance --resume`` may repeat (``--values``
    and ``--span`` only as the candidates they gave: taken when, together, they give the
    same candidates again)."""
    from sim.run.jobs import MISSING, Recorded, at  # deferred: loads pyarrow

    def question(kind: str, value: Callable[[dict[str, Any]], Any]) -> Callable[[Any], Any]:
        def read(plan: Any) -> Any:
            q = plan.get("question")
            return value(q) if isinstance(q, dict) and q.get("kind") == kind else MISSING

        return read

    def names(given: tuple[str, ...]) -> list[str]:
        return [n.strip().lower() for n in given]

    spec = spec_recorded()
    return {
        **{name: spec[name] for name in ("mix", "seed", "p0", "p1", "first", "variants")},
        "rules_file": spec["rules_file"],
        **changes_recorded("base"),
        "card": Recorded(question("card", lambda q: q.get("card"))),
        "fields": Recorded(question("card", lambda q: q.get("names")), names),
        "rules": Recorded(question("rule", lambda q: q.get("names")), names),
        "variant_choice": Recorded(
            question("variant", lambda q: (q.get("names") or [None])[0]),
            lambda name: name.strip().lower(),
        ),
        **{n: at(n) for n in ("target", "tolerance", "precision", "pilot", "alpha", "chunk_size")},
        "max_games": at("ceiling"),
        **dict.fromkeys(("values", "span"), Recorded(_candidates_shown, same=_same_candidates)),
    }


def _candidates_shown(plan: Any) -> Any:
    """The candidates a race's plan records, as a refusal shows them."""
    from sim.analysis.balance_question import Question  # deferred: loads numba
    from sim.run.jobs import MISSING  # deferred: loads pyarrow

    q = plan.get("question")
    if not isinstance(q, dict) or q.get("kind") not in ("card", "rule"):
        return MISSING  # a variant's race: no values to give
    return "; ".join(Question.from_dict(q).labels())


def _same_candidates(plan: Any, _value: Any) -> bool:
    """Whether the ``--values`` and ``--span`` typed with ``--resume`` (each at its default
    when not typed) give the candidates the plan records: they are read together, as the
    race read them."""
    from sim.analysis.balance_question import (  # deferred: loads numba
        DEFAULT_SPAN,
        Question,
        candidates_of,
    )
    from sim.analysis.sweep import parse_numbers  # deferred: loads numba

    params = click.get_current_context().params
    q = Question.from_dict(plan["question"])
    values = [parse_numbers(v, "--values") for v in params["values"]]
    return candidates_of(q, values, params["span"] or DEFAULT_SPAN) == q.candidates


def _balance_set(
    kw: dict[str, Any],
    spec: Any,
    base: Any,
    common: dict[str, Any],
    quiet: bool,
    after: dict[str, int],
) -> None:
    """``--set``: the greedy edits and their trade-off table."""
    from sim.analysis import balance_checks as C  # deferred: loads numba
    from sim.analysis import balance_question as Q  # deferred: loads numba
    from sim.run import io  # deferred: loads pyarrow

    out = kw["out"]
    if out is not None:
        io.check_output_dir(
            out, kw["force"], ours=lambda e: e.name in C.SET_FILES, what="balance set"
        )

    fields = Q.checked_names(kw["fields"], FIELDS, "--field", "valid fields") or ("cost",)
    # The heading waits for the set's first line: a set refused before it plays (its
    # projected time) prints its one error line and nothing else.
    heading = [
        f"balance --set on {spec.mix}: every card's holders' rate within "
        f"{kw['threshold'] * 100:.2f} points of 50%, the first player's within "
        f"{kw['first_bound'] * 100:.2f}; edits made vs the worst remaining deviation:"
    ]

    def echo_lines(line: str) -> None:
        while heading:
            click.echo(heading.pop())
        click.echo(line)

    echo = None if quiet else echo_lines
    result = C.balance_set(
        spec,
        threshold=kw["threshold"],
        first_bound=kw["first_bound"],
        fields=fields,
        max_edits=kw["max_edits"],
        measure_games=kw["measure_games"],
        span=kw["span"] or 2,
        echo=echo,
        base=base,
        after=after,
        **common,
    )
    if kw["panel"] and len(result.changes.edits) == len(result.base.edits):
        if echo is not None:
            echo("Panel: no edit was proposed; nothing to re-check.")
    elif kw["panel"]:
        result.panel = C.set_panel(
            result, kw["panel"], kw["panel_games"], threads=kw["threads"],
            chunk_size=kw["chunk_size"], progress=common["progress"],
        )  # fmt: skip
        if echo is not None:
            for line in C.format_set_panel(result.panel):
                echo(line)
    if out is not None:
        C.write_set(result, out)
    if echo is not None:
        more = (
            ""
            if result.panel is None
            else f", and {2 * kw['panel_games'] * len(kw['panel']):,} in the panel"
        )
        echo(f"Games: {result.games:,} in the races, measurements and verifications{more}.")
