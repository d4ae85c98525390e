"""``omensim cards``: print the compiled card table of a mix."""

from __future__ import annotations

from typing import Any

import click

from sim.cli.errors import EXIT_ERROR, EXIT_USAGE, CliError
from sim.cli.options import mix_option, seed_option, typed
from sim.data.spec import SpecError, check_seed

# Columns `omensim cards` shows, in order; any others the compiler adds follow them.
_CARD_COLUMNS = [
    "kind",
    "name",
    "set",
    "type",
    "devotion",
    "cost",
    "offering",
    "strength",
    "copies",
    "keywords",
    "text",
    "source",
]


def _card_table_text(frame: Any) -> str:
    """The whole frame as text: every row and column, nothing truncated, words left-aligned."""
    import pandas as pd

    formatters = {}
    for col in frame.columns:
        if not pd.api.types.is_numeric_dtype(frame[col]):
            # pandas right-aligns strings, which makes names and ability text hard to scan.
            width = max(len(str(col)), int(frame[col].astype(str).str.len().max() or 0))
            formatters[col] = lambda v, w=width: f"{v!s:<{w}}"
    with pd.option_context(
        "display.max_rows", None,
        "display.max_columns", None,
        "display.width", None,
        "display.max_colwidth", None,
    ):  # fmt: skip
        text = frame.to_string(index=False, formatters=formatters, justify="left")
    return "\n".join(line.rstrip() for line in text.splitlines())


@click.command("cards", short_help="Print the compiled card table of a mix.")
@mix_option(
    "Card sets joined by '+'; SET:N adds N random unit cards of that set, e.g. 'dunes+aegean:10'."
)
@seed_option(
    "Run seed: a limited set (SET:N) draws its cards with it, as the run would (refused for "
    "a mix without one)."
)
@click.option(
    "--learning",
    is_flag=True,
    help="Only the learning-game units (as --variant learning would use).",
)
@click.option(
    "--readings",
    is_flag=True,
    help="Instead of the cards, list every open reading of the rulebooks: its lines, which "
    "one the mix plays (default, or the other one a switch sets), the other reading and the "
    "--rules switch that plays it.",
)
def cards_cmd(mix: str, seed: int, learning: bool, readings: bool) -> None:
    """Print the compiled card table of a mix: every card the simulator will play with.

    One row per unit: its kind id (the number used in the played_p0/played_p1
    columns of run output), name, set, type, cost, offering, strength, copies,
    keywords, ability text and where its values come from ("rulebook" or
    "reconstructed"; edit configs/sets/*.toml to change them). The mix's reward
    tiles and structures follow.

    \b
    Example:
      omensim cards --mix dunes+aegean
      omensim cards --mix dunes+aegean:10 --seed 3   # the 10 Aegean cards seed 3 uses
      omensim cards --mix dunes --readings            # the readings the mix plays
    """
    from sim.data.cards import CardDataError, load_pool, parse_mix  # deferred: loads pyarrow

    seed_typed = bool(typed(click.get_current_context(), "seed"))
    try:
        check_seed("--seed", seed)  # as a run checks it: the cards shown are a run's
        if seed_typed and all(p.limit is None for p in parse_mix(mix)):
            raise SpecError(
                f"--seed draws the cards of a SET:N part of the mix (e.g. dunes+aegean:10); "
                f"--mix {mix!r} has none, so every seed lists the same cards: drop --seed"
            )
        pool = load_pool(mix, seed=seed, learning=learning)
        if learning and not any(u["learning"] for u in pool.units):
            raise SpecError(
                f"--learning keeps the learning-game units (reign); --mix {mix!r} has none"
            )
        units = pool.frame()
        rewards = pool.rewards_frame()
        structures = pool.structures_frame()
    except SpecError as exc:
        raise CliError(str(exc), EXIT_USAGE) from None
    except CardDataError as exc:
        raise CliError(str(exc), EXIT_ERROR) from None
    except OSError as exc:
        raise CliError(f"cannot read card data: {exc}", EXIT_ERROR) from None

    if readings:
        from sim.data.interpretations import readings_text  # deferred: only this listing

        click.echo(readings_text(pool.rules))
        return
    columns = [c for c in _CARD_COLUMNS if c in units.columns]
    columns += [c for c in units.columns if c not in columns]
    click.echo(_card_table_text(units[columns]))
    footer = [_count_label(units, "unit", "cards")]
    if rewards is not None and len(rewards):
        click.echo("\nReward tiles:")
        click.echo(_card_table_text(rewards))
        footer.append(_count_label(rewards, "reward tile kind", "tiles"))
    if len(structures):
        click.echo("\nStructures:")
        click.echo(_card_table_text(structures))
        footer.append(f"{len(structures)} structures")
    click.echo(f"\n{mix}: " + ", ".join(footer))


def _count_label(frame: Any, what: str, physical: str) -> str:
    """E.g. "22 units (30 cards)": kinds listed, and physical copies when known."""
    label = f"{len(frame)} {what}{'s' if len(frame) != 1 else ''}"
    if "copies" in frame.columns:
        label += f" ({int(frame['copies'].sum())} {physical})"
    return label
