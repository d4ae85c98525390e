"""The ``omensim`` command line.

Every error a user can cause ends in exactly one line ``Error: ...`` on
stderr and a non-zero exit status, never a traceback:

* 2 for a bad command line or an impossible run description (unknown mix,
  variant or strategy, malformed ``--games``),
* 1 for everything else the user controls (bad card data, an output
  directory that exists or cannot be written),
* 130 when interrupted with Ctrl-C.

Heavy modules (numba, the engine) are imported inside the commands so that
``omensim --help`` answers at once.
"""

from __future__ import annotations

import contextlib
import re
import sys
from collections.abc import Iterator
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, NoReturn

import click

from sim import __version__
from sim.spec import FIRST_MODES, VARIANTS, RunSpec, SpecError

EXIT_USAGE = 2
EXIT_ERROR = 1
EXIT_INTERRUPTED = 130

# game_id is stored as int64; keep well clear of it.
MAX_GAMES = 2**62


class CliError(click.ClickException):
    """A user-caused failure with its own exit status; printed as one ``Error:`` line."""

    def __init__(self, message: str, exit_code: int = EXIT_ERROR) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def _one_line(message: str) -> str:
    # Our contract is one line on stderr; squash any stray newlines from library messages.
    return " ".join(message.split())


def _fail(message: str, exit_code: int) -> NoReturn:
    click.echo(f"Error: {_one_line(message)}", err=True)
    sys.exit(exit_code)


class _OneLineErrorsGroup(click.Group):
    """A click group that reports every ClickException as a single ``Error:`` line.

    Click's default prints the usage synopsis and a "Try --help" hint above the
    error; we keep to one line so scripts and people see the reason at once.
    """

    def main(  # type: ignore[override]
        self,
        args: Any = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.exceptions.NoArgsIsHelpError as exc:
            exc.show()  # bare `omensim`: the help text is the useful answer
            sys.exit(exc.exit_code)
        except click.ClickException as exc:
            _fail(exc.format_message(), exc.exit_code)
        except click.Abort:
            _fail("interrupted", EXIT_INTERRUPTED)
        # In non-standalone mode click returns the exit code of --help/--version as an int.
        sys.exit(rv if isinstance(rv, int) else 0)


class GameCount(click.ParamType):
    """A positive whole number of games, written as ``250000``, ``1_000`` or ``1e6``."""

    name = "N"
    _SCI = re.compile(r"^\+?(\d+(\.\d*)?|\.\d+)[eE][+-]?\d+$")

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int) and not isinstance(value, bool):
            n = value
        else:
            text = str(value).strip()
            try:
                n = int(text)  # also accepts underscores: 1_000
            except ValueError:
                n = self._from_scientific(text, param, ctx)
        if n < 1:
            self.fail(f"must be a positive whole number of games, got {value!r}", param, ctx)
        if n > MAX_GAMES:
            self.fail(f"must be at most 2**62, got {value!r}", param, ctx)
        return n

    def _from_scientific(
        self, text: str, param: click.Parameter | None, ctx: click.Context | None
    ) -> int:
        if self._SCI.match(text.replace("_", "")):
            try:
                d = Decimal(text.replace("_", ""))
            except InvalidOperation:
                d = None
            # Compare before converting: int(Decimal("1e999999999")) would never finish.
            if d is not None and d <= MAX_GAMES and d == d.to_integral_value():
                return int(d)
            if d is not None and d > MAX_GAMES:
                self.fail(f"must be at most 2**62, got {text!r}", param, ctx)
        self.fail(
            f"must be a whole number of games such as 250000, 1_000 or 1e6, got {text!r}",
            param,
            ctx,
        )


def _check_threads(ctx: click.Context, param: click.Parameter, value: int | None) -> int | None:
    """Reject more threads than numba may start (it would fail deep inside otherwise)."""
    if value is None:
        return None
    import numba  # only when --threads is given, so --help stays fast

    limit = int(numba.config.NUMBA_NUM_THREADS)
    if value > limit:
        raise click.BadParameter(
            f"at most {limit} on this machine (numba's NUMBA_NUM_THREADS), got {value}",
            ctx,
            param,
        )
    return value


def _split_variants(values: tuple[str, ...]) -> tuple[str, ...]:
    """``("emissary", "a,b")`` -> ``("emissary", "a", "b")``, without blanks or repeats."""
    seen: dict[str, None] = {}
    for value in values:
        for part in value.split(","):
            part = part.strip().lower()
            if part:
                seen[part] = None
    return tuple(seen)


def _check_until_ci(
    ctx: click.Context, param: click.Parameter, value: float | None
) -> float | None:
    if value is not None and not 0 < value < 0.5:
        raise click.BadParameter(
            f"must be a half-width between 0 and 0.5 (exclusive), e.g. 0.005; got {value:g}",
            ctx,
            param,
        )
    return value


def _change_options(f: Any) -> Any:
    """--change and --cards: designer edits to the cards (sim/changes.py)."""
    f = click.option(
        "--cards",
        "card_files",
        multiple=True,
        type=click.Path(dir_okay=False),
        metavar="FILE",
        help="A set file (schema of configs/sets/*.toml) that replaces the set of the mix "
        "with the same [set] name. Repeatable.",
    )(f)
    return click.option(
        "--change",
        multiple=True,
        metavar="'CARD.FIELD=N'",
        help="Edit one unit before compiling, e.g. 'Moonlight Channeler.cost=3'; a signed "
        "value is relative ('...cost=+1'). Fields: cost, offering, strength, copies. "
        "Repeatable.",
    )(f)


@contextlib.contextmanager
def _user_errors(out: Path | None = None) -> Iterator[None]:
    """Turn the errors a user can cause into one-line CliErrors with their exit codes."""
    from sim import runner
    from sim.cards import CardDataError

    try:
        yield
    except KeyboardInterrupt:
        where = f" in {out}" if out is not None else ""
        raise CliError(f"interrupted; output{where} is incomplete", EXIT_INTERRUPTED) from None
    except SpecError as exc:
        raise CliError(str(exc), EXIT_USAGE) from None
    except (CardDataError, runner.RunError) as exc:
        raise CliError(str(exc), EXIT_ERROR) from None
    except OSError as exc:
        where = exc.filename if exc.filename is not None else out
        raise CliError(f"cannot write {where}: {exc.strerror or exc}", EXIT_ERROR) from None


def _game_spec(
    games: int, mix: str, seed: int, p0: str, p1: str, first: str, variants: tuple[str, ...]
) -> RunSpec:
    """The RunSpec the ``_game_options`` name (compare and sweep)."""
    return RunSpec(
        games=games,
        mix=mix,
        seed=seed,
        p0=p0,
        p1=p1,
        first=first,
        variants=_split_variants(variants),
    )


def _game_options(default_games: int) -> Any:
    """The options naming the games (shared by compare and sweep)."""

    def wrap(f: Any) -> Any:
        opts = [
            click.option(
                "--games",
                "-n",
                type=GameCount(),
                default=default_games,
                show_default=True,
                help="Games each table plays (the same game indices for every table).",
            ),
            click.option(
                "--mix",
                default="aegean",
                show_default=True,
                help="Card sets, joined by '+', e.g. 'aegean' or 'dunes+aegean'.",
            ),
            click.option(
                "--seed", type=int, default=0, show_default=True, help="Seed shared by all tables."
            ),
            click.option("--p0", default="greedy", show_default=True, help="Strategy of seat 0."),
            click.option("--p1", default="greedy", show_default=True, help="Strategy of seat 1."),
            click.option(
                "--first",
                type=click.Choice(FIRST_MODES),
                default="alternate",
                show_default=True,
                help="Who takes the first turn.",
            ),
            click.option(
                "--variant",
                "variants",
                multiple=True,
                metavar="NAME[,NAME]",
                help=f"Rule variant(s); known: {', '.join(VARIANTS)}.",
            ),
            click.option(
                "--threads",
                "-j",
                type=click.IntRange(min=1),
                default=None,
                callback=_check_threads,
                help="Worker threads for the kernel. Default: all cores.",
            ),
            click.option(
                "--chunk-size",
                type=click.IntRange(min=1),
                default=1 << 16,
                show_default=True,
                help="Games per kernel call (and Parquet part). Results do not depend on it.",
            ),
            click.option("--quiet", "-q", is_flag=True, help="Print nothing but errors."),
        ]
        for opt in reversed(opts):
            f = opt(f)
        return f

    return wrap


@click.group(cls=_OneLineErrorsGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", "-V", prog_name="omensim")
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
    """


@main.command("run", short_help="Play games and write them to Parquet.")
@click.option(
    "--games",
    "-n",
    type=GameCount(),
    default=100_000,
    show_default=True,
    help="Number of games to play; 250000, 1_000 and 1e6 are all accepted.",
)
@click.option(
    "--mix",
    default="aegean",
    show_default=True,
    help="Card sets joined by '+', the first being the base; SET:N adds N random unit "
    "cards of that set (drawn with --seed). E.g. 'aegean', 'dunes+aegean:10'.",
)
@click.option(
    "--seed",
    type=int,
    default=0,
    show_default=True,
    help="Run seed; game i depends only on (seed, i), so a run is reproducible anywhere.",
)
@click.option(
    "--out",
    "-o",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Run directory to write (must be absent or empty unless --force). "
    "Default: a new results/<mix>-s<seed>-<date>-<time>.",
)
@click.option(
    "--p0",
    default="greedy",
    show_default=True,
    help="Strategy for player 0 (seat 0): a profile of configs/strategies "
    "(random, greedy, aggressive, economic, defensive, lookahead) or a profile .toml path.",
)
@click.option(
    "--p1",
    default="greedy",
    show_default=True,
    help="Strategy for player 1 (seat 1): a profile of configs/strategies "
    "(random, greedy, aggressive, economic, defensive, lookahead) or a profile .toml path.",
)
@click.option(
    "--first",
    type=click.Choice(FIRST_MODES),
    default="alternate",
    show_default=True,
    help="Who takes the first turn: always p0, always p1, alternate game by game, "
    "or random per game.",
)
@click.option(
    "--variant",
    "variants",
    multiple=True,
    metavar="NAME[,NAME]",
    help=f"Rule variant(s) to switch on; repeat or comma-separate. Known: {', '.join(VARIANTS)}.",
)
@click.option(
    "--decks",
    type=click.Path(dir_okay=False),
    default=None,
    help="Deck-list file (TOML: p0 = [10 kind names], p1 = [...]) for --variant constructed.",
)
@click.option(
    "--rules",
    "rules_file",
    type=click.Path(dir_okay=False),
    default=None,
    help="House-rules TOML file whose [rules] table overrides named rule parameters "
    "(e.g. tiles_per_city = 3); see configs/rules/.",
)
@click.option(
    "--duplicate",
    is_flag=True,
    help="Play every deal twice, the other seat going first the second time (same "
    "shuffles, same random draws per seat); rows carry a deal_id linking the pair.",
)
@click.option(
    "--threads",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    callback=_check_threads,
    help="Worker threads for the kernel. Default: all cores. Results do not depend on it.",
)
@click.option(
    "--chunk-size",
    type=click.IntRange(min=1),
    default=1 << 16,
    show_default=True,
    help="Games per Parquet part and per kernel call; trades memory for overhead. "
    "Results do not depend on it.",
)
@click.option("--force", is_flag=True, help="Replace an earlier run in --out.")
@click.option("--quiet", "-q", is_flag=True, help="No progress line and no summary.")
@click.option(
    "--until-ci",
    type=float,
    default=None,
    callback=_check_until_ci,
    metavar="HALF_WIDTH",
    help="Stop once the 95% interval of the first-player win rate is at most "
    "+/- HALF_WIDTH (e.g. 0.005), checked after each chunk; --games is the ceiling. "
    "The manifest records the games played and games_requested.",
)
@_change_options
def run_cmd(
    games: int,
    mix: str,
    seed: int,
    out: Path | None,
    p0: str,
    p1: str,
    first: str,
    variants: tuple[str, ...],
    decks: str | None,
    rules_file: str | None,
    duplicate: bool,
    threads: int | None,
    chunk_size: int,
    force: bool,
    quiet: bool,
    until_ci: float | None,
    change: tuple[str, ...],
    card_files: tuple[str, ...],
) -> None:
    """Play bot-vs-bot games and write one Parquet row per game.

    The run directory gets part-*.parquet files and a _manifest.json that says
    "complete": true only once every game is written. A summary with the
    first-player win rate and its 95% confidence interval is printed at the end.

    \b
    Example:
      omensim run --games 1e6 --mix aegean --seed 1 --variant emissary --out results/emissary
      python -c 'import pandas as pd; print(pd.read_parquet("results/emissary").winner.mean())'
      omensim run --games 1e7 --until-ci 0.002 --mix aegean
    """
    from sim import runner
    from sim.cards import CardDataError

    try:
        spec = RunSpec(
            games=games,
            mix=mix,
            seed=seed,
            p0=p0,
            p1=p1,
            first=first,
            variants=_split_variants(variants),
            decks=decks,
            rules=rules_file,
            duplicate=duplicate,
        )
        # Chosen here rather than inside run() so messages can name it.
        out = out if out is not None else runner.default_out_dir(spec)
        result = runner.run(
            spec,
            out,
            threads=threads,
            chunk_size=chunk_size,
            force=force,
            progress=False if quiet else None,
            **_run_extras(change, card_files, until_ci),
        )
    except KeyboardInterrupt:
        # Caught here rather than left to click, which would print a blank line first.
        where = f" in {out}" if out is not None else ""
        raise CliError(
            f"interrupted; the run{where} is marked incomplete", EXIT_INTERRUPTED
        ) from None
    except SpecError as exc:
        raise CliError(str(exc), EXIT_USAGE) from None
    except (CardDataError, runner.RunError) as exc:
        raise CliError(str(exc), EXIT_ERROR) from None
    except OSError as exc:
        where = exc.filename if exc.filename is not None else out
        raise CliError(f"cannot write {where}: {exc.strerror or exc}", EXIT_ERROR) from None
    if not quiet:
        click.echo(runner.summary(result))


def _run_extras(
    change: tuple[str, ...], card_files: tuple[str, ...], until_ci: float | None
) -> dict[str, Any]:
    """The keyword arguments of runner.run that `run` passes only when given."""
    from sim.changes import Changes

    extras: dict[str, Any] = {}
    changes = Changes.parse(change, card_files)
    if changes:
        extras["changes"] = changes
    if until_ci is not None:
        extras["until_ci"] = until_ci
    return extras


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


@main.command("cards", short_help="Print the compiled card table of a mix.")
@click.option(
    "--mix",
    default="aegean",
    show_default=True,
    help="Card sets joined by '+'; SET:N adds N random unit cards of that set, "
    "e.g. 'dunes+aegean:10'.",
)
@click.option(
    "--seed",
    type=int,
    default=0,
    show_default=True,
    help="Run seed: a limited set (SET:N) draws its cards with it, as the run would.",
)
@click.option(
    "--learning",
    is_flag=True,
    help="Only the learning-game units (as --variant learning would use).",
)
def cards_cmd(mix: str, seed: int, learning: bool) -> None:
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
    """
    from sim.cards import CardDataError, load_pool

    try:
        pool = load_pool(mix, seed=seed, learning=learning)
        units = pool.frame()
        rewards = pool.rewards_frame()
        structures = pool.structures_frame()
    except SpecError as exc:
        raise CliError(str(exc), EXIT_USAGE) from None
    except CardDataError as exc:
        raise CliError(str(exc), EXIT_ERROR) from None
    except OSError as exc:
        raise CliError(f"cannot read card data: {exc}", EXIT_ERROR) from None

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


@main.command("tournament", short_help="Play every pair of bots; print a win-rate matrix.")
@click.option(
    "--mix",
    default="aegean",
    show_default=True,
    help="Card sets joined by '+', as for 'omensim run', e.g. 'dunes+aegean'.",
)
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
@click.option(
    "--seed",
    type=int,
    default=0,
    show_default=True,
    help="Seed of every pairing (all pairings play the same deals).",
)
@click.option(
    "--variant",
    "variants",
    multiple=True,
    metavar="NAME[,NAME]",
    help=f"Rule variant(s) to switch on; repeat or comma-separate. Known: {', '.join(VARIANTS)}.",
)
@click.option(
    "--out",
    "-o",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Directory for tournament.parquet, tournament.md and _tournament.json (absent "
    "or empty). Default: a new results/tournament-<mix>-s<seed>-<date>-<time>.",
)
@click.option(
    "--keep-games",
    is_flag=True,
    help="Also write every game, as one run directory per seat order under OUT/games/.",
)
@click.option(
    "--threads",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    callback=_check_threads,
    help="Worker threads for the kernel. Default: all cores. Results do not depend on it.",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress line and no tables printed.")
def tournament_cmd(
    mix: str,
    bots: str | None,
    games: int,
    seed: int,
    variants: tuple[str, ...],
    out: Path | None,
    keep_games: bool,
    threads: int | None,
    quiet: bool,
) -> None:
    """Play every pair of bots, each bot against itself too, with seats balanced.

    For two bots A and B, half the games have A in seat 0 and half in seat 1,
    on duplicate deals, so each bot plays every deal from both seats. Prints
    the row bot's win rate against the column bot with 95% Wilson intervals
    (shared victories count for neither bot; the Parquet file has them and a
    score counting them as half) and the first player's win rate in each
    self-play pairing. Writes a tidy tournament.parquet (one row per pairing),
    tournament.md (the same tables) and _tournament.json to --out.

    \b
    Example:
      omensim tournament --mix dunes+aegean --bots random,greedy --games 20000 --seed 1
      python -c 'import pandas as pd; print(pd.read_parquet("results/t/tournament.parquet"))'
    """
    from sim import tournament
    from sim.cards import CardDataError
    from sim.runner import RunError

    try:
        names = tournament.parse_bots(bots if bots is not None else tournament.valid_bots())
        tournament.check_games(games)
        out = out if out is not None else tournament.default_out_dir(mix, seed)
        result = tournament.play_tournament(
            mix,
            names,
            games,
            seed,
            _split_variants(variants),
            out=out,
            keep_games=keep_games,
            threads=threads,
            progress=False if quiet else None,
        )
    except KeyboardInterrupt:
        raise CliError("interrupted; the tournament was not finished", EXIT_INTERRUPTED) from None
    except SpecError as exc:
        raise CliError(str(exc), EXIT_USAGE) from None
    except (CardDataError, RunError) as exc:
        raise CliError(str(exc), EXIT_ERROR) from None
    except OSError as exc:
        where = exc.filename if exc.filename is not None else out
        raise CliError(f"cannot write {where}: {exc.strerror or exc}", EXIT_ERROR) from None
    if not quiet:
        click.echo(tournament.format_tournament(result))
        click.echo(
            f"Tables in {out}/; load them with: import pandas as pd; "
            f'pairs = pd.read_parquet("{out}/{tournament.PAIRS_FILE}")'
        )


def _count_label(frame: Any, what: str, physical: str) -> str:
    """E.g. "22 units (30 cards)": kinds listed, and physical copies when known."""
    label = f"{len(frame)} {what}{'s' if len(frame) != 1 else ''}"
    if "copies" in frame.columns:
        label += f" ({int(frame['copies'].sum())} {physical})"
    return label


@main.command("compare", short_help="Play the same games with and without a card change.")
@_game_options(default_games=100_000)
@_change_options
@click.option(
    "--out",
    "-o",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Also write both runs (OUT/A with the base cards, OUT/B with the changes) as run "
    "directories, and OUT/compare.json and OUT/compare.parquet.",
)
@click.option("--force", is_flag=True, help="Replace an earlier comparison in --out.")
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
    change: tuple[str, ...],
    card_files: tuple[str, ...],
    out: Path | None,
    force: bool,
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
    from sim.changes import Changes
    from sim.compare import compare, format_result

    with _user_errors(out):
        changes = Changes.parse(change, card_files)
        if not changes:
            raise SpecError("nothing to compare: give at least one --change or --cards")
        spec = _game_spec(games, mix, seed, p0, p1, first, variants)
        result = compare(
            spec,
            changes,
            out=out,
            threads=threads,
            chunk_size=chunk_size,
            force=force,
            progress=False if quiet else None,
        )
    if not quiet:
        click.echo(format_result(result))


@main.command("sweep", short_help="Shift one field of every card and measure each effect.")
@_game_options(default_games=20_000)
@click.option(
    "--field",
    default="cost",
    show_default=True,
    help="Unit field to shift: cost, offering, strength or copies.",
)
@click.option(
    "--delta",
    "deltas",
    default="-1,+1",
    show_default=True,
    metavar="D[,D]",
    help="Amounts added to the field, comma-separated, e.g. -1,+1. Values that would leave "
    "the field's range are skipped and listed.",
)
@click.option(
    "--card",
    "cards",
    multiple=True,
    metavar="NAME|KIND",
    help="Sweep only this unit (name or kind id from `omensim cards`). Repeatable; "
    "default: every unit.",
)
@click.option(
    "--out",
    "-o",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Write OUT/sweep.parquet, OUT/sweep.csv, OUT/skipped.csv and a heat map OUT/sweep.png.",
)
def sweep_cmd(
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
    field: str,
    deltas: str,
    cards: tuple[str, ...],
    out: Path | None,
) -> None:
    """For every unit and delta, play the same games with FIELD += DELTA on that unit.

    Each variant plays the same game indices with the same seed as the
    baseline (common random numbers); the table gives, per card and delta, the
    shift of the win rate of the player who played that card, with a 95%
    interval paired by game. The kernel is compiled once; each variant is only
    a new card table. It costs (cards x deltas + 1) x games games.

    \b
    Example:
      omensim sweep --mix aegean --field cost --delta -1,+1 --games 5e4 --out results/sweep
      omensim sweep --mix aegean --card "Ker of the Spoils" --card 3 --games 1e4
    """
    from sim.sweep import format_table, parse_deltas, sweep, write_outputs

    with _user_errors(out):
        spec = _game_spec(games, mix, seed, p0, p1, first, variants)
        result = sweep(
            spec,
            field.lower(),
            parse_deltas(deltas),
            cards,
            threads=threads,
            chunk_size=chunk_size,
            progress=False if quiet else None,
        )
        paths = write_outputs(result, out) if out is not None else []
    if not quiet:
        click.echo(format_table(result))
        for s in result.skipped:
            click.echo(f"skipped {s['card']} {field} {s['delta']:+d}: {s['reason']}")
        if paths:
            click.echo("Wrote " + ", ".join(str(p) for p in paths))


@main.command("report", short_help="Write an HTML report (with charts) about finished runs.")
@click.argument("runs", nargs=-1, required=True, metavar="RUN...", type=click.Path(path_type=Path))
@click.option(
    "--out",
    "-o",
    type=click.Path(path_type=Path),
    required=True,
    help="Directory to write report.html and its PNG charts into (created if absent; "
    "an earlier report there is replaced).",
)
def report_cmd(runs: tuple[Path, ...], out: Path) -> None:
    """Analyse one or more finished runs and write OUT/report.html.

    The page shows the first-player win rate of each run with its 95% interval
    (and the paired estimate for --duplicate runs), the difference of each run
    from the first one given, the cards whose players win most and least often,
    and histograms of score margins, game lengths, end reasons and where the
    points come from. The key figures are also printed here. Every number is
    computed by sim.analysis, so a notebook can reproduce it.

    \b
    Example:
      omensim report results/standard results/emissary --out reports/emissary
    """
    from sim import analysis, io, report

    try:
        page = report.build_report(list(runs), out)
    except (analysis.RunLoadError, io.IncompleteRunError, report.ReportError) as exc:
        raise CliError(str(exc), EXIT_ERROR) from None
    except OSError as exc:
        where = exc.filename if exc.filename is not None else out
        raise CliError(f"cannot write {where}: {exc.strerror or exc}", EXIT_ERROR) from None
    click.echo(page.text)
    click.echo(f"Report: {page.html}")


@main.command("replay", short_help="Replay one game of a run, step by step.")
@click.argument("run_dir", metavar="RUN", type=click.Path(path_type=Path))
@click.option(
    "--game",
    "-g",
    type=int,
    required=True,
    help="The game_id to replay (0 .. games-1 of the run).",
)
def replay_cmd(run_dir: Path, game: int) -> None:
    """Replay game GAME of the run directory RUN and print it turn by turn.

    The game is rebuilt from the run's seed, cards, variants and bots (read
    from RUN/_manifest.json) and played again step by step: the set-up, each
    Wealth, Surge, (Portent, Feat,) War and Offering step, and the final score.
    The replayed result is then compared with the game's row in the run's
    Parquet files; a difference is an error.

    \b
    Example:
      omensim run --games 1000 --mix aegean --seed 7 --out results/demo
      omensim replay results/demo --game 123
    """
    from sim import io
    from sim.cards import CardDataError
    from sim.replay import compare_rows, replay

    if not run_dir.is_dir():
        raise CliError(f"no run directory {run_dir}")
    try:
        manifest = io.read_manifest(run_dir)
    except FileNotFoundError:
        raise CliError(f"{run_dir} is not a run directory (no {io.MANIFEST_NAME})") from None
    except (OSError, ValueError) as exc:
        raise CliError(f"cannot read {run_dir / io.MANIFEST_NAME}: {exc}") from None
    if not manifest.get("complete", False):
        raise CliError(f"{run_dir} is an incomplete run (its manifest does not say complete)")
    try:
        fields = dict(manifest["spec"])
        fields["variants"] = tuple(fields.get("variants", ()))
        spec = RunSpec(**fields)
    except (KeyError, TypeError, SpecError) as exc:
        raise CliError(f"{run_dir / io.MANIFEST_NAME} has no usable run spec: {exc}") from None
    if not 0 <= game < spec.games:
        raise CliError(f"--game {game} is out of range: the run has games 0 .. {spec.games - 1}")
    row = _dataset_row(run_dir, manifest, game)
    try:
        r = replay(spec, game, check=False)
    except (SpecError, CardDataError) as exc:
        raise CliError(str(exc)) from None
    except OSError as exc:
        raise CliError(
            f"cannot read {exc.filename or 'a run input'}: {exc.strerror or exc}"
        ) from None
    text = r.text()
    # The replay checked itself against the kernel; now check the row actually on disk.
    diffs = compare_rows(r.row, row)
    click.echo(text, nl=False)
    if diffs:
        raise CliError(
            f"the replay of game {game} differs from its row in {run_dir}: " + "; ".join(diffs)
        )
    click.echo(f"Matches game {game}'s row in {run_dir} (every column).")


def _dataset_row(run_dir: Path, manifest: dict[str, Any], game: int) -> dict[str, Any]:
    """Game ``game``'s row read back from the run's Parquet part, as plain Python values."""
    import pandas as pd

    parts = [
        p
        for p in manifest.get("parts", [])
        if p.get("first_game", -1) <= game < p.get("first_game", -1) + p.get("games", 0)
    ]
    if not parts or not (run_dir / parts[0]["file"]).is_file():
        raise CliError(f"game {game} is not in the dataset in {run_dir} (no part holds it)")
    try:
        df = pd.read_parquet(run_dir / parts[0]["file"], filters=[("game_id", "==", game)])
    except Exception as exc:  # pyarrow raises many types for a broken file
        raise CliError(f"cannot read {run_dir / parts[0]['file']}: {exc}") from None
    if len(df) != 1:
        raise CliError(f"game {game} is not in the dataset in {run_dir} ({len(df)} rows found)")
    out = {}
    for col, value in df.iloc[0].items():
        if isinstance(df[col].dtype, pd.CategoricalDtype):
            value = str(value)
        out[str(col)] = value
    return out


if __name__ == "__main__":  # python -m sim.cli, for when the console script is not on PATH
    main()
